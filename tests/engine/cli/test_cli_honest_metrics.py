"""Honest metrics through the CLI, on real files in tmp_path: undefined precision, recall
and F1 are null in JSON and "—" in every report (never 1.0), skipped fields show as
skipped, thresholds on an undefined F1 fail with a clear message, and every run reports
how much of the gold its schema judges (the extract-bench swimming gold that held its
results under a key the schema does not know)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from evalschema.cli.main import main

REPO = Path(__file__).resolve().parents[3]
SWIMMING = REPO / "tests" / "data" / "extract-bench" / "sport" / "swimming"

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "notes": {"type": "string", "x-eval-skip": True},
    },
}


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.fixture
def nothing_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Gold and extracted records where the only field is skipped: nothing is judged."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "schema.json", SCHEMA)
    _jsonl(tmp_path / "gold.jsonl", [{"notes": "a"}, {"notes": "b"}])
    _jsonl(tmp_path / "ext.jsonl", [{"notes": "x"}, {"notes": "y"}])
    return tmp_path


def test_json_says_null_where_nothing_was_judged(nothing_judged: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "eval", "schema.json", "--gold", "gold.jsonl", "--extracted",
                       "ext.jsonl", "--format", "json")
    assert code == 0
    doc = json.loads(out)["runs"][0]
    for key in ("mean_precision", "mean_recall", "mean_f1", "mean_weighted_score",
                "micro_precision", "micro_recall", "micro_f1"):
        assert doc[key] is None, key
    assert doc["undefined_records"] == {"precision": 2, "recall": 2, "f1": 2, "weighted_score": 2}
    notes = doc["per_field"]["notes"]
    assert (notes["precision"], notes["recall"], notes["f1"], notes["mean_score"]) == (
        None, None, None, None)
    assert notes["skipped"] == 2
    assert all(r["f1"] is None for r in doc["records"])


def test_table_shows_dashes_and_skipped_never_1(nothing_judged: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "eval", "schema.json", "--gold", "gold.jsonl", "--extracted",
                       "ext.jsonl")
    assert code == 0
    assert "F1 — (macro)  — (micro)   precision —  recall —   weighted score —" in out
    assert "F1 undefined in 2 records (nothing judged)" in out
    row = next(ln for ln in out.splitlines() if ln.startswith("notes "))
    assert row.split()[:3] == ["notes", "skipped", "—"]
    assert "1.000" not in out


def test_markdown_junit_and_html_show_undefined_as_dash(nothing_judged: Path,
                                                        capsys: Any) -> None:
    base = ["eval", "schema.json", "--gold", "gold.jsonl", "--extracted", "ext.jsonl"]
    _, md, _ = run(capsys, *base, "--format", "markdown")
    assert "F1 **—** (macro), — (micro); precision —, recall —" in md
    assert "| `notes` | skipped | — | — |" in md
    assert "1.000" not in md
    run(capsys, *base, "--format", "junit", "-o", "out.xml")
    root = ET.parse(nothing_judged / "out.xml").getroot()
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["mean_f1"] == props["micro_f1"] == "—"
    [case] = [c for c in root.iter("testcase") if c.get("name") == "notes"]
    assert case.find("skipped") is not None
    assert "F1 skipped precision — recall —" in (case.findtext("system-out") or "")
    run(capsys, *base, "--format", "html", "-o", "out.html")
    html = (nothing_judged / "out.html").read_text(encoding="utf-8")
    assert 'data-field="notes" data-f1="">' in html  # the chart: no bar, no number
    assert ">skipped</text></g>" in html
    assert 'data-s-f1="" data-s-precision="" data-s-recall=""' in html
    assert "1.000" not in html


def test_fail_under_on_an_undefined_f1_fails_with_a_clear_message(nothing_judged: Path,
                                                                  capsys: Any) -> None:
    code, out, err = run(capsys, "eval", "schema.json", "--gold", "gold.jsonl", "--extracted",
                         "ext.jsonl", "--fail-under", "0.5")
    assert code == 1
    assert "macro F1 undefined: nothing was judged" in err + out


def test_field_threshold_on_a_skipped_field_fails(nothing_judged: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "eval", "schema.json", "--gold", "gold.jsonl", "--extracted",
                         "ext.jsonl", "--threshold", "notes=0.5")
    assert code == 1
    assert "notes: F1 undefined: nothing was judged" in err + out


def test_compare_shows_undefined_figures_and_refuses_to_pass_on_them(
        nothing_judged: Path, capsys: Any) -> None:
    _jsonl(nothing_judged / "ext2.jsonl", [{"notes": "z"}, {}])
    code, out, _ = run(capsys, "compare", "--schema", "schema.json", "--gold", "gold.jsonl",
                       "ext.jsonl", "ext2.jsonl", "--resamples", "50")
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("macro F1"))
    assert line.split()[2:] == ["—", "—", "—"]
    code, _, err = run(capsys, "compare", "--schema", "schema.json", "--gold", "gold.jsonl",
                       "ext.jsonl", "ext2.jsonl", "--resamples", "50", "--fail-on-regression")
    assert code == 1
    assert "macro F1 undefined: nothing was judged" in err
    code, out, _ = run(capsys, "compare", "--schema", "schema.json", "--gold", "gold.jsonl",
                       "ext.jsonl", "ext2.jsonl", "--resamples", "50", "--format", "json")
    doc = json.loads(out)
    macro = doc["overall"]["macro_f1"]
    assert macro["values"] == [None, None]
    assert macro["differences"] == [{"delta": None, "low": None, "high": None,
                                     "significant": False}]


def test_a_record_with_nothing_extracted_counts_as_f1_0_not_left_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Only hallucinations, or only omissions: F1 0 (precision or recall undefined), so
    a missing output lowers the mean instead of vanishing from it."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "schema.json", SCHEMA)
    _jsonl(tmp_path / "gold.jsonl", [{"name": "a"}, {"name": "b"}, {}])
    _jsonl(tmp_path / "ext.jsonl", [{"name": "a"}, {}, {"name": "c"}])
    _code, out, _ = run(capsys, "eval", "schema.json", "--gold", "gold.jsonl", "--extracted",
                       "ext.jsonl", "--format", "json")
    doc = json.loads(out)["runs"][0]
    assert [(r["precision"], r["recall"], r["f1"]) for r in doc["records"]] == [
        (1.0, 1.0, 1.0), (None, 0.0, 0.0), (0.0, None, 0.0)]
    assert doc["mean_f1"] == pytest.approx(1 / 3)
    assert doc["mean_precision"] == 0.5 and doc["mean_recall"] == 0.5
    assert doc["undefined_records"] == {"precision": 1, "recall": 1, "f1": 0,
                                        "weighted_score": 0}


# -- coverage ---------------------------------------------------------------------------


@pytest.fixture
def swimming(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The extract-bench swimming schema, and one of its gold documents (which holds its
    results under ``events``, a key the schema does not have) as gold and as a perfect
    extraction."""
    monkeypatch.chdir(tmp_path)
    schema = json.loads((SWIMMING / "swimming-schema.json").read_text(encoding="utf-8"))
    _write(tmp_path / "schema.json", schema)
    gold = json.loads((SWIMMING / "gold" / "ma_2023_sw_M-table2.gold.json").read_text(
        encoding="utf-8"))
    assert "events" in gold and "events" not in schema["properties"]
    _jsonl(tmp_path / "gold.jsonl", [gold])
    _jsonl(tmp_path / "ext.jsonl", [gold])
    return tmp_path


def _events_values() -> int:
    from evalschema.schema.coverage import values_below

    gold = json.loads((SWIMMING / "gold" / "ma_2023_sw_M-table2.gold.json").read_text(
        encoding="utf-8"))
    return values_below(gold["events"])


def test_eval_reports_the_gold_the_schema_never_judges(swimming: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "eval", "schema.json", "--gold", "gold.jsonl", "--extracted",
                       "ext.jsonl", "--format", "json")
    assert code == 0
    cov = json.loads(out)["runs"][0]["coverage"]
    events = _events_values()
    assert cov["off_schema_keys"] == [{"pointer": "/events", "values": events}]
    assert cov["off_schema_values"] == events > 10 * cov["judged_values"]
    assert cov["share"] == cov["judged_values"] / (cov["judged_values"] + events) < 0.1
    _, table, _ = run(capsys, "eval", "schema.json", "--gold", "gold.jsonl", "--extracted",
                      "ext.jsonl")
    header = table.split("\nfield ")[0]
    assert f"not in the schema: /events ({events})" in header
    assert f"gold coverage {cov['share']:.1%}" in header
    _, md, _ = run(capsys, "eval", "schema.json", "--gold", "gold.jsonl", "--extracted",
                   "ext.jsonl", "--format", "markdown")
    assert f"not in the schema: /events ({events})." in md


def test_coverage_is_the_same_with_workers(swimming: Path, capsys: Any) -> None:
    gold = json.loads((swimming / "gold.jsonl").read_text(encoding="utf-8"))
    _jsonl(swimming / "gold.jsonl", [gold] * 6)
    _jsonl(swimming / "ext.jsonl", [gold] * 6)
    docs = []
    for workers in ("1", "2"):
        _, out, _ = run(capsys, "eval", "schema.json", "--gold", "gold.jsonl", "--extracted",
                        "ext.jsonl", "--format", "json", "--workers", workers)
        docs.append(json.loads(out)["runs"][0]["coverage"])
    assert docs[0] == docs[1]
    assert docs[0]["off_schema_keys"] == [{"pointer": "/events", "values": 6 * _events_values()}]


def test_check_gold_lists_the_keys_no_schema_node_covers(swimming: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "check", "schema.json", "--gold", "gold.jsonl")
    assert code == 0  # warnings, not errors
    events = _events_values()
    assert (f"gold.jsonl#/events: warning gold-not-covered: {events} gold values under "
            "/events, which no schema node covers: never scored") in out
    assert "schema.json: gold coverage " in out and f"/events ({events}) in gold.jsonl" in out
    code, out, _ = run(capsys, "check", "schema.json", "--gold", "gold.jsonl", "--format",
                       "json")
    [problem] = [p for p in json.loads(out) if p["code"] == "gold-not-covered"]
    assert problem["pointer"] == "/events" and problem["data"] == {"values": events}


def test_check_gold_on_a_schema_that_covers_everything_is_ok(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: Any) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "schema.json", SCHEMA)
    _jsonl(tmp_path / "gold.jsonl", [{"name": "a", "notes": "n"}])
    code, out, _ = run(capsys, "check", "schema.json", "--gold", "gold.jsonl")
    assert code == 0
    assert "schema.json: gold coverage 100.0% (1 of 1 values) in gold.jsonl" in out
    assert "gold-not-covered" not in out
    code, out, err = run(capsys, "check", "schema.json", "--gold", "missing.jsonl")
    assert code == 2 and "missing.jsonl" in out + err
