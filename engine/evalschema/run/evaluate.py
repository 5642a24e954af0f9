"""Run an evaluation: bind a schema for scoring (``Evaluator``), pair the records
(``pairing``), score each pair, judge batches, and fold the results (``accumulator``).

Records stream through one at a time (``iter_evaluate``); ``RunAccumulator`` is
mergeable, so a run can be split across processes or re-scored one record at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

from evalschema.errors import Problem
from evalschema.io.extracted import NO_RECORD
from evalschema.io.records import RawLine, RecordsLike, load_json
from evalschema.judge.settings import JudgeSettings, use_judges
from evalschema.pointer import field_segments
from evalschema.pointer import resolve as ptr_resolve
from evalschema.policy import NATIVE, ScoringPolicy
from evalschema.results import Counts, FieldResult, RecordResult, RunResult, Status
from evalschema.rules.registry import Registry
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.gcpause import gc_paused
from evalschema.run.pairing import Pair, iter_pairs
from evalschema.schema.coverage import Walker, off_schema
from evalschema.schema.node import SchemaNode
from evalschema.schema.select import select_fields, select_target
from evalschema.schema.tree import parse_eval_schema, parse_partial
from evalschema.scoring.batches import judge_window, run_batches
from evalschema.scoring.confidence import ConfidenceReader
from evalschema.scoring.postprocess import PostProcessor
from evalschema.scoring.specialized import SpecializedScorer, specializable, specialize_scorer
from evalschema.scoring.tally import unfold
from evalschema.scoring.walk import PendingBatch, RecordScorer

#: tuple.__new__ skips the NamedTuple's Python-level __new__ (one RecordResult per record).
_new = tuple.__new__
#: Records whose judge calls are made together (``Evaluator.score_pairs``): a run's chunk.
JUDGE_WINDOW = 1024

T = TypeVar("T")


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
    #: The schema errors this evaluator was built despite (``allow_schema_errors``): each
    #: field that has some is scored ``error`` in every record (``SchemaNode.broken``).
    tolerated: tuple[Problem, ...] = ()
    scorer: RecordScorer = field(init=False)
    #: The scorer specialized to this schema (``specialized``), which scores and tallies in
    #: one pass; None for schemas it turns down (``specialized.specializable``).
    specialized: SpecializedScorer | None = field(init=False, default=None, repr=False,
                                            compare=False)
    #: Tallies the gold values under keys no schema node covers (``schema.coverage``).
    cover: Walker = field(init=False, repr=False, compare=False)
    #: Reads the confidences of the fields that have an ``x-eval-confidence``.
    confidence: ConfidenceReader = field(init=False, repr=False, compare=False)
    #: Whether a field has a batch comparator (the LLM judge): records are then scored a
    #: window at a time (``score_pairs``).
    judged: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.scorer = RecordScorer(self.root, self.policy)
        self.judged = any(n.batch is not None for n in self.root.walk())
        self.cover = off_schema(self.root)
        self.confidence = ConfidenceReader(self.root, self.id_field)
        if specializable(self.root):
            self.specialized = specialize_scorer(self.scorer, self.target_path, self.target_pointer)

    def score_pair(self, gold: Any, extracted: Any, *, index: int, record_id: Any = None,
                   gold_index: int | None = None, extracted_index: int | None = None,
                   acc: RunAccumulator, repaired: bool | str = False,
                   problem: str | None = None) -> RecordResult:
        return self.score_positional(gold, extracted, index, record_id, gold_index,
                                     extracted_index, repaired, problem, acc)

    def score_positional(self, gold: Any, extracted: Any, index: int, record_id: Any,
                         gold_index: int | None, extracted_index: int | None, repaired: bool | str,
                         problem: str | None, acc: RunAccumulator,
                         name: str | None = None) -> RecordResult:
        """``score_pair`` with positional arguments (the per-record path, where keyword
        arguments cost a measurable share of a record's time)."""
        specialized = self.specialized
        if specialized is None or gold is NO_RECORD or extracted is NO_RECORD \
                or self.post_process:
            walked = self.walk(gold, extracted, index, record_id, gold_index, extracted_index,
                               repaired, problem, name, acc)
            if walked.pending:
                walked.results = run_batches(walked.results, walked.pending)
            return self.finish(walked, acc)
        # Scored and tallied in one pass (see ``specialized``). A record that fails
        # part-way (a comparator returning no number, say) is tallied nowhere, as
        # with the general walk, which tallies only once a record is whole.
        scorer = self.scorer
        whole = extracted  # confidence pointers are from the record's root
        gold, extracted = self._targeted(gold, extracted)
        scorer.begin(index, record_id)
        self.cover(gold, acc.off_schema)
        try:
            counts = specialized(gold, extracted, index, record_id, acc.per_field)
        except BaseException:
            unfold(scorer.out, acc.per_field)
            raise
        return self._record(scorer.out, counts, whole, index, record_id, gold_index,
                            extracted_index, repaired, problem, name, acc)

    def _targeted(self, gold: Any, extracted: Any) -> tuple[Any, Any]:
        """Each side's sub-tree that is scored (``target=``)."""
        tp = self.target_pointer
        if tp:
            gold = ptr_resolve(gold, tp, None) if gold is not NO_RECORD else gold
            extracted = ptr_resolve(extracted, tp, None) if extracted is not NO_RECORD \
                else extracted
        return gold, extracted

    def walk(self, gold: Any, extracted: Any, index: int, record_id: Any,
             gold_index: int | None, extracted_index: int | None, repaired: bool | str,
             problem: str | None, name: str | None, acc: RunAccumulator) -> Walked:
        """The first half of scoring a record with the general walk: its results, batch
        leaves pending. Only the gold values no schema node covers are counted here (an
        order-free tally, counted even when the walk then fails); the rest in ``finish``."""
        scorer = self.scorer
        whole = extracted
        gold, extracted = self._targeted(gold, extracted)
        scorer.begin(index, record_id)
        path, tp = self.target_path, self.target_pointer
        if gold is not NO_RECORD:
            self.cover(gold, acc.off_schema)
        if gold is NO_RECORD:
            if extracted is not NO_RECORD:
                scorer.expand(self.root, extracted, path, tp, Status.HALLUCINATION)
        elif extracted is NO_RECORD:
            scorer.expand(self.root, gold, path, tp, Status.OMISSION)
        else:
            scorer.node(self.root, gold, extracted, path, tp, tp)
        return Walked(gold, extracted, whole, index, record_id, gold_index, extracted_index,
                      repaired, problem, name, scorer.out, list(scorer.pending.values()))

    def finish(self, w: Walked, acc: RunAccumulator) -> RecordResult:
        """The second half: a walked record (its batches judged) post-processed and
        counted into ``acc``; records must be finished in run order."""
        if w.gold is NO_RECORD and w.extracted is NO_RECORD:
            # Unreadable and unpaired: listed with its problem, scored nowhere (its gold
            # record, if any, already counts as omitted).
            unscored = RecordResult(w.index, w.record_id, (), Counts(), w.gold_index,
                                    w.extracted_index, w.repaired, w.problem, w.name)
            acc.add(unscored, counted=False)
            return unscored
        results = w.results
        for pp in self.post_process:
            results = pp(results)
        return self._record(results, acc.tally(results), w.whole, w.index, w.record_id,
                            w.gold_index, w.extracted_index, w.repaired, w.problem, w.name,
                            acc)

    def _record(self, results: list[FieldResult], counts: Counts, whole: Any, index: int,
                record_id: Any, gold_index: int | None, extracted_index: int | None,
                repaired: bool | str, problem: str | None, name: str | None,
                acc: RunAccumulator) -> RecordResult:
        if self.confidence and whole is not NO_RECORD:
            self.confidence.read(results, whole, acc.confidence, index, record_id, name)
        rec: RecordResult = _new(RecordResult, (index, record_id, tuple(results), counts,
                                                gold_index, extracted_index, repaired, problem,
                                                name))
        acc.add(rec)
        return rec

    def score(self, pair: Pair, acc: RunAccumulator) -> RecordResult:
        """Score a pair (its unparsed lines parsed first, see ``Pair.resolve``)."""
        if type(pair.gold) is RawLine or type(pair.extracted) is RawLine:
            pair = pair.resolve()
        return self.score_positional(pair.gold, pair.extracted, pair.number, pair.record_id,
                                     pair.gold_index, pair.extracted_index, pair.repaired,
                                     pair.problem, acc, pair.name)

    def score_pairs(self, pairs: Iterable[Pair], acc: RunAccumulator,
                    window: int = JUDGE_WINDOW) -> Iterator[tuple[Pair, RecordResult]]:
        """Score pairs in order, yielding each (resolved) with its result: what a chunk
        of a run, on any engine, calls. A schema with a batch comparator (the LLM judge)
        is scored ``window`` records at a time, their judge calls in flight together
        (``scoring.batches.judge_window``); the results are those of ``score``."""
        if not self.judged:
            for pair in pairs:
                pair = pair.resolve()
                yield pair, self.score(pair, acc)
            return
        for part in chunked(pairs, window):
            resolved = [p.resolve() for p in part]
            walked = [self.walk(p.gold, p.extracted, p.number, p.record_id, p.gold_index,
                                p.extracted_index, p.repaired, p.problem, p.name, acc)
                      for p in resolved]
            judged = judge_window([(w.results, w.pending) for w in walked])
            for p, w, results in zip(resolved, walked, judged, strict=True):
                w.results = results
                yield p, self.finish(w, acc)


@dataclass(slots=True)
class Walked:
    """A record walked by ``Evaluator.walk``, waiting for its batches to be judged."""

    gold: Any
    extracted: Any
    #: The extracted record before ``target=`` (confidence pointers are from its root).
    whole: Any
    index: int
    record_id: Any
    gold_index: int | None
    extracted_index: int | None
    repaired: bool | str
    problem: str | None
    name: str | None
    results: list[FieldResult]
    pending: list[PendingBatch]


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    it = iter(items)
    while part := list(islice(it, size)):
        yield part


def iter_evaluate(gold: RecordsLike, extracted: RecordsLike, evaluator: Evaluator,
                  acc: RunAccumulator, *, stream: bool = False) -> Iterator[RecordResult]:
    """Score record pairs one at a time (gold order, then unpaired extracted).

    ``stream=True`` reads files record by record instead of loading them (see
    ``iter_pairs``); the results are the same.
    """
    pairs = iter_pairs(gold, extracted, evaluator.id_field, stream=stream)
    for _, rec in evaluator.score_pairs(pairs, acc):
        yield rec


def _load_schema(schema: Any) -> tuple[Any, str | None]:
    if isinstance(schema, str | Path):
        return load_json(schema, "schema", jsonc=True), str(schema)
    return schema, None


def make_evaluator(schema: Any, *, id_field: str | None = None,
                   post_process: PostProcessor | Sequence[PostProcessor] | None = None,
                   registry: Registry | None = None, fields: Sequence[str] | None = None,
                   target: str | None = None, null_policy: str | None = None,
                   base_uri: str | None = None, judges: JudgeSettings | None = None,
                   allow_schema_errors: bool = False) -> Evaluator:
    """Bind ``schema`` for scoring; ``SchemaError`` lists every problem of a broken one.

    ``allow_schema_errors=True`` scores what it can (``schema.tree.parse_partial``): a
    field with errors is scored ``error`` in every record, with the errors as the
    results' reason, the rest as usual, and ``Evaluator.tolerated`` lists the errors;
    only a schema whose root is unusable still raises (docs/schemas.md)."""
    raw, path = _load_schema(schema)
    tolerated: tuple[Problem, ...] = ()
    with use_judges(judges):
        if allow_schema_errors:
            partial = parse_partial(raw, registry=registry, base_uri=base_uri or path,
                                    null_policy=null_policy)
            root, tolerated = partial.root, partial.tolerated
        else:
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
    return Evaluator(root, rid, pps, target_pointer, target_path, tolerated=tolerated)


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
