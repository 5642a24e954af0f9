"""Markdown and JUnit renderers: structure and escaping of user data."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from evalschema import evaluate
from evalschema.cli.main import main
from evalschema.project.gate import check_run
from evalschema.report import RunReport, run_text
from evalschema.report.html import runs_html
from evalschema.report.junit import runs_junit
from evalschema.report.markdown import code, runs_markdown
from evalschema.run.parallel import EvalSpec, evaluate_files

SCHEMA = {"type": "object", "properties": {
    "a|b": {"type": "string"}, "ok": {"type": "string"}, "n": {"type": "number"}}}
GOLD = [{"a|b": "x", "ok": "y", "n": 1}, {"a|b": "<&>", "ok": "y", "n": 2}]
EXT = [{"a|b": "x", "ok": "z", "n": 1}, {"a|b": "nope\u0001", "ok": "y", "n": 2, "extra": 1}]


def report(**kw: object) -> RunReport:
    out = evaluate_files(EvalSpec(SCHEMA), GOLD, EXT)
    checks = check_run(out.run, fail_under=0.99, thresholds={"ok": 0.4, "n": 1.0})
    return RunReport.from_outcome(out, 'run "1" <x>', suite="s", extracted="runs/a.b.jsonl",
                                  checks=checks, **kw)  # type: ignore[arg-type]


def test_markdown_escapes_cells_and_code() -> None:
    md = runs_markdown([report()])
    assert "| `a\\|b` |" in md  # a pipe in a field name does not split the table
    assert "&lt;x&gt;" in md and "<x>" not in md
    assert code("a`b") == "``a`b``"
    rows = [ln for ln in md.splitlines() if ln.startswith("| `")]
    assert all(ln.count(" | ") >= 3 for ln in rows)


def test_junit_structure_and_control_characters() -> None:
    rep = report()
    xml = runs_junit([rep, rep])
    root = ET.fromstring(xml)  # well-formed despite \u0001 and <&> in the data
    assert root.tag == "testsuites" and len(root) == 2
    suite = root[0]
    names = [c.get("name") for c in suite.findall("testcase")]
    assert names[0] == "overall macro F1"
    assert set(names[1:]) == set(rep.run.per_field)
    failing = {c.get("name") for c in suite.findall("testcase") if c.find("failure") is not None}
    expected = {c.name for c in rep.checks if not c.passed}
    assert failing == expected and "n" not in failing
    assert suite.get("failures") == str(len(expected))
    assert {c.get("classname") for c in suite.findall("testcase")} == {"evalschema.s.a_b"}
    assert root.get("tests") == str(2 * len(names))


def test_text_lists_thresholds() -> None:
    text = run_text(report())
    assert "thresholds: FAILED" in text
    assert "  ok    n: F1 1.0000 >= 1.0000" in text
    assert "  FAIL  overall macro F1" in text


def _missing_and_unreadable(tmp_path: Path) -> tuple[Path, Path, Path]:
    """gold/ of three documents; out/ has no b, prose for c, and a stray d."""
    gold, out = tmp_path / "gold", tmp_path / "out"
    gold.mkdir()
    out.mkdir()
    for name in ("a", "b", "c"):
        (gold / f"{name}.json").write_text(json.dumps({"ok": name}), encoding="utf-8")
    (out / "a.json").write_text(json.dumps({"ok": "a"}), encoding="utf-8")
    (out / "c.txt").write_text("Sorry, I cannot read this document.", encoding="utf-8")
    (out / "d.json").write_text(json.dumps({"ok": "d"}), encoding="utf-8")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    return schema, gold, out


PROBLEMS = ["record `b`: no extracted file with this name",
            "record `c`: unreadable extracted record",
            "record `d`: no gold file with this name"]


def test_markdown_names_the_records_that_scored_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing, an unreadable and a stray output lower F1: the markdown says which (they
    are not among the worst records, which are paired ones), as the table and HTML do."""
    schema, gold, out = _missing_and_unreadable(tmp_path)
    assert main(["eval", str(schema), "--gold", str(gold), "--extracted", str(out),
                 "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "### Record problems (3)" in md
    assert all(p in md for p in PROBLEMS), md


def test_reports_of_a_run_in_memory_list_its_record_problems(tmp_path: Path) -> None:
    """A RunReport made from a run (no digest) lists the records' problems too, not an
    empty list under a count."""
    schema, gold, out = _missing_and_unreadable(tmp_path)
    rep = RunReport(evaluate(gold, out, json.loads(schema.read_text())), "run")
    assert all(p in runs_markdown([rep]) for p in PROBLEMS)
    page = runs_html([rep])
    assert all(f"record <code>{n}</code>" in page for n in "bcd")


def test_a_field_with_only_errors_is_an_error_in_every_format() -> None:
    """A field whose schema has an error (``allow_schema_errors``): "error" in the tables,
    a JUnit ``<error>``, never a figure or a pass."""
    schema = {"type": "object", "properties": {
        "a|b": {"type": "string", "x-eval-compare": "exakt"}, "ok": {"type": "string"},
        "n": {"type": "number"}}}
    out = evaluate_files(EvalSpec(schema, allow_schema_errors=True), GOLD, EXT)
    rep = RunReport.from_outcome(out, "r", suite="s", extracted="r.jsonl", checks=())
    assert out.run.per_field["a|b"].counts.errors == 2
    [row] = [ln for ln in run_text(rep).splitlines() if ln.startswith("a|b")]
    assert row.split()[:2] == ["a|b", "error"]
    assert "| `a\\|b` | error |" in runs_markdown([rep])
    suite = ET.fromstring(runs_junit([rep]))[0]
    [case] = [c for c in suite.findall("testcase") if c.get("name") == "a|b"]
    error = case.find("error")
    assert error is not None and (error.get("type"), error.get("message")) == (
        "not-judged", "a|b: not judged (2 errors)")
    assert (suite.get("errors"), suite.get("failures")) == ("1", "0")
