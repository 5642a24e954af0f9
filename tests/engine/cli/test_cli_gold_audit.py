"""``evalschema gold-audit``: the table and the JSON, exactly; suites of the configuration;
exit 0 with suspects; usage and located input errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema.cli.main import main

SCHEMA = {
    "type": "object", "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "vendor": {"type": "string", "x-eval-transform": ["casefold"]},
        "city": {"type": "string"},
        "po": {"type": "string"},
    },
}
GOLD = [{"id": "r1", "vendor": "Acme Ltd", "city": "Lyon"},
        {"id": "r2", "vendor": "Brot AG", "city": "Bern"}]
RUNS = {
    "a": [{"id": "r1", "vendor": "ACME GmbH", "city": "Lyon", "po": "PO-1"},
          {"id": "r2", "vendor": "Brot AG", "city": "Berne"}],
    "b": [{"id": "r1", "vendor": "acme gmbh", "city": "Lyon", "po": "PO-1"},
          {"id": "r2", "vendor": "Brot AG", "city": "Berne"}],
    "c": [{"id": "r1", "vendor": "Acme GmbH", "city": "Paris"},
          {"id": "r2", "vendor": "Brot AG", "city": "Berne"}],
}


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s.eval.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in GOLD),
                                         encoding="utf-8")
    for name, recs in RUNS.items():
        (tmp_path / f"run.{name}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    (tmp_path / "evalschema.toml").write_text(
        '[[suite]]\nname = "s"\nschema = "s.eval.json"\ngold = "gold.jsonl"\n'
        'extracted = ["run.a.jsonl", "run.b.jsonl", "run.c.jsonl"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLUMNS", raising=False)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


ARGS = ("gold-audit", "s.eval.json", "--gold", "gold.jsonl", "--extracted", "run.a.jsonl",
        "--extracted", "run.b.jsonl", "--extracted", "run.c.jsonl", "--no-progress")


def test_table(suite: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, *ARGS)
    assert code == 0  # suspects are findings, not a failure
    assert out == (
        "3 suspect gold values in gold.jsonl: runs (a, b, c) agree on another value\n"
        "\n"
        "record  field   gold        runs say     agree   runs\n"
        "─────────────────────────────────────────────────────\n"
        "r1      vendor  \"Acme Ltd\"  \"ACME GmbH\"  3 of 3  a, b, c\n"
        "r2      city    \"Bern\"      \"Berne\"      3 of 3  a, b, c\n"
        "r1      po      (no value)  \"PO-1\"       2 of 3  a, b\n")


def test_json(suite: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, *ARGS, "--format", "json", "--label", "A", "--label", "B",
                       "--label", "C")
    assert code == 0
    doc = json.loads(out)
    assert doc["gold"] == "gold.jsonl"
    assert doc["runs"] == [{"label": "A", "extracted": "run.a.jsonl"},
                           {"label": "B", "extracted": "run.b.jsonl"},
                           {"label": "C", "extracted": "run.c.jsonl"}]
    assert doc["suspects"] == [
        {"gold_index": 0, "record_id": "r1", "label": "r1", "field": "vendor",
         "path": "vendor", "gold_pointer": "/vendor", "kind": "mismatch", "gold": "Acme Ltd",
         "agreed": "ACME GmbH", "agreeing": 3, "scored": 3, "runs": ["A", "B", "C"],
         "schema_pointer": "/properties/vendor"},
        {"gold_index": 1, "record_id": "r2", "label": "r2", "field": "city", "path": "city",
         "gold_pointer": "/city", "kind": "mismatch", "gold": "Bern", "agreed": "Berne",
         "agreeing": 3, "scored": 3, "runs": ["A", "B", "C"],
         "schema_pointer": "/properties/city"},
        {"gold_index": 0, "record_id": "r1", "label": "r1", "field": "po", "path": "po",
         "gold_pointer": "/po", "kind": "hallucination", "gold": None, "agreed": "PO-1",
         "agreeing": 2, "scored": 3, "runs": ["A", "B"], "schema_pointer": "/properties/po"},
    ]


def test_a_configured_suite_gives_the_same(suite: Path, capsys: Any) -> None:
    flags = run(capsys, *ARGS, "--format", "json")
    configured = run(capsys, "gold-audit", "--suite", "s", "--format", "json", "--no-progress")
    assert configured == flags


def test_no_suspects(suite: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "gold-audit", "s.eval.json", "--gold", "gold.jsonl",
                       "--extracted", "run.a.jsonl", "--extracted", "run.c.jsonl",
                       "--field", "po", "--no-progress")
    assert code == 0
    assert out == ("no suspect gold values in gold.jsonl: no two of the 2 runs (a, c) agree "
                   "against a gold value\n")


def test_one_run_is_a_usage_error(suite: Path, capsys: Any) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["gold-audit", "s.eval.json", "--gold", "gold.jsonl", "--extracted",
              "run.a.jsonl"])
    assert exc.value.code == 2
    assert "gold-audit needs at least two runs" in capsys.readouterr().err


def test_bad_gold_is_located(suite: Path, capsys: Any) -> None:
    (suite / "gold.jsonl").write_text('{"id": "r1"}\n{"id": "r1"}\n', encoding="utf-8")
    code, out, err = run(capsys, *ARGS)
    assert code == 2 and out == ""
    assert "gold.jsonl:2" in err and "duplicate-id" in err


def test_the_compare_html_report_has_the_suspects(suite: Path, capsys: Any) -> None:
    code, _, _ = run(capsys, "compare", "--suite", "s", "--format", "html", "-o", "c.html",
                     "--resamples", "20", "--no-progress")
    assert code == 0
    html = (suite / "c.html").read_text(encoding="utf-8")
    assert "<h2>Suspect gold (3)</h2>" in html
    assert html.count('<tr class="suspect ') == 3
    assert "<td><code>&quot;ACME GmbH&quot;</code></td><td class=num>3 of 3</td>" in html
