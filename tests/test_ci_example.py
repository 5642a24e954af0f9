"""docs/ci.md's GitHub Actions workflow, run: its evalschema commands on the bundled example
(production = model-a, candidate = model-b, which is worse) exit as the page says and write
the reports the upload step names."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalschema.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def workflow() -> dict[str, Any]:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "jobs:" in b]
    doc = yaml.safe_load(block)
    assert isinstance(doc, dict)
    return doc


def steps() -> list[dict[str, Any]]:
    return list(workflow()["jobs"]["evals"]["steps"])


def commands() -> list[list[str]]:
    return [shlex.split(s["run"]) for s in steps()
            if "run" in s and s["run"].startswith("evalschema ")]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bundled suite, its runs as runs/production.jsonl and runs/candidate.jsonl."""
    for name in ("invoices.eval.json", "invoices.gold.jsonl"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    (tmp_path / "runs").mkdir()
    shutil.copy(EXAMPLES / "invoices.model-a.extracted.jsonl", tmp_path / "runs/production.jsonl")
    shutil.copy(EXAMPLES / "invoices.model-b.extracted.jsonl", tmp_path / "runs/candidate.jsonl")
    (tmp_path / "evalschema.toml").write_text(
        '[[suite]]\nname = "invoices"\nschema = "invoices.eval.json"\n'
        'gold = "invoices.gold.jsonl"\nextracted = ["runs/production.jsonl", '
        '"runs/candidate.jsonl"]\nfail_under = 0.85\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_workflow_uses_the_real_actions_and_uploads_what_the_commands_write() -> None:
    uses = [s["uses"] for s in steps() if "uses" in s]
    assert uses == ["actions/checkout@v4", "actions/setup-python@v5",
                    "actions/upload-artifact@v4"]
    written = [argv[argv.index("--output") + 1] for argv in commands()]
    upload = steps()[-1]
    assert upload["if"] == "always()"
    assert upload["with"]["path"].split() == written == ["evalschema-report.html",
                                                         "evalschema-compare.html"]


def test_the_commands_gate_and_write_their_reports(project: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """eval: the candidate's macro F1 0.8059 is below fail_under 0.85 (exit 1); compare:
    it is significantly below production's 0.9145 (exit 1); both reports are written."""
    score, regression = commands()
    assert score[:2] == ["evalschema", "eval"] and regression[:2] == ["evalschema", "compare"]
    assert "--fail-on-regression" in regression
    assert main(score[1:]) == 1
    assert main(regression[1:]) == 1
    err = capsys.readouterr().err
    assert "invoices · candidate.jsonl: overall macro F1 0.8059 < 0.8500" in err
    assert "candidate: macro F1 is significantly lower than production's" in err
    assert "<html" in (project / "evalschema-report.html").read_text(encoding="utf-8")
    assert "Records that flipped" in (project / "evalschema-compare.html").read_text(
        encoding="utf-8")


def test_a_better_candidate_passes_the_regression_gate(project: Path) -> None:
    runs = project / "runs"
    shutil.copy(runs / "production.jsonl", runs / "better.jsonl")
    shutil.copy(runs / "candidate.jsonl", runs / "production.jsonl")
    shutil.copy(runs / "better.jsonl", runs / "candidate.jsonl")
    assert main(commands()[1][1:]) == 0
