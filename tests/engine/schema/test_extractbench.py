"""extract-bench schemas as they are published: the wrapper unwrapped and each
``evaluation_config`` read as its x-eval equivalent (or reported), through the API and the
CLI on copies of the vendored files."""

from __future__ import annotations

import copy
import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest

from evalschema import check_eval_schema, evaluate, parse_eval_schema
from evalschema.cli.main import main
from evalschema.errors import ProblemWarning, Severity
from evalschema.schema.extractbench import reading, translate, unwrap

REPO = Path(__file__).resolve().parents[3]
BENCH = REPO / "tests" / "data" / "extract-bench"
RESUME = BENCH / "hiring" / "resume"
CREDIT = BENCH / "finance" / "credit_agreement"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def resume(tmp_path: Path) -> tuple[Path, Path]:
    schema = tmp_path / "resume-schema.json"
    shutil.copy(RESUME / "resume-schema.json", schema)
    gold = tmp_path / "gold"
    shutil.copytree(RESUME / "gold", gold)
    return schema, gold


def _run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- the API -------------------------------------------------------------------------------

@pytest.mark.parametrize(("config", "keys"), [
    ("string_exact", {"x-eval-compare": "exact",
                      "x-eval-transform": [{"type_convert": {"to": "str"}}]}),
    ("integer_exact", {"x-eval-compare": "numeric"}),
    ("number_exact", {"x-eval-compare": "numeric"}),
    ("boolean_exact", {"x-eval-compare": "exact"}),
    ("skip", {"x-eval-skip": True}),
    ({"metrics": []}, {"x-eval-skip": True}),
    ({"metrics": [{"metric_id": "number_tolerance", "params": {"tolerance": 0.5}}]},
     {"x-eval-compare": {"numeric": {"tolerance": {"abs": 0.5}}}}),
    ({"metrics": [{"metric_id": "string_fuzzy", "params": {"threshold": 0.9,
                                                            "case_sensitive": True}}]},
     {"x-eval-compare": {"levenshtein": {"threshold": 0.9}},
      "x-eval-transform": [{"type_convert": {"to": "str"}}]}),
    ("string_semantic", None), ("string_llm", None), ("array_llm", None), ("string_url", None),
    ("strin_exact", None),
    ({"metrics": [{"metric_id": "string_exact"}, {"metric_id": "string_fuzzy"}]}, None),
])
def test_each_value_maps_or_says_why_not(config: Any, keys: Any) -> None:
    r = reading(config)
    assert r.keys == keys
    if keys is None:
        assert r.why


def test_string_exact_on_a_url_is_reported_like_extract_bench_upgrades_it() -> None:
    r = reading("string_exact", "uri")
    assert r.keys is None and "URL" in r.why


def test_the_read_keys_take_effect_and_problems_point_at_evaluation_config() -> None:
    schema = {"type": "object", "properties": {
        "total": {"type": "number", "evaluation_config": {"metrics": [
            {"metric_id": "number_tolerance", "params": {"tolerance": 0.01}}]}},
        "name": {"type": "string", "evaluation_config": "string_case_insensitive"},
        "n": {"type": "number", "evaluation_config": "string_fuzzy"},
        "mine": {"type": "string", "x-eval-compare": "normalized",
                 "evaluation_config": "string_exact"},
        "evaluation_config": {"type": "string"}}}
    check = check_eval_schema(schema)
    # levenshtein on a number field: the error is on the evaluation_config it came from
    [err] = check.errors
    assert (err.code, err.pointer) == ("comparator-type", "/properties/n/evaluation_config")
    del schema["properties"]["n"]
    root = parse_eval_schema(schema)
    assert root.find("mine").comparator == "normalized"  # an x-eval key written wins
    assert root.find("evaluation_config").comparator == "exact"  # a field of that name
    run = evaluate([{"total": 10.0, "name": "ACME", "mine": "x", "evaluation_config": "y"}],
                   [{"total": 10.005, "name": "acme", "mine": "X", "evaluation_config": "y"}],
                   root)
    assert run.totals.matches == 4
    assert schema["properties"]["total"] == {"type": "number", "evaluation_config": {
        "metrics": [{"metric_id": "number_tolerance", "params": {"tolerance": 0.01}}]}}


def test_notes_group_each_value_and_list_every_pointer() -> None:
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "evaluation_config": "string_semantic"},
        "b": {"type": "string", "evaluation_config": "string_semantic"},
        "c": {"type": "string", "evaluation_config": "string_exact"}}}
    read = translate(schema)
    untranslated, done = sorted(read.problems, key=lambda p: p.code, reverse=True)
    assert untranslated.code == "evaluation-config-untranslated"
    assert untranslated.severity is Severity.WARNING and "(2 fields)" in untranslated.message
    assert untranslated.data["pointers"] == ["/properties/a/evaluation_config",
                                             "/properties/b/evaluation_config"]
    assert done.code == "evaluation-config-read" and done.severity is Severity.INFO
    assert read.added == {"/properties/c"}
    assert "x-eval-compare" not in schema["properties"]["c"]  # the input is not changed


def test_the_wrapper_is_unwrapped_and_problems_keep_file_pointers() -> None:
    raw = {"name": "x", "description": "y", "x-eval-id": "id", "schema_definition": {
        "type": "object", "properties": {"t": {"type": "string", "x-eval-compare": "exakt"}}}}
    inner, prefix, notes = unwrap(raw)
    assert inner is raw["schema_definition"] and prefix == "/schema_definition"
    assert [(p.code, p.pointer) for p in notes] == [
        ("extract-bench-wrapper", "/schema_definition"), ("wrapper-key-ignored", "/x-eval-id")]
    check = check_eval_schema(raw)
    [err] = check.errors
    assert err.pointer == "/schema_definition/properties/t/x-eval-compare"
    assert check.root.find("t").pointer == "/schema_definition/properties/t"
    # a schema that happens to have a schema_definition property is not a wrapper
    plain = {"type": "object", "properties": {"a": {"type": "string"}},
             "schema_definition": {"type": "object"}}
    assert unwrap(plain) == (plain, "", [])


def test_the_real_resume_scores_field_by_field_not_as_one_leaf() -> None:
    raw = _load(RESUME / "resume-schema.json")
    gold = _load(next((RESUME / "gold").glob("*.gold.json")))
    changed = copy.deepcopy(gold)
    changed["personalInfo"]["fullName"] = "Someone Else"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        root = parse_eval_schema(raw, base_uri=str(RESUME / "resume-schema.json"))
    assert "extract-bench-wrapper" in {w.message.problem.code for w in caught
                                       if isinstance(w.message, ProblemWarning)}
    run = evaluate([gold], [changed], root)
    wrong = [f.path for f in run.records[0].field_results if f.status.value == "mismatch"]
    assert wrong == ["personalInfo.fullName"]
    assert run.totals.matches > 50


# -- the CLI on copies of the real files -------------------------------------------------

def test_check_reports_the_unwrapping_and_each_reading_naming_the_file(
        resume: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    schema, _ = resume
    code, out, _ = _run(capsys, "check", schema)
    assert code == 0
    lines = out.splitlines()
    assert all(line.startswith(str(schema)) for line in lines)
    assert f"{schema}#/schema_definition: info extract-bench-wrapper" in out
    assert "evaluation-config-read" in out and "evaluation-config-untranslated" in out
    assert "ok (1 nodes)" not in out


def test_eval_shows_the_notes_and_judges_each_field(
        resume: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    schema, gold = resume
    one = next(gold.glob("*.gold.json"))
    code, out, err = _run(capsys, "eval", schema, "--gold", one, "--extracted", one,
                          "--format", "json")
    assert code == 0
    assert "extract-bench-wrapper" in err and str(schema) in err
    doc = json.loads(out)
    run = doc["runs"][0] if "runs" in doc else doc
    assert len(run["per_field"]) > 20


def test_annotate_writes_the_readings_and_check_agrees_with_the_metric(
        resume: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    schema, gold = resume
    one = next(gold.glob("*.gold.json"))
    code, _, err = _run(capsys, "annotate", schema, "--check")
    assert code == 1
    missing = [line for line in err.splitlines() if "missing-compare" in line]
    assert missing and all(line.startswith(f"{schema}#/schema_definition/") for line in missing)
    # the metric that requires a comparator on every leaf refuses the same schema
    code, _, merr = _run(capsys, "eval", schema, "--gold", one, "--extracted", one,
                         "--metric", "struct_extract_eval.evaluate")
    assert code == 2
    metric_missing = [line for line in merr.splitlines() if "missing-compare" in line]
    assert [line.split(": ")[0] for line in metric_missing] == \
        [line.split(": ")[0] for line in missing]  # the same fields, each with its file
    code, out, err = _run(capsys, "annotate", schema, "--in-place")
    assert code == 0 and out == ""
    assert f"{schema}: annotated" in err
    written = _load(schema)
    assert set(written) == {"name", "description", "schema_definition"}
    emails = written["schema_definition"]["properties"]["personalInfo"]["properties"][
        "contact"]["properties"]["emails"]["items"]
    assert emails["evaluation_config"] == "string_case_insensitive"  # kept
    assert emails["x-eval-compare"] == "exact"
    assert emails["x-eval-transform"] == [{"type_convert": {"to": "str"}}, "casefold"]
    code, _, err = _run(capsys, "annotate", schema, "--check")
    assert (code, err.strip()) == (0, f"{schema}: every field is annotated")
    code, out, merr = _run(capsys, "eval", schema, "--gold", one, "--extracted", one,
                           "--metric", "struct_extract_eval.evaluate")
    assert code == 0, merr
