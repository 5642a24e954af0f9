"""Calibration of extractors' confidences: the state a run keeps and the figures made of it.

Why a histogram, not the pairs: a run of a million records keeps, per field, integer counts
of correct and wrong values in ``RESOLUTION + 1`` confidence buckets (each confidence
rounded to the nearest 0.0001, ties to even), so memory is bounded by the grid, not the
run, and merging two runs' counts (``ConfidenceTally.update``: integer additions) is exact
in any order. Every figure is then computed exactly from those integers (a single division
at the end): the expected calibration error over ``ECE_BINS`` equal-width bins, the Brier
score, the AUROC of confidence against correctness (Mann-Whitney U, ties counting one half)
and the errors caught at each review budget. A confidence written with at most four
decimals is therefore used as is; a finer one is rounded first (docs/metrics.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from evalschema.jsontypes import json_type

#: Confidences are rounded to the nearest 1/RESOLUTION before any figure is computed.
RESOLUTION = 10_000
#: Equal-width bins of the expected calibration error and the reliability diagram:
#: [0, 0.1), [0.1, 0.2), …, [0.9, 1.0] (the last one closed).
ECE_BINS = 10
#: Review budgets (percent of the values, least confident first) reported by default.
REVIEW_BUDGETS: tuple[float, ...] = (5.0, 10.0, 20.0)
#: Located confidence problems kept per field (the first ones, in run order).
PROBLEMS_KEPT = 5


@dataclass(frozen=True, slots=True)
class ConfidenceProblem:
    """A confidence that could not be used: missing, or not a number in [0, 1]."""

    kind: str  # "missing" or "invalid"
    record: str  # the record's label (``results.record_label``)
    pointer: str  # where the confidence was looked for, in the extracted record
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "record": self.record, "pointer": self.pointer,
                "reason": self.reason}


def confidence_problem(value: Any) -> str | None:
    """Why ``value`` is not a usable confidence, or None: it must be a JSON number
    (not a boolean) in [0, 1]. Nothing is coerced (``"0.9"`` is refused)."""
    if type(value) not in (int, float):
        return f"a confidence must be a number in [0, 1], not {json_type(value)}"
    if not math.isfinite(value) or not 0 <= value <= 1:
        return f"a confidence must be a number in [0, 1], not {value!r}"
    return None


def bucket(confidence: float) -> int:
    """The grid point of a valid confidence (``RESOLUTION``): nearest, ties to even."""
    return round(confidence * RESOLUTION)


@dataclass(slots=True)
class ConfidenceTally:
    """One field's mergeable calibration state: correct and wrong values per confidence
    bucket, and how many confidences were missing or invalid (the first few located)."""

    correct: dict[int, int] = field(default_factory=dict)
    wrong: dict[int, int] = field(default_factory=dict)
    missing: int = 0
    invalid: int = 0
    problems: list[ConfidenceProblem] = field(default_factory=list)

    def add(self, confidence: float, correct: bool) -> None:
        counts = self.correct if correct else self.wrong
        b = bucket(confidence)
        counts[b] = counts.get(b, 0) + 1

    def problem(self, problem: ConfidenceProblem) -> None:
        if problem.kind == "missing":
            self.missing += 1
        else:
            self.invalid += 1
        if len(self.problems) < PROBLEMS_KEPT:
            self.problems.append(problem)

    def update(self, other: ConfidenceTally) -> None:
        """Fold ``other`` (later in the run) into this tally: exact in any split."""
        for mine, theirs in ((self.correct, other.correct), (self.wrong, other.wrong)):
            for b, n in theirs.items():
                mine[b] = mine.get(b, 0) + n
        self.missing += other.missing
        self.invalid += other.invalid
        self.problems.extend(other.problems[:PROBLEMS_KEPT - len(self.problems)])

    def copy(self) -> ConfidenceTally:
        return ConfidenceTally(dict(self.correct), dict(self.wrong), self.missing, self.invalid,
                               list(self.problems))


def pooled(tallies: Iterable[ConfidenceTally]) -> ConfidenceTally:
    """Every field's values in one tally (the run's overall figures)."""
    out = ConfidenceTally()
    for t in tallies:
        out.update(t)
    return out


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    """One equal-width bin: its bounds, how many values, their mean confidence and the
    share of them that were correct (None for an empty bin)."""

    low: float
    high: float
    count: int
    mean_confidence: float | None
    accuracy: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "count": self.count,
                "mean_confidence": self.mean_confidence, "accuracy": self.accuracy}


@dataclass(frozen=True, slots=True)
class ReviewBudget:
    """Reviewing the ``budget`` percent least confident values (``reviewed`` of them, in
    expectation when ties straddle the cut): ``caught`` is the share of all wrong values
    found there (None when nothing was wrong), ``wrong_share`` the share of the reviewed
    values that are wrong (None when nothing is reviewed)."""

    budget: float
    reviewed: float
    caught: float | None
    wrong_share: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"budget": self.budget, "reviewed": self.reviewed, "caught": self.caught,
                "wrong_share": self.wrong_share}


@dataclass(frozen=True, slots=True)
class FieldCalibration:
    """The calibration figures of one field (or of all of them pooled). A figure is None
    when undefined: no value with a confidence, or (AUROC) only one class."""

    values: int
    correct: int
    missing: int
    invalid: int
    ece: float | None
    brier: float | None
    auroc: float | None
    mean_confidence: float | None
    accuracy: float | None
    bins: tuple[ReliabilityBin, ...]
    review: tuple[ReviewBudget, ...]
    problems: tuple[ConfidenceProblem, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"values": self.values, "correct": self.correct, "missing": self.missing,
                "invalid": self.invalid, "ece": self.ece, "brier": self.brier,
                "auroc": self.auroc, "mean_confidence": self.mean_confidence,
                "accuracy": self.accuracy, "bins": [b.to_dict() for b in self.bins],
                "review": [r.to_dict() for r in self.review],
                "problems": [p.to_dict() for p in self.problems]}


@dataclass(frozen=True, slots=True)
class Calibration:
    """A run's calibration: overall (every field's values pooled) and per field."""

    overall: FieldCalibration
    per_field: dict[str, FieldCalibration]
    budgets: tuple[float, ...] = REVIEW_BUDGETS

    def to_dict(self) -> dict[str, Any]:
        return {"resolution": 1 / RESOLUTION, "ece_bins": ECE_BINS,
                "review_budgets": list(self.budgets), "overall": self.overall.to_dict(),
                "per_field": {k: v.to_dict() for k, v in self.per_field.items()}}


def check_budgets(budgets: Sequence[float]) -> tuple[float, ...]:
    """Review budgets as given, each a percent in (0, 100]; ValueError otherwise."""
    out = tuple(float(k) for k in budgets)
    for k in out:
        if not 0 < k <= 100:
            raise ValueError(f"a review budget is a percent in (0, 100], not {k:g}")
    return out


def calibrate(tallies: Mapping[str, ConfidenceTally],
                budgets: Sequence[float] = REVIEW_BUDGETS) -> Calibration | None:
    """The figures of a run's tallies; None when no field has a confidence location."""
    if not tallies:
        return None
    ks = check_budgets(budgets)
    return Calibration(figures(pooled(tallies.values()), ks),
                       {k: figures(t, ks) for k, t in tallies.items()}, ks)


def figures(tally: ConfidenceTally, budgets: Sequence[float] = REVIEW_BUDGETS
            ) -> FieldCalibration:
    """Every figure of one tally, each computed exactly from its integer counts."""
    pos, neg = tally.correct, tally.wrong
    n_pos, n_neg = sum(pos.values()), sum(neg.values())
    n = n_pos + n_neg
    conf_sum = sum(b * c for b, c in pos.items()) + sum(b * c for b, c in neg.items())
    return FieldCalibration(
        n, n_pos, tally.missing, tally.invalid, ece(pos, neg), brier(pos, neg),
        auroc(pos, neg), conf_sum / (RESOLUTION * n) if n else None,
        n_pos / n if n else None, reliability(pos, neg),
        tuple(review_budget(pos, neg, k) for k in budgets), tuple(tally.problems))


def _bin(b: int) -> int:
    return min(b * ECE_BINS // RESOLUTION, ECE_BINS - 1)


def _binned(pos: Mapping[int, int], neg: Mapping[int, int]) -> list[tuple[int, int, int]]:
    """Per equal-width bin: (values, correct values, sum of their grid points)."""
    out = [(0, 0, 0)] * ECE_BINS
    for b in pos.keys() | neg.keys():
        p, m = pos.get(b, 0), neg.get(b, 0)
        i = _bin(b)
        n, c, s = out[i]
        out[i] = (n + p + m, c + p, s + b * (p + m))
    return out


def ece(pos: Mapping[int, int], neg: Mapping[int, int]) -> float | None:
    """Expected calibration error: sum over bins of (bin share) × |accuracy − mean
    confidence|, i.e. ``Σ |R·correct − Σ grid points| / (R·n)``; None with no value."""
    binned = _binned(pos, neg)
    n = sum(x[0] for x in binned)
    if not n:
        return None
    return sum(abs(RESOLUTION * c - s) for _, c, s in binned) / (RESOLUTION * n)


def brier(pos: Mapping[int, int], neg: Mapping[int, int]) -> float | None:
    """Mean squared difference between confidence and correctness (1 correct, 0 wrong)."""
    n = sum(pos.values()) + sum(neg.values())
    if not n:
        return None
    total = sum(k * (RESOLUTION - b) ** 2 for b, k in pos.items()) + \
        sum(k * b * b for b, k in neg.items())
    return total / (RESOLUTION * RESOLUTION * n)


def auroc(pos: Mapping[int, int], neg: Mapping[int, int]) -> float | None:
    """The probability that a correct value has a higher confidence than a wrong one, ties
    counting one half (Mann-Whitney U over (correct × wrong) pairs, average ranks); None
    unless both classes are present."""
    n_pos, n_neg = sum(pos.values()), sum(neg.values())
    if not n_pos or not n_neg:
        return None
    below = 0  # wrong values with a lower confidence than the current bucket
    twice_u = 0
    for b in sorted(pos.keys() | neg.keys()):
        m = neg.get(b, 0)
        twice_u += pos.get(b, 0) * (2 * below + m)
        below += m
    return twice_u / (2 * n_pos * n_neg)


def review_budget(pos: Mapping[int, int], neg: Mapping[int, int], budget: float
                  ) -> ReviewBudget:
    """The ``budget`` percent least confident values: how many wrong ones they hold. The
    cut falls at ``n × budget / 100`` values; values tied at the cut are taken in
    proportion (the expected count under a random order of ties), so nothing depends on
    the order records came in."""
    n_neg = sum(neg.values())
    n = sum(pos.values()) + n_neg
    reviewed = Fraction(n) * Fraction(budget) / 100
    left = reviewed
    caught = Fraction(0)
    for b in sorted(pos.keys() | neg.keys()):
        if left <= 0:
            break
        m = neg.get(b, 0)
        here = pos.get(b, 0) + m
        take = min(left, Fraction(here))
        caught += take * m / here
        left -= take
    return ReviewBudget(budget, float(reviewed), float(caught / n_neg) if n_neg else None,
                        float(caught / reviewed) if reviewed else None)


def reliability(pos: Mapping[int, int], neg: Mapping[int, int]) -> tuple[ReliabilityBin, ...]:
    """The reliability diagram's bins (``ECE_BINS``), empty ones included."""
    return tuple(ReliabilityBin(i / ECE_BINS, (i + 1) / ECE_BINS, n,
                                s / (RESOLUTION * n) if n else None, c / n if n else None)
                 for i, (n, c, s) in enumerate(_binned(pos, neg)))


# -- runs side by side (compare) ----------------------------------------------------------

#: The field name of the pooled figures in comparisons.
ALL_FIELDS = "all fields"


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    """One figure of one field (``ALL_FIELDS``: every field pooled) in each run, and each
    later run's difference from the first; None where a run has no such figure."""

    field: str
    metric: str
    values: tuple[float | None, ...]
    deltas: tuple[float | None, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "metric": self.metric, "values": list(self.values),
                "deltas": list(self.deltas)}


def _metrics(f: FieldCalibration | None, budgets: Sequence[float]
             ) -> list[tuple[str, float | None]]:
    review = [None] * len(budgets) if f is None else [r.caught for r in f.review]
    return [("ECE", None if f is None else f.ece), ("Brier", None if f is None else f.brier),
            ("AUROC", None if f is None else f.auroc),
            *((f"caught@{k:g}%", c) for k, c in zip(budgets, review, strict=True)),
            ("missing", None if f is None else float(f.missing + f.invalid))]


def compare_calibrations(cals: Sequence[Calibration | None],
                         budgets: Sequence[float] = REVIEW_BUDGETS) -> tuple[CalibrationRow, ...]:
    """Runs' calibrations side by side, every field pooled first, then each field in the
    order runs first have it; () when no run has confidences. ``missing`` counts the
    missing and invalid confidences."""
    if all(c is None for c in cals):
        return ()
    names = list(dict.fromkeys(k for c in cals if c is not None for k in c.per_field))
    rows = []
    for name in (ALL_FIELDS, *names):
        per_run = [None if c is None else c.overall if name == ALL_FIELDS
                   else c.per_field.get(name) for c in cals]
        columns = [_metrics(f, budgets) for f in per_run]
        for i, (metric, _) in enumerate(columns[0]):
            values = tuple(col[i][1] for col in columns)
            base = values[0]
            rows.append(CalibrationRow(name, metric, values, tuple(
                None if base is None or v is None else v - base for v in values[1:])))
    return tuple(rows)
