"""Run an evaluation: bind a schema for scoring (``Evaluator``), pair the records
(``pairing``), score each pair, judge batches, and fold the results (``accumulator``).

Records stream through one at a time (``iter_evaluate``); ``RunAccumulator`` is
mergeable, so a run can be split across processes or re-scored one record at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalschema.errors import Problem
from evalschema.io.extracted import NO_RECORD
from evalschema.io.records import RawLine, RecordsLike, load_json
from evalschema.judge.settings import JudgeSettings, use_judges
from evalschema.pointer import field_segments
from evalschema.pointer import resolve as ptr_resolve
from evalschema.policy import NATIVE, ScoringPolicy
from evalschema.results import Counts, RecordResult, RunResult, Status
from evalschema.rules.registry import Registry
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.gcpause import gc_paused
from evalschema.run.pairing import Pair, iter_pairs
from evalschema.schema.coverage import Walker, off_schema
from evalschema.schema.node import SchemaNode
from evalschema.schema.select import select_fields, select_target
from evalschema.schema.tree import parse_eval_schema, parse_partial
from evalschema.scoring.batches import run_batches
from evalschema.scoring.confidence import ConfidenceReader
from evalschema.scoring.postprocess import PostProcessor
from evalschema.scoring.specialized import SpecializedScorer, specializable, specialize_scorer
from evalschema.scoring.tally import unfold
from evalschema.scoring.walk import RecordScorer

#: tuple.__new__ skips the NamedTuple's Python-level __new__ (one RecordResult per record).
_new = tuple.__new__


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

    def __post_init__(self) -> None:
        self.scorer = RecordScorer(self.root, self.policy)
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
        scorer = self.scorer
        tp = self.target_pointer
        whole = extracted  # confidence pointers are from the record's root
        if tp:
            gold = ptr_resolve(gold, tp, None) if gold is not NO_RECORD else gold
            extracted = ptr_resolve(extracted, tp, None) if extracted is not NO_RECORD \
                else extracted
        scorer.begin(index, record_id)
        path = self.target_path
        if gold is NO_RECORD and extracted is NO_RECORD:
            # Unreadable and unpaired: listed with its problem, scored nowhere (its gold
            # record, if any, already counts as omitted).
            unscored = RecordResult(index, record_id, (), Counts(), gold_index,
                                    extracted_index, repaired, problem, name)
            acc.add(unscored, counted=False)
            return unscored
        if gold is not NO_RECORD:
            self.cover(gold, acc.off_schema)
        specialized = self.specialized
        if specialized is not None and gold is not NO_RECORD and extracted is not NO_RECORD \
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
            if gold is NO_RECORD:
                scorer.expand(self.root, extracted, path, tp, Status.HALLUCINATION)
            elif extracted is NO_RECORD:
                scorer.expand(self.root, gold, path, tp, Status.OMISSION)
            else:
                scorer.node(self.root, gold, extracted, path, tp, tp)
            results = scorer.out
            if scorer.pending:
                results = run_batches(results, scorer.pending.values())
            for pp in self.post_process:
                results = pp(results)
            counts = acc.tally(results)
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


def iter_evaluate(gold: RecordsLike, extracted: RecordsLike, evaluator: Evaluator,
                  acc: RunAccumulator, *, stream: bool = False) -> Iterator[RecordResult]:
    """Score record pairs one at a time (gold order, then unpaired extracted).

    ``stream=True`` reads files record by record instead of loading them (see
    ``iter_pairs``); the results are the same.
    """
    for pair in iter_pairs(gold, extracted, evaluator.id_field, stream=stream):
        yield evaluator.score(pair, acc)


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
