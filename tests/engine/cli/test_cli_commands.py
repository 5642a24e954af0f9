"""The commands around eval: configuration suites, thresholds and exit codes, report
formats, workers, progress, compare, annotate, list and serve."""

from __future__ import annotations

import io
import json
import shutil
import sys
import types
import xml.etree.ElementTree as ET
from datetime import date
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

import pytest
from invoice_reference import Outcome, as_date, judge, record_f1, score_run, similarity

from evalschema.cli import serve_cmd
from evalschema.cli.main import main
from evalschema.cli.progress import ProgressBar
from evalschema.rules.custom_modules import private_name

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
RUN_A = "invoices.model-a.extracted.jsonl"
RUN_B = "invoices.model-b.extracted.jsonl"

CONFIG = """\
[[suite]]
name = "invoices"
schema = "invoices.eval.json"
gold = "invoices.gold.jsonl"
extracted = ["invoices.model-*.extracted.jsonl"]
fail_under = 0.85

[suite.thresholds]
total = 0.9

[[suite]]
name = "model-a"
schema = "invoices.eval.json"
gold = "invoices.gold.jsonl"
extracted = "invoices.model-a.extracted.jsonl"
"""


@pytest.fixture
def ex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example suite with an evalschema.toml, as the cwd."""
    out = tmp_path / "ex"
    shutil.copytree(EXAMPLES, out, ignore=shutil.ignore_patterns("__pycache__", "*.py",
                                                                 "*.toml"))
    (out / "evalschema.toml").write_text(CONFIG, encoding="utf-8")
    monkeypatch.chdir(out)
    return out


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


FLAGS = ("--schema", "invoices.eval.json", "--gold", "invoices.gold.jsonl")
#: The example's macro F1 per run: regression pins taken from the engine, and recomputed
#: beside them by a reference scorer that shares no code with it
#: (test_the_example_scores_as_the_reference_scorer_says).
MACRO_F1 = {RUN_A: 0.9145193559098685, RUN_B: 0.8058665104204974}


# -- eval: where suites come from -----------------------------------------------------------


def test_schema_flag_is_the_positional_schema(ex: Path, capsys: Any) -> None:
    a = run(capsys, "eval", "invoices.eval.json", "--gold", "invoices.gold.jsonl",
            "--extracted", RUN_A, "--format", "json", "--no-records")
    b = run(capsys, "eval", *FLAGS, "--extracted", RUN_A, "--format", "json", "--no-records")
    assert a[0] == b[0] == 0
    assert json.loads(a[1]) == json.loads(b[1])
    with pytest.raises(SystemExit) as info:
        main(["eval", "invoices.eval.json", "--schema", "other.json", "--gold", "g",
              "--extracted", "e"])
    assert info.value.code == 2


def test_eval_without_a_schema_runs_every_configured_suite(ex: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "eval", "--format", "json", "--no-records")
    docs = json.loads(out)["runs"]
    assert [(d["suite"], Path(d["extracted"]).name) for d in docs] == [
        ("invoices", RUN_A), ("invoices", RUN_B), ("model-a", RUN_A)]
    # model-b misses fail_under 0.85 and total's 0.9: exit 1, said on stderr
    assert code == 1
    assert docs[0]["thresholds"]["passed"] is True
    assert docs[1]["thresholds"]["passed"] is False
    assert "thresholds" not in docs[2]
    assert "2 threshold(s) not met" in err
    assert "invoices · invoices.model-b.extracted.jsonl: overall macro F1 0.8059 < 0.8500" in err
    assert "total: F1 0.7591 < 0.9000" in err
    # Counted independently from the files: model-b has six answers given as text (JSON
    # strings), five of which hold an object; model-a has none.
    texts = [v for v in map(json.loads, (ex / RUN_B).read_text("utf-8").splitlines())
             if not isinstance(v, dict)]
    assert (len(texts), sum("{" in t for t in texts)) == (6, 5)
    assert [d["repaired_records"] for d in docs] == [0, 5, 0]
    assert "record_problems" in docs[1]


def test_suite_selection_and_config_file(ex: Path, capsys: Any, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, "eval", "--suite", "model-a")
    assert code == 0 and out.startswith("model-a · invoices.model-a.extracted.jsonl: 240 records")
    code, _, err = run(capsys, "eval", "--suite", "model_a")
    assert code == 2 and "unknown-suite: no suite named 'model_a' (did you mean 'model-a'?)" in err
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "eval", "--config", ex / "evalschema.toml", "--suite", "model-a",
                       "--format", "json", "--no-records")
    assert code == 0 and json.loads(out)["runs"][0]["total_records"] == 240
    code, _, err = run(capsys, "eval")
    assert code == 2 and "no-config" in err and "evalschema.toml" in err


def test_extracted_replaces_the_runs_of_one_suite(ex: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "eval", "--suite", "invoices", "--extracted", RUN_A)
    assert code == 0 and "model-b" not in out
    with pytest.raises(SystemExit):
        main(["eval", "--extracted", RUN_A])  # two suites: which one?


def test_invalid_configuration_is_located_and_exits_2(ex: Path, capsys: Any) -> None:
    (ex / "evalschema.toml").write_text(CONFIG.replace("fail_under = 0.85", "fail_under = 85")
                                        .replace('gold = "invoices.gold.jsonl"\nextracted = "',
                                                 'gold = "nope.jsonl"\nextracted = "'),
                                        encoding="utf-8")
    code, out, err = run(capsys, "eval")
    assert (code, out) == (2, "")
    assert "evalschema.toml:6:1#/suite/0/fail_under: error bad-value" in err
    assert "evalschema.toml:14:1#/suite/1/gold: error file-not-found" in err
    # the valid suite is not blocked by the broken one
    (ex / "evalschema.toml").write_text(CONFIG.replace("fail_under = 0.85", "fail_under = 85"),
                                        encoding="utf-8")
    assert run(capsys, "eval", "--suite", "model-a")[0] == 0
    (ex / "evalschema.toml").write_text("[[suite]\n", encoding="utf-8")
    code, _, err = run(capsys, "eval")
    assert code == 2 and "evalschema.toml:1:8: error invalid-toml" in err


def test_threshold_on_an_unknown_field_is_located(ex: Path, capsys: Any) -> None:
    (ex / "evalschema.toml").write_text(CONFIG.replace("total = 0.9", "totl = 0.9"),
                                        encoding="utf-8")
    code, _, err = run(capsys, "eval", "--suite", "invoices")
    assert code == 2
    assert ("evalschema.toml:9:1#/suite/0/thresholds/totl: error unknown-field: threshold for "
            "'totl': the schema has no such field (did you mean 'total'?)") in err
    code, _, err = run(capsys, "eval", *FLAGS, "--extracted", RUN_A, "--threshold", "vendor.nme=1")
    assert code == 2 and "--threshold: error unknown-field" in err
    code, _, err = run(capsys, "eval", *FLAGS, "--extracted", RUN_A, "--threshold", "total")
    assert code == 2 and "bad-option" in err


# -- thresholds and exit codes -----------------------------------------------------------------


@pytest.mark.parametrize(("args", "code"), [
    (["--fail-under", "0.9"], 0),
    (["--fail-under", "0.92"], 1),
    (["--fail-under", "0.913", "--fail-metric", "micro"], 0),
    (["--fail-under", "0.914", "--fail-metric", "micro"], 1),
    (["--threshold", "total=0.9"], 0),
    (["--threshold", "total=0.95", "--threshold", "line_items[].amount=0.5"], 1),
])
def test_fail_under_and_thresholds_gate_the_exit_code(ex: Path, capsys: Any, args: list[str],
                                                      code: int) -> None:
    got, out, err = run(capsys, "eval", *FLAGS, "--extracted", RUN_A, *args)
    assert got == code, err
    assert ("thresholds: passed" if code == 0 else "thresholds: FAILED") in out
    assert (err == "") == (code == 0)


def test_fail_under_out_of_range_is_a_usage_error(ex: Path) -> None:
    with pytest.raises(SystemExit) as info:
        main(["eval", *FLAGS, "--extracted", RUN_A, "--fail-under", "85"])
    assert info.value.code == 2


# -- formats ------------------------------------------------------------------------------------


def test_markdown(ex: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "eval", "--suite", "invoices", "--format", "markdown")
    assert code == 1
    assert out.startswith("# evalschema report\n")
    assert "## invoices · invoices.model-b.extracted.jsonl" in out
    assert "**❌ 2 of 2 thresholds not met**" in out
    assert "| `total` | 0.7591 | 0.9000 | ❌ |" in out
    assert "| `line_items[].amount` | 0.735 |" in out


def test_junit_is_valid_and_fails_where_thresholds_fail(ex: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "eval", "--suite", "invoices", "--format", "junit")
    assert code == 1
    root = ET.fromstring(out)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "invoices · invoices.model-a.extracted.jsonl", "invoices · invoices.model-b.extracted.jsonl"]
    for s in suites:
        cases = s.findall("testcase")
        assert int(s.get("tests", "0")) == len(cases)
        failed = [c.get("name") for c in cases if c.find("failure") is not None]
        assert int(s.get("failures", "-1")) == len(failed)
        assert cases[0].get("name") == "overall macro F1"
        assert {c.get("classname") for c in cases} == {
            "evalschema.invoices." + s.get("name", "").split("· ")[1].removesuffix(".jsonl")
            .replace(".", "_")}
        assert all(c.find("system-out") is not None for c in cases[1:])
        props = {p.get("name"): p.get("value") for p in s.iter("property")}
        assert props["records"] == "240"
    assert [c.get("name") for c in suites[1].findall("testcase")
            if c.find("failure") is not None] == ["overall macro F1", "total"]
    assert suites[0].get("failures") == "0"
    assert root.get("failures") == "2" and root.get("tests") == str(
        sum(int(s.get("tests", "0")) for s in suites))


def test_output_writes_only_the_named_file(ex: Path, capsys: Any, tmp_path: Path) -> None:
    before = sorted(p.name for p in ex.iterdir())
    target = tmp_path / "report.html"
    code, out, err = run(capsys, "eval", "--suite", "model-a", "--format", "html",
                         "--output", target)
    assert (code, out) == (0, "")
    assert err.startswith(f"wrote {target} (")
    html = target.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and "table class=\"fields" in html
    assert sorted(p.name for p in ex.iterdir()) == before
    code, _, err = run(capsys, "eval", "--suite", "model-a", "-o", tmp_path / "no" / "x.md")
    assert code == 2 and "unwritable-file" in err


def test_two_workers_print_the_same_json(ex: Path, capsys: Any) -> None:
    one = run(capsys, "eval", *FLAGS, "--extracted", RUN_B, "--format", "json", "--workers", "1")
    two = run(capsys, "eval", *FLAGS, "--extracted", RUN_B, "--format", "json", "--workers", "2")
    assert one[0] == two[0] == 0
    assert one[1] == two[1]
    assert len(json.loads(one[1])["runs"][0]["records"]) >= 240


def test_comparator_modules_from_the_config(ex: Path, capsys: Any) -> None:
    (ex / "my_cmp.py").write_text(
        "from evalschema import register_comparator\n"
        "register_comparator('casefree_cli', lambda g, e, p: str(g).lower() == str(e).lower(),"
        " overwrite=True, doc='Equal ignoring case.')\n", encoding="utf-8")
    schema = json.loads((ex / "invoices.eval.json").read_text())
    schema["properties"]["currency"]["x-eval-compare"] = "casefree_cli"
    (ex / "custom.eval.json").write_text(json.dumps(schema), encoding="utf-8")
    (ex / "evalschema.toml").write_text(
        CONFIG + '\n[[suite]]\nname = "custom"\nschema = "custom.eval.json"\n'
        'gold = "invoices.gold.jsonl"\nextracted = "invoices.model-b.extracted.jsonl"\n'
        'comparator_modules = ["my_cmp.py"]\n', encoding="utf-8")
    try:
        code, out, _ = run(capsys, "eval", "--suite", "custom", "--format", "json",
                           "--no-records", "--workers", "2", "--trust-workspace")
        assert code == 0
        custom = json.loads(out)["runs"][0]["per_field"]["currency"]
        plain = json.loads(run(capsys, "eval", "--suite", "model-a", "--extracted", RUN_B,
                               "--format", "json", "--no-records")[1])["runs"][0]["per_field"]["currency"]
        assert custom["matches"] > plain["matches"]
        code, out, _ = run(capsys, "list", "--config", "evalschema.toml", "--kind", "comparators",
                           "--trust-workspace")
        assert "  casefree_cli  [custom]" in out.splitlines()
    finally:
        sys.modules.pop(private_name((ex / "my_cmp.py").resolve()), None)
    (ex / "evalschema.toml").write_text(
        CONFIG + '\n[[suite]]\nname = "broken"\nschema = "invoices.eval.json"\n'
        'gold = "invoices.gold.jsonl"\nextracted = "invoices.model-b.extracted.jsonl"\n'
        'comparator_modules = ["no_such_cmp_module"]\n', encoding="utf-8")
    code, _, err = run(capsys, "eval", "--suite", "broken", "--trust-workspace")
    assert code == 2
    assert "evalschema.toml:22:1#/suite/2/comparator_modules/0: error module-import-failed" in err


# -- progress ------------------------------------------------------------------------------------


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal() -> None:
    assert not ProgressBar.wanted(False, io.StringIO())
    assert ProgressBar.wanted(False, FakeTTY())
    assert not ProgressBar.wanted(True, FakeTTY())
    stream = FakeTTY()
    with ProgressBar("scoring run.jsonl", 5000, enabled=True, stream=stream) as bar:
        assert bar.shown
        bar.update(2500)
    assert "scoring run.jsonl" in stream.getvalue()
    quiet = FakeTTY()
    with ProgressBar("short", 10, enabled=True, stream=quiet, delay=30) as bar:
        bar.update(10)
        assert not bar.shown  # a short run finishes before the bar would appear
    assert quiet.getvalue() == ""
    off = FakeTTY()
    with ProgressBar("x", 10**6, enabled=False, stream=off) as bar:
        bar.update(5)
    assert off.getvalue() == "" and not bar.shown


def test_no_progress_output_when_not_a_terminal(ex: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "eval", *FLAGS, "--extracted", RUN_A, "--format", "json",
                         "--no-records")
    assert (code, err) == (0, "")
    json.loads(out)


# -- compare -------------------------------------------------------------------------------------


def test_compare_table(ex: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "compare", *FLAGS, RUN_A, RUN_B, "--resamples", "300")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("240 records; baseline model-a; paired bootstrap 95% intervals "
                               "(300 resamples, seed 0)")
    macro = next(ln for ln in lines if ln.startswith("macro F1 "))
    assert "0.9145" in macro and "0.8059" in macro and macro.rstrip().endswith("*")
    assert any(ln.startswith("total ") for ln in lines)
    assert any(ln.startswith("records that flipped: ") for ln in lines)


def test_compare_json_is_the_comparison(ex: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "compare", *FLAGS, RUN_A, RUN_B, "--format", "json",
                       "--seed", "5", "--resamples", "200", "--label", "A", "--label", "B")
    assert code == 0
    doc = json.loads(out)
    assert (doc["labels"], doc["seed"], doc["resamples"], doc["records"]) == (
        ["A", "B"], 5, 200, 240)
    macro = doc["overall"]["macro_f1"]
    assert macro["values"] == pytest.approx([MACRO_F1[RUN_A], MACRO_F1[RUN_B]])
    assert macro["differences"][0]["significant"] is True
    assert {f["field"] for f in doc["fields"]} >= {"total", "line_items[].amount"}
    assert doc["flips"] and set(doc["flips"][0]) == {"run", "record_id", "label", "gold_index",
                                                     "regressed", "fixed"}


def test_compare_suite_markdown_html_and_regression_gate(ex: Path, capsys: Any,
                                                         tmp_path: Path) -> None:
    code, out, _ = run(capsys, "compare", "--suite", "invoices", "--format", "markdown",
                       "--resamples", "200")
    assert code == 0 and out.startswith("# evalschema comparison")
    assert "| macro F1 | 0.9145 | 0.8059 |" in out
    code, _, err = run(capsys, "compare", "--suite", "invoices", "--fail-on-regression",
                       "--resamples", "200", "-o", tmp_path / "c.html", "--format", "html")
    assert code == 1 and "model-b: macro F1 is significantly lower than model-a's" in err
    html = (tmp_path / "c.html").read_text()
    assert 'class="chart diff-chart"' in html and "Records that flipped" in html
    code, _, _ = run(capsys, "compare", "--suite", "invoices", "--fail-on-regression",
                     "--resamples", "200", RUN_B, RUN_A)
    assert code == 0  # model-a is better than model-b: no regression


def test_compare_needs_two_runs(ex: Path) -> None:
    with pytest.raises(SystemExit) as info:
        main(["compare", *FLAGS, RUN_A])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        main(["compare", "--suite", "model-a"])


# -- the pinned figures, recomputed --------------------------------------------------------------


def _engine_fields(doc: dict[str, Any]) -> dict[str, list[tuple[str, str, str, float]]]:
    """Per record (gold id, or ``+N`` for extracted record N no gold record pairs): its
    judged fields as (gold pointer, extracted pointer, status, score), sorted."""
    out = {}
    for rec in doc["records"]:
        label = rec["record_id"] if rec["gold_index"] is not None \
            else f"+{rec['extracted_index']}"
        out[label] = sorted((f["gold_pointer"] or "", f["extracted_pointer"] or "", f["status"],
                             round(f["score"] or 0.0, 12)) for f in rec["field_results"])
    return out


def _reference_fields(outcomes: list[Outcome]) -> list[tuple[str, str, str, float]]:
    return sorted((o.gold or "", o.extracted or "", o.status, round(o.score, 12))
                  for o in outcomes)


@pytest.mark.parametrize("run_name", [RUN_A, RUN_B])
def test_the_example_scores_as_the_reference_scorer_says(ex: Path, capsys: Any,
                                                         run_name: str) -> None:
    """The pinned macro F1 is what tests/engine/invoice_reference.py (plain Python over the
    JSON, from the documented rules) computes, and the engine agrees with it on every
    record's every field: status, score and both pointers."""
    ref = score_run(ex / "invoices.eval.json", ex / "invoices.gold.jsonl", ex / run_name)
    assert ref.macro_f1 == pytest.approx(MACRO_F1[run_name], rel=1e-12, abs=0)
    _, out, _ = run(capsys, "eval", *FLAGS, "--extracted", run_name, "--format", "json")
    doc = json.loads(out)["runs"][0]
    assert doc["mean_f1"] == pytest.approx(MACRO_F1[run_name], rel=1e-12, abs=0)
    engine = _engine_fields(doc)
    assert set(engine) == set(ref.records)
    for label, outcomes in ref.records.items():
        assert engine[label] == _reference_fields(outcomes), label
    # The runs exercise every kind of result the reference reproduces, partial credit too.
    statuses = {o.status for outcomes in ref.records.values() for o in outcomes}
    assert statuses == {"match", "mismatch", "omission", "hallucination"}
    assert any(0 < o.score < 1 for outcomes in ref.records.values() for o in outcomes)


def test_the_reference_scorer_itself() -> None:
    """The reference's own parts on hand-computed cases (kitten/sitting: 3 edits in 7)."""
    assert similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)
    assert (similarity("", ""), similarity("abc", "")) == (1.0, 0.0)
    assert {as_date(t) for t in ("2026-03-04", "04/03/2026", "04.03.2026", "March 4, 2026",
                                 "4 Mar 2026", "2026-03-04T00:00:00")} == {date(2026, 3, 4)}
    cent = {"x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}}
    assert judge(cent, 498.54, 498.53) == (True, 1.0)  # one cent, although binary floats
    assert judge(cent, 498.54, "498.52") == (False, 0.0)
    assert judge(cent, 1234.5, "1.234,50") == (False, 0.0)  # not a number
    fuzzy = {"x-eval-compare": {"levenshtein": {"threshold": 0.9}}}
    assert judge(fuzzy, "Stapler", "Staples") == (False, pytest.approx(6 / 7))
    assert judge({"x-eval-compare": "normalized"}, "Zürich  AG", "zurich ag") == (True, 1.0)
    email = {"x-eval-compare": "exact", "x-eval-transform": ["strip", "lowercase"]}
    assert judge(email, "a@b.de", " A@B.de") == (True, 1.0)
    assert judge({"x-eval-compare": "exact", "x-eval-transform": ["strip"]}, "01067",
                 1067) == (False, 0.0)  # the transform fails on a number
    one = (Outcome("/a", "/a", "match", 1.0), Outcome("/b", "/b", "mismatch", 0.5))
    # S = 1.5 over 3 extracted and 2 gold: P 0.5, R 0.75
    assert record_f1([*one, Outcome(None, "/c", "hallucination", 0.0)]) == pytest.approx(0.6)
    assert record_f1([Outcome("/a", None, "omission", 0.0)]) == 0.0
    assert record_f1([]) is None


# -- annotate, list, serve, help ----------------------------------------------------------------


SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string"}, "n": {"type": "integer"},
    "kept": {"type": "string", "x-eval-compare": "normalized"},
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "flag": {"type": "boolean"}}}}}}


def test_annotate_prints_and_writes_only_when_told(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    before = path.read_text()
    code, out, _ = run(capsys, "annotate", path)
    assert code == 0 and path.read_text() == before
    doc = json.loads(out)
    assert doc["properties"]["name"]["x-eval-compare"] == "exact"
    assert doc["properties"]["n"]["x-eval-compare"] == "numeric"
    assert doc["properties"]["kept"]["x-eval-compare"] == "normalized"
    assert doc["properties"]["items"]["items"]["properties"]["flag"]["x-eval-compare"] == "exact"
    assert run(capsys, "annotate", path, "--check")[0] == 1
    code, out, err = run(capsys, "annotate", path, "--in-place")
    assert (code, out) == (0, "") and "annotated 3 field(s)" in err
    assert json.loads(path.read_text()) == doc
    assert run(capsys, "annotate", path, "--check")[0] == 0
    assert run(capsys, "annotate", tmp_path / "missing.json")[0] == 2


def test_list_shows_parameters(capsys: Any) -> None:
    code, out, _ = run(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    i = lines.index("  regex (pattern*)")
    assert lines[i + 1].startswith("      ")
    assert any(ln.startswith("        pattern* (string") for ln in lines[i:i + 6])
    code, out, _ = run(capsys, "list", "--kind", "strategies")
    assert out.startswith("alignment strategies:") and "comparators:" not in out


def test_serve_without_the_server_exits_2(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setitem(sys.modules, "evalschema_server.__main__", None)
    code, out, err = run(capsys, "serve", "--stdio")
    assert (code, out) == (2, "")
    assert "language server is not installed" in err and "evalschema[server]" in err


def test_serve_runs_the_server_main(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    fake = types.ModuleType("evalschema_server.__main__")
    fake.main = lambda argv: seen.append(list(argv)) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "evalschema_server.__main__", fake)
    assert main(["serve", "--stdio", "--log-file", "x.log"]) == 0
    assert seen == [["--log-file", "x.log"]]


def test_serve_finds_the_server_through_its_entry_point(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: Any) -> None:
    # The installed metadata names the server's main; the engine imports nothing else.
    [declared] = entry_points(group=serve_cmd.SERVER_ENTRY_POINTS, name="main")
    assert declared.value == "evalschema_server.__main__:main"
    seen: list[list[str]] = []
    fake = types.ModuleType("fake_language_server")
    fake.main = lambda argv: seen.append(list(argv)) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_language_server", fake)
    asked: list[dict[str, str]] = []

    def found(**selection: str) -> list[EntryPoint]:
        asked.append(selection)
        return [EntryPoint("main", "fake_language_server:main", selection["group"])]

    monkeypatch.setattr(serve_cmd, "entry_points", found)
    assert main(["serve", "--stdio", "--log-file", "x.log"]) == 0
    assert seen == [["--log-file", "x.log"]]
    assert asked == [{"group": "evalschema.server", "name": "main"}]
    # No entry point (the engine installed alone): the install hint, exit code 2.
    monkeypatch.setattr(serve_cmd, "entry_points", lambda **selection: [])
    code, out, err = run(capsys, "serve", "--stdio")
    assert (code, out) == (2, "")
    assert err == f"evalschema: {serve_cmd.INSTALL_HINT}\n"
    # An entry point naming something that is not there: the same hint, exit code 2.
    monkeypatch.setattr(serve_cmd, "entry_points", lambda **selection: [
        EntryPoint("main", "fake_language_server:missing", selection["group"])])
    code, out, err = run(capsys, "serve")
    assert (code, out) == (2, "") and "evalschema_server has no main" in err


def test_help_lists_every_command_with_examples(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for cmd in ("eval", "compare", "check", "infer", "annotate", "import", "list", "serve"):
        assert f"    {cmd} " in out
    assert "exit codes: 0 ok, 1 threshold not met, 2 bad input or configuration" in out
    for argv in (["eval"], ["compare"], ["check"], ["infer"], ["annotate"],
                 ["import", "stickler"], ["list"]):
        with pytest.raises(SystemExit):
            main([*argv, "--help"])
        assert "examples:" in capsys.readouterr().out, argv
