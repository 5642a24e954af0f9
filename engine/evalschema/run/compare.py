"""Compare extraction runs on the same gold: side-by-side metrics, paired bootstrap
confidence intervals for every difference, and the records that flipped.

Records are the unit of resampling, in a Poisson bootstrap (``bootstrap``): in each
replicate every record weighs a Poisson(1) draw seeded by the record (its gold record's
id, or index), so run k's record u and run 0's record u weigh the same: the bootstrap
is *paired*, and the difference of a metric is computed within the replicate. An
extracted record that matched no gold record is its own unit (it counts against the
run that produced it).

Every metric is recomputed from per-record, per-field counts (score sum, precision
denominator, recall denominator, number scored), so a replicate is a weighted sum,
which each run's ``ReplicateTally`` holds: mergeable, so runs scored in parts on a
cluster compare in one pass, identically to one machine. Intervals are percentiles of
the replicates' differences.

An undefined figure (docs/metrics.md) is NaN inside the arithmetic and None in the
result: a difference with an undefined side is None, and an interval is taken over the
resamples where the difference is defined (None when it never is).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evalschema import display
from evalschema.calibration import REVIEW_BUDGETS, CalibrationRow, compare_calibrations
from evalschema.errors import InputError, Problem
from evalschema.results import RecordResult, RunResult, Status, record_label
from evalschema.run.bootstrap import (
    BATCH,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DP,
    DR,
    FIELD_WIDTH,
    MACRO,
    BootstrapSpec,
    N,
    S,
    unit_key,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from evalschema.run.replicates import ReplicateTally

    Array = npt.NDArray[np.float64]

DEFAULT_CONFIDENCE = 0.95
_MISS = (Status.MISMATCH, Status.OMISSION)


@dataclass(frozen=True, slots=True)
class Difference:
    """A run's metric minus the baseline's, with its bootstrap confidence interval."""

    delta: float | None
    low: float | None
    high: float | None

    @property
    def significant(self) -> bool:
        """The interval excludes zero (never, when the difference is undefined)."""
        if self.delta is None or self.low is None or self.high is None:
            return False
        return self.low > 0.0 or self.high < 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"delta": self.delta, "low": self.low, "high": self.high,
                "significant": self.significant}


@dataclass(frozen=True, slots=True)
class MetricComparison:
    """One metric across runs: its value per run, and each later run's difference
    from the first."""

    metric: str
    values: tuple[float | None, ...]
    differences: tuple[Difference, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "values": list(self.values),
                "differences": [d.to_dict() for d in self.differences]}


@dataclass(frozen=True, slots=True)
class FieldComparison:
    """One field across runs. ``regressed[k]``/``fixed[k]`` count the judged
    positions of this field that went from match to mismatch/omission (or back)
    between the first run and run k+1."""

    field: str
    precision: MetricComparison
    recall: MetricComparison
    f1: MetricComparison
    scored: tuple[int, ...]
    regressed: tuple[int, ...]
    fixed: tuple[int, ...]
    #: Positions of this field in gold (the same for every run).
    gold: int = 0
    #: Hallucinated positions per run.
    hallucinations: tuple[int, ...] = ()

    @property
    def only_extracted(self) -> bool:
        """Gold never has this field and a run invented it: every result is a
        hallucination, so its F1 is 0 and says little. (A field gold has but that is
        skipped, or an error in every record, counts no gold position either: it is not
        one of these.)"""
        return self.gold == 0 and any(self.hallucinations)

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "gold": self.gold, "precision": self.precision.to_dict(),
                "recall": self.recall.to_dict(), "f1": self.f1.to_dict(),
                "scored": list(self.scored), "hallucinations": list(self.hallucinations),
                "regressed": list(self.regressed), "fixed": list(self.fixed)}


@dataclass(frozen=True, slots=True)
class RecordFlip:
    """A record whose fields changed between the first run and run ``run``:
    ``regressed`` paths went from match to mismatch/omission, ``fixed`` back."""

    run: int
    record_id: Any
    gold_index: int | None
    regressed: tuple[str, ...]
    fixed: tuple[str, ...]
    #: How reports name the record (``results.record_label``).
    label: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "record_id": self.record_id, "label": self.label,
                "gold_index": self.gold_index, "regressed": list(self.regressed),
                "fixed": list(self.fixed)}


@dataclass(frozen=True, repr=False)
class Comparison:
    """Runs side by side. ``overall`` holds micro (pooled) and macro (mean over
    records) precision, recall and F1; ``fields`` each field's; ``flips`` the records
    that changed, in record order, run by run. Shows itself in a REPL (a few lines) and a
    notebook (the overall and per-field tables, ``report/notebook.py``)."""

    labels: tuple[str, ...]
    records: int
    resamples: int
    seed: int
    confidence: float
    overall: dict[str, MetricComparison]
    fields: tuple[FieldComparison, ...]
    flips: tuple[RecordFlip, ...]
    #: The runs' calibration figures side by side (``calibration.compare_calibrations``);
    #: () when no run has confidences.
    calibration: tuple[CalibrationRow, ...] = ()

    def field(self, name: str) -> FieldComparison:
        return next(f for f in self.fields if f.field == name)

    def __repr__(self) -> str:
        return display.show(self, "text") or f"<Comparison of {' vs '.join(self.labels)}>"

    def _repr_html_(self) -> str | None:
        return display.show(self, "html")

    def to_dict(self) -> dict[str, Any]:
        return {"labels": list(self.labels), "records": self.records,
                "resamples": self.resamples, "seed": self.seed, "confidence": self.confidence,
                "overall": {k: v.to_dict() for k, v in self.overall.items()},
                "fields": [f.to_dict() for f in self.fields],
                "flips": [f.to_dict() for f in self.flips],
                **({"calibration": [r.to_dict() for r in self.calibration]}
                   if self.calibration else {})}


def _counted(run: RunResult) -> list[RecordResult | None]:
    """The run's records that count in its metrics (None for the others): not the
    unreadable, unpaired extracted records (no gold, no field results), unless the run
    counted them after all."""
    flags = [bool(r.field_results) or r.gold_index is not None for r in run.records]
    if sum(flags) != run.total_records:
        return list(run.records)
    return [r if f else None for r, f in zip(run.records, flags, strict=True)]


def _prf(c: Array) -> tuple[Array, Array, Array]:
    """Precision, recall, F1 from counts (last axis: S, DP, DR, N), with the engine's
    conventions (``results.precision_recall_f1``): an empty denominator gives NaN
    (undefined), F1 is NaN when nothing was scored and 0 when only one side is defined."""
    import numpy as np  # on first use: a run that is not compared never loads numpy

    s, dp, dr, n = c[..., S], c[..., DP], c[..., DR], c[..., N]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(dp > 0, s / np.where(dp > 0, dp, 1.0), np.nan)
        r = np.where(dr > 0, s / np.where(dr > 0, dr, 1.0), np.nan)
        tot = np.where((dp > 0) & (dr > 0), p + r, 0.0)
        f = np.where(n > 0, np.where(tot > 0, 2 * p * r / np.where(tot > 0, tot, 1.0), 0.0),
                     np.nan)
    return p, r, f


def _metrics(sums: Array) -> dict[str, Array]:
    """Metric name -> array (..., runs[, fields]) from summed tally columns (..., runs,
    ``MACRO`` + ``FIELD_WIDTH`` x fields)."""
    import numpy as np

    field_counts = sums[..., MACRO:].reshape(*sums.shape[:-1], -1, FIELD_WIDTH)
    fp, fr, ff = _prf(field_counts)
    mp, mr, mf = _prf(field_counts.sum(axis=-2))
    macro = []
    for i in (0, 2, 4):
        n = sums[..., i]
        macro.append(np.where(n > 0, sums[..., i + 1] / np.where(n > 0, n, 1.0), np.nan))
    return {"field_precision": fp, "field_recall": fr, "field_f1": ff,
            "micro_precision": mp, "micro_recall": mr, "micro_f1": mf,
            "macro_precision": macro[0], "macro_recall": macro[1], "macro_f1": macro[2]}


def _figure(value: Any) -> float | None:
    """A computed figure as reported: NaN (undefined) is None."""
    v = float(value)
    return None if math.isnan(v) else v


def _tally(run: RunResult, spec: BootstrapSpec
           ) -> tuple[ReplicateTally, list[Any | None] | None]:
    """The run's replicate tally, and its records' unit keys (None for a record that does
    not count; no list for a run that kept no records): the run's own tally when it was
    made under ``spec``, else one made from its records."""
    from evalschema.run.replicates import ReplicateTally

    own = run.replicates if run.replicates is not None and run.replicates.spec == spec \
        else None
    if not run.records:  # an empty run, or one with its own tally (compare_runs checked)
        return own or ReplicateTally(spec), None
    counted = _counted(run)
    seen: dict[Any, int] = {}
    keys = [None if r is None else unit_key(r, seen) for r in counted]
    if own is not None:
        return own, keys
    pairs = [(r, k) for r, k in zip(counted, keys, strict=True) if r is not None]
    tally = ReplicateTally(spec)
    for i in range(0, len(pairs), BATCH):
        chunk = pairs[i:i + BATCH]
        tally.add([r for r, _ in chunk], [k for _, k in chunk])
    return tally, keys


def compare_runs(runs: Sequence[RunResult], labels: Sequence[str] | None = None, *,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 confidence: float = DEFAULT_CONFIDENCE,
                 budgets: Sequence[float] = REVIEW_BUDGETS) -> Comparison:
    """Compare two or more runs over the same gold.

    Differences are against the first run. Each comes with a paired ``confidence``
    interval (percentile method) from a Poisson bootstrap of ``resamples`` replicates
    seeded by record (``bootstrap``): the same seed gives the same intervals, on one
    machine or merged from a cluster. A run that carries replicate sums made with the
    same resamples and seed (``RunResult.replicates``) is compared from them, so it need
    not keep its records; it then gets no flipped records. Otherwise its records make
    them. ``budgets`` are the review budgets (percent) of the calibration figures
    (``Comparison.calibration``, for runs with confidences).
    """
    import numpy as np

    if len(runs) < 2:
        raise InputError([Problem("bad-option", "compare needs at least two runs")])
    if resamples < 1:
        raise InputError([Problem("bad-option", f"resamples must be at least 1, not {resamples}")])
    if not 0.0 < confidence < 1.0:
        raise InputError([Problem("bad-option", f"confidence {confidence} is not between 0 "
                                  "and 1")])
    names = tuple(labels) if labels is not None else tuple(f"run {i + 1}" for i in range(len(runs)))
    if len(names) != len(runs):
        raise InputError([Problem("bad-option", "one label per run is needed")])
    spec = BootstrapSpec(resamples, seed)
    for k, run in enumerate(runs):
        has_tally = run.replicates is not None and run.replicates.spec == spec
        if run.total_records and not run.records and not has_tally:
            raise InputError([Problem("no-records", f"run {names[k]!r} kept no per-record "
                                      "results (nor bootstrap replicates of these resamples "
                                      "and seed); evaluate it with keep_records=True")])
    made = [_tally(run, spec) for run in runs]
    tallies = [t for t, _ in made]
    gold = [t.gold_keys() for t in tallies]
    if any(len(g) != len(gold[0]) or not np.array_equal(g, gold[0]) for g in gold[1:]):
        raise InputError([Problem("different-gold", "the runs were not scored on the same "
                                  "gold records", suggestion="compare runs of one gold file")])

    # Fields in first-seen order; each run's sums laid out alike: (runs, columns).
    fields: dict[str, int] = {}
    for run, t in zip(runs, tallies, strict=True):
        for fname in [*run.per_field, *t.fields]:
            fields.setdefault(fname, len(fields))
    laid = [t.columns(fields) for t in tallies]
    observed = _metrics(np.stack([obs for obs, _ in laid]))
    replicate = _metrics(np.stack([rep for _, rep in laid], axis=1))
    alpha = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN: an undefined difference
        # differences against the first run, within each replicate (paired)
        bounds = {name: np.nanquantile(value[:, 1:] - value[:, :1], [alpha, 1.0 - alpha],
                                       axis=0)
                  for name, value in replicate.items()}
    n_runs = len(runs)

    def comparison(name: str, metric: str, f: int | None = None) -> MetricComparison:
        obs, (lo, hi) = observed[name], bounds[name]
        if f is not None:
            obs, lo, hi = obs[..., f], lo[..., f], hi[..., f]
        values = tuple(_figure(v) for v in obs)
        diffs = []
        for k in range(1, n_runs):
            a, b = values[0], values[k]
            diffs.append(Difference(None, None, None) if a is None or b is None else
                         Difference(b - a, _figure(lo[k - 1]), _figure(hi[k - 1])))
        return MetricComparison(metric, values, tuple(diffs))

    overall = {f"{kind}_{m}": comparison(f"{kind}_{m}", f"{kind} {m.replace('f1', 'F1')}")
               for kind in ("micro", "macro") for m in ("precision", "recall", "f1")}
    flips, per_field_flips = _flips(runs, [keys for _, keys in made])
    counts = [obs[MACRO:].reshape(-1, FIELD_WIDTH) for obs, _ in laid]
    field_list = []
    for name, f in fields.items():
        scored = tuple(round(c[f, N]) for c in counts)
        halluc = tuple(round(c[f, N] - c[f, DR]) for c in counts)
        field_list.append(FieldComparison(
            name, comparison("field_precision", "precision", f),
            comparison("field_recall", "recall", f), comparison("field_f1", "F1", f), scored,
            tuple(per_field_flips[k].get(name, (0, 0))[0] for k in range(1, n_runs)),
            tuple(per_field_flips[k].get(name, (0, 0))[1] for k in range(1, n_runs)),
            max(round(c[f, DR]) for c in counts), halluc))
    units = len(gold[0]) + sum(t.extra_units for t in tallies)
    return Comparison(names, units, resamples, seed, confidence, overall, tuple(field_list),
                      tuple(flips), compare_calibrations([run.calibration(budgets)
                                                          for run in runs], budgets))


def _flips(runs: Sequence[RunResult], run_keys: Sequence[list[Any | None] | None]
           ) -> tuple[list[RecordFlip], list[dict[str, tuple[int, int]]]]:
    """Records whose judged positions went match -> mismatch/omission or back (none for
    a run, or against a first run, that kept no records: ``run_keys`` None)."""
    def statuses(rec: RecordResult) -> dict[str, tuple[Status, str]]:
        return {r.path: (r.status, r.field) for r in rec.field_results}

    first = run_keys[0] or []
    base = {key: rec for rec, key in zip(runs[0].records, first, strict=True)
            if key is not None}
    flips: list[RecordFlip] = []
    per_field: list[dict[str, tuple[int, int]]] = [{}]
    for k in range(1, len(runs)):
        counts: dict[str, list[int]] = {}
        for rec, key in zip(runs[k].records, run_keys[k] or [], strict=True):
            other = base.get(key) if key is not None else None
            if other is None:
                continue
            before, after = statuses(other), statuses(rec)
            regressed: list[str] = []
            fixed: list[str] = []
            for path, (st0, fld) in before.items():
                got = after.get(path)
                if got is None:
                    continue
                st1 = got[0]
                if st0 is Status.MATCH and st1 in _MISS:
                    regressed.append(path)
                    counts.setdefault(fld, [0, 0])[0] += 1
                elif st0 in _MISS and st1 is Status.MATCH:
                    fixed.append(path)
                    counts.setdefault(fld, [0, 0])[1] += 1
            if regressed or fixed:
                rid = rec.record_id if rec.record_id is not None else other.record_id
                flips.append(RecordFlip(k, rid, rec.gold_index, tuple(regressed),
                                        tuple(fixed), record_label(
                                            rid, rec.name or other.name, other.index)))
        per_field.append({f: (c[0], c[1]) for f, c in counts.items()})
    return flips, per_field
