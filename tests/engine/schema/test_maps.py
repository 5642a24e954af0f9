"""additionalProperties / patternProperties maps are judged per key: keys are identity,
each value scored by its sub-schema, missing keys omissions, extra keys hallucinations.
Field paths use ``{}`` for the key (``skills{}[]``), instance paths the key itself
(``skills{Languages}[0]``), pointers the exact key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import check_eval_schema, evaluate

SKILLS = {"type": "object", "properties": {"skills": {
    "type": "object",
    "additionalProperties": {"type": "array", "items": {"type": "string"}}}}}

LANGS = ["Python", "Go", "Rust", "SQL", "C"]


def _results(gold: Any, extracted: Any, schema: dict[str, Any]) -> list[tuple[Any, ...]]:
    run = evaluate([gold], [extracted], schema)
    return [(r.path, r.field, str(r.status), r.gold_pointer, r.extracted_pointer)
            for r in run.records[0].field_results]


def test_one_typo_among_many_fails_one_value_not_the_field() -> None:
    gold = {"skills": {"Languages": LANGS, "Frameworks": ["Django"]}}
    extracted = {"skills": {"Languages": [*LANGS[:4], "CC"], "Frameworks": ["Django"]}}
    run = evaluate([gold], [extracted], SKILLS)
    statuses = [str(r.status) for r in run.records[0].field_results]
    assert statuses == ["match"] * 4 + ["mismatch", "match"]
    agg = run.per_field["skills{}[]"]
    assert (agg.counts.matches, agg.counts.mismatches) == (5, 1)
    assert "skills" not in run.per_field


def test_paths_pointers_and_missing_and_extra_keys() -> None:
    gold = {"skills": {"Languages": ["Python"], "Tools": ["git"]}}
    extracted = {"skills": {"Languages": ["Python"], "Hobbies": ["chess"]}}
    got = _results(gold, extracted, SKILLS)
    assert got == [
        ("skills{Languages}[0]", "skills{}[]", "match", "/skills/Languages/0",
         "/skills/Languages/0"),
        ("skills{Tools}[0]", "skills{}[]", "omission", "/skills/Tools/0", None),
        ("skills{Hobbies}[0]", "skills{}[]", "hallucination", None, "/skills/Hobbies/0"),
    ]


def test_values_use_their_own_x_eval_keys_and_keys_with_slashes() -> None:
    schema = {"type": "object", "properties": {"scores": {
        "type": "object", "additionalProperties": {
            "type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 1}}}}}}}
    got = evaluate([{"scores": {"a/b": 10, "c~d": 5}}], [{"scores": {"a/b": 10.5, "c~d": 9}}],
                   schema).records[0].field_results
    assert [(r.path, str(r.status), r.comparator, r.extracted_pointer) for r in got] == [
        ("scores{a/b}", "match", "numeric", "/scores/a~1b"),
        ("scores{c~d}", "mismatch", "numeric", "/scores/c~0d")]


def test_properties_beside_a_map_and_pattern_properties() -> None:
    schema = {"type": "object", "properties": {"m": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "patternProperties": {"^n_": {"type": "number"}},
    }}}
    gold = {"m": {"name": "x", "n_a": 1, "n_b": 2}}
    extracted = {"m": {"name": "x", "n_a": 1, "other": 3}}
    got = _results(gold, extracted, schema)
    assert got == [
        ("m.name", "m.name", "match", "/m/name", "/m/name"),
        ("m{n_a}", "m{}", "match", "/m/n_a", "/m/n_a"),
        ("m{n_b}", "m{}", "omission", "/m/n_b", None),
        ("m.other", "m.other", "hallucination", None, "/m/other"),
    ]


def test_several_value_schemas_name_their_pattern() -> None:
    schema = {"type": "object", "properties": {"m": {
        "type": "object", "patternProperties": {"^n_": {"type": "number"}},
        "additionalProperties": {"type": "string"}}}}
    got = _results({"m": {"n_a": 1, "s": "x"}}, {"m": {"n_a": 1, "s": "x"}}, schema)
    assert [g[1] for g in got] == ["m{/^n_/}", "m{}"]


def test_x_eval_align_under_the_map_takes_effect() -> None:
    schema = json.loads(json.dumps(SKILLS))
    schema["properties"]["skills"]["additionalProperties"]["x-eval-align"] = {
        "match_by": "set"}
    got = _results({"skills": {"L": ["a", "b"]}}, {"skills": {"L": ["b", "a"]}}, schema)
    assert [s for _, _, s, _, _ in got] == ["match", "match"]


def test_a_map_present_on_one_side_expands_per_key() -> None:
    gold = {"skills": {"Languages": ["Python", "Go"]}}
    got = _results(gold, {}, SKILLS)
    assert [(p, s) for p, _, s, _, _ in got] == [("skills{Languages}[0]", "omission"),
                                                  ("skills{Languages}[1]", "omission")]


def test_check_locates_problems_under_the_map() -> None:
    bad = {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {
        "type": "string", "x-eval-compare": "exct"}, "patternProperties": {
        "[": {"type": "string"}}}}}
    problems = {(p.code, p.pointer) for p in check_eval_schema(bad).problems}
    assert problems == {("unknown-comparator", "/properties/m/additionalProperties/"
                                               "x-eval-compare"),
                        ("bad-pattern", "/properties/m/patternProperties/[")}


def test_cli_on_files(tmp_path: Path) -> None:
    from evalschema.cli.main import main

    (tmp_path / "s.json").write_text(json.dumps(SKILLS))
    (tmp_path / "g.jsonl").write_text(json.dumps({"skills": {"Languages": LANGS}}) + "\n")
    (tmp_path / "e.jsonl").write_text(json.dumps(
        {"skills": {"Languages": [*LANGS[:4], "CC"]}}) + "\n")
    assert main(["check", str(tmp_path / "s.json")]) == 0
    out = tmp_path / "r.json"
    main(["eval", str(tmp_path / "s.json"), "--gold", str(tmp_path / "g.jsonl"),
          "--extracted", str(tmp_path / "e.jsonl"), "--format", "json", "--output", str(out)])
    text = out.read_text()
    assert "skills{}[]" in text and "skills{Languages}[4]" in text


def test_annotate_keeps_a_map_a_map_and_annotates_its_values() -> None:
    from evalschema.schema.infer import annotate_xeval

    schema = json.loads(json.dumps(SKILLS))
    annotate_xeval(schema)
    skills = schema["properties"]["skills"]
    assert "x-eval-compare" not in skills
    assert skills["additionalProperties"]["items"]["x-eval-compare"] == "exact"
    assert check_eval_schema(schema).problems == ()


def test_gold_under_a_map_is_checked_per_key() -> None:
    from evalschema.schema.validate_gold import validate_gold

    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"},
        "m": {"type": "object", "patternProperties": {"^n_": {"type": "number"}}}}}
    from evalschema.errors import GoldValidationError

    with pytest.raises(GoldValidationError) as exc:
        validate_gold([{"id": "a", "m": {"n_a": "x", "n_b": 1, "other": 1}}], schema,
                      strict_types=True)
    assert {(p.code, p.pointer) for p in exc.value.problems} == {
        ("gold-type", "/0/m/n_a"), ("gold-extra-field", "/0/m/other")}


def test_field_selection_inside_a_map_keeps_the_map() -> None:
    schema = json.loads(json.dumps(SKILLS))
    schema["properties"]["name"] = {"type": "string"}
    run = evaluate([{"name": "a", "skills": {"L": ["x"]}}], [{"name": "b", "skills": {"L": ["x"]}}],
                   schema, fields=["skills{}[]"])
    assert [r.path for r in run.records[0].field_results] == ["skills{L}[0]"]
    from evalschema.errors import InputError

    with pytest.raises(InputError, match="no field"):
        evaluate([{}], [{}], schema, fields=["skills{x}[]"])


#: extract-bench's resume: skills are a flat list or a map of lists, by document.
RESUME_SKILLS = {"type": "object", "properties": {"skills": {"anyOf": [
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
]}}}


def test_a_list_or_a_map_of_lists_is_judged_by_the_gold_shape() -> None:
    grouped = evaluate([{"skills": {"Languages": ["Python", "Go"], "Tools": ["git"]}}],
                       [{"skills": {"Languages": ["Python", "Goo"], "Tools": ["git"]}}],
                       RESUME_SKILLS)
    assert [(r.path, r.field, str(r.status), r.reason)
            for r in grouped.records[0].field_results] == [
        ("skills{Languages}[0]", "skills{}[]", "match", "anyOf/1 (object)"),
        ("skills{Languages}[1]", "skills{}[]", "mismatch",
         'anyOf/1 (object): "Goo" ≠ gold "Go" (exact)'),
        ("skills{Tools}[0]", "skills{}[]", "match", "anyOf/1 (object)")]
    flat = evaluate([{"skills": ["Python", "Go"]}], [{"skills": ["Python", "Go"]}],
                    RESUME_SKILLS)
    assert [(r.path, r.field, r.reason) for r in flat.records[0].field_results] == [
        ("skills[0]", "skills[]", "anyOf/0 (array)"), ("skills[1]", "skills[]", "anyOf/0 (array)")]


def test_the_real_resume_schema_has_its_skills_map() -> None:
    path = Path(__file__).parents[2] / "data/extract-bench/hiring/resume/resume-schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))["schema_definition"]
    root = check_eval_schema(schema).root
    (skills,) = [n for n in root.walk() if n.path == "skills" and n.branches]
    assert [label for label, _, _ in skills.branches] == ["anyOf/0", "anyOf/1"]
    assert skills.branches[1][2].values[0][1].path == "skills{}"
