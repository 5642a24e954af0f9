"""Runs and comparisons logged to MLflow (``log_run``, ``log_comparison``; ``eval
--mlflow``, ``compare --mlflow``), with the optional ``mlflow`` extra (mlflow-skinny).

Where it goes is MLflow's own choice, never ours: the tracking URI and experiment the
user configured (``MLFLOW_TRACKING_URI``, ``MLFLOW_EXPERIMENT_NAME``, ``mlflow.set_*``),
else MLflow's defaults (a local ``mlruns`` store); docs/security.md.

Metric names are what MLflow accepts on every platform (``mlflow.utils.validation``:
letters, digits, ``_ - . /`` and spaces, no ``.``/``..`` segment, at most 250
characters): ``f1/line_items.amount`` for ``line_items[].amount``; other characters
become ``_``, and names that would then collide get ``_2``, ``_3``… The artifact
``evalschema/metric_names.json`` maps each name back to its field. An undefined figure
(docs/metrics.md) is never logged as a number: its name is listed in the tag
``evalschema.undefined_metrics``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from evalschema.frames import need
from evalschema.report.html import runs_html
from evalschema.report.html_compare import compare_html
from evalschema.report.model import RunReport
from evalschema.results import RunResult
from evalschema.run.compare import Comparison, MetricComparison
from evalschema.safetext import json_text
from evalschema.version import __version__

#: Characters MLflow refuses in a metric, param or tag name (its Windows rule, the
#: stricter: no colon).
_BAD = re.compile(r"[^/\w.\- ]")
#: MLflow's limits on a name and on a param and a tag value.
MAX_KEY = 250
MAX_PARAM = 6000
MAX_TAG = 8000
#: Where the artifacts go in the MLflow run.
FOLDER = "evalschema"
UNDEFINED_TAG = "evalschema.undefined_metrics"


def _mlflow() -> Any:
    return need("mlflow", "logging to MLflow")


def safe_name(path: str, room: int = MAX_KEY) -> str:
    """``path`` in the characters MLflow accepts: ``[]`` dropped, others ``_``."""
    name = _BAD.sub("_", path.replace("[]", "").replace("/", "_")) or "_record"
    if not name.strip("."):  # "." or "..": a path segment MLflow refuses
        name = name.replace(".", "_")
    return name[:room]


class Names:
    """Safe, unique MLflow names for field paths (or run labels), one per path. A path
    that is already a safe name keeps it; one that had to change yields to it (``a:b``
    becomes ``a_b_2`` when the schema also has ``a_b``)."""

    def __init__(self, room: int, paths: Iterable[str] = ()) -> None:
        self.room = room
        self.safe: dict[str, str] = {}
        for path in sorted(paths, key=lambda p: safe_name(p, room) != p):
            self(path)

    def __call__(self, path: str) -> str:
        if path in self.safe:
            return self.safe[path]
        name = base = safe_name(path, self.room)
        taken = set(self.safe.values())
        n = 2
        while name in taken:
            suffix = f"_{n}"
            name = base[:self.room - len(suffix)] + suffix
            n += 1
        self.safe[path] = name
        return name


def _figures(prefix: str, values: Iterable[tuple[str, float | None]],
             metrics: dict[str, float], undefined: list[str]) -> None:
    for name, value in values:
        key = f"{prefix}{name}"
        if value is None:
            undefined.append(key)
        else:
            metrics[key] = value


def run_metrics(run: RunResult) -> tuple[dict[str, float], list[str], dict[str, str]]:
    """(metrics, the names of the undefined ones, metric name segment → field path)."""
    metrics: dict[str, float] = {}
    undefined: list[str] = []
    t = run.totals
    _figures("", [("macro_f1", run.mean_f1), ("macro_precision", run.mean_precision),
                  ("macro_recall", run.mean_recall), ("micro_f1", run.micro_f1),
                  ("micro_precision", run.micro_precision), ("micro_recall", run.micro_recall),
                  ("weighted_score", run.mean_weighted_score),
                  ("gold_coverage", run.coverage.share)], metrics, undefined)
    metrics.update({"records": run.total_records, "fields_judged": run.total_fields,
                    "matches": t.matches, "mismatches": t.mismatches,
                    "omissions": t.omissions, "hallucinations": t.hallucinations,
                    "errors": t.errors, "skipped": t.skipped})
    names = Names(MAX_KEY - len("precision/"), run.per_field)
    for path, agg in run.per_field.items():
        name = names(path)
        _figures("", [(f"f1/{name}", agg.f1), (f"precision/{name}", agg.precision),
                      (f"recall/{name}", agg.recall)], metrics, undefined)
    return metrics, undefined, {v: k for k, v in names.safe.items()}


def _differences(infix: str, m: MetricComparison, k: int, key: str,
                 metrics: dict[str, float], undefined: list[str]) -> None:
    d = m.differences[k]
    _figures("", [(f"delta{infix}/{key}", d.delta), (f"delta_low{infix}/{key}", d.low),
                  (f"delta_high{infix}/{key}", d.high)], metrics, undefined)


def comparison_metrics(c: Comparison) -> tuple[dict[str, float], list[str], dict[str, str]]:
    """Each run's overall figures (``value/<label>/macro_f1``), and each difference from
    the first run with its interval: ``delta/macro_f1``, ``delta_low/…``,
    ``delta_high/…``, per field ``delta/f1/<field>``; with three runs or more the
    differences name the run (``delta/<label>/macro_f1``)."""
    metrics: dict[str, float] = {"records": c.records}
    undefined: list[str] = []
    labels = Names(60, c.labels)
    fields = Names(MAX_KEY - 60 - len("delta_high//precision/"), (f.field for f in c.fields))
    for i, label in enumerate(c.labels):
        _figures(f"value/{labels(label)}/", [(key, m.values[i]) for key, m in c.overall.items()],
                 metrics, undefined)
    for k, label in enumerate(c.labels[1:]):
        infix = "" if len(c.labels) == 2 else f"/{labels(label)}"
        for key, m in c.overall.items():
            _differences(infix, m, k, key, metrics, undefined)
        for f in c.fields:
            if f.only_extracted:
                continue
            name = fields(f.field)
            for what in (f.f1, f.precision, f.recall):
                _differences(infix, what, k, f"{what.metric.lower()}/{name}", metrics,
                             undefined)
    return metrics, undefined, {v: k for k, v in fields.safe.items()}


def _params(settings: Mapping[str, Any]) -> dict[str, str]:
    names = Names(MAX_KEY)
    out = {}
    for key, value in settings.items():
        if value in (None, "", [], {}, ()):
            continue
        text = value if isinstance(value, str) else json_text(value, indent=None)
        out[names(str(key))] = text[:MAX_PARAM]
    return out


@contextmanager
def _mlflow_run(experiment: str | None, run_name: str | None) -> Iterator[Any]:
    """The active MLflow run, else a new one in ``experiment`` (default: MLflow's)."""
    mlflow = _mlflow()
    active = mlflow.active_run()
    if active is not None:
        yield active
        return
    experiment_id = None
    if experiment is not None:
        client = mlflow.MlflowClient()
        found = client.get_experiment_by_name(experiment)
        experiment_id = found.experiment_id if found is not None else \
            client.create_experiment(experiment)
    with mlflow.start_run(experiment_id=experiment_id, run_name=run_name) as started:
        yield started


def _log(kind: str, metrics: dict[str, float], undefined: list[str], fields: dict[str, str],
         params: dict[str, str], artifacts: dict[str, str], experiment: str | None,
         run_name: str | None) -> str:
    mlflow = _mlflow()
    with _mlflow_run(experiment, run_name) as active:
        tags = {"evalschema.kind": kind, "evalschema.version": __version__}
        if undefined:
            listed = ", ".join(undefined)
            tags[UNDEFINED_TAG] = listed if len(listed) <= MAX_TAG else \
                listed[:MAX_TAG - 1] + "…"
        mlflow.set_tags(tags)
        mlflow.log_metrics(metrics)
        if params:
            mlflow.log_params(params)
        artifacts = {**artifacts, "metric_names.json": json_text(fields)}
        for name, text in artifacts.items():
            mlflow.log_text(text, f"{FOLDER}/{name}")
        return str(active.info.run_id)


def log_run(run: RunResult | RunReport, *, label: str | None = None, schema: Any = None,
            settings: Mapping[str, Any] | None = None, experiment: str | None = None,
            run_name: str | None = None) -> str:
    """Log a run to MLflow and return the MLflow run's id.

    Metrics: ``macro_f1``, ``micro_f1``, their precision and recall, ``weighted_score``,
    ``gold_coverage``, the counts (``records``, ``matches``…) and per field ``f1/<field>``,
    ``precision/<field>``, ``recall/<field>``. Params: ``settings`` (the configuration, as
    the HTML report's). Artifacts under ``evalschema/``: ``run.json`` (the JSON output,
    without records), ``schema.json``, ``config.json`` and ``report.html``. A
    ``RunReport`` brings its label, schema and settings. Logs into the active MLflow run
    when there is one, else starts one in ``experiment`` named ``run_name`` (default:
    the label) and ends it.
    """
    report = run if isinstance(run, RunReport) else RunReport(run, label or "run")
    schema = report.schema if schema is None else schema
    settings = dict(report.settings if settings is None else settings)
    metrics, undefined, fields = run_metrics(report.run)
    artifacts = {"run.json": json_text(report.to_dict(include_records=False)),
                 "config.json": json_text(settings),
                 "report.html": runs_html([report], title=f"evalschema report · {report.label}")}
    if schema is not None:
        artifacts["schema.json"] = json_text(schema)
    return _log("run", metrics, undefined, fields, _params(settings), artifacts, experiment,
                run_name or report.label)


def log_comparison(c: Comparison, *, schema: Any = None,
                   settings: Mapping[str, Any] | None = None, experiment: str | None = None,
                   run_name: str | None = None) -> str:
    """Log a comparison to MLflow (``comparison_metrics``; params: the settings, the
    labels and the bootstrap's; artifacts: ``comparison.json``, ``compare.html``,
    ``schema.json``, ``config.json``) and return the MLflow run's id."""
    metrics, undefined, fields = comparison_metrics(c)
    settings = {**(settings or {}), "labels": list(c.labels), "resamples": c.resamples,
                "seed": c.seed, "confidence": c.confidence}
    artifacts = {"comparison.json": json_text(c.to_dict()), "config.json": json_text(settings),
                 "compare.html": compare_html(c, settings=settings, schema=schema,
                                              title="evalschema comparison · "
                                              + " vs ".join(c.labels))}
    if schema is not None:
        artifacts["schema.json"] = json_text(schema)
    return _log("comparison", metrics, undefined, fields, _params(settings), artifacts,
                experiment, run_name or " vs ".join(c.labels))
