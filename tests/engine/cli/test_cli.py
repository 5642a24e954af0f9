"""The ``evalschema`` command line, in process (``main([...])`` with capsys) and once
as a real subprocess. Exit codes: 0 ok, 2 bad input; never a traceback; nothing
written to disk by eval, check or infer.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalschema import default_registry, evaluate
from evalschema.cli.main import main

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
DEPTH = 10_000

SCHEMA = {
    "type": "object",
    "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string", "x-eval-compare": "normalized"},
        "total": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}},
        "tags": {"type": "array", "items": {"type": "string"},
                 "x-eval-align": {"match_by": "set"}},
    },
}
GOLD = [
    {"id": "r1", "name": "Acme GmbH", "total": 10.0, "tags": ["a", "b"]},
    {"id": "r2", "name": "Beta", "total": 5, "tags": []},
]
EXTRACTED = [
    {"id": "r2", "name": "beta", "total": 6, "tags": ["x"]},
    {"id": "r1", "name": "ACME  gmbh", "total": 10.004, "tags": ["b"]},
]

BAD_SCHEMA = """{
  "type": "object",
  "properties": {
    "name": {"type": "string", "x-eval-compare": "levenshtien"},
    "age": {"type": "integer", "x-eval-comparee": "numeric"},
    "price": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": -1}}}},
    "title": {"type": "string", "x-eval-align": {"match_by": "hungarian"}},
    "items": {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "skuu"},
              "items": {"type": "object", "properties": {"sku": {"type": "string"},
                                                         "qty": {"type": "integer"}}}}
  }
}
"""


def _jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """schema.eval.json, gold.jsonl, ext.jsonl in a fresh directory that is also the cwd."""
    (tmp_path / "schema.eval.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    _jsonl(tmp_path / "gold.jsonl", GOLD)
    _jsonl(tmp_path / "ext.jsonl", EXTRACTED)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the bundled example suite, in a directory that is also the cwd."""
    out = tmp_path / "examples"
    shutil.copytree(EXAMPLES, out, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(out)
    return out


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            if p.is_file() else "dir" for p in sorted(root.rglob("*"))}


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def rows(out: str) -> dict[str, list[str]]:
    """Per-field table rows, by field, as whitespace-separated cells."""
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("field "))
    table: dict[str, list[str]] = {}
    for ln in lines[start + 2:]:
        if not ln.strip():
            break
        cells = ln.split()
        table[cells[0]] = cells[1:]
    return table


# -- eval -------------------------------------------------------------------------


def test_eval_table_shows_summary_and_per_field_rows(suite: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "eval", "schema.eval.json", "--gold", "gold.jsonl",
                         "--extracted", "ext.jsonl")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    # r1: 4 match + tag "a" omitted (P 1, R .8); r2: 2 match, total mismatch, tag "x"
    # hallucinated (P .5, R .667); macro F1 (.8889 + .5714) / 2
    assert lines[0] == "ext.jsonl: 2 records, 9 fields judged"
    assert lines[1] == ("  F1 0.7302 (macro)  0.7500 (micro)   precision 0.7500  recall 0.7333"
                        "   weighted score 0.6500")
    assert lines[2] == ("  6 match  1 mismatch  1 omission  1 hallucination  0 skipped  "
                        "0 error")
    table = rows(out)
    assert list(table) == ["id", "name", "total", "tags[]"]
    assert table["id"][0] == "1.000"
    assert [table["total"][i] for i in (0, 2, 3)] == ["0.500", "0.500", "0.500"]
    assert table["total"][4:] == ["1", "1", "0", "0", "0", "0"]
    assert table["tags[]"][4:] == ["1", "0", "1", "1", "0", "0"]


def test_eval_table_sorted_by_f1(suite: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "eval", "schema.eval.json", "--gold", "gold.jsonl",
                       "--extracted", "ext.jsonl", "--sort", "f1")
    assert code == 0
    assert list(rows(out)) == ["tags[]", "total", "id", "name"]


def test_eval_bundled_examples(examples: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "eval", "invoices.eval.json", "--gold", "invoices.gold.jsonl",
                         "--extracted", "invoices.model-a.extracted.jsonl")
    assert (code, err) == (0, "")
    assert out.startswith("invoices.model-a.extracted.jsonl: 240 records, ")
    table = rows(out)
    for field in ("invoice_id", "vendor.name", "vendor.address.postal_code", "customer.email",
                  "line_items[].sku", "line_items[].amount", "total", "paid", "notes"):
        assert field in table, field
    assert table["invoice_id"][:1] == ["1.000"]


def test_eval_json_is_the_run_result(suite: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "eval", "schema.eval.json", "--gold", "gold.jsonl",
                         "--extracted", "ext.jsonl", "--format", "json")
    assert (code, err) == (0, "")
    (doc,) = json.loads(out)["runs"]
    expected = evaluate(GOLD, EXTRACTED, SCHEMA).to_dict()
    assert doc.pop("extracted") == "ext.jsonl"
    assert doc == json.loads(json.dumps(expected, default=str))
    assert doc["total_records"] == 2
    assert (doc["total_matches"], doc["total_mismatches"], doc["total_omissions"],
            doc["total_hallucinations"]) == (6, 1, 1, 1)
    assert doc["micro_f1"] == pytest.approx(0.75)
    assert doc["mean_f1"] == pytest.approx((8 / 9 + 4 / 7) / 2)
    assert set(doc["per_field"]) == {"id", "name", "total", "tags[]"}
    assert [r["record_id"] for r in doc["records"]] == ["r1", "r2"]


def test_eval_json_without_records_and_with_two_runs(suite: Path, capsys: Any) -> None:
    _jsonl(suite / "perfect.jsonl", GOLD)
    code, out, _ = run(capsys, "eval", "schema.eval.json", "--gold", "gold.jsonl",
                       "--extracted", "ext.jsonl", "--extracted", "perfect.jsonl",
                       "--format", "json", "--no-records")
    assert code == 0
    docs = json.loads(out)["runs"]
    assert [d["extracted"] for d in docs] == ["ext.jsonl", "perfect.jsonl"]
    assert all("records" not in d for d in docs)
    assert docs[1]["mean_f1"] == docs[1]["micro_f1"] == 1.0
    assert docs[1]["total_matches"] == 9


@pytest.mark.parametrize("fields", [
    ["total", "line_items[].amount"],
    ["$.total", "$.line_items[*].amount"],
    ["/total", "/line_items/0/amount"],
])
def test_eval_field_restricts_fields(examples: Path, capsys: Any, fields: list[str]) -> None:
    args = [a for f in fields for a in ("--field", f)]
    code, out, _ = run(capsys, "eval", "invoices.eval.json", "--gold", "invoices.gold.jsonl",
                       "--extracted", "invoices.model-a.extracted.jsonl", "--format", "json",
                       "--no-records", *args)
    assert code == 0
    (doc,) = json.loads(out)["runs"]
    assert set(doc["per_field"]) == {"total", "line_items[].amount"}
    full = evaluate(examples / "invoices.gold.jsonl",
                    examples / "invoices.model-a.extracted.jsonl", examples / "invoices.eval.json")
    for key in ("total", "line_items[].amount"):
        assert doc["per_field"][key]["matches"] == full.per_field[key].counts.matches


def test_eval_target_restricts_to_a_subtree(examples: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "eval", "invoices.eval.json", "--gold", "invoices.gold.jsonl",
                       "--extracted", "invoices.model-a.extracted.jsonl", "--format", "json",
                       "--no-records", "--target", "vendor")
    assert code == 0
    keys = set(json.loads(out)["runs"][0]["per_field"])
    assert {"vendor.name", "vendor.vat_id", "vendor.address.city"} <= keys
    assert all(k.startswith("vendor.") for k in keys), keys


def test_eval_unknown_field_suggests_the_closest(examples: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "eval", "invoices.eval.json", "--gold", "invoices.gold.jsonl",
                         "--extracted", "invoices.model-a.extracted.jsonl", "--field", "totl")
    assert code == 2
    assert out == ""
    assert "unknown-field" in err
    assert "did you mean 'total'?" in err


def test_eval_unknown_field_is_not_blamed_on_the_gold_file(examples: Path, capsys: Any) -> None:
    code, _, err = run(capsys, "eval", "invoices.eval.json", "--gold", "invoices.gold.jsonl",
                       "--extracted", "invoices.model-a.extracted.jsonl", "--field", "nope")
    assert code == 2
    assert "invoices.gold.jsonl" not in err


def test_eval_schema_problems_are_listed_and_exit_2(tmp_path: Path, capsys: Any) -> None:
    schema = tmp_path / "bad.eval.json"
    schema.write_text(BAD_SCHEMA, encoding="utf-8")
    gold = _jsonl(tmp_path / "g.jsonl", [{"name": "x"}])
    code, out, err = run(capsys, "eval", schema, "--gold", gold, "--extracted", gold)
    assert (code, out) == (2, "")
    assert err.startswith("evalschema: the eval schema is invalid")
    assert f"{schema}#/properties/name/x-eval-compare: error unknown-comparator" in err


def test_eval_gold_problems_are_located(tmp_path: Path, capsys: Any) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    gold = _jsonl(tmp_path / "g.jsonl", [GOLD[0], GOLD[1], GOLD[0]])
    code, _, err = run(capsys, "eval", schema, "--gold", gold, "--extracted", gold)
    assert code == 2
    assert f'{gold}:3: error duplicate-id: gold id "r1" appears again (first in record 1)' in err


def test_eval_duplicate_extracted_id_names_the_first_record_from_one(
        tmp_path: Path, capsys: Any) -> None:
    """Records are numbered from 1 wherever a user reads them (``#N`` labels, the editor):
    the answer for r1 first appears as the second record."""
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    gold = _jsonl(tmp_path / "g.jsonl", GOLD)
    ext = _jsonl(tmp_path / "e.jsonl", [EXTRACTED[0], EXTRACTED[1], EXTRACTED[1]])
    code, out, _ = run(capsys, "eval", schema, "--gold", gold, "--extracted", ext)
    assert code == 0
    assert "record r1: duplicate id 'r1' (first at extracted record #2)" in out


# -- check ---------------------------------------------------------------------------


def test_check_lists_every_located_problem(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "bad.eval.json"
    path.write_text(BAD_SCHEMA, encoding="utf-8")
    code, out, err = run(capsys, "check", path)
    assert (code, err) == (2, "")
    assert out.splitlines() == [
        f"{path}#/properties/name/x-eval-compare: error unknown-comparator: unknown comparator "
        "'levenshtien' (did you mean 'levenshtein'?)",
        f"{path}#/properties/age/x-eval-comparee: error unknown-key: unknown key "
        "'x-eval-comparee' (did you mean 'x-eval-compare'?)",
        f"{path}#/properties/price/x-eval-compare/numeric/tolerance/rel: error bad-param: "
        "numeric: tolerance/rel: -1 is less than the minimum of 0",
        f"{path}#/properties/title/x-eval-align: error align-not-array: x-eval-align only "
        "applies to arrays with items; this node is a leaf (remove x-eval-align, or declare "
        '"type": "array" with items)',
        f"{path}#/properties/items/x-eval-align/key: error align-key-unknown: key 'skuu' is "
        "not a property of the items (did you mean 'sku'?)",
    ]


def test_check_json_format(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "bad.eval.json"
    path.write_text(BAD_SCHEMA, encoding="utf-8")
    code, out, _ = run(capsys, "check", path, "--format", "json")
    assert code == 2
    problems = json.loads(out)
    assert [(p["code"], p["pointer"]) for p in problems] == [
        ("unknown-comparator", "/properties/name/x-eval-compare"),
        ("unknown-key", "/properties/age/x-eval-comparee"),
        ("bad-param", "/properties/price/x-eval-compare/numeric/tolerance/rel"),
        ("align-not-array", "/properties/title/x-eval-align"),
        ("align-key-unknown", "/properties/items/x-eval-align/key"),
    ]
    assert all(p["source"] == str(path) and p["severity"] == "error" for p in problems)
    assert problems[0]["data"]["replacements"] == ["levenshtein"]
    assert problems[1]["target"] == "key"


def test_check_bundled_example_is_clean(capsys: Any) -> None:
    path = EXAMPLES / "invoices.eval.json"
    code, out, err = run(capsys, "check", path)
    assert (code, err) == (0, "")
    assert out == f"{path}: ok (30 nodes)\n"


def test_check_several_files_reports_each(tmp_path: Path, capsys: Any) -> None:
    bad = tmp_path / "bad.eval.json"
    bad.write_text(BAD_SCHEMA, encoding="utf-8")
    good = EXAMPLES / "invoices.eval.json"
    missing = tmp_path / "missing.eval.json"
    code, out, err = run(capsys, "check", good, bad, missing)
    assert code == 2
    assert f"{good}: ok (30 nodes)" in out
    assert out.count(str(bad)) == 5
    assert f"{missing}: error file-not-found" in err


def test_check_warnings_alone_exit_0(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "warn.eval.json"
    path.write_text(json.dumps({"type": "object", "properties": {"xs": {
        "type": "array", "x-eval-align": {"match_by": "set"},
        "items": {"type": "object", "properties": {"a": {"type": "string"}}}}}}),
        encoding="utf-8")
    code, out, _ = run(capsys, "check", path)
    assert code == 0
    assert f"{path}#/properties/xs/x-eval-align/match_by: warning align-set-objects" in out


# -- infer ---------------------------------------------------------------------------


def test_infer_schema_scores_gold_against_itself_perfectly(examples: Path,
                                                           capsys: Any) -> None:
    code, out, err = run(capsys, "infer", "invoices.gold.jsonl", "--id-field", "invoice_id")
    assert (code, err) == (0, "")
    schema = json.loads(out)
    assert schema["x-eval-id"] == "invoice_id"
    assert schema["properties"]["total"]["x-eval-compare"] == "numeric"
    assert schema["properties"]["paid"]["x-eval-compare"] == "exact"
    run_ = evaluate(examples / "invoices.gold.jsonl", examples / "invoices.gold.jsonl", schema)
    assert run_.total_records == 240
    assert run_.mean_f1 == run_.micro_f1 == 1.0
    assert run_.total_mismatches == run_.total_omissions == run_.total_hallucinations == 0


def test_infer_then_eval_via_the_cli(suite: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "infer", "gold.jsonl")
    assert code == 0
    inferred = json.loads(out)
    assert inferred["properties"]["tags"] == {"type": "array", "items": {
        "type": "string", "x-eval-compare": "exact"}}
    # eval reads the schema from a file; keep it outside the snapshot-free suite dir
    schema = suite.parent / "inferred.eval.json"
    schema.write_text(out, encoding="utf-8")
    code, out, _ = run(capsys, "eval", schema, "--gold", "gold.jsonl", "--extracted",
                       "gold.jsonl", "--format", "json", "--no-records")
    assert code == 0
    (doc,) = json.loads(out)["runs"]
    assert (doc["mean_f1"], doc["total_matches"]) == (1.0, 9)


def test_infer_reads_a_pretty_printed_gold_document(tmp_path: Path, capsys: Any) -> None:
    gold = tmp_path / "doc.gold.json"
    gold.write_text(json.dumps(GOLD[0], indent=2), encoding="utf-8")
    code, out, _ = run(capsys, "infer", gold)
    assert code == 0
    assert set(json.loads(out)["properties"]) == {"id", "name", "total", "tags"}


# -- bad files -------------------------------------------------------------------------


@pytest.mark.parametrize(("role", "text", "where"), [
    ("schema", '{\n  "type": "object",\n  "properties": {,}\n}\n', ":3:18: error invalid-json"),
    ("gold-jsonl", '{"id": "r1"}\n{"id": "r2",,}\n', ":2:13: error invalid-json"),
    ("gold-array", '[{"id": "r1"},\n {"id": }]\n', ":2:9: error invalid-json"),
])
def test_invalid_json_is_located(tmp_path: Path, capsys: Any, role: str, text: str,
                                 where: str) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    gold = _jsonl(tmp_path / "g.jsonl", GOLD)
    broken = tmp_path / ("broken.json" if role != "gold-jsonl" else "broken.jsonl")
    broken.write_text(text, encoding="utf-8")
    args = [schema, "--gold", gold, "--extracted", gold]
    if role == "schema":
        args[0] = broken
    else:
        args[2] = broken
    code, out, err = run(capsys, "eval", *args)
    assert (code, out) == (2, "")
    assert f"{broken}{where}" in err


def test_check_invalid_json_is_located(tmp_path: Path, capsys: Any) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "type": "object",\n  "properties": {,}\n}\n', encoding="utf-8")
    code, _, err = run(capsys, "check", broken)
    assert code == 2
    assert err.startswith(f"{broken}:3:18: error invalid-json: schema is not valid JSON")


@pytest.mark.parametrize("missing", ["schema", "gold", "extracted"])
def test_missing_files_exit_2(suite: Path, capsys: Any, missing: str) -> None:
    args = {"schema": "schema.eval.json", "gold": "gold.jsonl", "extracted": "ext.jsonl"}
    args[missing] = "nope.json"
    code, out, err = run(capsys, "eval", args["schema"], "--gold", args["gold"],
                         "--extracted", args["extracted"])
    assert (code, out) == (2, "")
    assert "nope.json: error file-not-found" in err


@pytest.mark.parametrize("argv", [["infer", "nope.jsonl"], ["check", "nope.json"]])
def test_missing_files_exit_2_for_infer_and_check(tmp_path: Path, capsys: Any,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  argv: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert f"{argv[1]}: error file-not-found" in err


def test_missing_required_option_is_a_usage_error(capsys: Any) -> None:
    with pytest.raises(SystemExit) as info:
        main(["eval", "schema.json"])
    assert info.value.code == 2
    assert "--gold" in capsys.readouterr().err


@pytest.mark.parametrize("role", ["schema", "gold", "check", "infer"])
def test_deep_json_file_exits_2_with_a_message(tmp_path: Path, capsys: Any, role: str) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": ' * DEPTH + "1" + "}" * DEPTH, encoding="utf-8")
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    gold = _jsonl(tmp_path / "g.jsonl", GOLD)
    argv: list[Any] = {
        "schema": ["eval", deep, "--gold", gold, "--extracted", gold],
        "gold": ["eval", schema, "--gold", deep, "--extracted", gold],
        "check": ["check", deep],
        "infer": ["infer", deep],
    }[role]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert "too deep" in err or "too-deep" in err
    assert str(deep) in err


def test_deep_extracted_file_does_not_crash(tmp_path: Path, capsys: Any) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * DEPTH + "]" * DEPTH + "\n", encoding="utf-8")
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    gold = _jsonl(tmp_path / "g.jsonl", GOLD)
    code, _, err = run(capsys, "eval", schema, "--gold", gold, "--extracted", deep)
    assert code in (0, 2)
    if code == 2:
        assert err


# -- list --------------------------------------------------------------------------------


def test_list_names_every_registry_entry(capsys: Any) -> None:
    code, out, _ = run(capsys, "list")
    assert code == 0
    listed = {ln.split()[0] for ln in out.splitlines() if ln.startswith("  ")
              and not ln.startswith("      ")}
    reg = default_registry
    every = set(reg.comparators) | set(reg.transforms) | set(reg.strategies)
    assert listed == every
    for header in ("comparators:", "transforms:", "alignment strategies:"):
        assert header in out.splitlines()
    assert "  regex (pattern*)" in out.splitlines()


def test_list_json_is_the_registry(capsys: Any) -> None:
    code, out, _ = run(capsys, "list", "--format", "json")
    assert code == 0
    assert json.loads(out) == json.loads(json.dumps(default_registry.to_dict()))


# -- nothing is written ------------------------------------------------------------------


def test_eval_check_infer_write_nothing(examples: Path, capsys: Any) -> None:
    before = snapshot(examples)
    assert run(capsys, "eval", "invoices.eval.json", "--gold", "invoices.gold.jsonl",
               "--extracted", "invoices.model-a.extracted.jsonl",
               "--extracted", "invoices.model-b.extracted.jsonl")[0] == 0
    assert run(capsys, "eval", "invoices.eval.json", "--gold", "invoices.gold.jsonl",
               "--extracted", "invoices.model-b.extracted.jsonl", "--format", "json")[0] == 0
    assert run(capsys, "check", "invoices.eval.json")[0] == 0
    assert run(capsys, "infer", "invoices.gold.jsonl")[0] == 0
    assert run(capsys, "list")[0] == 0
    assert snapshot(examples) == before


def test_failing_commands_write_nothing(suite: Path, capsys: Any) -> None:
    (suite / "bad.eval.json").write_text(BAD_SCHEMA, encoding="utf-8")
    before = snapshot(suite)
    assert run(capsys, "check", "bad.eval.json")[0] == 2
    assert run(capsys, "eval", "bad.eval.json", "--gold", "gold.jsonl",
               "--extracted", "ext.jsonl")[0] == 2
    assert run(capsys, "infer", "nope.jsonl")[0] == 2
    assert snapshot(suite) == before


# -- a real process ----------------------------------------------------------------------


def test_python_m_evalschema_subprocess(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * DEPTH + "]" * DEPTH, encoding="utf-8")
    before = snapshot(tmp_path)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    ok = subprocess.run(
        [sys.executable, "-m", "evalschema", "eval", str(EXAMPLES / "invoices.eval.json"),
         "--gold", str(EXAMPLES / "invoices.gold.jsonl"),
         "--extracted", str(EXAMPLES / "invoices.model-b.extracted.jsonl"),
         "--format", "json", "--no-records"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert ok.returncode == 0, ok.stderr
    (doc,) = json.loads(ok.stdout)["runs"]
    assert doc["extracted"].endswith("invoices.model-b.extracted.jsonl")
    assert doc["total_records"] >= 238
    assert 0.0 < doc["mean_f1"] < 1.0
    bad = subprocess.run(
        [sys.executable, "-m", "evalschema", "infer", str(deep)],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert "Traceback" not in bad.stderr
    assert bad.stderr.startswith("evalschema: ")
    assert snapshot(tmp_path) == before
