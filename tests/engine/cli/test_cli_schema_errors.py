"""``--allow-schema-errors``: without it a schema error stops ``eval`` and ``compare``
(exit 2, as before); with it the field is an error, the errors are located warnings and
the exit code follows the thresholds. Schemas may be JSON with comments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_cli import run

SCHEMA = """{
  // the fields
  "type": "object", "x-eval-id": "id",
  "properties": {
    "id": {"type": "string"},
    "name": {"type": "string", "x-eval-compare": "exakt"},
    "total": {"type": "number"},
  },
}
"""
GOLD = [{"id": "a", "name": "Acme", "total": 1}, {"id": "b", "name": "Beta", "total": 2}]
RUN = [{"id": "a", "name": "Acme", "total": 1}, {"id": "b", "name": "Beta", "total": 3}]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {"schema": tmp_path / "s.eval.jsonc", "gold": tmp_path / "g.jsonl",
           "run": tmp_path / "r.jsonl", "run2": tmp_path / "r2.jsonl"}
    out["schema"].write_text(SCHEMA, encoding="utf-8")
    for key, records in (("gold", GOLD), ("run", RUN), ("run2", GOLD)):
        out[key].write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return out


def test_without_the_flag_a_schema_error_stops_eval(files: dict[str, Path],
                                                     capsys: Any) -> None:
    code, out, err = run(capsys, "eval", files["schema"], "--gold", files["gold"],
                         "--extracted", files["run"])
    assert (code, out) == (2, "")
    assert err == (
        "evalschema: the eval schema is invalid\n"
        f"{files['schema']}#/properties/name/x-eval-compare: error unknown-comparator: "
        "unknown comparator 'exakt' (did you mean 'exact'?)\n")


def test_with_the_flag_the_field_is_an_error_and_the_rest_is_scored(
        files: dict[str, Path], capsys: Any) -> None:
    code, out, err = run(capsys, "eval", files["schema"], "--gold", files["gold"],
                         "--extracted", files["run"], "--allow-schema-errors",
                         "--format", "json")
    assert code == 0
    assert err == (
        "evalschema: warning: the eval schema has 1 error; the fields they are in are scored "
        "as errors (--allow-schema-errors)\n"
        f"{files['schema']}#/properties/name/x-eval-compare: warning unknown-comparator: "
        "unknown comparator 'exakt' (did you mean 'exact'?)\n")
    [report] = json.loads(out)["runs"]
    fields = report["per_field"]
    assert {k: (v["errors"], v["matches"], v["mismatches"], v["f1"])
            for k, v in fields.items()} == {
        "id": (0, 2, 0, 1.0), "name": (2, 0, 0, None), "total": (0, 1, 1, 0.5)}
    names = [(r["record_id"], r["status"], r["reason"])
             for rec in report["records"] for r in rec["field_results"]
             if r["field"] == "name"]
    why = "schema error: unknown comparator 'exakt' (did you mean 'exact'?)"
    assert names == [("a", "error", why), ("b", "error", why)]


def test_with_the_flag_the_exit_code_follows_the_gate(files: dict[str, Path],
                                                      capsys: Any) -> None:
    code, out, err = run(capsys, "eval", files["schema"], "--gold", files["gold"],
                         "--extracted", files["run"], "--allow-schema-errors",
                         "--fail-under", "0.9")
    assert code == 1
    assert "threshold(s) not met" in err
    assert "name" in out and "error" in out.split("name", 1)[1].splitlines()[0]
    code, _, err = run(capsys, "eval", files["schema"], "--gold", files["gold"],
                       "--extracted", files["run"], "--allow-schema-errors",
                       "--threshold", "name=0.5")
    assert code == 1
    assert err.splitlines()[-1] == \
        "  r.jsonl: name: F1 undefined: nothing was judged (needs >= 0.5000)"


def test_with_the_flag_an_unusable_root_still_stops(files: dict[str, Path],
                                                    capsys: Any) -> None:
    files["schema"].write_text(SCHEMA.replace('"x-eval-id": "id"', '"x-eval-id": "ident"'),
                               encoding="utf-8")
    code, out, err = run(capsys, "eval", files["schema"], "--gold", files["gold"],
                         "--extracted", files["run"], "--allow-schema-errors")
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert lines[0] == "evalschema: the eval schema is invalid"
    assert lines[1].startswith(f"{files['schema']}#/x-eval-id: error id-unknown:")
    assert "unknown-comparator" in lines[2]


def test_compare_takes_the_flag_too(files: dict[str, Path], capsys: Any) -> None:
    code, _, err = run(capsys, "compare", "--schema", files["schema"], "--gold",
                       files["gold"], files["run"], files["run2"])
    assert code == 2 and "unknown-comparator" in err
    code, out, err = run(capsys, "compare", "--schema", files["schema"], "--gold",
                         files["gold"], files["run"], files["run2"], "--allow-schema-errors",
                         "--format", "json")
    assert code == 0
    assert "warning unknown-comparator" in err
    assert json.loads(out)["labels"] == ["r", "r2"]


def test_a_jsonc_schema_is_read_by_eval_and_check(files: dict[str, Path],
                                                  capsys: Any) -> None:
    files["schema"].write_text(SCHEMA.replace('"exakt"', '"exact"'), encoding="utf-8")
    code, _, err = run(capsys, "eval", files["schema"], "--gold", files["gold"],
                       "--extracted", files["run"])
    assert (code, err) == (0, "")
    code, _, err = run(capsys, "check", files["schema"])
    assert code == 0
    files["schema"].write_text(SCHEMA.replace('"total": {"type": "number"}',
                                              '"total" {"type": "number"}'), encoding="utf-8")
    code, _, err = run(capsys, "eval", files["schema"], "--gold", files["gold"],
                       "--extracted", files["run"], "--allow-schema-errors")
    assert code == 2
    assert f"{files['schema']}:7:13: error invalid-json: schema is not valid JSON: " \
        "Expecting ':' delimiter" in err
