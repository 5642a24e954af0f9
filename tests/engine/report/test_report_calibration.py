"""The calibration section of every report (report.calibration): text, markdown, HTML with a
reliability diagram per field, compare side by side, and the command line's
``--review-budgets``; none of it without confidences."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from evalschema import compare_runs, evaluate
from evalschema.cli.compare_cmd import compare_text
from evalschema.cli.main import main
from evalschema.report.html import runs_html
from evalschema.report.html_compare import compare_html
from evalschema.report.markdown import compare_markdown, run_markdown
from evalschema.report.model import RunReport
from evalschema.report.text import run_text
from evalschema.results import RunResult

SCHEMA = {"type": "object", "x-eval-id": "id", "x-eval-confidence": "{key}_confidence",
          "properties": {"id": {"type": "string", "x-eval-confidence": False},
                         "total": {"type": "number"}, "a<b>|c": {"type": "string"}}}
GOLD = [{"id": "r1", "total": 1, "a<b>|c": "x"}, {"id": "r2", "total": 2, "a<b>|c": "y"}]
EXTRACTED = [
    {"id": "r1", "total": 1, "total_confidence": 0.9, "a<b>|c": "x", "a<b>|c_confidence": 0.8},
    {"id": "r2", "total": 3, "total_confidence": 0.3, "a<b>|c": "y"},
]


def _run(extracted: list[dict[str, Any]] = EXTRACTED) -> RunResult:
    return evaluate(GOLD, extracted, SCHEMA)


def test_text_section() -> None:
    text = run_text(RunReport(_run(), "m"))
    section = text[text.index("\ncalibration:") + 1:].splitlines()
    assert section == [
        "calibration: confidence against correctness (a match is correct; a mismatch or "
        "hallucination wrong): ECE over 10 equal-width bins, Brier score, AUROC (undefined "
        "with one class), and the share of all wrong values caught among the k% least "
        "confident",
        "  field       values    ECE  Brier  AUROC  caught@5%  caught@10%  caught@20%  "
        "missing  invalid",
        "  all fields       3  0.200  0.047  1.000      0.150       0.300       0.600        "
        "1        0",
        "  total            2  0.200  0.050  1.000      0.100       0.200       0.400        "
        "0        0",
        "  a<b>|c           1  0.200  0.040      —          —           —           —        "
        "1        0",
        "  a<b>|c: 1 missing; e.g. record r2 at /a<b>|c_confidence: no confidence there",
    ]


def test_markdown_section_escapes_names() -> None:
    md = run_markdown(RunReport(_run(), "m"))
    section = md[md.index("### Calibration"):].splitlines()
    assert section[4:9] == [
        "| field | values | ECE | Brier | AUROC | caught@5% | caught@10% | caught@20% | "
        "missing | invalid |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        "| **all fields** | 3 | 0.200 | 0.047 | 1.000 | 0.150 | 0.300 | 0.600 | 1 | 0 |",
        "| `total` | 2 | 0.200 | 0.050 | 1.000 | 0.100 | 0.200 | 0.400 | 0 | 0 |",
        "| `a<b>\\|c` | 1 | 0.200 | 0.040 | — | — | — | — | 1 | 0 |",
    ]
    assert section[10] == ("- a&lt;b&gt;\\|c: 1 missing; e.g. record r2 at "
                           "/a&lt;b&gt;\\|c_confidence: no confidence there")


def test_html_has_a_reliability_diagram_per_field() -> None:
    html = runs_html([RunReport(_run(), "m")])
    assert html.count('<svg class="chart reliability"') == 2
    assert 'aria-label="reliability diagram of a&lt;b&gt;|c"' in html
    assert "a<b>" not in html
    bins = re.findall(r'<g class="bin" data-low="([^"]+)" data-count="(\d+)" '
                      r'data-accuracy="([^"]+)" data-confidence="([^"]+)">', html)
    assert bins == [("0.3", "1", "0.000000", "0.300000"), ("0.9", "1", "1.000000", "0.900000"),
                    ("0.8", "1", "1.000000", "0.800000")]
    assert "<script" not in html[html.index("<h3>Calibration"):html.index("<h3>Configuration")]


def test_no_confidences_no_section() -> None:
    schema = {k: v for k, v in SCHEMA.items() if k != "x-eval-confidence"}
    run = evaluate(GOLD, [{k: v for k, v in r.items() if "confidence" not in k}
                          for r in EXTRACTED], schema)
    report = RunReport(run, "m")
    assert "calibration" not in run_text(report)
    assert "Calibration" not in run_markdown(report)
    assert "Calibration" not in runs_html([report])
    c = compare_runs([run, run], ["a", "b"], resamples=10)
    assert c.calibration == () and "calibration" not in c.to_dict()
    assert "alibration" not in compare_text(c) + compare_markdown(c) + compare_html(c)


def test_compare_side_by_side_with_deltas() -> None:
    other = copy.deepcopy(EXTRACTED)
    other[1]["total_confidence"] = 0.95  # confidently wrong: worse calibrated
    c = compare_runs([_run(), _run(other)], ["a", "b"], resamples=10, budgets=(50,))
    rows = {(r["field"], r["metric"]): (r["values"], r["deltas"])
            for r in c.to_dict()["calibration"]}
    assert list(rows)[:5] == [("all fields", "ECE"), ("all fields", "Brier"),
                              ("all fields", "AUROC"), ("all fields", "caught@50%"),
                              ("all fields", "missing")]
    assert rows[("total", "AUROC")] == ([1.0, 0.0], [-1.0])
    assert rows[("total", "caught@50%")] == ([1.0, 0.0], [-1.0])
    assert rows[("total", "missing")] == ([0.0, 0.0], [0.0])
    assert rows[("a<b>|c", "AUROC")] == ([None, None], [None])
    assert rows[("total", "Brier")][0] == [pytest.approx(0.05), pytest.approx(0.45625)]
    text = compare_text(c).splitlines()
    start = text.index(next(ln for ln in text if ln.startswith("calibration: per run")))
    # b: 0.8 right; 0.9 right and 0.95 wrong share a bin (accuracy 0.5, confidence 0.925)
    assert text[start + 1:start + 3] == ["                            a      b     Δ b",
                                         "all fields  ECE         0.200  0.350  +0.150"]
    assert "| `total` | AUROC | 1.000 | 0.000 | -1.000 |" in compare_markdown(c)
    assert "<h2>Calibration</h2>" in compare_html(c)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "s.eval.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOLD))
    (tmp_path / "e.jsonl").write_text("".join(json.dumps(r) + "\n" for r in EXTRACTED))
    return tmp_path


def test_cli_review_budgets(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", str(files / "s.eval.json"), "--gold", str(files / "g.jsonl"),
                 "--extracted", str(files / "e.jsonl"), "--format", "json", "--no-records",
                 "--review-budgets", "50,100"])
    out, err = capsys.readouterr()
    assert code == 0, err
    cal = json.loads(out)["runs"][0]["calibration"]
    assert cal["review_budgets"] == [50.0, 100.0]
    assert cal["per_field"]["total"]["review"] == [
        {"budget": 50.0, "reviewed": 1.0, "caught": 1.0, "wrong_share": 1.0},
        {"budget": 100.0, "reviewed": 2.0, "caught": 1.0, "wrong_share": 0.5}]


@pytest.mark.parametrize(("value", "message"), [
    ("0,10", "a review budget is a percent in (0, 100], not 0"),
    ("5,x", "'5,x' is not a comma-separated list of percents (e.g. 5,10,20)"),
])
def test_cli_bad_review_budgets(files: Path, capsys: pytest.CaptureFixture[str], value: str,
                                message: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["eval", str(files / "s.eval.json"), "--gold", str(files / "g.jsonl"),
              "--extracted", str(files / "e.jsonl"), "--review-budgets", value])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
