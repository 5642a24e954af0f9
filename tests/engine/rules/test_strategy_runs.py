"""A strategy in the registry runs its own function: nothing falls back to ``ordered``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import check_eval_schema, evaluate, register_strategy
from evalschema.rules.builtins import builtin_registry
from evalschema.rules.registry import RegistryError, StrategyDef

SCHEMA = {"type": "object", "properties": {"tags": {
    "type": "array", "x-eval-align": {"match_by": "reversed"}, "items": {"type": "string"}}}}


def _reversed(g: list[Any], e: list[Any], params: dict[str, Any]) -> list[tuple[int, int]]:
    CALLS.append((list(g), list(e)))
    n = min(len(g), len(e))
    return [(i, len(e) - 1 - i) for i in range(n)]


CALLS: list[tuple[list[Any], list[Any]]] = []


def test_a_registered_strategy_runs_its_function() -> None:
    CALLS.clear()
    reg = builtin_registry()
    register_strategy("reversed", _reversed, registry=reg)
    run = evaluate([{"tags": ["a", "b", "c"]}], [{"tags": ["c", "b", "a"]}], SCHEMA,
                   registry=reg)
    assert CALLS == [(["a", "b", "c"], ["c", "b", "a"])]
    # Paired from opposite ends: every element matches (ordered would give 2 mismatches).
    assert [str(r.status) for r in run.records[0].field_results] == ["match"] * 3


def test_a_strategy_without_a_function_is_refused() -> None:
    reg = builtin_registry()
    with pytest.raises(RegistryError, match="function"):
        reg.add_strategy(StrategyDef("lazy", "no function", {"type": "object"}))


def test_a_strategy_without_a_function_slipped_into_a_table_is_reported() -> None:
    reg = builtin_registry()
    reg.strategies["lazy"] = StrategyDef("lazy", "no function", {"type": "object"})
    schema = json.loads(json.dumps(SCHEMA).replace("reversed", "lazy"))
    problems = check_eval_schema(schema, registry=reg).problems
    assert [(p.code, p.pointer) for p in problems] == [
        ("strategy-no-function", "/properties/tags/x-eval-align/match_by")]


def test_cli_runs_a_strategy_from_a_comparator_module(tmp_path: Path) -> None:
    from evalschema.cli.main import main

    (tmp_path / "mine.py").write_text(
        "from evalschema import register_strategy\n"
        "import pathlib\n"
        "def rev(g, e, p):\n"
        f"    pathlib.Path({str(tmp_path / 'ran')!r}).write_text('yes')\n"
        "    return [(i, len(e) - 1 - i) for i in range(min(len(g), len(e)))]\n"
        "register_strategy('reversed', rev)\n")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "gold.jsonl").write_text(json.dumps({"tags": ["a", "b", "c"]}) + "\n")
    (tmp_path / "out.jsonl").write_text(json.dumps({"tags": ["c", "b", "a"]}) + "\n")
    code = main(["eval", str(tmp_path / "schema.json"), "--gold", str(tmp_path / "gold.jsonl"),
                 "--extracted", str(tmp_path / "out.jsonl"), "--format", "json",
                 "--output", str(tmp_path / "r.json"),
                 "--comparator-module", str(tmp_path / "mine.py")])
    assert (tmp_path / "ran").read_text() == "yes"
    report = json.loads((tmp_path / "r.json").read_text())
    assert code == 0
    assert "'f1': 1.0" in str(report) or '"f1": 1.0' in json.dumps(report)
