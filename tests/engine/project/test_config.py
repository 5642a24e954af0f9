"""evalschema.toml / [tool.evalschema]: frozen suites, every problem collected and
located (file:line:col and a pointer)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from evalschema.project.config import find_config, load_config, parse_config

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("invoices.eval.json", "invoices.gold.jsonl", "invoices.model-a.extracted.jsonl",
                 "invoices.model-b.extracted.jsonl"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


GOOD = """\
# the invoice suite
[[suite]]
name = "invoices"
schema = "invoices.eval.json"
gold = "invoices.gold.jsonl"
extracted = ["invoices.model-*.extracted.jsonl"]
id_field = "invoice_id"
null_policy = "absent"
fail_under = 0.85
fail_metric = "micro"
comparator_modules = ["my_comparators"]
fields = ["total"]

[suite.thresholds]
total = 0.95
"line_items[].amount" = 0.9

[[suite]]
name = "one-run"
schema = "invoices.eval.json"
gold = "invoices.gold.jsonl"
extracted = "invoices.model-a.extracted.jsonl"
"""


def test_a_good_configuration(folder: Path) -> None:
    (folder / "evalschema.toml").write_text(GOOD, encoding="utf-8")
    loaded = load_config(folder / "evalschema.toml")
    assert loaded.problems == ()
    cfg = loaded.config
    assert cfg is not None and cfg.names == ("invoices", "one-run")
    s = cfg.suites[0]
    assert s.schema == folder / "invoices.eval.json"
    assert s.extracted == (folder / "invoices.model-a.extracted.jsonl",
                           folder / "invoices.model-b.extracted.jsonl")
    assert (s.id_field, s.null_policy, s.fail_under, s.fail_metric) == (
        "invoice_id", "absent", 0.85, "micro")
    assert dict(s.thresholds) == {"total": 0.95, "line_items[].amount": 0.9}
    assert s.comparator_modules == ("my_comparators",) and s.fields == ("total",)
    assert s.line == 2 and s.pointer == "/suite/0"
    assert cfg.suites[1].extracted == (folder / "invoices.model-a.extracted.jsonl",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.name = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.thresholds["total"] = 0.1  # type: ignore[index]


def test_relative_paths_resolve_from_the_file_not_the_cwd(folder: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    sub = folder / "conf"
    (sub / "data").mkdir(parents=True)
    for f in folder.glob("invoices.*"):
        shutil.copy(f, sub / "data" / f.name)
    # Paths stay inside the configuration's folder (a '..' is an error: docs/security.md).
    (sub / "evalschema.toml").write_text(GOOD.replace('"invoices.', '"data/invoices.'),
                                         encoding="utf-8")
    monkeypatch.chdir(folder.parent)
    loaded = load_config(sub / "evalschema.toml")
    assert loaded.problems == ()
    assert loaded.config is not None
    assert loaded.config.suites[0].gold.resolve() == \
        (sub / "data" / "invoices.gold.jsonl").resolve()


def test_every_problem_is_collected_and_located(folder: Path) -> None:
    text = """\
[[suite]]
name = "a"
schema = "missing.eval.json"
gold = "invoices.gold.jsonl"
extracted = ["nothing-*.jsonl", "absent.jsonl"]
fail_undr = 0.9
fail_under = 1.5
null_policy = "nul"
comparator_modules = ["not a module"]

[suite.thresholds]
total = "high"

[[suite]]
name = "a"
schema = "invoices.eval.json"

[[suite]]
schema = "invoices.eval.json"
gold = "invoices.gold.jsonl"
extracted = "invoices.model-a.extracted.jsonl"

[[suite]]
name = "ok"
schema = "invoices.eval.json"
gold = "invoices.gold.jsonl"
extracted = "invoices.model-a.extracted.jsonl"
"""
    path = folder / "evalschema.toml"
    path.write_text(text, encoding="utf-8")
    loaded = load_config(path)
    got = [(p.code, p.line, p.column, p.pointer) for p in loaded.problems]
    assert got == [
        ("unknown-key", 6, 1, "/suite/0/fail_undr"),
        ("file-not-found", 3, 1, "/suite/0/schema"),
        ("no-match", 5, 1, "/suite/0/extracted/0"),
        ("file-not-found", 5, 1, "/suite/0/extracted/1"),
        ("bad-value", 8, 1, "/suite/0/null_policy"),
        ("bad-value", 7, 1, "/suite/0/fail_under"),
        ("bad-type", 12, 1, "/suite/0/thresholds/total"),
        ("bad-value", 9, 1, "/suite/0/comparator_modules/0"),
        ("duplicate-suite", 15, 1, "/suite/1/name"),
        ("missing-key", 18, 1, "/suite/2"),
    ]
    first = loaded.problems[0]
    assert first.format().startswith(f"{path}:6:1#/suite/0/fail_undr: error unknown-key")
    assert "did you mean 'fail_under'?" in first.format()
    assert first.target == "key" and first.data["suite"] == "a"
    assert loaded.config is not None and loaded.config.names == ("ok",)
    assert {p.data.get("suite") for p in loaded.errors_for({"ok"})} <= {"ok", None}
    assert loaded.errors_for({"ok"}) == ()


def test_toml_syntax_errors_carry_line_and_column(folder: Path) -> None:
    path = folder / "evalschema.toml"
    path.write_text('[[suite]]\nname = "a"\nschema = \n', encoding="utf-8")
    loaded = load_config(path)
    assert loaded.config is None
    (p,) = loaded.problems
    assert (p.code, p.line, p.column) == ("invalid-toml", 3, 10)
    assert p.format().startswith(f"{path}:3:10: error invalid-toml: not valid TOML: ")


def test_unknown_top_level_keys_and_no_suites(folder: Path) -> None:
    loaded = parse_config("suites = []\n[defaults]\nx = 1\n", folder / "evalschema.toml")
    assert [(p.code, p.line, p.pointer) for p in loaded.problems] == [
        ("unknown-key", 1, "/suites"), ("unknown-key", 2, "/defaults"), ("no-suites", None, "")]
    assert "did you mean 'suite'?" in loaded.problems[0].format()


def test_pyproject_tool_table(folder: Path) -> None:
    body = GOOD.replace("[[suite]]", "[[tool.evalschema.suite]]").replace(
        "[suite.thresholds]", "[tool.evalschema.suite.thresholds]")
    (folder / "pyproject.toml").write_text('[project]\nname = "x"\n\n' + body.replace(
        "fail_metric", "fail_metrc"), encoding="utf-8")
    assert find_config(folder) == folder / "pyproject.toml"
    loaded = load_config(folder / "pyproject.toml")
    assert [(p.code, p.line, p.pointer) for p in loaded.problems] == [
        ("unknown-key", 13, "/tool/evalschema/suite/0/fail_metrc")]
    assert loaded.config is not None and loaded.config.names == ("one-run",)
    (folder / "evalschema.toml").write_text(GOOD, encoding="utf-8")
    assert find_config(folder) == folder / "evalschema.toml"


def test_pyproject_without_the_table_is_not_a_config(folder: Path) -> None:
    (folder / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert find_config(folder) is None
    loaded = load_config(folder / "pyproject.toml")
    assert [p.code for p in loaded.problems] == ["no-config"]


def test_missing_file() -> None:
    loaded = load_config("/nonexistent/evalschema.toml")
    assert loaded.config is None and [p.code for p in loaded.problems] == ["file-not-found"]
