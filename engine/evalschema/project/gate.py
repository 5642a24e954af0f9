"""Thresholds that gate a run: an overall F1 to reach and per-field F1 thresholds.

``check_run`` turns them into ``Check`` results; the CLI exits 1 when one fails and
the JUnit report makes one test case of each.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from evalschema.errors import did_you_mean
from evalschema.results import FieldAggregation, RunResult

FailMetric = Literal["macro", "micro"]

#: Figures are compared after rounding away binary-float noise (0.9 + 1e-16 >= 0.9).
_EPS = 1e-9
#: The heading of the problems ``unknown_threshold`` describes.
UNKNOWN_THRESHOLDS = "a threshold names an unknown field"


def unknown_threshold(path: str, known: Collection[str]) -> tuple[str, str] | None:
    """A threshold on a field the schema does not have is a mistake, not a failed check:
    its message and suggestion (the closest name), or None for a known field. Callers
    locate it (a config key, ``--threshold``, ``assert_extraction``'s ``fields``)."""
    if path in known:
        return None
    hint = did_you_mean(path, known)
    return (f"threshold for {path!r}: the schema has no such field",
            f"did you mean {hint!r}?" if hint else
            "use a field path as in the per-field table, e.g. line_items[].amount")


def meets(value: float | None, threshold: float) -> bool:
    """Whether a figure reaches its threshold; an undefined figure (nothing judged) does not.
    The one comparison: the CLI's gate, the editor's marks and badges all use it."""
    return value is not None and value + _EPS >= threshold


@dataclass(frozen=True, slots=True)
class Check:
    """One threshold and how the run fared against it.

    ``field`` is a field path, or ``None`` for the overall F1. ``value`` is None when
    the figure is undefined (nothing was judged): such a check fails, since a threshold
    that nothing was measured against has not been met.
    """

    field: str | None
    metric: str
    value: float | None
    threshold: float

    @property
    def passed(self) -> bool:
        return meets(self.value, self.threshold)

    @property
    def name(self) -> str:
        return self.field if self.field is not None else f"overall {self.metric}"

    def describe(self) -> str:
        sign = ">=" if self.passed else "<"
        head = f"{self.name}:" if self.field is not None else "overall"
        if self.value is None:
            return (f"{head} {self.metric} undefined: nothing was judged "
                    f"(needs >= {self.threshold:.4f})")
        return f"{head} {self.metric} {self.value:.4f} {sign} {self.threshold:.4f}"

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "metric": self.metric, "value": self.value,
                "threshold": self.threshold, "passed": self.passed}


def overall_f1(run: RunResult, metric: FailMetric = "macro") -> float | None:
    return run.micro_f1 if metric == "micro" else run.mean_f1


def check_run(run: RunResult, *, fail_under: float | None = None,
              fail_metric: FailMetric = "macro",
              thresholds: Mapping[str, float] | None = None) -> tuple[Check, ...]:
    """The overall check (when ``fail_under`` is set) then one per field threshold.

    The overall figure is the macro F1 (mean over records) unless ``fail_metric`` is
    ``"micro"`` (pooled). A field threshold is on the field's pooled F1; a field the
    run never judged has an undefined F1, and its check fails (``Check.describe``).
    """
    checks: list[Check] = []
    if fail_under is not None:
        checks.append(Check(None, f"{fail_metric} F1", overall_f1(run, fail_metric), fail_under))
    for path, threshold in (thresholds or {}).items():
        agg = run.per_field.get(path) or FieldAggregation(path)
        checks.append(Check(path, "F1", agg.f1, threshold))
    return tuple(checks)


def passed(checks: tuple[Check, ...]) -> bool:
    return all(c.passed for c in checks)
