"""``assert_extraction``: an extraction checked against gold in a hand-written test, gated
as a configured suite is (an overall F1 and per-field F1 thresholds, ``project.gate``),
failing with the message a pytest item of the plugin shows (``testing.message``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalschema.errors import InputError, Problem
from evalschema.io.records import load_json
from evalschema.project.gate import UNKNOWN_THRESHOLDS, FailMetric, check_run, unknown_threshold
from evalschema.report.model import RunReport
from evalschema.results import RunResult
from evalschema.run.evaluate import evaluate
from evalschema.run.parallel import WorstRecord, worst_key
from evalschema.schema.tree import parse_eval_schema
from evalschema.testing.message import record_passed, run_message


def _records(value: Any) -> Any:
    """A path (file or folder), a list of records, or one record (a dict)."""
    return [value] if isinstance(value, dict) else value


def _known_fields(schema: Any, base_uri: str | None, thresholds: Mapping[str, float]) -> None:
    """A threshold on a field the schema does not have is a mistake, not a failed check."""
    known = {n.path for n in parse_eval_schema(schema, base_uri=base_uri).walk() if n.path}
    problems = [Problem("unknown-field", msg, source="fields", suggestion=suggestion)
                for msg, suggestion in filter(None, (unknown_threshold(p, known)
                                                     for p in thresholds))]
    if problems:
        raise InputError(problems, UNKNOWN_THRESHOLDS)


def check_extraction(gold: Any, extracted: Any, schema: Any, *, min_f1: float | None = 1.0,
                     fields: Mapping[str, float] | None = None, metric: FailMetric = "macro",
                     id_field: str | None = None, null_policy: str | None = None,
                     label: str | None = None) -> RunReport:
    """Score and check, without raising on a failed threshold (``assert_extraction``'s
    arguments); the report's ``checks`` say what passed."""
    base_uri = None
    if isinstance(schema, str | Path):
        base_uri = str(schema)
        schema = load_json(schema, "schema", jsonc=True)
    thresholds = dict(fields or {})
    _known_fields(schema, base_uri, thresholds)
    run = evaluate(_records(gold), _records(extracted), schema, id_field=id_field,
                   null_policy=null_policy, base_uri=base_uri)
    checks = check_run(run, fail_under=min_f1, fail_metric=metric, thresholds=thresholds)
    # The worst record shown is a paired one, as in the reports: a record missing on one
    # side is a record problem in the headline, and its diff would be one empty side.
    failing = [r for r in run.records if r.gold_index is not None and not r.problem
               and r.extracted_index is not None and not record_passed(r)]
    worst = (WorstRecord(min(failing, key=worst_key), None, None),) if failing else ()
    if label is None:
        label = Path(extracted).name if isinstance(extracted, str | Path) else "extraction"
    return RunReport(run, label, worst=worst, checks=checks)


def assert_extraction(gold: Any, extracted: Any, schema: Any, *, min_f1: float | None = 1.0,
                      fields: Mapping[str, float] | None = None, metric: FailMetric = "macro",
                      id_field: str | None = None, null_policy: str | None = None,
                      label: str | None = None) -> RunResult:
    """Score ``extracted`` against ``gold`` under ``schema`` and raise ``AssertionError``
    when the overall F1 is below ``min_f1`` or a field's F1 below its threshold in
    ``fields`` (``{"total": 1.0}``); return the run otherwise.

    ``gold`` and ``extracted`` are one record (a dict), a list of records, or a path (JSON,
    JSONL, a folder); ``schema`` a dict or a path. By default every field must match
    (``min_f1=1.0``); ``min_f1=None`` gates on ``fields`` only. ``metric`` is the overall
    F1 read: ``"macro"`` (mean over records) or ``"micro"`` (pooled). A bad schema or a
    threshold on an unknown field raises the engine's located ``EvalSchemaError``.
    """
    report = check_extraction(gold, extracted, schema, min_f1=min_f1, fields=fields,
                              metric=metric, id_field=id_field, null_policy=null_policy,
                              label=label)
    if not report.passed:
        raise AssertionError(run_message(report))
    return report.run
