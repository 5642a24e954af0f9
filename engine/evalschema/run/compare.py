"""Compare extraction runs on the same gold: side-by-side metrics, paired bootstrap
confidence intervals for every difference, and the records that flipped.

Records are the unit of resampling. Run k's record u is paired with run 0's record u
through the gold record both were scored against (``gold_index``), so the bootstrap
is *paired*: each resample draws the same records for every run, and the difference
of a metric is computed within the resample. An extracted record that matched no gold
record is its own unit (it counts against the run that produced it).

Every metric is recomputed from per-record, per-field counts (score sum, precision
denominator, recall denominator, number scored), so a resample is a weighted sum:
``counts[b] = W[b] @ X`` with ``W`` the resample's multiplicities. Resamples are drawn
in blocks and each block is one matrix product: no Python loop over records or over
resamples within a block.

An undefined figure (docs/metrics.md) is NaN inside the arithmetic and None in the
result: a difference with an undefined side is None, and an interval is taken over the
resamples where the difference is defined (None when it never is).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from evalschema import display
from evalschema.calibration import REVIEW_BUDGETS, CalibrationRow, compare_calibrations
from evalschema.errors import InputError, Problem
from evalschema.results import RecordResult, RunResult, Status, record_label

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = 0.95
#: Elements of a block's multiplicity matrix (resamples x records); bounds memory.
_BLOCK_ELEMENTS = 4_000_000

#: Count columns per (record, field): score sum, matches+mismatches+hallucinations
#: (precision denominator), matches+mismatches+omissions (recall denominator), scored.
_S, _DP, _DR, _N = range(4)
_MISS = (Status.MISMATCH, Status.OMISSION)

Array = npt.NDArray[np.float64]


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


def _unit_key(rec: RecordResult, seen: dict[Any, int]) -> Any:
    if rec.gold_index is not None:
        return ("gold", rec.gold_index)
    base = ("extra", rec.record_id if rec.record_id is not None else
            rec.name if rec.name is not None else rec.index)
    n = seen.get(base, 0)
    seen[base] = n + 1
    return (*base, n)


def _counted_flags(run: RunResult) -> list[bool]:
    """Which records count in the run's metrics: not the unreadable, unpaired extracted
    records (no gold, no field results), unless the run counted them after all."""
    flags = [bool(r.field_results) or r.gold_index is not None for r in run.records]
    return flags if sum(flags) == run.total_records else [True] * len(run.records)


def _prf(c: Array) -> tuple[Array, Array, Array]:
    """Precision, recall, F1 from counts (last axis: S, DP, DR, N), with the engine's
    conventions (``results.precision_recall_f1``): an empty denominator gives NaN
    (undefined), F1 is NaN when nothing was scored and 0 when only one side is defined."""
    s, dp, dr, n = c[..., _S], c[..., _DP], c[..., _DR], c[..., _N]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(dp > 0, s / np.where(dp > 0, dp, 1.0), np.nan)
        r = np.where(dr > 0, s / np.where(dr > 0, dr, 1.0), np.nan)
        tot = np.where((dp > 0) & (dr > 0), p + r, 0.0)
        f = np.where(n > 0, np.where(tot > 0, 2 * p * r / np.where(tot > 0, tot, 1.0), 0.0),
                     np.nan)
    return p, r, f


def _defined(value: float | None) -> tuple[float, float]:
    """(present, value) columns of a record's figure: (0, 0) when it is undefined."""
    return (0.0, 0.0) if value is None else (1.0, value)


def _tally(records: Sequence[RecordResult], units: dict[Any, int],
           fields: dict[str, int], keys: list[Any]) -> tuple[Array, Array]:
    """Per (unit, field) counts, and per unit [defined, value] of P, R and F1 for the
    macro means."""
    x = np.zeros((len(units), len(fields), 4))
    rec_stats = np.zeros((len(units), 6))
    for rec, key in zip(records, keys, strict=True):
        if key is None:
            continue
        u = units[key]
        prec, rec_recall, f1, _ = rec.counts.metrics()
        rec_stats[u] = (*_defined(prec), *_defined(rec_recall), *_defined(f1))
        row = x[u]
        for r in rec.field_results:
            st = r.status
            if st is Status.MATCH or st is Status.MISMATCH:
                c = row[fields[r.field]]
                c[_S] += r.score
                c[_DP] += 1
                c[_DR] += 1
                c[_N] += 1
            elif st is Status.OMISSION:
                c = row[fields[r.field]]
                c[_DR] += 1
                c[_N] += 1
            elif st is Status.HALLUCINATION:
                c = row[fields[r.field]]
                c[_DP] += 1
                c[_N] += 1
    return x, rec_stats


def _figure(value: Any) -> float | None:
    """A computed figure as reported: NaN (undefined) is None."""
    v = float(value)
    return None if math.isnan(v) else v


def resample_weights(rng: np.random.Generator, n_resamples: int, n_units: int) -> Array:
    """Multiplicities of each unit in each resample (rows sum to ``n_units``): one
    vectorised draw of indices, counted with one ``bincount``."""
    idx = rng.integers(0, n_units, size=(n_resamples, n_units))
    flat = (idx + (np.arange(n_resamples) * n_units)[:, None]).ravel()
    counts = np.bincount(flat, minlength=n_resamples * n_units)
    return counts.reshape(n_resamples, n_units).astype(np.float64)


def compare_runs(runs: Sequence[RunResult], labels: Sequence[str] | None = None, *,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 confidence: float = DEFAULT_CONFIDENCE,
                 budgets: Sequence[float] = REVIEW_BUDGETS) -> Comparison:
    """Compare two or more runs over the same gold (each run must keep its records).

    Differences are against the first run. Each comes with a paired bootstrap
    ``confidence`` interval (percentile method) from ``resamples`` resamples of the
    records drawn with ``numpy.random.default_rng(seed)``; the same seed gives the same
    intervals. ``budgets`` are the review budgets (percent) of the calibration figures
    (``Comparison.calibration``, for runs with confidences).
    """
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
    for k, run in enumerate(runs):
        if run.total_records and not run.records:
            raise InputError([Problem("no-records", f"run {names[k]!r} kept no per-record "
                                      "results; evaluate it with keep_records=True")])
    gold_sets = [sorted(r.gold_index for r in run.records if r.gold_index is not None)
                 for run in runs]
    if any(g != gold_sets[0] for g in gold_sets[1:]):
        raise InputError([Problem("different-gold", "the runs were not scored on the same "
                                  "gold records", suggestion="compare runs of one gold file")])

    # Units (records) and fields, in first-seen order.
    units: dict[Any, int] = {}
    fields: dict[str, int] = {}
    run_keys: list[list[Any]] = []
    for run in runs:
        seen: dict[Any, int] = {}
        keys: list[Any] = []
        for rec, counted in zip(run.records, _counted_flags(run), strict=True):
            if not counted:
                keys.append(None)
                continue
            key = _unit_key(rec, seen)
            units.setdefault(key, len(units))
            keys.append(key)
        run_keys.append(keys)
        for fname in run.per_field:
            fields.setdefault(fname, len(fields))
    n_units, n_fields, n_runs = len(units), len(fields), len(runs)
    tallies = [_tally(run.records, units, fields, keys) for run, keys in zip(runs, run_keys,
                                                                              strict=True)]

    # One design matrix: per run, F x 4 field counts then [defined, value] of P, R, F1
    # per record (a record's undefined figure is left out of its mean), padded to a
    # multiple of 4 columns so that each run's block sits alike in the matrix product's
    # vector lanes and identical runs sum to identical floats.
    width = n_fields * 4 + 8
    design = np.zeros((n_units, n_runs * width))
    for k, (x, rec_stats) in enumerate(tallies):
        design[:, k * width:k * width + n_fields * 4] = x.reshape(n_units, n_fields * 4)
        design[:, k * width + n_fields * 4:k * width + n_fields * 4 + 6] = rec_stats

    def metrics(sums: Array) -> dict[str, Array]:
        """Metric name -> array (..., runs[, fields]) from summed design columns."""
        s = sums.reshape(*sums.shape[:-1], n_runs, width)
        field_counts = s[..., :n_fields * 4].reshape(*s.shape[:-1], n_fields, 4)
        fp, fr, ff = _prf(field_counts)
        mp, mr, mf = _prf(field_counts.sum(axis=-2))
        macro = []
        for i in (0, 2, 4):
            n = s[..., n_fields * 4 + i]
            macro.append(np.where(n > 0, s[..., n_fields * 4 + i + 1] / np.where(n > 0, n, 1.0),
                                  np.nan))
        return {"field_precision": fp, "field_recall": fr, "field_f1": ff,
                "micro_precision": mp, "micro_recall": mr, "micro_f1": mf,
                "macro_precision": macro[0], "macro_recall": macro[1], "macro_f1": macro[2]}

    observed = metrics(design.sum(axis=0))
    rng = np.random.default_rng(seed)
    block = max(1, min(resamples, _BLOCK_ELEMENTS // max(n_units, 1)))
    boot: dict[str, list[Array]] = {k: [] for k in observed}
    done = 0
    while done < resamples:
        b = min(block, resamples - done)
        sums = resample_weights(rng, b, n_units) @ design if n_units else \
            np.zeros((b, design.shape[1]))
        for name, value in metrics(sums).items():
            # differences against the first run, within each resample (paired)
            boot[name].append(value[:, 1:] - value[:, :1])
        done += b
    alpha = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN: an undefined difference
        bounds = {name: np.nanquantile(np.concatenate(parts), [alpha, 1.0 - alpha], axis=0)
                  for name, parts in boot.items()}

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
    flips, per_field_flips = _flips(runs, run_keys, fields)
    field_list = []
    for name, f in fields.items():
        scored = tuple(int(x[:, f, _N].sum()) for x, _ in tallies)
        gold = max(int(x[:, f, _DR].sum()) for x, _ in tallies)
        halluc = tuple(int((x[:, f, _N] - x[:, f, _DR]).sum()) for x, _ in tallies)
        field_list.append(FieldComparison(
            name, comparison("field_precision", "precision", f),
            comparison("field_recall", "recall", f), comparison("field_f1", "F1", f), scored,
            tuple(per_field_flips[k].get(name, (0, 0))[0] for k in range(1, n_runs)),
            tuple(per_field_flips[k].get(name, (0, 0))[1] for k in range(1, n_runs)),
            gold, halluc))
    return Comparison(names, n_units, resamples, seed, confidence, overall, tuple(field_list),
                      tuple(flips), compare_calibrations([run.calibration(budgets)
                                                          for run in runs], budgets))


def _flips(runs: Sequence[RunResult], run_keys: list[list[Any]], fields: dict[str, int]
           ) -> tuple[list[RecordFlip], list[dict[str, tuple[int, int]]]]:
    """Records whose judged positions went match -> mismatch/omission or back."""
    def statuses(rec: RecordResult) -> dict[str, tuple[Status, str]]:
        return {r.path: (r.status, r.field) for r in rec.field_results}

    base = {key: rec for rec, key in zip(runs[0].records, run_keys[0], strict=True)
            if key is not None}
    flips: list[RecordFlip] = []
    per_field: list[dict[str, tuple[int, int]]] = [{}]
    for k in range(1, len(runs)):
        counts: dict[str, list[int]] = {}
        for rec, key in zip(runs[k].records, run_keys[k], strict=True):
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
