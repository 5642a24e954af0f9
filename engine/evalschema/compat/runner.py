"""Running a peer metric over a whole suite (``evalschema eval --metric NAME``).

Peer metrics score one document pair; a suite has hundreds. Records are paired
as the native engine pairs them (id field, else file name, else position); each pair is scored
and explained, and the per-field explanations are aggregated like a native run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalschema.compat import METRICS
from evalschema.compat.errors import CompatInputError
from evalschema.compat.struct_extract_eval import METRICS as RUN_METRICS
from evalschema.io.lenient import LenientParseError, parse_lenient
from evalschema.io.records import RawRecord
from evalschema.results import FieldAggregation, RunResult, record_label
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.pairing import pairing_names


@dataclass(frozen=True)
class RecordScore:
    record_id: Any
    score: float | None
    problem: str | None = None
    #: How reports name the record (``results.record_label``).
    label: str = ""


@dataclass(frozen=True)
class MetricRun:
    """A peer metric over a suite: its mean, per record, and per field (from explanations)."""

    metric: str
    scale: float
    records: tuple[RecordScore, ...]
    per_field: dict[str, FieldAggregation]

    @property
    def mean_score(self) -> float:
        scores = [r.score for r in self.records if r.score is not None]
        return sum(scores) / len(scores) if scores else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric, "scale": self.scale, "mean_score": self.mean_score,
            "records": [{"record_id": r.record_id, "label": r.label, "score": r.score,
                         "problem": r.problem} for r in self.records],
            "per_field": {k: v.to_dict() for k, v in self.per_field.items()},
        }


def metric_names() -> list[str]:
    return sorted([*METRICS, *RUN_METRICS])


def _pairs(gold: Sequence[RawRecord], extracted: Sequence[RawRecord],
           id_field: str | None, names: Sequence[Any] | None) -> list[tuple[Any, Any, Any]]:
    """(id, gold, extracted): by ``id_field``, else by file name (``names``, from
    ``pairing.pairing_names``; the id is the name: the first record of a name pairs, the
    others are left over), else by position (the id is the index)."""
    if id_field is None and names is not None:
        first: dict[Any, int] = {}
        for j, name in enumerate(names):
            first.setdefault(name, j)
        used: set[int] = set()
        paired: list[tuple[Any, Any, Any]] = []
        for rec in gold:
            at = first.get(rec.name)
            if at is not None:
                used.add(at)
            paired.append((rec.name, rec.value, None if at is None else extracted[at].value))
        return paired + [(names[j], None, x.value) for j, x in enumerate(extracted)
                         if j not in used]
    if id_field is None:
        out: list[tuple[Any, Any, Any]] = []
        for i in range(max(len(gold), len(extracted))):
            g = gold[i].value if i < len(gold) else None
            e = extracted[i].value if i < len(extracted) else None
            out.append((i, g, e))
        return out
    by_id: dict[Any, Any] = {}
    for r in extracted:
        # Text answers are paired through their leniently read id but passed on as
        # text: the peer metric decides what it makes of them, as it would.
        value = r.value
        if isinstance(value, str):
            try:
                value = parse_lenient(value).value
            except LenientParseError:
                continue
        if isinstance(value, dict) and id_field in value:
            by_id.setdefault(value[id_field], r.value)
    return [(g.value.get(id_field), g.value, by_id.get(g.value.get(id_field)))
            for g in gold if isinstance(g.value, dict)]


def _by_gold_names(gold: Sequence[RawRecord], extracted: Sequence[RawRecord],
                   names: Sequence[Any]) -> list[RawRecord]:
    """One-document files put in gold order by name, for a metric that pairs by position;
    a file with no counterpart is an error naming it (never a silent shift)."""
    named = dict(zip(names, extracted, strict=True))
    missing = [g.name for g in gold if g.name not in named]
    extra = sorted(str(n) for n in set(named) - {g.name for g in gold})
    if missing or extra or len(named) != len(extracted):
        parts = [f"no extracted file for {', '.join(map(str, missing))}"] if missing else []
        parts += [f"no gold file for {', '.join(map(str, extra))}"] if extra else []
        if len(named) != len(extracted):
            parts.append("two extracted records share a file name")
        raise CompatInputError("this metric pairs records by position; "
                               + "; ".join(parts))
    return [named[g.name] for g in gold]


def run_metric(name: str, gold: Sequence[RawRecord], extracted: Sequence[RawRecord], *,
               schema: Any, id_field: str | None = None,
               options: Mapping[str, Any] | None = None,
               source: str | Path | None = None) -> MetricRun | RunResult:
    """Score every record pair with the peer metric ``name``; ``source``, the path the
    extracted records were read from, lets a folder pair by file name as the engine does."""
    opts = dict(options or {})
    names = None if id_field is not None else pairing_names(
        gold, source if source is not None else extracted, extracted)
    if name in RUN_METRICS:
        if names is not None:
            extracted = _by_gold_names(gold, extracted, names)
        return RUN_METRICS[name]([g.value for g in gold], [e.value for e in extracted], schema,
                                 id_field=id_field, **opts)
    metric = METRICS.get(name)
    if metric is None:
        raise CompatInputError(f"unknown metric {name!r}; known: {', '.join(metric_names())}")
    acc = RunAccumulator(keep_records=False)
    records: list[RecordScore] = []
    scale = 1.0
    for k, (rid, g, e) in enumerate(_pairs(gold, extracted, id_field, names)):
        label = rid if isinstance(rid, str) else record_label(
            None if id_field is None else rid, None, rid if id_field is None else k)
        if g is None:
            records.append(RecordScore(rid, None, "no gold record", label))
            continue
        if e is None:
            records.append(RecordScore(rid, 0.0, "no extracted record", label))
            continue
        try:
            result = metric(g, e, **opts)
        except CompatInputError as exc:
            records.append(RecordScore(rid, 0.0, str(exc), label))
            continue
        scale = float(result.details.get("scale", scale))
        acc.tally(result.fields)
        records.append(RecordScore(rid, result.score, None, label))
    per_field = acc.result().per_field
    return MetricRun(name, scale, tuple(records), per_field)
