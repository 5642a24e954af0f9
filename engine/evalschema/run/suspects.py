"""Suspect gold: values on which two or more runs agree with each other and not with gold.

When independent extraction runs of the same gold write the same value where gold has
another (or none), the gold is as likely to be wrong as the runs: those values are worth
a look before they count against every run. Agreement is judged as scoring judges: the
values as compared (after the field's transforms), by the field's own comparator and
threshold, through the scorer itself (``scoring.walk.RecordScorer``), never a copy of it.

Two kinds are found, one per gold position (the gold pointer; array elements as the
field's alignment paired them, which the results' pointers carry):

- ``mismatch``: gold has a value, at least two runs have another one they agree on;
- ``hallucination``: gold has no value under a key it could hold (missing, or null under
  ``x-eval-null: absent``), at least two runs agree on one. Extracted array elements that
  alignment left unpaired are not gold positions (the element, not a key, is missing) and
  are left out; so are keys the schema does not judge, and fields judged by a batch
  comparator (the LLM judge: asking it to compare runs would cost calls).

Omissions (gold has a value, every run leaves it out) are not suspects: leaving a value
out is what extractors most often get wrong, so runs agreeing on *nothing* says little
about gold, while independent runs writing the same other value rarely happens by
chance. Nor is there a value to offer in gold's place.

One pass over the runs' findings; each position found wrong by two or more runs is
judged pairwise among its runs (a handful), so the cost is linear in the findings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from evalschema.errors import InputError, Problem
from evalschema.io.records import RecordsLike
from evalschema.pointer import resolve, split
from evalschema.policy import NATIVE, ScoringPolicy
from evalschema.results import FieldResult, RecordResult, Status, record_label
from evalschema.run.pairing import iter_pairs
from evalschema.schema.node import SchemaNode
from evalschema.scoring.walk import RecordScorer

SuspectKind = Literal["mismatch", "hallucination"]

#: Gold records by gold index (``RecordResult.gold_index``), as read.
GoldRecords = Callable[[int], Any]
#: Run k's extracted record of one of its record results, as read.
ExtractedRecords = Callable[[int, RecordResult], Any]



@dataclass(frozen=True, slots=True)
class SuspectGold:
    """A gold value (or a gold gap) that ``agreeing`` of the ``scored`` runs that scored
    its record contradict with one value they agree on."""

    #: The gold record: its place in the gold file (0-based), its id, how reports name it.
    gold_index: int
    record_id: Any
    label: str
    #: The field (``line_items[].sku``) and the value's place (``line_items[2].sku``).
    field: str
    path: str
    #: Where the value is, or belongs, in the gold record (RFC 6901, record-relative).
    gold_pointer: str
    kind: SuspectKind
    #: Gold's value as written (None for a hallucination: gold has none).
    gold: Any
    #: The value the runs agree on, as the first of them wrote it.
    agreed: Any
    agreeing: int
    scored: int
    #: The labels of the agreeing runs, in run order.
    runs: tuple[str, ...]
    schema_pointer: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"gold_index": self.gold_index, "record_id": self.record_id,
                "label": self.label, "field": self.field, "path": self.path,
                "gold_pointer": self.gold_pointer, "kind": self.kind, "gold": self.gold,
                "agreed": self.agreed, "agreeing": self.agreeing, "scored": self.scored,
                "runs": list(self.runs), "schema_pointer": self.schema_pointer}


def _judged(node: SchemaNode | None) -> bool:
    """A leaf with a comparator the scorer can call (not a batch, not a container)."""
    return node is not None and node.kind == "leaf" and node.compare is not None


def _element_map(rec: RecordResult) -> dict[str, str]:
    """Extracted pointer prefix -> gold pointer prefix, for every place both sides hold a
    value in this record: array elements as alignment paired them."""
    out = {"": ""}
    for r in rec.field_results:
        gp, ep = r.gold_pointer, r.extracted_pointer
        if gp is None or ep is None or ep in out or gp.count("/") != ep.count("/"):
            continue
        i = j = 0
        while True:
            i = ep.find("/", i + 1)
            j = gp.find("/", j + 1)
            if i < 0:
                out[ep] = gp
                break
            out.setdefault(ep[:i], gp[:j])
    return out


def _gold_gap(ep: str, emap: dict[str, str], gold: Any) -> str | None:
    """The gold pointer of a value only the extracted side has (``ep``), when gold lacks
    it under a key: None when it lies in an array element alignment left unpaired (or
    gold has a value there after all)."""
    prefix = ep
    while prefix not in emap:
        prefix = prefix[:prefix.rfind("/")]
    base = emap[prefix]
    node = resolve(gold, base, None)
    for seg in split(ep[len(prefix):]):
        if node is None:
            break  # gold's value stops (null) above the key: a gap
        if type(node) is not dict:
            return None  # an array (an element alignment left unpaired), a scalar: no key
        node = node.get(seg)
        if node is None:
            break
    else:
        return None  # gold has the value: not a gap
    return base + ep[len(prefix):]


class _Agreement:
    """Whether two values agree under a field's comparator, by scoring one against the
    other with the field's node: as compared (transformed) values through a copy without
    transforms, values as written through the node itself."""

    def __init__(self, policy: ScoringPolicy) -> None:
        self.policy = policy
        self.scorers: dict[tuple[int, bool], RecordScorer] = {}

    def __call__(self, node: SchemaNode, a: Any, b: Any, transformed: bool) -> bool:
        key = (id(node), transformed)
        scorer = self.scorers.get(key)
        if scorer is None:
            leaf = replace(node, transform_fns=(), fast=False) if transformed else node
            scorer = self.scorers[key] = RecordScorer(leaf, self.policy)
        results = scorer.score(a, b)
        return len(results) == 1 and results[0].status is Status.MATCH


_Entry = tuple[int, RecordResult, FieldResult]


def find_suspects(runs: Sequence[Sequence[RecordResult]], labels: Sequence[str],
                  root: SchemaNode, gold: GoldRecords, extracted: ExtractedRecords, *,
                  policy: ScoringPolicy = NATIVE, min_agreeing: int = 2
                  ) -> tuple[SuspectGold, ...]:
    """The suspect gold values of runs scored on one gold (each run's record results,
    as ``RunResult.records``), most agreeing runs first, then in gold order (records,
    then fields as the scorer meets them). ``gold`` and ``extracted`` give the records as
    read, for the values as written; ``root`` is the schema the runs were scored with."""
    if len(labels) != len(runs):
        raise InputError([Problem("bad-option", "one label per run is needed")])
    if min_agreeing < 2:
        raise InputError([Problem("bad-option", "agreement needs at least two runs, not "
                                  f"{min_agreeing}")])
    nodes = {n.pointer: n for n in root.walk()}
    scored: dict[int, int] = {}
    groups: dict[tuple[int, str, SuspectKind], list[_Entry]] = {}
    for k, records in enumerate(runs):
        for rec in records:
            gi = rec.gold_index
            if gi is None or rec.extracted_index is None or rec.problem is not None:
                continue
            scored[gi] = scored.get(gi, 0) + 1
            emap: dict[str, str] | None = None
            for r in rec.field_results:
                st = r.status
                if st is not Status.MISMATCH and (st is not Status.HALLUCINATION
                                                  or r.extracted_pointer is None):
                    continue
                if not _judged(nodes.get(r.schema_pointer)):
                    continue
                kind: SuspectKind
                if st is Status.MISMATCH:
                    ptr, kind = r.gold_pointer, "mismatch"
                else:
                    if emap is None:
                        emap = _element_map(rec)
                    ptr = _gold_gap(r.extracted_pointer, emap, gold(gi))  # type: ignore[arg-type]
                    kind = "hallucination"
                if ptr is not None:
                    groups.setdefault((gi, ptr, kind), []).append((k, rec, r))
    agree = _Agreement(policy)
    found: list[tuple[int, int, SuspectGold]] = []
    for seq, ((gi, ptr, kind), entries) in enumerate(groups.items()):
        if len(entries) < min_agreeing:
            continue
        clusters: list[list[_Entry]] = []
        for entry in entries:
            r = entry[2]
            for c in clusters:
                first = c[0][2]
                if first.schema_pointer == r.schema_pointer and agree(
                        nodes[r.schema_pointer], first.extracted, r.extracted,
                        kind == "mismatch"):
                    c.append(entry)
                    break
            else:
                clusters.append([entry])
        best = max(clusters, key=len)
        if len(best) < min_agreeing:
            continue
        k, rec, r = best[0]
        gold_value = None if kind == "hallucination" else resolve(gold(gi), ptr, r.gold)
        agreed = resolve(extracted(k, rec), r.extracted_pointer or "", r.extracted)
        found.append((-len(best), seq, SuspectGold(
            gi, rec.record_id, record_label(rec.record_id, rec.name, gi), r.field, r.path,
            ptr, kind, gold_value, agreed, len(best), scored[gi],
            tuple(labels[e[0]] for e in best), r.schema_pointer)))
    found.sort(key=lambda t: (t[0], t[2].gold_index, t[1]))
    return tuple(s for _, _, s in found)


class RecordsAsRead:
    """The records of runs scored from files, read again the first time a suspect asks
    for one (paired as scoring paired them, ``iter_pairs``), for the values as written:
    the results hold them as compared, after transforms."""

    def __init__(self, gold: RecordsLike, runs: Sequence[RecordsLike], id_field: str | None
                 ) -> None:
        self._gold_file = gold
        self._runs = list(runs)
        self._id_field = id_field
        self._gold: dict[int, Any] | None = None
        self._extracted: dict[int, dict[int, Any]] = {}

    def _read(self, k: int) -> dict[int, Any]:
        got = self._extracted.get(k)
        if got is None:
            got = self._extracted[k] = {}
            gold: dict[int, Any] | None = {} if self._gold is None else None
            for p in iter_pairs(self._gold_file, self._runs[k], self._id_field, stream=True):
                p = p.resolve()
                got[p.number] = p.extracted
                if gold is not None and p.gold_index is not None:
                    gold[p.gold_index] = p.gold
            if gold is not None:
                self._gold = gold
        return got

    def gold(self, index: int) -> Any:
        if self._gold is None:
            self._read(0)
        assert self._gold is not None
        return self._gold.get(index)

    def extracted(self, run: int, rec: RecordResult) -> Any:
        return self._read(run).get(rec.index)
