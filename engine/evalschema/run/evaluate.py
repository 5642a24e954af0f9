"""Run an evaluation: pair records, score each, run batch judges, aggregate.

Records stream through one at a time (``iter_evaluate``); ``RunAccumulator`` is
mergeable, so a run can be split across processes or re-scored one record at a time.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from evalschema.errors import GoldValidationError, Problem
from evalschema.io.lenient import LenientParseError, parse_lenient
from evalschema.io.records import (
    RawLine,
    RawRecord,
    decode_line,
    is_streamable,
    iter_lines,
    iter_raw_lines,
    iter_records,
    iter_records_text,
    load_json,
    load_records,
    not_utf8,
    read_line_at,
)
from evalschema.judge.settings import JudgeSettings, use_judges
from evalschema.pointer import field_segments
from evalschema.policy import NATIVE, ScoringPolicy
from evalschema.results import (
    Counts,
    FieldAggregation,
    FieldResult,
    RecordResult,
    RunResult,
    Status,
)
from evalschema.rules.registry import Registry
from evalschema.run.gcpause import gc_paused
from evalschema.schema.select import select_fields, select_target
from evalschema.schema.tree import SchemaNode, parse_eval_schema
from evalschema.scoring.postprocess import PostProcessor
from evalschema.scoring.specialized import SpecializedScorer, specializable, specialize_scorer
from evalschema.scoring.tally import fold, make_counts, unfold
from evalschema.scoring.walk import PendingBatch, RecordScorer

RecordsLike = str | Path | Iterable[Any]

#: tuple.__new__ skips the NamedTuple's Python-level __new__ (one RecordResult per record).
_new = tuple.__new__


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
        counts = [0] * 8
        return make_counts(counts, *fold(results, 0, self.per_field, counts, 0.0, 0.0, 0.0))

    def add(self, record: RecordResult, *, counted: bool = True) -> None:
        if self.keep_records:
            self.records.append(record)
        if not counted:
            return
        self.n += 1
        p, r, f1, w = record.counts.metrics()  # once, not four property calls
        self.sum_p += p
        self.sum_r += r
        self.sum_f1 += f1
        self.sum_w += w

    def update(self, other: RunAccumulator) -> None:
        """Fold ``other`` into this accumulator in place (the same sums as ``merge``)."""
        for k, t in other.per_field.items():
            mine = self.per_field.get(k)
            if mine is None:
                self.per_field[k] = list(t)
                continue
            for i, v in enumerate(t):
                mine[i] += v
        if self.keep_records:
            self.records.extend(other.records)
        self.n += other.n
        self.sum_p += other.sum_p
        self.sum_r += other.sum_r
        self.sum_f1 += other.sum_f1
        self.sum_w += other.sum_w

    def copy(self, *, records: bool = True) -> RunAccumulator:
        """An independent copy of the sums, to resume from later (the language server
        keeps one every few hundred records, so a run whose first records did not
        change resumes there instead of re-adding them; sums stay in record order,
        hence bit-identical). ``records=False`` leaves the record list empty."""
        return RunAccumulator({k: list(t) for k, t in self.per_field.items()},
                              list(self.records) if records else [], self.keep_records,
                              self.n, self.sum_p, self.sum_r, self.sum_f1, self.sum_w)

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
    #: The scorer specialized to this schema (``specialized``), which scores and tallies in
    #: one pass; None for schemas it turns down (``specialized.specializable``).
    specialized: SpecializedScorer | None = field(init=False, default=None, repr=False,
                                            compare=False)

    def __post_init__(self) -> None:
        self.scorer = RecordScorer(self.root, self.policy)
        if specializable(self.root):
            self.specialized = specialize_scorer(self.scorer, self.target_path, self.target_pointer)

    def score_pair(self, gold: Any, extracted: Any, *, index: int, record_id: Any = None,
                   gold_index: int | None = None, extracted_index: int | None = None,
                   acc: RunAccumulator, repaired: bool = False,
                   problem: str | None = None) -> RecordResult:
        return self.score_positional(gold, extracted, index, record_id, gold_index,
                                     extracted_index, repaired, problem, acc)

    def score_positional(self, gold: Any, extracted: Any, index: int, record_id: Any,
                         gold_index: int | None, extracted_index: int | None, repaired: bool,
                         problem: str | None, acc: RunAccumulator) -> RecordResult:
        """``score_pair`` with positional arguments (the per-record path, where keyword
        arguments cost a measurable share of a record's time)."""
        scorer = self.scorer
        tp = self.target_pointer
        if tp:
            from evalschema.pointer import resolve as ptr_resolve

            gold = ptr_resolve(gold, tp, None) if gold is not _NO_RECORD else gold
            extracted = ptr_resolve(extracted, tp, None) if extracted is not _NO_RECORD \
                else extracted
        scorer.begin(index, record_id)
        path = self.target_path
        if gold is _NO_RECORD and extracted is _NO_RECORD:
            # Unreadable and unpaired: listed with its problem, scored nowhere (its gold
            # record, if any, already counts as omitted).
            unscored = RecordResult(index, record_id, (), Counts(), gold_index,
                                    extracted_index, repaired, problem)
            acc.add(unscored, counted=False)
            return unscored
        specialized = self.specialized
        if specialized is not None and gold is not _NO_RECORD and extracted is not _NO_RECORD \
                and not self.post_process:
            # Scored and tallied in one pass (see ``specialized``). A record that fails
            # part-way (a comparator returning no number, say) is tallied nowhere, as
            # with the general walk, which tallies only once a record is whole.
            try:
                counts = specialized(gold, extracted, index, record_id, acc.per_field)
            except BaseException:
                unfold(scorer.out, acc.per_field)
                raise
            results = scorer.out
        else:
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
        rec: RecordResult = _new(RecordResult, (index, record_id, tuple(results), counts,
                                                gold_index, extracted_index, repaired, problem))
        acc.add(rec)
        return rec


class _NoRecord:
    """The side of a pair that has no record (a singleton that survives pickling, so
    pairs can be scored in worker processes)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_RECORD"

    def __reduce__(self) -> str:
        return "NO_RECORD"


NO_RECORD: Any = _NoRecord()
_NO_RECORD = NO_RECORD


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


def _as_records(data: RecordsLike, *, strict: bool) -> list[RawRecord] | list[Any]:
    """Records read from a file (``RawRecord``s, which know where they came from), or
    in-memory records as they are: wrapping each costs more than scoring it cheaply."""
    if isinstance(data, str | Path):
        return load_records(data, strict=strict)
    return list(data)


def _raw(record: Any) -> RawRecord:
    return record if type(record) is RawRecord else RawRecord(record)


def read_extracted(raw: RawRecord) -> tuple[Any, bool, str | None]:
    """(record, repaired, problem): rescue text answers; report what cannot be rescued.
    The language server reads extracted records with it too, so both judge them alike."""
    value = raw.value
    if isinstance(value, dict):
        return value, False, None
    if isinstance(value, str):
        where = not_utf8(value) if raw.unparsed else None
        if where is not None:
            return _NO_RECORD, False, f"unreadable extracted record: line is not UTF-8 ({where})"
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


def _check_gold(gold: list[RawRecord] | list[Any], id_field: str | None) -> dict[Any, int]:
    """Every gold record an object with a usable, unique id (when pairing by id)."""
    problems: list[Problem] = []
    ids: dict[Any, int] = {}
    for i, rec in enumerate(gold):
        value = rec.value if type(rec) is RawRecord else rec
        if not isinstance(value, dict):
            problems.append(Problem("gold-not-object", f"gold record {i} is "
                                    f"{type(value).__name__}, not an object",
                                    **_locate(_raw(rec), i)))
            continue
        if id_field is None:
            continue
        rid = value.get(id_field)
        if rid is None or isinstance(rid, dict | list):
            problems.append(Problem("gold-missing-id", f"gold record {i} has no usable "
                                    f"{id_field!r}", **_locate(_raw(rec), i),
                                    suggestion="every gold record needs its id"))
        elif rid in ids:
            problems.append(Problem("duplicate-id", f"gold id {rid!r} appears again (first in "
                                    f"record {ids[rid]})", **_locate(_raw(rec), i),
                                    suggestion="ids must be unique within the gold file"))
        else:
            ids[rid] = i
    if problems:
        raise GoldValidationError(problems, "the gold records are unusable")
    return ids


class Pair(NamedTuple):
    """A gold record and the extracted record it is paired with, before scoring.

    Either side may be ``NO_RECORD``, or an unparsed ``RawLine`` (parsed by
    ``resolve``, where the pair is scored). A NamedTuple: one is built per record and
    sent to a worker process, and a tuple builds and pickles several times faster
    than a frozen dataclass.
    """

    #: The record's place in the run (``RecordResult.index``).
    number: int
    record_id: Any
    gold: Any
    extracted: Any
    gold_index: int | None = None
    extracted_index: int | None = None
    repaired: bool = False
    problem: str | None = None
    #: When ``extracted`` is an unparsed ``RawLine``: whether the problem found reading
    #: it is the pair's problem (pairing by position) or ``problem`` stands (by id).
    read_problem: bool = False

    def resolve(self) -> Pair:
        """This pair with unparsed lines parsed (extracted ones rescued leniently)."""
        gold, ext = self.gold, self.extracted
        if not isinstance(gold, RawLine) and not isinstance(ext, RawLine):
            return self
        repaired, problem = self.repaired, self.problem
        if isinstance(gold, RawLine):
            gold = gold.parse().value
        if isinstance(ext, RawLine):
            ext, repaired, read = read_extracted(ext.parse())
            if self.read_problem:
                problem = read or problem
        return Pair(self.number, self.record_id, gold, ext, self.gold_index,
                    self.extracted_index, repaired, problem)

    def score(self, evaluator: Evaluator, acc: RunAccumulator) -> RecordResult:
        if type(self.gold) is RawLine or type(self.extracted) is RawLine:
            return self.resolve().score(evaluator, acc)
        return evaluator.score_positional(self.gold, self.extracted, self.number, self.record_id,
                                          self.gold_index, self.extracted_index, self.repaired,
                                          self.problem, acc)


def iter_evaluate(gold: RecordsLike, extracted: RecordsLike, evaluator: Evaluator,
                  acc: RunAccumulator, *, stream: bool = False) -> Iterator[RecordResult]:
    """Score record pairs one at a time (gold order, then unpaired extracted).

    ``stream=True`` reads files record by record instead of loading them (see
    ``iter_pairs``); the results are the same.
    """
    for pair in iter_pairs(gold, extracted, evaluator.id_field, stream=stream):
        yield pair.score(evaluator, acc)


def iter_pairs(gold: RecordsLike, extracted: RecordsLike, id_field: str | None, *,
               stream: bool = False, scanner: Scanner | None = None,
               scan_parts: int = 1) -> Iterator[Pair]:
    """Pair gold and extracted records: by ``id_field``, else by position.

    In memory (``stream=False``) every gold record is checked before the first pair.
    Streaming never holds all records: by position both files are read in lockstep;
    by id the extracted file is indexed (id -> byte offset) and each record read back
    when its gold record comes. Gold problems are then collected as the gold streams
    (no pair is yielded after the first) and raised together at the end.

    ``scanner`` indexes the extracted file's byte ranges elsewhere (``scan_parts`` of
    them, e.g. on worker processes); the index is the same.
    """
    if stream:
        if id_field is None:
            return _stream_by_position(gold, extracted)
        return _stream_by_id(gold, extracted, id_field, scanner, scan_parts)
    return _pairs_in_memory(gold, extracted, id_field)


def _pairs_in_memory(gold: RecordsLike, extracted: RecordsLike,
                     id_field: str | None) -> Iterator[Pair]:
    gold_raw = _as_records(gold, strict=True)
    ext_raw = _as_records(extracted, strict=False)
    _check_gold(gold_raw, id_field)
    gold_values: list[Any] = [r.value if type(r) is RawRecord else r for r in gold_raw]
    # An in-memory object needs no reading: (record, repaired, problem) at once.
    read = [(r, False, None) if type(r) is dict else read_extracted(_raw(r)) for r in ext_raw]
    if id_field is None:
        for i, gvalue in enumerate(gold_values):
            if i < len(read):
                value, repaired, problem = read[i]
                yield _new(Pair, (i, None, gvalue, value, i, i, repaired, problem, False))
            else:
                yield Pair(i, None, gvalue, _NO_RECORD, i, None,
                           problem="no extracted record")
        for j in range(len(gold_raw), len(read)):
            value, repaired, problem = read[j]
            yield Pair(j, None, _NO_RECORD, value, None, j, repaired,
                       problem or "no gold record at this position")
        return
    m = match_ids([g[id_field] for g in gold_values], [(v, p) for v, _, p in read], id_field)
    unread = sum(1 for _, code, _ in m.extra if code == "unreadable-record")
    for i, gvalue in enumerate(gold_values):
        rid = gvalue[id_field]
        found = m.found[i]
        if found is None:
            yield Pair(i, rid, gvalue, _NO_RECORD, i, None, problem=_missing_problem(unread))
        else:
            value, repaired, _ = read[found]
            yield _new(Pair, (i, rid, gvalue, value, i, found, repaired, None, False))
    index = len(gold_values)
    for j, _, problem in m.extra:
        value, repaired, _ = read[j]
        rid = value.get(id_field) if isinstance(value, dict) else None
        yield Pair(index, rid, _NO_RECORD, value, None, j, repaired, problem)
        index += 1


class IdMatch(NamedTuple):
    """Extracted records matched to gold ids (``match_ids``)."""

    #: Per gold id, in gold order: the extracted record holding it, or None.
    found: list[int | None]
    #: Extracted records left unpaired, in file order: (index, code, problem). Codes:
    #: ``unreadable-record``, ``missing-id``, ``duplicate-id``, ``no-gold-record``.
    extra: list[tuple[int, str, str]]
    #: Id -> the first extracted record holding it.
    first: dict[Any, int]


def match_ids(gold_ids: Sequence[Any], extracted: Sequence[tuple[Any, str | None]],
              id_field: str) -> IdMatch:
    """Pair in-memory records by id. ``extracted`` holds each record's (value, problem
    reading it), the value ``NO_RECORD`` when it could not be read. Shared by
    ``evaluate`` and the language server, which reports the codes where they are."""
    first: dict[Any, int] = {}
    extra: list[tuple[int, str, str]] = []
    for j, (value, problem) in enumerate(extracted):
        if value is _NO_RECORD:
            extra.append((j, "unreadable-record", problem or "unreadable"))
            continue
        rid = value.get(id_field)
        if rid is None or isinstance(rid, dict | list):
            extra.append((j, "missing-id", f"extracted record has no {id_field!r}"))
        elif rid in first:
            extra.append((j, "duplicate-id", f"duplicate id {rid!r} (first at extracted "
                                             f"record {first[rid]})"))
        else:
            first[rid] = j
    unpaired = dict(first)
    found = [unpaired.pop(rid, None) for rid in gold_ids]
    extra.extend((j, "no-gold-record", "no gold record with this id") for j in unpaired.values())
    extra.sort()
    return IdMatch(found, extra, first)


def _missing_problem(unread: int) -> str:
    problem = "no extracted record with this id"
    if unread:
        problem += f" ({unread} extracted record(s) unreadable)"
    return problem


class _GoldChecker:
    """Gold checks one record at a time, collecting every problem (streaming)."""

    def __init__(self, id_field: str | None) -> None:
        self.id_field = id_field
        self.ids: dict[Any, int] = {}
        self.problems: list[Problem] = []

    def ok(self, raw: RawRecord, i: int) -> bool:
        value = raw.value
        if type(value) is dict:
            if self.id_field is None:
                return True
            rid = value.get(self.id_field)
            if type(rid) is str or type(rid) is int:  # the common case, checked cheaply
                first = self.ids.setdefault(rid, i)
                if first == i:
                    return True
        loc = _locate(raw, i)
        if not isinstance(raw.value, dict):
            self.problems.append(Problem("gold-not-object", f"gold record {i} is "
                                         f"{type(raw.value).__name__}, not an object", **loc))
            return False
        if self.id_field is None:
            return True
        rid = raw.value.get(self.id_field)
        if rid is None or isinstance(rid, dict | list):
            self.problems.append(Problem("gold-missing-id", f"gold record {i} has no usable "
                                         f"{self.id_field!r}", **loc,
                                         suggestion="every gold record needs its id"))
            return False
        first = self.ids.setdefault(rid, i)
        if first != i:
            self.problems.append(Problem(
                "duplicate-id", f"gold id {rid!r} appears again (first in record {first})",
                **loc, suggestion="ids must be unique within the gold file"))
            return False
        return True

    def finish(self) -> None:
        if self.problems:
            raise GoldValidationError(self.problems, "the gold records are unusable")


def _gold_stream(gold: RecordsLike) -> Iterator[tuple[RawRecord, RawLine | None]]:
    if isinstance(gold, str | Path):
        return iter_records_text(gold, strict=True)
    return ((RawRecord(v), None) for v in gold)


def _stream_by_position(gold: RecordsLike, extracted: RecordsLike) -> Iterator[Pair]:
    check = _GoldChecker(None)
    lines = iter_raw_lines(extracted) if isinstance(extracted, str | Path) else None
    ext_it: Iterator[RawRecord | RawLine] = lines if lines is not None else (
        iter_records(extracted, strict=False) if isinstance(extracted, str | Path)
        else (RawRecord(v) for v in extracted))
    n_gold = 0
    for i, (graw, gline) in enumerate(_gold_stream(gold)):
        n_gold = i + 1
        eraw = next(ext_it, None)
        if not check.ok(graw, i) or check.problems:
            continue
        gvalue = gline if gline is not None else graw.value
        if eraw is None:
            yield Pair(i, None, gvalue, _NO_RECORD, i, None, problem="no extracted record")
        elif isinstance(eraw, RawLine):
            yield Pair(i, None, gvalue, eraw, i, i, read_problem=True)
        else:
            value, repaired, problem = read_extracted(eraw)
            yield Pair(i, None, gvalue, value, i, i, repaired, problem)
    check.finish()
    for j, eraw in enumerate(ext_it, start=n_gold):
        if isinstance(eraw, RawLine):
            yield Pair(j, None, _NO_RECORD, eraw, None, j,
                       problem="no gold record at this position", read_problem=True)
            continue
        value, repaired, problem = read_extracted(eraw)
        yield Pair(j, None, _NO_RECORD, value, None, j, repaired,
                   problem or "no gold record at this position")


@dataclass
class ScanPart:
    """What scanning one byte range of an extracted JSONL file found: per record its
    offset, length, line (within the range) and id, or why it has no usable id."""

    offsets: list[int]
    lengths: list[int]
    lines: list[int]
    ids: list[Any]
    #: (record number within the range, problem, unreadable?)
    problems: list[tuple[int, str, bool]]
    #: Lines in the range (blank ones too), to number the next range's lines.
    n_lines: int
    #: The range could not be scanned here (text that is not UTF-8): scan the file in
    #: the calling process, which reports it located.
    failed: bool = False


def split_ranges(path: str | Path, parts: int) -> list[tuple[int, int]]:
    """``parts`` byte ranges of a file, each starting at a line start."""
    p = Path(path)
    size = p.stat().st_size
    cuts = [0]
    with p.open("rb") as f:
        for k in range(1, parts):
            f.seek(max(cuts[-1], size * k // parts))
            if f.tell() > 0:
                f.seek(f.tell() - 1)
                f.readline()  # to the start of the next line
            pos = f.tell()
            if cuts[-1] < pos < size:
                cuts.append(pos)
    cuts.append(size)
    return list(itertools.pairwise(cuts))


def scan_range(path: str, start: int, end: int, id_field: str) -> ScanPart:
    """Scan the records of ``path`` between byte ``start`` and ``end`` (line starts) for
    their ids: the work of indexing an extracted file, splittable across processes."""
    part = ScanPart([], [], [], [], [], 0)
    with open(path, "rb") as f:
        f.seek(start)
        pos = start
        lineno = 0
        j = -1
        while pos < end:
            raw = f.readline()
            if not raw:
                break
            offset, pos = pos, pos + len(raw)
            lineno += 1
            if offset == 0 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            text = decode_line(raw)  # a line that is not UTF-8: an unreadable record
            stripped = text.strip()
            if not stripped:
                continue
            j += 1
            indent = len(text) - len(text.lstrip())
            part.offsets.append(offset)
            part.lengths.append(_span_length(stripped, indent, offset))
            part.lines.append(lineno)
            rid, problem, unread = _line_id(stripped, id_field,
                                            partial(RawLine, stripped, path, lineno, indent))
            part.ids.append(rid)
            if problem is not None:
                part.problems.append((j, problem, unread))
        part.n_lines = lineno
    return part


def _span_length(text: str, indent: int, offset: int) -> int:
    """Bytes to read back for a line: room for a multi-byte indent, a BOM, the break."""
    return len(text.encode()) + 4 * indent + 2 + (3 if offset == 0 else 0)


def _line_id(text: str, id_field: str, raw_line: Callable[[], RawLine]
             ) -> tuple[Any, str | None, bool]:
    """(id, problem, unreadable) of one stripped JSONL line: json.loads for plain objects,
    the lenient reader (through ``raw_line``) for anything else."""
    value: Any = None
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
    if type(value) is not dict:
        read, _, problem = read_extracted(raw_line().parse())
        if read is _NO_RECORD:
            return None, problem or "unreadable", True
        value = read
    rid = value.get(id_field)
    if rid is None or isinstance(rid, dict | list):
        return None, f"extracted record has no {id_field!r}", False
    return rid, None, False


#: Scans the byte ranges of an extracted file, in order (e.g. on worker processes).
Scanner = Callable[[str, list[tuple[int, int]], str], list[ScanPart]]


class _ExtractedIndex:
    """Extracted records by id, without holding them: a JSONL file is indexed as
    id -> record number -> (byte offset, length, line) and each line read back with one
    ``pread`` when its gold record comes; other sources (a JSON array, a folder, a
    list) are held, as they must be read whole anyway."""

    def __init__(self, extracted: RecordsLike, id_field: str,
                 scanner: Scanner | None = None, parts: int = 1) -> None:
        import array

        self.path: Path | None = None
        self.source = ""
        self.held: list[RawRecord] = []
        self.offsets = array.array("q")
        self.lengths = array.array("l")
        self.lines = array.array("l")
        self.by_id: dict[Any, int] = {}
        self.leftovers: list[tuple[int, str]] = []
        self.unread = 0
        self._fd: int | None = None
        streamed = isinstance(extracted, str | Path) and Path(extracted).is_file() \
            and is_streamable(extracted)
        if streamed:
            self.path = Path(extracted)  # type: ignore[arg-type]
            self.source = str(self.path)
        if streamed and scanner is not None and self._first_line_is_not_array():
            scanned = scanner(self.source, split_ranges(self.source, parts), id_field)
            if not any(p.failed for p in scanned):
                self._merge(scanned)
                return
        if streamed and self._scan_lines(id_field):
            return
        records: Iterable[tuple[RawRecord, RawLine | None]] = iter_records_text(
            extracted, strict=False) if isinstance(extracted, str | Path) else (
            (RawRecord(v), None) for v in extracted)
        for j, (raw, line) in enumerate(records):
            if streamed:
                if raw.offset is None or line is None:  # one-line array: items have no lines
                    self.path = None
                    self.held = [*(self._get_raw(k) for k in range(j)), raw]
                    streamed = False
                else:
                    self.offsets.append(raw.offset)
                    # the text, its indent, a BOM on the first line, slack for "\r\n"
                    self.lengths.append(len(line.text.encode()) + 4 * line.indent + 2
                                        + (3 if raw.offset == 0 else 0))
                    self.lines.append(raw.line or 0)
            else:
                self.held.append(raw)
            value, _, problem = read_extracted(raw)
            if value is _NO_RECORD:
                self.leftovers.append((j, problem or "unreadable"))
                self.unread += 1
                continue
            rid = value.get(id_field)
            if rid is None or isinstance(rid, dict | list):
                self.leftovers.append((j, f"extracted record has no {id_field!r}"))
            else:
                first = self.by_id.setdefault(rid, j)
                if first != j:
                    self.leftovers.append((j, f"duplicate id {rid!r} (first at extracted "
                                              f"record {first})"))

    def _first_line_is_not_array(self) -> bool:
        for _, _, _, text in iter_lines(self.source):
            return not text.startswith("[")
        return True

    def _merge(self, parts: list[ScanPart]) -> None:
        """Fold scanned ranges, in file order, into one index (ids checked for duplicates
        in record order, so the result is the one a single scan gives)."""
        base_j = base_line = 0
        leftovers = self.leftovers
        for part in parts:
            self.offsets.extend(part.offsets)
            self.lengths.extend(part.lengths)
            self.lines.extend(line + base_line for line in part.lines)
            problems = {j: (p, unread) for j, p, unread in part.problems}
            for j, rid in enumerate(part.ids):
                gj = base_j + j
                if rid is None:
                    problem, unread = problems[j]
                    leftovers.append((gj, problem))
                    self.unread += unread
                    continue
                self._index_id(rid, gj)
            base_j += len(part.ids)
            base_line += part.n_lines

    def _index_id(self, rid: Any, j: int) -> None:
        """Record ``j`` holds id ``rid``: indexed, or a leftover when the id came before."""
        first = self.by_id.setdefault(rid, j)
        if first != j:
            self.leftovers.append((j, f"duplicate id {rid!r} (first at extracted record "
                                      f"{first})"))

    def _scan_lines(self, id_field: str) -> bool:
        """The fast path for a JSONL file: read each line's id without building record
        objects (lines that are not plain JSON objects take the general path). False
        when the file turns out to hold one JSON array on one line."""
        leftovers = self.leftovers
        offsets, lengths, lines = self.offsets, self.lengths, self.lines
        j = -1
        for j, (lineno, offset, indent, text) in enumerate(iter_lines(self.source)):
            if j == 0 and text.startswith("["):
                self.offsets, self.lengths, self.lines = (type(offsets)("q"),
                                                          type(lengths)("l"),
                                                          type(lines)("l"))
                return False
            offsets.append(offset)
            lengths.append(_span_length(text, indent, offset))
            lines.append(lineno)
            rid, problem, unread = _line_id(text, id_field, partial(self._line, j))
            if problem is not None:
                leftovers.append((j, problem))
                self.unread += unread
                continue
            self._index_id(rid, j)
        return True

    def _line(self, j: int) -> RawLine:
        import os

        if self._fd is None:
            assert self.path is not None
            self._fd = os.open(self.path, os.O_RDONLY)
        data = os.pread(self._fd, self.lengths[j], self.offsets[j])
        if self.offsets[j] == 0 and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:  # a length cut inside a character: read it plainly
            return read_line_at(self.source, self.offsets[j], lineno=self.lines[j])
        cut = text.find("\n")
        text = text if cut < 0 else text[:cut]
        stripped = text.strip()
        return RawLine(stripped, self.source, self.lines[j], len(text) - len(text.lstrip()))

    def _get_raw(self, j: int) -> RawRecord:
        if self.path is None:
            return self.held[j]
        return self._line(j).parse()

    def get(self, j: int) -> tuple[Any, bool, str | None]:
        return read_extracted(self._get_raw(j))

    def get_lazy(self, j: int) -> RawLine | tuple[Any, bool, str | None]:
        """The record's unparsed line (file-backed), else the record as read."""
        if self.path is None:
            return self.get(j)
        return self._line(j)

    def close(self) -> None:
        if self._fd is not None:
            import os

            os.close(self._fd)
            self._fd = None


def _stream_by_id(gold: RecordsLike, extracted: RecordsLike, id_field: str,
                  scanner: Scanner | None = None, scan_parts: int = 1) -> Iterator[Pair]:
    ext = _ExtractedIndex(extracted, id_field, scanner, scan_parts)
    try:
        check = _GoldChecker(id_field)
        index = 0
        for i, (graw, gline) in enumerate(_gold_stream(gold)):
            if not check.ok(graw, i) or check.problems:
                continue
            rid = graw.value[id_field]
            gvalue = gline if gline is not None else graw.value
            found = ext.by_id.pop(rid, None)
            if found is None:
                yield Pair(index, rid, gvalue, _NO_RECORD, i, None,
                           problem=_missing_problem(ext.unread))
            else:
                got = ext.get_lazy(found)
                if isinstance(got, RawLine):
                    yield Pair(index, rid, gvalue, got, i, found)
                else:
                    yield Pair(index, rid, gvalue, got[0], i, found, got[1])
            index += 1
        check.finish()
        extra = sorted([*((j, "no gold record with this id") for j in ext.by_id.values()),
                        *ext.leftovers])
        for j, problem in extra:
            value, repaired, _ = ext.get(j)
            rid = value.get(id_field) if isinstance(value, dict) else None
            yield Pair(index, rid, _NO_RECORD, value, None, j, repaired, problem)
            index += 1
    finally:
        ext.close()


def make_evaluator(schema: Any, *, id_field: str | None = None,
                   post_process: PostProcessor | Sequence[PostProcessor] | None = None,
                   registry: Registry | None = None, fields: Sequence[str] | None = None,
                   target: str | None = None, null_policy: str | None = None,
                   base_uri: str | None = None, judges: JudgeSettings | None = None
                   ) -> Evaluator:
    raw, path = _load_schema(schema)
    with use_judges(judges):
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
             on_record: Callable[[RecordResult], None] | None = None,
             stream: bool | None = None, judges: JudgeSettings | None = None) -> RunResult:
    """Score extracted records against gold under an eval schema.

    ``gold`` and ``extracted`` are lists or paths (JSON array, JSONL, folder);
    extracted items may be text, rescued leniently. Records pair by ``id_field``
    (or the schema's ``x-eval-id``), else by position; unequal counts give
    omitted or hallucinated records, never an error. Raises ``SchemaError`` or
    ``GoldValidationError`` (each listing every located problem) for broken inputs.

    ``keep_records=False`` leaves per-record results out of the run and, unless
    ``stream=False``, streams the files too (``iter_pairs``): a run over files of
    any size then holds one record at a time (plus, when pairing by id, an index of
    the extracted ids). The figures are the same either way.

    ``judges`` are the LLM judge profiles the ``semantic`` comparator may use (default:
    ``evalschema.judge.current_judges()``, from the environment and the user's
    judges.toml); a schema only names one of them.
    """
    evaluator = make_evaluator(schema, id_field=id_field, post_process=post_process,
                               registry=registry, fields=fields, target=target,
                               null_policy=null_policy, base_uri=base_uri, judges=judges)
    acc = RunAccumulator(keep_records=keep_records)
    streaming = (not keep_records) if stream is None else stream
    with gc_paused(promote=keep_records):
        for rec in iter_evaluate(gold, extracted, evaluator, acc, stream=streaming):
            if on_record is not None:
                on_record(rec)
    return acc.result()
