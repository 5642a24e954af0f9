"""Scoring a partition of joined rows into one mergeable state.

``PartitionScorer`` is built once per worker (it parses the schema and imports the
comparator modules through ``EvalSpec.evaluator``) and called on Arrow batches of the
joined rows (``rows``). Each batch becomes one row: the partition's smallest id, its
record count, and its ``PartitionState`` pickled (the run accumulators, digests and gold
problems), which the driver merges in id order (``merge``). Pairs are scored by the
engine's own ``Evaluator.score`` with a local run's record problems.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from evalschema.distributed.rows import (
    GOLD,
    ID,
    is_keyed,
    read_extracted_text,
    read_gold,
    require_id,
    run_columns,
    tag_column,
)
from evalschema.errors import InputError, Problem
from evalschema.frames import field_results_table, need
from evalschema.io.extracted import NO_RECORD, no_id_problem, usable_id
from evalschema.io.gold import GoldChecker
from evalschema.io.records import load_json
from evalschema.results import RecordResult
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.bootstrap import BootstrapSpec
from evalschema.run.evaluate import Evaluator
from evalschema.run.pairing import NO_EXTRACTED_WITH_ID, NO_GOLD_WITH_ID, Pair
from evalschema.run.parallel import PROBLEMS, WORST, Digest, EvalSpec

#: The place of a record no gold record pairs until the merge numbers it (``merge``): after
#: every gold record, as in a local run.
EXTRA = 1 << 62

#: The columns of a scored batch (one row per batch).
STATE_COLUMNS = ("first_id", "records", "state")


@dataclass(frozen=True)
class PartitionState:
    """What a partition contributes to a run: per extracted run its accumulator and
    digest, and the gold records it refused (raised together on the driver)."""

    first_id: str | None
    records: int
    accumulators: tuple[RunAccumulator, ...]
    digests: tuple[Digest, ...]
    gold_problems: tuple[Problem, ...] = ()
    #: Per run, its extracted records that could not be read: a local run's "no
    #: extracted record with this id" says how many there are (``merge`` words it so).
    unreadable: tuple[int, ...] = ()
    #: Gold records scored (the merge numbers the unpaired extracted records after them).
    golds: int = 0


def duplicate_problem(rid: Any) -> str:
    """An extracted record whose id another record of the same run holds too. The first
    of them (in the text's order, partitions having no file order) is paired."""
    return f"duplicate id {rid!r} (another extracted record of this run has it)"


def _snippet(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def _gold_value(text: str, checker: GoldChecker, problems: list[Problem], *,
                keyed: bool = True) -> Any:
    """The gold record of ``text``, or NO_RECORD with its problem kept (the codes of a
    local run: a gold record that is not JSON, not an object, or without a usable id)."""
    try:
        value = read_gold(text)
    except InputError as exc:
        problems.extend(exc.problems)
        return NO_RECORD
    found = None if keyed else checker.check(value, 0)
    if found is None and not keyed:
        found_code = "gold-missing-id"
    elif found is not None:
        found_code = found.code
    else:
        return value
    what = "is not an object" if found_code == "gold-not-object" else \
        f"has no usable {checker.id_field!r}"
    problems.append(Problem(found_code, f"a gold record {what}: {_snippet(text)}",
                            source="gold", suggestion="every gold record needs its id"))
    return NO_RECORD


def spec_of(schema: Any, *, id_field: str | None = None, fields: Sequence[str] = (),
            target: str | None = None, null_policy: str | None = None,
            modules: Sequence[str] = ()) -> EvalSpec:
    """The spec shipped to every worker: the schema as JSON (read here, so workers need
    no access to its file), the options and the comparator modules to import."""
    base = None
    if isinstance(schema, str | Path):
        base, schema = str(schema), load_json(schema, "schema", jsonc=True)
    return EvalSpec(schema, base, id_field, tuple(fields), target, null_policy, tuple(modules))


class PartitionScorer:
    """Scores batches of joined rows (``rows``) for ``runs`` extracted runs; with
    ``replicates`` each run keeps its bootstrap replicate sums (``compare``)."""

    def __init__(self, spec: EvalSpec, runs: int = 1, *, keep_records: bool = False,
                 worst: int = WORST, keep_problems: int = PROBLEMS,
                 replicates: BootstrapSpec | None = None) -> None:
        self.spec = spec
        self.replicates = replicates
        self.runs = runs
        self.keep_records = keep_records
        self.worst = worst
        self.keep_problems = keep_problems
        self.evaluator: Evaluator = spec.evaluator()
        self.id_field = require_id(self.evaluator.id_field)
        self.columns = run_columns(runs)

    def __call__(self, batch: Any) -> Any:
        """A batch of joined rows as one row: ``first_id``, ``records``, ``state``."""
        pa = need("pyarrow", "distributed runs")
        state = self.state(batch)
        return pa.table({"first_id": pa.array([state.first_id], pa.string()),
                         "records": pa.array([state.records], pa.int64()),
                         "state": pa.array([pickle.dumps(state, pickle.HIGHEST_PROTOCOL)],
                                           pa.binary())})

    def state(self, batch: Any) -> PartitionState:
        accs = tuple(RunAccumulator(keep_records=self.keep_records, replicates=self.replicates)
                     for _ in self.columns)
        digests = tuple(Digest(self.worst, self.keep_problems) for _ in self.columns)
        problems: list[Problem] = []
        unreadable = [0] * len(self.columns)
        rows = self._rows(batch)
        records = golds = 0
        for run, pair in self._pairs(rows, problems):
            golds += run == 0 and pair.gold is not NO_RECORD
            rec = self.evaluator.score(pair, accs[run])
            digests[run].add(rec, pair.gold, pair.extracted)
            records += 1
            unreadable[run] += pair.extracted is NO_RECORD and pair.extracted_index is not None
        first = next((r[0] for r in rows if is_keyed(r[0])), None)
        return PartitionState(first, records, accs, digests, tuple(problems),
                              tuple(unreadable), golds)

    def field_rows(self, batch: Any) -> Any:
        """A batch of joined rows as field-result rows: ``frames.COLUMNS`` plus ``run``
        (the extracted run's number, 0 for eval)."""
        pa = need("pyarrow", "distributed runs")
        per_run: list[list[RecordResult]] = [[] for _ in self.columns]
        acc = RunAccumulator(keep_records=False)
        for run, pair in self._pairs(self._rows(batch), []):
            per_run[run].append(self.evaluator.score(pair, acc))
        tables = []
        for run, records in enumerate(per_run):
            t = field_results_table(records)
            tables.append(t.append_column("run", pa.array([run] * t.num_rows, pa.int64())))
        return pa.concat_tables(tables)

    def _rows(self, batch: Any) -> list[tuple[Any, ...]]:
        """The batch's rows as (id, gold, extracted...) tuples, each side its (text, tag)
        or None, sorted by id (rows without an id last, by their text), so the sums are
        added in an order of their own. A side without a tag column (rows joined by hand,
        without ``SideKeyer``) folds its repeats by text."""
        names = [GOLD, *self.columns]
        n = batch.num_rows
        sides = []
        for name in names:
            texts = batch.column(name).to_pylist()
            tag = tag_column(name)
            tags = batch.column(tag).to_pylist() if tag in batch.column_names else [""] * n
            sides.append([None if t is None else (t, g) for t, g in zip(texts, tags,
                                                                        strict=True)])
        rows = list(zip(batch.column(ID).to_pylist(), *sides, strict=True))
        rows.sort(key=lambda r: (not is_keyed(r[0]), r[0] or "",
                                 tuple(x or ("", "") for x in r[1:])))
        return rows

    def _pairs(self, rows: Sequence[tuple[Any, ...]],
               problems: list[Problem]) -> Iterator[tuple[int, Pair]]:
        """(run, pair) for every record of ``rows``, as a local run pairs them by id."""
        checker = GoldChecker(self.id_field)
        for key, group in groupby(rows, key=lambda r: r[0]):
            same = list(group)
            if not is_keyed(key):  # records without an id pair with nothing, each alone
                for row in same:
                    yield from self._unkeyed(row, checker, problems)
                continue
            # A join repeats a record once per record of the other sides with its id:
            # the repeats fold back by tag (two records with one text stay two).
            golds = [t for t, _ in sorted({r[1] for r in same if r[1] is not None})]
            if len(golds) > 1:
                problems.append(Problem("duplicate-id", f"gold id {key} appears "
                                        f"{len(golds)} times", source="gold",
                                        suggestion="ids must be unique within the gold file"))
                continue
            gold = _gold_value(golds[0], checker, problems) if golds else NO_RECORD
            if golds and gold is NO_RECORD:
                continue
            rid = gold[self.id_field] if gold is not NO_RECORD else None
            for run in range(len(self.columns)):
                texts = [t for t, _ in sorted({r[2 + run] for r in same
                                               if r[2 + run] is not None})]
                yield from self._keyed(run, rid, gold, texts)

    def _keyed(self, run: int, rid: Any, gold: Any,
               texts: list[str]) -> Iterator[tuple[int, Pair]]:
        if not texts:
            if gold is not NO_RECORD:
                yield run, Pair(0, rid, gold, NO_RECORD, 0, None, problem=NO_EXTRACTED_WITH_ID)
            return
        for i, text in enumerate(texts):
            value, repaired, _ = read_extracted_text(text)
            erid = value.get(self.id_field) if rid is None else rid
            if i == 0 and gold is not NO_RECORD:
                yield run, Pair(0, rid, gold, value, 0, 0, repaired)
            else:
                yield run, Pair(EXTRA, erid, NO_RECORD, value, None, 0, repaired,
                                NO_GOLD_WITH_ID if i == 0 else duplicate_problem(erid))

    def _unkeyed(self, row: tuple[Any, ...], checker: GoldChecker,
                 problems: list[Problem]) -> Iterator[tuple[int, Pair]]:
        if row[1] is not None:
            _gold_value(row[1][0], checker, problems, keyed=False)
        for run, side in enumerate(row[2:]):
            if side is None:
                continue
            text = side[0]
            value, repaired, problem = read_extracted_text(text)
            if problem is None:
                rid = value.get(self.id_field) if isinstance(value, dict) else None
                problem = no_id_problem(self.id_field) if not usable_id(rid) else NO_GOLD_WITH_ID
            yield run, Pair(EXTRA, None, NO_RECORD, value, None, 0, repaired, problem)


class FieldRowScorer(PartitionScorer):
    """``PartitionScorer`` called for field-result rows (``field_rows``): an engine maps
    it over the joined rows to get the field-results Dataset or DataFrame."""

    def __call__(self, batch: Any) -> Any:
        return self.field_rows(batch)
