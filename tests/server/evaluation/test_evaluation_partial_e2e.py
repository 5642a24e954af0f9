"""End-to-end: a schema with a mistake still evaluates in the editor. A field whose schema
has an error is an error finding in every record, the schema shows the problem, and every
other finding stays; only a schema that does not parse, or whose root is unusable, stops
the run, and then the suite says why and where (``notEvaluated``). Through a real LSP
client over stdio."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval_session import Session
from eval_workspace import SCHEMA, write_suite
from lsprotocol import types
from test_evaluation_trust_e2e import full_text_change, report

#: ``write_suite``'s findings in its run file, (code, line), with a good schema.
GOOD = [("hallucination", 1), ("mismatch", 0), ("mismatch", 1), ("omission", 1),
        ("unreadable-record", 2)]
WHY = "currency: schema error: unknown comparator 'exakt' (did you mean 'exact'?)"


def found(diags: list[types.Diagnostic]) -> list[tuple[str, int]]:
    return sorted((str(d.code), d.range.start.line) for d in diags)


def schema_text(**currency: Any) -> str:
    schema = json.loads(json.dumps(SCHEMA))
    schema["properties"]["currency"].update(currency)
    return json.dumps(schema, indent=2) + "\n"


def position(text: str, needle: str, delta: int = 0) -> dict[str, int]:
    """The LSP position (UTF-16, ASCII text here) of ``needle`` in ``text``, plus ``delta``."""
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


async def test_a_mistyped_comparator_makes_one_field_an_error_and_keeps_the_rest(
        lsp: Session, tmp_path: Path) -> None:
    files = {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}
    schema, ext = files["schema"], files["extracted"]
    bad = schema_text(**{"x-eval-compare": "exakt"})
    schema.write_text(bad, encoding="utf-8")
    await lsp.boot([schema.parent], {"watchFiles": False})
    done = await lsp.run_finished(0, "shop")
    assert "notEvaluated" not in done["suite"] and "stale" not in done["suite"]
    assert [r["records"] for r in done["suite"]["runs"]] == [3]
    assert done["suite"]["problems"] == 2  # the unreadable record, the schema's error

    # The run file: every other finding, and currency an error in each record (an error
    # where its value is missing too: line 1 had the omission).
    diags = await lsp.until("the findings", lambda: lsp.diags(ext))
    assert found(diags) == [("error", 0), ("error", 1), ("error", 3), ("hallucination", 1),
                            ("mismatch", 0), ("mismatch", 1), ("unreadable-record", 2)]
    errors = sorted((d for d in diags if d.code == "error"), key=lambda d: d.range.start.line)
    assert [(d.message, d.severity) for d in errors] == [
        (f"a · {WHY}", types.DiagnosticSeverity.Error),
        (f"b · {WHY}", types.DiagnosticSeverity.Error),
        (f"c · {WHY}", types.DiagnosticSeverity.Error)]
    line0 = ext.read_text(encoding="utf-8").split("\n")[0]
    at = len(line0[:line0.index('"EUR"')].encode("utf-16-le")) // 2  # an emoji before it
    assert errors[0].range == types.Range(types.Position(0, at), types.Position(0, at + 5))

    # The schema (not open): the problem, on the key it is about.
    [problem] = await lsp.until("the schema's diagnostic", lambda: lsp.diags(schema))
    key = bad.index('"x-eval-compare": "exakt"')
    assert (problem.code, problem.message, problem.severity) == (
        "unknown-comparator", "unknown comparator 'exakt' (did you mean 'exact'?)",
        types.DiagnosticSeverity.Error)
    assert (problem.range.start.line, problem.range.start.character) == (
        bad.count("\n", 0, key), key - bad.rfind("\n", 0, key) - 1)

    # The results view: currency has only errors, F1 null (shown "error"), never 1.0.
    shown = await report(lsp, "shop")
    assert "notEvaluated" not in shown
    [row] = [f for f in shown["runs"][0]["fields"] if f["field"] == "currency"]
    assert (row["f1"], row["errors"], row["matches"], row["omissions"]) == (None, 3, 0, 0)
    [price] = [f for f in shown["runs"][0]["fields"] if f["field"] == "price"]
    assert (price["errors"], price["mismatches"]) == (0, 1)
    assert {"uri": schema.as_uri(), "code": "unknown-comparator",
            "message": "unknown comparator 'exakt'"} in shown["problems"]

    # Fixed and saved: the usual results.
    lsp.open(schema, "json")
    fixed = lsp.mark
    full_text_change(lsp, schema, schema_text())
    lsp.save(schema)
    fresh = await lsp.run_finished(fixed, "shop")
    assert fresh["suite"]["problems"] == 1
    await lsp.until("the usual findings", lambda: found(lsp.diags(ext)) == GOOD)
    await lsp.until("no schema problem", lambda: lsp.diags(schema) == [])


async def test_a_schema_that_cannot_be_scored_says_why_and_where(
        lsp: Session, tmp_path: Path) -> None:
    """A syntax error: nothing to score, ``notEvaluated`` at the error; fixed, results; an
    unknown x-eval-id (the root unusable): the last results, stale, and why."""
    files = {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}
    schema, ext = files["schema"], files["extracted"]
    good = schema_text()
    broken = good.replace('"currency": {', '"currency" {')
    schema.write_text(broken, encoding="utf-8")
    await lsp.boot([schema.parent], {"watchFiles": False})
    done = await lsp.run_finished(0, "shop")
    brace = position(broken, '"currency" {', len('"currency" '))
    assert done["suite"]["runs"] == [] and "stale" not in done["suite"]
    assert done["suite"]["notEvaluated"] == {
        "message": "the schema is not valid JSON: Expecting ':' delimiter",
        "code": "invalid-json", "uri": schema.as_uri(),
        "range": {"start": brace, "end": {**brace, "character": brace["character"] + 1}}}
    [d] = await lsp.until("the schema's diagnostic", lambda: lsp.diags(schema))
    assert (d.code, d.range.start.line, d.range.start.character) == (
        "invalid-json", brace["line"], brace["character"])
    assert lsp.diags(ext) == []
    assert (await report(lsp, "shop"))["notEvaluated"] == done["suite"]["notEvaluated"]

    lsp.open(schema, "json")
    fixed = lsp.mark
    full_text_change(lsp, schema, good)
    lsp.save(schema)
    fresh = await lsp.run_finished(fixed, "shop")
    assert "notEvaluated" not in fresh["suite"] and len(fresh["suite"]["runs"]) == 1
    await lsp.until("the usual findings", lambda: found(lsp.diags(ext)) == GOOD)

    no_root = good.replace('"x-eval-id": "id"', '"x-eval-id": "ident"')
    stopped = lsp.mark
    full_text_change(lsp, schema, no_root)
    lsp.save(schema)
    stale = await lsp.run_finished(stopped, "shop")
    assert stale["suite"]["stale"] == "schema has errors"
    assert stale["suite"]["runs"] == fresh["suite"]["runs"]
    start = position(no_root, '"x-eval-id"')
    assert stale["suite"]["notEvaluated"] == {
        "message": "x-eval-id names 'ident', which is not a property of the root",
        "code": "id-unknown", "uri": schema.as_uri(),
        "range": {"start": start, "end": {**start, "character": start["character"] + 11}}}
    assert found(lsp.diags(ext)) == GOOD, "the last good findings stay"
