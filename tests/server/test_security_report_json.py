"""Issue 11: what the server sends is valid JSON, whatever the data holds (a NaN or an
infinity in an extracted file would otherwise be sent as a bare ``NaN``, which an
editor's JSON parser rejects, losing the whole message)."""

from __future__ import annotations

import json
from pathlib import Path

from eval_workspace import write_suite

from evalschema_server.evaluation import views
from evalschema_server.evaluation.runner import CancelToken, SuiteCache, run_suite
from evalschema_server.evaluation.suites import discover
from evalschema_server.handlers.commands import _examples


def test_the_report_of_a_run_with_nan_and_infinity_is_valid_json(tmp_path: Path) -> None:
    files = write_suite(tmp_path / "p")
    files["extracted"].write_text(
        '{"id": "a", "name": "x", "price": NaN, "currency": "EUR"}\n'
        '{"id": "b", "name": "Widget", "price": 1e999, "currency": "USD", "n": -Infinity}\n',
        encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    json.dumps(views.report(outcome, lambda p: p.as_uri()), allow_nan=False)
    [run] = outcome.runs
    # A field's worst values show them as JSON text: "NaN", never a bare NaN.
    for field, shown in (("price", {"NaN", "Infinity"}), ("n", {"-Infinity"})):
        doc = _examples(outcome, run, field, 10, run.path.as_uri(), "utf-16")
        text = json.dumps(doc, allow_nan=False)  # raises on a bare NaN or Infinity
        assert {e["extracted"] for e in json.loads(text)["examples"]} == shown
