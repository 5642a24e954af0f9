"""The Poisson bootstrap of ``compare``: what a bootstrap is (``BootstrapSpec``) and what
it resamples (each record's unit key).

Each unit (a gold record; an extracted record no gold record paired) gets, in replicate
b, a Poisson(1) weight that depends only on (seed, the unit's key, b): never on where
the unit sits, which machine scored it, or which other units exist. So a run's
replicate sums are plain sums over its records, added in any order and merged across
processes or a cluster, and two runs scored apart are still *paired*: the same record
weighs the same in both. The weights and the sums they make are ``run.replicates``'
(numpy), imported only by runs that keep replicates: a plain run, the CLI and the
language server never load numpy for this module.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from evalschema.results import RecordResult

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0

#: Per-record columns, first: [defined, value] of precision, recall and F1 (macro means).
MACRO = 6
#: Then, per field, four count columns: score sum, precision denominator
#: (matches + mismatches + hallucinations), recall denominator (matches + mismatches +
#: omissions), number scored.
S, DP, DR, N = range(4)
FIELD_WIDTH = 4
#: Records folded into a tally at a time (one matrix product): bounds the weights' memory.
BATCH = 1024


@dataclass(frozen=True, slots=True)
class BootstrapSpec:
    """How many replicates, from which seed: two tallies merge or compare only under the
    same spec."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED


def unit_hash(key: Any) -> int:
    """64 bits of blake2b over the key's canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=repr)
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"),
                                          digest_size=8).digest(), "little")


def unit_key(rec: RecordResult, seen: dict[Any, int]) -> Any:
    """The record's resampling unit: its gold record's id when the run pairs by id (every
    run and every machine agree on it), else the gold record's index; an extracted
    record no gold record paired is ("extra", id or file name or index, n), n counting
    the earlier ones of that name in ``seen`` (the run's)."""
    if rec.gold_index is not None:
        return ("id", rec.record_id) if rec.record_id is not None else ("gold", rec.gold_index)
    base = ("extra", rec.record_id if rec.record_id is not None else
            rec.name if rec.name is not None else rec.index)
    n = seen.get(base, 0)
    seen[base] = n + 1
    return (*base, n)
