"""Result types: what a scoring run produces.

Every result is a frozen dataclass with ``to_dict()`` giving plain JSON, so the
CLI, the language server and reports read one shape.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from evalschema import display
from evalschema.calibration import REVIEW_BUDGETS, Calibration, ConfidenceTally, calibrate
from evalschema.errors import InputError, Problem

if TYPE_CHECKING:
    from evalschema.run.replicates import ReplicateTally


class Status(StrEnum):
    """The outcome of judging one field (a StrEnum, so it compares equal to its name)."""

    MATCH = "match"
    MISMATCH = "mismatch"
    OMISSION = "omission"
    HALLUCINATION = "hallucination"
    SKIPPED = "skipped"
    ERROR = "error"
    PENDING = "pending"
    BATCH_ERROR = "batch_error"


#: The statuses that are findings: a value wrong, missing or invented, or not judged for an
#: error. A match, a skip and a pending judgement are not.
FINDINGS = frozenset({Status.MISMATCH, Status.OMISSION, Status.HALLUCINATION, Status.ERROR,
                      Status.BATCH_ERROR})


#: Values longer than this are cut (with "…") in reasons and messages.
SHOWN_CHARS = 60


def show_value(value: Any, limit: int = SHOWN_CHARS) -> str:
    """A value as reasons and messages show it: JSON text (``null``, ``"a"``, ``[1]``,
    never Python's ``None`` or ``'a'``), cut to ``limit`` characters. The one spelling of
    values in the engine's reasons, the reports and the language server's messages."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # circular or otherwise unrenderable
        text = str(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def mismatch_reason(gold: Any, extracted: Any, label: str, score: float,
                    threshold: float = 1.0) -> str:
    """Why a judged leaf is a mismatch when the comparator gave no reason of its own:
    ``687.8 ≠ gold 68.78 (numeric, abs 0.01)``, with the score when it earned some credit
    (``…; score 0.85 < 0.9``)."""
    text = f"{show_value(extracted)} ≠ gold {show_value(gold)} ({label}"
    if score > 0.0:
        text += f"; score {score:.4g} < {threshold:g}"
    return text + ")"


class ComparatorName(str):
    """A comparator's name as results carry it (``FieldResult.comparator``), holding the
    label of its bound configuration and the node's threshold.

    What a mismatch's reason is made of besides the values and the score, so the reason
    is made when it is asked for (``FieldResult.explanation``) and scoring formats
    nothing: a run of 200,000 fields has tens of thousands of mismatches, and formatting
    each would cost more than 10% of the run. Equal to, hashed and serialised as the
    plain name; it pickles with its label and threshold (``--workers``).
    """

    label: str
    threshold: float

    def __new__(cls, name: str, label: str = "", threshold: float = 1.0) -> ComparatorName:
        self = super().__new__(cls, name)
        self.label = label or name
        self.threshold = threshold
        return self


class FieldResult(NamedTuple):
    """One judged field.

    ``path`` is the instance path (``line_items[2].price``); ``field`` is the schema
    path shared by every array element (``line_items[].price``), which is what
    per-field aggregates are keyed by. Pointers are RFC 6901 and locate the value in
    the gold record, in the extracted record and the schema node that judged it, so
    an editor can map any result back to text without the engine knowing offsets.

    ``gold`` and ``extracted`` are the values as compared, after the field's
    transforms; the pointers locate the originals.

    ``reason`` is what the scorer had to say beyond the values (a type error, a limit,
    "missing from extracted"); ``explanation`` is the reason every report shows, made
    from the values for a plain mismatch.

    A NamedTuple rather than a frozen dataclass: one is built per judged field, and
    a frozen dataclass costs five times as much to build (2.4 µs against 0.5 µs),
    which alone would double a run. It is just as immutable; use ``_replace``.
    """

    path: str
    field: str
    status: Status
    score: float
    comparator: str | None = None
    reason: str | None = None
    gold: Any = None
    extracted: Any = None
    gold_pointer: str | None = None
    extracted_pointer: str | None = None
    schema_pointer: str = ""
    weight: float = 1.0
    record_index: int = 0
    record_id: Any = None

    @property
    def explanation(self) -> str | None:
        """The human reason of this result: ``reason`` when the scorer gave one, else for
        a mismatch the values, the comparator's configuration and the score
        (``mismatch_reason``). Made on each call, never while scoring."""
        if self.reason is not None or self.status is not Status.MISMATCH:
            return self.reason
        c = self.comparator
        if isinstance(c, ComparatorName):
            return mismatch_reason(self.gold, self.extracted, c.label, self.score, c.threshold)
        return mismatch_reason(self.gold, self.extracted, c or "no comparator", self.score)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "field": self.field,
            "status": str(self.status),
            "score": self.score,
            "comparator": None if self.comparator is None else str(self.comparator),
            "reason": self.explanation,
            "gold": self.gold,
            "extracted": self.extracted,
            "gold_pointer": self.gold_pointer,
            "extracted_pointer": self.extracted_pointer,
            "schema_pointer": self.schema_pointer,
            "weight": self.weight,
            "record_index": self.record_index,
            "record_id": self.record_id,
        }


class Counts(NamedTuple):
    """Status counts and score sums: the mergeable core of every aggregate.

    A NamedTuple, like FieldResult, because one is built per record.
    """

    matches: int = 0
    mismatches: int = 0
    omissions: int = 0
    hallucinations: int = 0
    skipped: int = 0
    errors: int = 0
    pending: int = 0
    batch_errors: int = 0
    score_sum: float = 0.0
    weight_sum: float = 0.0
    weighted_score_sum: float = 0.0

    @property
    def scored(self) -> int:
        """Results that count in precision/recall (match, mismatch, omission, hallucination)."""
        return self.matches + self.mismatches + self.omissions + self.hallucinations

    def metrics(self) -> tuple[float | None, float | None, float | None, float | None]:
        """(precision, recall, F1, weighted score), computed together; None where
        undefined (docs/metrics.md: nothing was judged for it)."""
        precision, recall, f1 = precision_recall_f1(
            self.score_sum, self.matches + self.mismatches, self.omissions, self.hallucinations)
        weighted = self.weighted_score_sum / self.weight_sum if self.weight_sum else None
        return precision, recall, f1, weighted

    @property
    def precision(self) -> float | None:
        return self.metrics()[0]

    @property
    def recall(self) -> float | None:
        return self.metrics()[1]

    @property
    def f1(self) -> float | None:
        return self.metrics()[2]

    @property
    def weighted_score(self) -> float | None:
        """Weighted mean of field scores; omissions and hallucinations count as 0."""
        return self.metrics()[3]

    def pair_similarity(self) -> float:
        """These counts as the similarity of two array elements (``pair_similarity``)."""
        return pair_similarity(self.score_sum, self.matches + self.mismatches, self.omissions,
                               self.hallucinations)

    def merge(self, other: Counts) -> Counts:
        return Counts(
            self.matches + other.matches,
            self.mismatches + other.mismatches,
            self.omissions + other.omissions,
            self.hallucinations + other.hallucinations,
            self.skipped + other.skipped,
            self.errors + other.errors,
            self.pending + other.pending,
            self.batch_errors + other.batch_errors,
            self.score_sum + other.score_sum,
            self.weight_sum + other.weight_sum,
            self.weighted_score_sum + other.weighted_score_sum,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "mismatches": self.mismatches,
            "omissions": self.omissions,
            "hallucinations": self.hallucinations,
            "skipped": self.skipped,
            "errors": self.errors,
            "pending": self.pending,
            "batch_errors": self.batch_errors,
            "score_sum": self.score_sum,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "weighted_score": self.weighted_score,
        }


def precision_recall_f1(score_sum: float, both: int, omissions: int, hallucinations: int
                        ) -> tuple[float | None, float | None, float | None]:
    """Precision, recall and F1 from the score sum of the fields judged on both sides
    (``both`` of them) and the omission and hallucination counts: the one place these
    formulas live (docs/metrics.md states the convention).

    Precision is undefined (None) when nothing was extracted (``both + hallucinations``
    is 0), recall when the gold had nothing (``both + omissions`` is 0). F1 is undefined
    only when both are; when just one is, the other is 0 (only omissions, or only
    hallucinations, were judged) and F1 is 0: errors and nothing right is a 0, never a
    value to leave out of a mean.
    """
    p_denom = both + hallucinations
    r_denom = both + omissions
    precision = score_sum / p_denom if p_denom else None
    recall = score_sum / r_denom if r_denom else None
    if precision is None or recall is None:
        return precision, recall, (None if precision is None and recall is None else 0.0)
    return precision, recall, f1_score(precision, recall)


def f1_score(precision: float, recall: float) -> float:
    """The harmonic mean of two defined figures (0 when both are 0)."""
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


def pair_similarity(score_sum: float, both: int, omissions: int, hallucinations: int) -> float:
    """The similarity of two array elements that Hungarian alignment maximises: the F1
    of their fields, where two elements with nothing to judge (two empty objects) are
    identical (1.0). An internal figure, never a reported metric, so it keeps the
    convention the aligners (and the systems compat/ reproduces) rely on."""
    if not both:
        # Nothing judged on both sides (so no score): nothing in common, unless there
        # is nothing at all.
        return 0.0 if omissions or hallucinations else 1.0
    return f1_score(score_sum / (both + hallucinations), score_sum / (both + omissions))


def leaf_status(score: float, threshold: float) -> Status:
    """The status of a leaf judged on both sides: a match when its score reaches the node's
    threshold. The one definition; the scorers' hot paths inline it (scoring/README.md)."""
    return Status.MATCH if score >= threshold else Status.MISMATCH


def count_results(results: tuple[FieldResult, ...] | list[FieldResult]) -> Counts:
    """Fold field results into Counts (one pass, no intermediate lists): the definition of
    what each status counts for; ``scoring.tally.fold`` is its fast twin."""
    m = mm = om = ha = sk = er = pe = be = 0
    s = ws = w = 0.0
    for r in results:
        st = r.status
        if st is Status.MATCH:
            m += 1
        elif st is Status.MISMATCH:
            mm += 1
        elif st is Status.OMISSION:
            om += 1
            w += r.weight
            continue
        elif st is Status.HALLUCINATION:
            ha += 1
            w += r.weight
            continue
        elif st is Status.SKIPPED:
            sk += 1
            continue
        elif st is Status.ERROR:
            er += 1
            continue
        elif st is Status.PENDING:
            pe += 1
            continue
        else:
            be += 1
            continue
        s += r.score
        w += r.weight
        ws += r.weight * r.score
    return Counts(m, mm, om, ha, sk, er, pe, be, s, w, ws)


def record_label(record_id: Any, name: str | None, index: int) -> str:
    """The one way a record is named to people: its id, else the name of the file it is
    the one document of, else ``#N`` (its 1-based place in the run). Never "None"."""
    if record_id is not None:
        return record_id if type(record_id) is str else json.dumps(record_id, ensure_ascii=False)
    if name is not None:
        return name
    return f"#{index + 1}"


class RecordResult(NamedTuple):
    """All field results of one (gold, extracted) record pair.

    A NamedTuple for the same reason as FieldResult: one is built per record.
    """

    index: int  # type: ignore[assignment]  # shadows tuple.index, on purpose
    record_id: Any
    field_results: tuple[FieldResult, ...]
    counts: Counts
    gold_index: int | None = None
    extracted_index: int | None = None
    #: The extracted record was text that had to be repaired or dug out of prose/fences:
    #: True, or the reason when it matters ("truncated": cut short, then closed).
    repaired: bool | str = False
    #: Why the record could not be read or paired, when it could not.
    problem: str | None = None
    #: The file the record is the one document of, without extension (records read from
    #: a folder, one document per file).
    name: str | None = None

    @property
    def label(self) -> str:
        """How reports name the record (``record_label``)."""
        return record_label(self.record_id, self.name, self.index)

    @property
    def precision(self) -> float | None:
        return self.counts.precision

    @property
    def recall(self) -> float | None:
        return self.counts.recall

    @property
    def f1(self) -> float | None:
        return self.counts.f1

    @property
    def weighted_score(self) -> float | None:
        return self.counts.weighted_score

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "record_id": self.record_id,
            "gold_index": self.gold_index,
            "extracted_index": self.extracted_index,
            "repaired": bool(self.repaired),
            "repaired_reason": self.repaired if type(self.repaired) is str else None,
            "problem": self.problem,
            "name": self.name,
            "label": self.label,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "weighted_score": self.weighted_score,
            "counts": self.counts.to_dict(),
            "field_results": [r.to_dict() for r in self.field_results],
        }


_EMPTY = Counts()


@dataclass(frozen=True, slots=True, repr=False)
class FieldAggregation:
    """Aggregate of every result judged by one schema field across a run.

    Shows itself as its figures and counts, in a REPL and (with its bar) in a notebook."""

    field: str
    counts: Counts = _EMPTY

    @property
    def count(self) -> int:
        c = self.counts
        return c.scored + c.skipped + c.errors + c.pending + c.batch_errors

    @property
    def invented(self) -> bool:
        """A field the extractor produced but gold never has (all its results are
        hallucinations): a key the model invented, which reports list apart from the
        schema's fields."""
        c = self.counts
        return c.hallucinations > 0 and c.matches + c.mismatches + c.omissions == 0

    @property
    def mean_score(self) -> float | None:
        """Mean score over scored results, omissions and hallucinations counting as 0;
        None when none was scored."""
        scored = self.counts.scored
        return self.counts.score_sum / scored if scored else None

    @property
    def precision(self) -> float | None:
        return self.counts.precision

    @property
    def recall(self) -> float | None:
        return self.counts.recall

    @property
    def f1(self) -> float | None:
        return self.counts.f1

    def merge(self, other: FieldAggregation) -> FieldAggregation:
        return FieldAggregation(self.field, self.counts.merge(other.counts))

    def __repr__(self) -> str:
        return display.show(self, "text") or f"<FieldAggregation {self.field!r}>"

    def _repr_html_(self) -> str | None:
        return display.show(self, "html")

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "count": self.count, "mean_score": self.mean_score,
                **self.counts.to_dict()}


class Undefined(NamedTuple):
    """How many counted records each macro mean left out because the record's figure
    was undefined (docs/metrics.md)."""

    precision: int = 0
    recall: int = 0
    f1: int = 0
    weighted_score: int = 0

    def to_dict(self) -> dict[str, int]:
        return self._asdict()


class Coverage(NamedTuple):
    """How much of the gold the schema judges.

    ``judged`` gold values were judged (matched, mismatched or omitted); ``off_schema``
    gold values sit under keys no schema node covers, tallied by pointer pattern in
    ``keys`` (most values first). Values under ``x-eval-skip`` nodes are in neither: the
    schema names them and chose to skip them.
    """

    judged: int = 0
    off_schema: int = 0
    keys: tuple[tuple[str, int], ...] = ()

    @property
    def share(self) -> float | None:
        """The share of gold values the schema judges; None when gold had no value."""
        total = self.judged + self.off_schema
        return self.judged / total if total else None

    @classmethod
    def of(cls, judged: int, tally: dict[str, int]) -> Coverage:
        keys = tuple(sorted(tally.items(), key=lambda kv: (-kv[1], kv[0])))
        return cls(judged, sum(tally.values()), keys)

    def describe(self, top: int = 5) -> str:
        """"gold coverage 38.0% (1,204 of 3,170 values); not in the schema: /events
        (1,966), …" — one line for tables and summaries."""
        share = self.share
        if share is None:
            return "gold coverage —: gold had no value"
        text = (f"gold coverage {share:.1%} ({self.judged:,} of {self.judged + self.off_schema:,}"
                " values)")
        if self.keys:
            shown = ", ".join(f"{k} ({n:,})" for k, n in self.keys[:top])
            more = f", … {len(self.keys) - top} more" if len(self.keys) > top else ""
            text += f"; not in the schema: {shown}{more}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"share": self.share, "judged_values": self.judged,
                "off_schema_values": self.off_schema,
                "off_schema_keys": [{"pointer": k, "values": n} for k, n in self.keys]}


_NONE_UNDEFINED = Undefined()
_NO_COVERAGE = Coverage()


@dataclass(frozen=True, slots=True, repr=False)
class RunResult:
    """A whole run: records, macro and micro metrics, and per-field aggregates.

    A mean is over the records whose figure is defined; ``undefined`` says how many were
    left out of each, and a mean with no record to average is None.

    In a REPL it shows a few lines (records, overall figures, the worst fields), in a
    notebook the report's summary and per-field table (``report/notebook.py``); its
    field results are a table with ``field_results_table`` (docs/notebooks.md)."""

    records: tuple[RecordResult, ...]
    per_field: dict[str, FieldAggregation]
    totals: Counts
    mean_precision: float | None
    mean_recall: float | None
    mean_f1: float | None
    mean_weighted_score: float | None
    total_records: int
    undefined: Undefined = _NONE_UNDEFINED
    #: How much of the gold the schema judges (``Coverage``).
    coverage: Coverage = _NO_COVERAGE
    #: Per field with an ``x-eval-confidence``, its confidences against correctness (the
    #: mergeable state; ``calibration`` gives the figures).
    confidence: dict[str, ConfidenceTally] = field(default_factory=dict)
    #: The run's bootstrap replicate sums, when it was scored with them
    #: (``RunAccumulator(replicates=...)``): what lets ``compare_runs`` compare runs that
    #: kept no records, or merged from parts. Not part of ``to_dict``.
    replicates: ReplicateTally | None = field(default=None, compare=False)

    def calibration(self, budgets: Sequence[float] = REVIEW_BUDGETS) -> Calibration | None:
        """ECE, Brier, AUROC and errors caught at each review budget (percent), overall and
        per field; None when no field has a confidence location (docs/metrics.md)."""
        return calibrate(self.confidence, budgets)

    @property
    def micro_precision(self) -> float | None:
        return self.totals.precision

    @property
    def micro_recall(self) -> float | None:
        return self.totals.recall

    @property
    def micro_f1(self) -> float | None:
        return self.totals.f1

    @property
    def total_fields(self) -> int:
        """Every result that was judged: scored statuses plus errors (not skipped/pending)."""
        return self.totals.scored + self.totals.errors

    @property
    def total_matches(self) -> int:
        return self.totals.matches

    @property
    def total_mismatches(self) -> int:
        return self.totals.mismatches

    @property
    def total_omissions(self) -> int:
        return self.totals.omissions

    @property
    def total_hallucinations(self) -> int:
        return self.totals.hallucinations

    @property
    def total_errors(self) -> int:
        return self.totals.errors

    @property
    def total_batch_errors(self) -> int:
        return self.totals.batch_errors

    def to_dict(self, *, include_records: bool = True,
                budgets: Sequence[float] = REVIEW_BUDGETS) -> dict[str, Any]:
        """The run as JSON; ``calibration`` only when some field has confidences."""
        out: dict[str, Any] = {
            "total_records": self.total_records,
            "total_fields": self.total_fields,
            "total_matches": self.total_matches,
            "total_mismatches": self.total_mismatches,
            "total_omissions": self.total_omissions,
            "total_hallucinations": self.total_hallucinations,
            "total_errors": self.total_errors,
            "total_batch_errors": self.total_batch_errors,
            "mean_precision": self.mean_precision,
            "mean_recall": self.mean_recall,
            "mean_f1": self.mean_f1,
            "mean_weighted_score": self.mean_weighted_score,
            "micro_precision": self.micro_precision,
            "micro_recall": self.micro_recall,
            "micro_f1": self.micro_f1,
            "undefined_records": self.undefined.to_dict(),
            "coverage": self.coverage.to_dict(),
            "per_field": {k: v.to_dict() for k, v in self.per_field.items()},
        }
        cal = self.calibration(budgets)
        if cal is not None:
            out["calibration"] = cal.to_dict()
        if include_records:
            out["records"] = [r.to_dict() for r in self.records]
        return out

    def __repr__(self) -> str:
        return display.show(self, "text") or f"<RunResult of {self.total_records} records>"

    def _repr_html_(self) -> str | None:
        return display.show(self, "html")

    @property
    def kept_records(self) -> bool:
        """Whether the run holds its per-record results (``evaluate(keep_records=True)``,
        the default; the CLI's streamed runs and ``keep_records=False`` drop them)."""
        return bool(self.records) or not self.total_records

    def field_results_table(self) -> Any:
        """One row per field result, as a ``pyarrow.Table`` (``frames.COLUMNS``): needs
        pyarrow (``pip install 'evalschema[frames]'``) and a run that kept its records."""
        from evalschema.frames import field_results_table

        if not self.kept_records:
            raise InputError([Problem(
                "no-records", f"this run of {self.total_records} records kept no per-record "
                "results, so it has no field results to tabulate",
                suggestion="evaluate it with keep_records=True (the default of evaluate())")])
        return field_results_table(self.records)

    def to_pandas(self) -> Any:
        """``field_results_table`` as a pandas DataFrame (pandas installed)."""
        from evalschema.frames import to_pandas

        return to_pandas(self.field_results_table())

    def to_polars(self) -> Any:
        """``field_results_table`` as a polars DataFrame (polars installed)."""
        from evalschema.frames import to_polars

        return to_polars(self.field_results_table())
