"""Run an evaluation: pair records, score each, run batch judges, aggregate.

Records stream through one at a time (``iter_evaluate``); ``RunAccumulator`` is
mergeable, so a run can be split across processes or re-scored one record at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import GoldValidationError, Problem
from .lenient import LenientParseError, parse_lenient
from .pointer import field_segments
from .policy import NATIVE, ScoringPolicy
from .postprocess import PostProcessor
from .records import RawRecord, load_json, load_records
from .registry import Registry
from .results import Counts, FieldAggregation, FieldResult, RecordResult, RunResult, Status
from .schema.select import select_fields, select_target
from .schema.tree import SchemaNode, parse_eval_schema
from .scoring import PendingBatch, RecordScorer

RecordsLike = str | Path | Iterable[Any]

# Tally slots: matches, mismatches, omissions, hallucinations, skipped, errors,
# pending, batch_errors, score_sum, weight_sum, weighted_score_sum.
_SLOT = {
    Status.MATCH: 0, Status.MISMATCH: 1, Status.OMISSION: 2, Status.HALLUCINATION: 3,
    Status.SKIPPED: 4, Status.ERROR: 5, Status.PENDING: 6, Status.BATCH_ERROR: 7,
}


_M, _MM, _OM, _HA = Status.MATCH, Status.MISMATCH, Status.OMISSION, Status.HALLUCINATION


def _counts(t: list[float]) -> Counts:
    return Counts(int(t[0]), int(t[1]), int(t[2]), int(t[3]), int(t[4]), int(t[5]), int(t[6]),
                  int(t[7]), t[8], t[9], t[10])


@dataclass
class RunAccumulator:
    """Mergeable run-level state: per-field tallies, totals, sums of record metrics."""

    per_field: dict[str, list[float]] = field(default_factory=dict)
    records: list[RecordResult] = field(default_factory=list)
    keep_records: bool = True
    n: int = 0
    sum_p: float = 0.0
    sum_r: float = 0.0
    sum_f1: float = 0.0
    sum_w: float = 0.0

    def tally(self, results: Sequence[FieldResult]) -> Counts:
        """Fold one record's results into the per-field tallies; return the record's counts."""
        rec = [0.0] * 11
        per_field = self.per_field
        for r in results:
            st = r.status
            # Identity tests, not a dict keyed by Status: Enum.__hash__ is Python code.
            slot = (0 if st is _M else 1 if st is _MM else 2 if st is _OM else
                    3 if st is _HA else _SLOT[st])
            t = per_field.get(r.field)
            if t is None:
                t = per_field[r.field] = [0.0] * 11
            t[slot] += 1
            rec[slot] += 1
            if slot < 4:
                w = r.weight
                t[9] += w
                rec[9] += w
                if slot < 2:
                    s = r.score
                    t[8] += s
                    rec[8] += s
                    t[10] += w * s
                    rec[10] += w * s
        return _counts(rec)

    def add(self, record: RecordResult, *, counted: bool = True) -> None:
        if self.keep_records:
            self.records.append(record)
        if not counted:
            return
        self.n += 1
        self.sum_p += record.precision
        self.sum_r += record.recall
        self.sum_f1 += record.f1
        self.sum_w += record.weighted_score

    def merge(self, other: RunAccumulator) -> RunAccumulator:
        out = RunAccumulator(keep_records=self.keep_records and other.keep_records)
        for src in (self, other):
            for k, t in src.per_field.items():
                mine = out.per_field.setdefault(k, [0.0] * 11)
                for i, v in enumerate(t):
                    mine[i] += v
        out.records = [*self.records, *other.records]
        out.n = self.n + other.n
        out.sum_p, out.sum_r = self.sum_p + other.sum_p, self.sum_r + other.sum_r
        out.sum_f1, out.sum_w = self.sum_f1 + other.sum_f1, self.sum_w + other.sum_w
        return out

    def result(self) -> RunResult:
        per_field = {k: FieldAggregation(k, _counts(t)) for k, t in self.per_field.items()}
        totals = Counts()
        for agg in per_field.values():
            totals = totals.merge(agg.counts)
        n = self.n
        return RunResult(
            records=tuple(self.records), per_field=per_field, totals=totals,
            mean_precision=self.sum_p / n if n else 1.0,
            mean_recall=self.sum_r / n if n else 1.0,
            mean_f1=self.sum_f1 / n if n else 1.0,
            mean_weighted_score=self.sum_w / n if n else 1.0,
            total_records=n,
        )


@dataclass
class Evaluator:
    """A schema bound for scoring, reusable across runs and records."""

    root: SchemaNode
    id_field: str | None = None
    post_process: Sequence[PostProcessor] = ()
    #: Pointer of the sub-tree of each record that is scored (``target=``).
    target_pointer: str = ""
    target_path: str = ""
    policy: ScoringPolicy = NATIVE
    scorer: RecordScorer = field(init=False)

    def __post_init__(self) -> None:
        self.scorer = RecordScorer(self.root, self.policy)

    def score_pair(self, gold: Any, extracted: Any, *, index: int, record_id: Any = None,
                   gold_index: int | None = None, extracted_index: int | None = None,
                   acc: RunAccumulator, repaired: bool = False,
                   problem: str | None = None) -> RecordResult:
        scorer = self.scorer
        tp = self.target_pointer
        if tp:
            from .pointer import resolve as ptr_resolve

            gold = ptr_resolve(gold, tp, None) if gold is not _NO_RECORD else gold
            extracted = ptr_resolve(extracted, tp, None) if extracted is not _NO_RECORD \
                else extracted
        scorer.record_index = index
        scorer.record_id = record_id
        scorer.out = []
        scorer.pending = {}
        path = self.target_path
        if gold is _NO_RECORD and extracted is _NO_RECORD:
            # Unreadable and unpaired: listed with its problem, scored nowhere (its gold
            # record, if any, already counts as omitted).
            rec = RecordResult(index, record_id, (), Counts(), gold_index, extracted_index,
                               repaired, problem)
            acc.add(rec, counted=False)
            return rec
        if gold is _NO_RECORD:
            scorer.expand(self.root, extracted, path, tp, Status.HALLUCINATION)
        elif extracted is _NO_RECORD:
            scorer.expand(self.root, gold, path, tp, Status.OMISSION)
        else:
            scorer.node(self.root, gold, extracted, path, tp, tp)
        results = scorer.out
        if scorer.pending:
            results = run_batches(results, scorer.pending.values())
        for pp in self.post_process:
            results = pp(results)
        counts = acc.tally(results)
        rec = RecordResult(index, record_id, tuple(results), counts, gold_index,
                           extracted_index, repaired, problem)
        acc.add(rec)
        return rec


_NO_RECORD = object()


def run_batches(results: list[FieldResult], batches: Iterable[PendingBatch]) -> list[FieldResult]:
    """Judge pending leaves, one call per batch comparator and record."""
    out = list(results)
    for batch in batches:
        assert batch.node.batch is not None
        try:
            scores: Sequence[float | None] = list(batch.node.batch(batch.pairs))
            error = None if len(scores) == len(batch.pairs) else \
                f"judge returned {len(scores)} scores for {len(batch.pairs)} fields"
        except Exception as exc:
            scores, error = [], f"{type(exc).__name__}: {exc}"
        for k, i in enumerate(batch.indices):
            score = scores[k] if error is None else None
            r = out[i]
            if score is None:
                out[i] = r._replace(status=Status.BATCH_ERROR,
                                 reason=error or "the judge gave no score for this field")
            else:
                s = max(0.0, min(1.0, float(score)))
                out[i] = r._replace(status=Status.MATCH if s >= batch.node.threshold
                                 else Status.MISMATCH, score=s)
    return out


def _load_schema(schema: Any) -> tuple[Any, str | None]:
    if isinstance(schema, str | Path):
        return load_json(schema, "schema"), str(schema)
    return schema, None


def _as_records(data: RecordsLike, *, strict: bool) -> list[RawRecord]:
    if isinstance(data, str | Path):
        return load_records(data, strict=strict)
    return [RawRecord(v) for v in data]


def _read_extracted(raw: RawRecord) -> tuple[Any, bool, str | None]:
    """(record, repaired, problem): rescue text answers; report what cannot be rescued."""
    value = raw.value
    if isinstance(value, dict):
        return value, False, None
    if isinstance(value, str):
        try:
            got = parse_lenient(value)
        except LenientParseError as exc:
            return _NO_RECORD, False, f"unreadable extracted record: {exc}"
        return got.value, got.repaired or raw.unparsed, None
    return _NO_RECORD, False, f"extracted record is {type(value).__name__}, not an object"


def _locate(raw: RawRecord, index: int) -> dict[str, Any]:
    if raw.line is not None:
        return {"source": raw.source, "line": raw.line}
    return {"source": raw.source, "pointer": f"/{index}"}


def _check_gold(gold: list[RawRecord], id_field: str | None) -> dict[Any, int]:
    problems: list[Problem] = []
    ids: dict[Any, int] = {}
    for i, raw in enumerate(gold):
        loc = _locate(raw, i)
        if not isinstance(raw.value, dict):
            problems.append(Problem("gold-not-object", f"gold record {i} is "
                                    f"{type(raw.value).__name__}, not an object", **loc))
            continue
        if id_field is None:
            continue
        rid = raw.value.get(id_field)
        if rid is None or isinstance(rid, dict | list):
            problems.append(Problem("gold-missing-id", f"gold record {i} has no usable "
                                    f"{id_field!r}", **loc,
                                    suggestion="every gold record needs its id"))
        elif rid in ids:
            problems.append(Problem("duplicate-id", f"gold id {rid!r} appears again (first in "
                                    f"record {ids[rid]})", **loc,
                                    suggestion="ids must be unique within the gold file"))
        else:
            ids[rid] = i
    if problems:
        raise GoldValidationError(problems, "the gold records are unusable")
    return ids


def iter_evaluate(gold: RecordsLike, extracted: RecordsLike, evaluator: Evaluator,
                  acc: RunAccumulator) -> Iterator[RecordResult]:
    """Score record pairs one at a time (gold order, then unpaired extracted)."""
    gold_raw = _as_records(gold, strict=True)
    ext_raw = _as_records(extracted, strict=False)
    id_field = evaluator.id_field
    _check_gold(gold_raw, id_field)
    read = [_read_extracted(r) for r in ext_raw]
    if id_field is None:
        for i, graw in enumerate(gold_raw):
            if i < len(read):
                value, repaired, problem = read[i]
                yield evaluator.score_pair(graw.value, value, index=i, gold_index=i,
                                           extracted_index=i, acc=acc, repaired=repaired,
                                           problem=problem)
            else:
                yield evaluator.score_pair(graw.value, _NO_RECORD, index=i, gold_index=i,
                                           acc=acc, problem="no extracted record")
        for j in range(len(gold_raw), len(read)):
            value, repaired, problem = read[j]
            yield evaluator.score_pair(_NO_RECORD, value, index=j, extracted_index=j, acc=acc,
                                       repaired=repaired,
                                       problem=problem or "no gold record at this position")
        return
    by_id: dict[Any, int] = {}
    leftovers: list[tuple[int, str]] = []
    for j, (value, _, problem) in enumerate(read):
        if value is _NO_RECORD:
            leftovers.append((j, problem or "unreadable"))
            continue
        rid = value.get(id_field)
        if rid is None or isinstance(rid, dict | list):
            leftovers.append((j, f"extracted record has no {id_field!r}"))
        elif rid in by_id:
            leftovers.append((j, f"duplicate id {rid!r} (first at extracted record "
                                 f"{by_id[rid]})"))
        else:
            by_id[rid] = j
    index = 0
    for i, graw in enumerate(gold_raw):
        rid = graw.value[id_field]
        found = by_id.pop(rid, None)
        if found is None:
            unread = [p for jj, p in leftovers if read[jj][0] is _NO_RECORD]
            problem = "no extracted record with this id"
            if unread:
                problem += f" ({len(unread)} extracted record(s) unreadable)"
            yield evaluator.score_pair(graw.value, _NO_RECORD, index=index, record_id=rid,
                                       gold_index=i, acc=acc, problem=problem)
        else:
            value, repaired, _ = read[found]
            yield evaluator.score_pair(graw.value, value, index=index, record_id=rid,
                                       gold_index=i, extracted_index=found, acc=acc,
                                       repaired=repaired)
        index += 1
    extra = sorted([*((j, "no gold record with this id") for j in by_id.values()), *leftovers])
    for j, problem in extra:
        value, repaired, _ = read[j]
        rid = value.get(id_field) if isinstance(value, dict) else None
        yield evaluator.score_pair(_NO_RECORD, value, index=index, record_id=rid, extracted_index=j, acc=acc,
                                   repaired=repaired, problem=problem)
        index += 1


def make_evaluator(schema: Any, *, id_field: str | None = None,
                   post_process: PostProcessor | Sequence[PostProcessor] | None = None,
                   registry: Registry | None = None, fields: Sequence[str] | None = None,
                   target: str | None = None, null_policy: str | None = None,
                   base_uri: str | None = None) -> Evaluator:
    raw, path = _load_schema(schema)
    root = parse_eval_schema(raw, registry=registry, base_uri=base_uri or path,
                             null_policy=null_policy)
    rid = id_field or root.id_field
    target_pointer = target_path = ""
    if target:
        root, target_pointer, target_path = select_target(root, field_segments(target))
    if fields:
        root = select_fields(root, [field_segments(f) for f in fields])
    pps: Sequence[PostProcessor] = () if post_process is None else (
        [post_process] if callable(post_process) else list(post_process))
    return Evaluator(root, rid, pps, target_pointer, target_path)


def evaluate(gold: RecordsLike, extracted: RecordsLike, schema: Any, *,
             id_field: str | None = None,
             post_process: PostProcessor | Sequence[PostProcessor] | None = None,
             registry: Registry | None = None, fields: Sequence[str] | None = None,
             target: str | None = None, null_policy: str | None = None,
             base_uri: str | None = None, keep_records: bool = True,
             on_record: Callable[[RecordResult], None] | None = None) -> RunResult:
    """Score extracted records against gold under an eval schema.

    ``gold`` and ``extracted`` are lists or paths (JSON array, JSONL, folder);
    extracted items may be text, rescued leniently. Records pair by ``id_field``
    (or the schema's ``x-eval-id``), else by position; unequal counts give
    omitted or hallucinated records, never an error. Raises ``SchemaError`` or
    ``GoldValidationError`` (each listing every located problem) for broken inputs.
    """
    evaluator = make_evaluator(schema, id_field=id_field, post_process=post_process,
                               registry=registry, fields=fields, target=target,
                               null_policy=null_policy, base_uri=base_uri)
    acc = RunAccumulator(keep_records=keep_records)
    for rec in iter_evaluate(gold, extracted, evaluator, acc):
        if on_record is not None:
            on_record(rec)
    return acc.result()
