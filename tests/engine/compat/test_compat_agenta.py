"""Agenta's JSON evaluators: doc examples, one test per quirk, explanation, robustness."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalschema.compat import METRICS, CompatInputError
from evalschema.compat.agenta import (
    contains_json,
    exact_match,
    field_match,
    json_diff,
    json_multi_field_match,
)
from evalschema.results import FieldResult, Status

GROUND_TRUTH = {
    "name": "John Doe",
    "email": "john@example.com",
    "address": {"city": "New York", "zip": "10001"},
}
MODEL_OUTPUT = {
    "name": "John Doe",
    "email": "jane@example.com",
    "address": {"city": "New York", "zip": "10002"},
}


def by_path(fields: tuple[FieldResult, ...]) -> dict[str, FieldResult]:
    return {f.path: f for f in fields}


# -- Exact Match ------------------------------------------------------------------------------------


def test_agenta_exact_match_strings_case_sensitive_no_strip() -> None:
    assert exact_match("yes", "yes")
    assert not exact_match("yes", "Yes")
    assert not exact_match("yes", "yes ")


def test_agenta_exact_match_objects_ignore_key_order() -> None:
    assert exact_match({"a": 1, "b": 2}, {"b": 2, "a": 1})


def test_agenta_exact_match_int_vs_float_differ() -> None:
    assert not exact_match({"a": 1}, {"a": 1.0})


def test_agenta_exact_match_true_vs_one_differ() -> None:
    assert not exact_match({"a": True}, {"a": 1})


def test_agenta_exact_match_json_string_vs_equal_object_is_false() -> None:
    assert not exact_match('{"a": 1}', {"a": 1})
    assert not exact_match([1], [1])


def test_agenta_exact_match_explained() -> None:
    result = exact_match({"a": 1}, {"a": 1.0}, explain=True)
    assert result.score == 0.0 and result.details["success"] is False
    assert [(f.path, f.status, f.comparator) for f in result.fields] == [
        ("", Status.MISMATCH, "agenta.sorted_json_equality")
    ]


# -- Contains JSON ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ({"a": 1}, True),
        ("[1,2]", False),
        ('[{"a":1}]', True),
        ('first {"a":1} then {"b":2}', False),
        ('```json\n{"a": 1}\n```', True),
        ('{"a": NaN}', True),
        ("{'a': 1}", False),
        ('{"a": 1,}', False),
        ("no braces", False),
        ("} {", False),
    ],
)
def test_agenta_contains_json_only_brace_span_objects(output: Any, expected: bool) -> None:
    assert contains_json(output) is expected
    assert contains_json(output, explain=True).score == float(expected)


def test_agenta_contains_json_rejects_non_text_output() -> None:
    with pytest.raises(CompatInputError, match="InvalidOutputsV0Error"):
        contains_json([{"a": 1}])


# -- JSON Field Match (deprecated) ----------------------------------------------------------------------


def test_agenta_field_match_top_level_key_only() -> None:
    assert field_match("x", {"a": {"b": "x"}, "a.b": "y"}, "a.b") is False
    assert field_match("y", {"a": {"b": "x"}, "a.b": "y"}, "a.b") is True


def test_agenta_field_match_python_equality() -> None:
    assert field_match(1, '{"a": 1.0}', "a")
    assert field_match(True, {"a": 1}, "a")
    assert not field_match("1", {"a": 1}, "a")


def test_agenta_field_match_unreadable_output_is_false() -> None:
    assert not field_match(1, '```json\n{"a": 1}\n```', "a")
    assert not field_match(1, "[1]", "a")
    assert not field_match(1, 5, "a")
    result = field_match(1, {"b": 1}, "a", explain=True)
    assert result.fields[0].status is Status.OMISSION


# -- JSON Multi-Field Match -----------------------------------------------------------------------------


def test_agenta_multi_field_doc_example_scores_0_5() -> None:
    fields = ["name", "email", "address.city", "address.zip"]
    result = json_multi_field_match(GROUND_TRUTH, MODEL_OUTPUT, fields)
    assert result == {
        "name": 1.0,
        "email": 0.0,
        "address.city": 1.0,
        "address.zip": 0.0,
        "aggregate_score": 0.5,
    }


def test_agenta_multi_field_aggregate_unrounded_two_thirds() -> None:
    result = json_multi_field_match(GROUND_TRUTH, MODEL_OUTPUT, ["name", "address.city", "email"])
    assert result["aggregate_score"] == 2 / 3


def test_agenta_multi_field_three_path_formats_agree() -> None:
    for path in ("address.zip", "$.address.zip", "/address/zip"):
        assert json_multi_field_match(GROUND_TRUTH, MODEL_OUTPUT, [path])[path] == 0.0
    items = {"items": [{"name": "a"}, {"name": "b"}]}
    for path in ("items.1.name", "$.items[1].name", "/items/1/name"):
        assert json_multi_field_match(items, items, [path])[path] == 1.0


def test_agenta_missing_path_on_both_sides_counts_as_match() -> None:
    result = json_multi_field_match({"a": 1}, {"a": 2}, ["typo", "a"], explain=True)
    assert result.details["result"] == {"typo": 1.0, "a": 0.0, "aggregate_score": 0.5}
    assert by_path(result.fields)["typo"].status is Status.MATCH


def test_agenta_bracket_dot_path_fails_on_both_sides_and_matches() -> None:
    items = {"items": [{"name": "a"}]}
    assert (
        json_multi_field_match(items, {"items": [{"name": "b"}]}, ["items[0].name"])[
            "items[0].name"
        ]
        == 1.0
    )


def test_agenta_null_vs_missing_counts_as_match() -> None:
    assert json_multi_field_match({"a": None}, {}, ["a"])["a"] == 1.0


def test_agenta_jsonpath_without_dot_is_invalid_and_gives_none() -> None:
    assert json_multi_field_match({"user": {"name": "x"}}, {}, ["$user.name"])["$user.name"] == 1.0


def test_agenta_jsonpath_several_matches_return_a_list() -> None:
    gt = {"items": [{"name": "a"}, {"name": "b"}]}
    assert (
        json_multi_field_match(gt, {"items": [{"name": "a"}, {"name": "b"}]}, ["$.items[*].name"])[
            "$.items[*].name"
        ]
        == 1.0
    )
    assert (
        json_multi_field_match(gt, {"items": [{"name": "a"}]}, ["$.items[*].name"])[
            "$.items[*].name"
        ]
        == 0.0
    )


def test_agenta_jsonpath_syntax_error_raises() -> None:
    with pytest.raises(CompatInputError, match="JSONPathSyntaxError"):
        json_multi_field_match({"a": 1}, {"a": 1}, ["$.0"])


def test_agenta_jsonpath_filters_are_not_implemented() -> None:
    with pytest.raises(CompatInputError, match="does not implement"):
        json_multi_field_match({"a": [1]}, {"a": [1]}, ["$.a[?@ > 0]"])


def test_agenta_jsonpath_index_on_object_reads_the_key() -> None:
    assert json_multi_field_match({"0": "x"}, {"0": "y"}, ["$[0]"])["$[0]"] == 0.0
    assert json_multi_field_match({"0": "x"}, {"0": "x"}, ["$[0]"])["$[0]"] == 1.0


def test_agenta_json_pointer_dot_is_a_literal_key() -> None:
    assert json_multi_field_match({"a.b": 1, "a": {"b": 2}}, {"a.b": 1}, ["/a.b"])["/a.b"] == 1.0


def test_agenta_dot_notation_literal_key_wins_first() -> None:
    gt = {"a.b": 1, "a": {"b": 2}}
    assert json_multi_field_match(gt, {"a.b": 1, "a": {"b": 3}}, ["a.b"])["a.b"] == 1.0


@pytest.mark.parametrize("path", ["items.-1", "", "a..", "items.5"])
def test_agenta_dot_notation_failures_give_none(path: str) -> None:
    gt = {"items": [1, 2]}
    assert json_multi_field_match(gt, {"items": [3, 4]}, [path])[path] == 1.0


def test_agenta_duplicate_paths_count_twice() -> None:
    result = json_multi_field_match({"a": 1, "b": 1}, {"a": 1, "b": 2}, ["a", "a", "b"])
    assert result == {"a": 1.0, "b": 0.0, "aggregate_score": 2 / 3}


def test_agenta_aggregate_score_path_is_overwritten() -> None:
    result = json_multi_field_match(
        {"aggregate_score": 1}, {"aggregate_score": 2}, ["aggregate_score"]
    )
    assert result == {"aggregate_score": 0.0}


def test_agenta_multi_field_unreadable_output_scores_zero() -> None:
    for output in ("not json", '```json\n{"a": 1}\n```', "[1]", 5):
        assert json_multi_field_match({"a": 1}, output, ["a", "b"]) == {
            "a": 0.0,
            "b": 0.0,
            "aggregate_score": 0.0,
        }


def test_agenta_multi_field_invalid_expected_raises() -> None:
    with pytest.raises(CompatInputError, match="InvalidInputV0Error"):
        json_multi_field_match('```json\n{"a": 1}\n```', {"a": 1}, ["a"])
    with pytest.raises(CompatInputError, match="InvalidInputV0Error"):
        json_multi_field_match([1], {"a": 1}, ["a"])


def test_agenta_multi_field_needs_non_empty_fields() -> None:
    with pytest.raises(CompatInputError, match="InvalidConfigurationParameterV0Error"):
        json_multi_field_match({"a": 1}, {"a": 1}, [])
    with pytest.raises(CompatInputError, match="AttributeError"):
        json_multi_field_match({"a": 1}, {"a": 1}, [0])  # type: ignore[list-item]


def test_agenta_multi_field_explained() -> None:
    fields = ["name", "email", "$.address.zip", "/address/city", "phone"]
    result = json_multi_field_match(
        GROUND_TRUTH, {**MODEL_OUTPUT, "phone": "1"}, fields, explain=True
    )
    got = by_path(result.fields)
    assert got["email"].status is Status.MISMATCH and got["email"].gold_pointer == "/email"
    assert got["$.address.zip"].extracted_pointer == "/address/zip"
    assert got["phone"].status is Status.HALLUCINATION
    assert result.score == sum(f.score for f in result.fields) / len(fields)


# -- JSON Diff Match -----------------------------------------------------------------------------------


def test_agenta_json_diff_doc_flattening() -> None:
    gt = {"name": "John", "address": {"city": "New York", "zip": "10001"}, "hobbies": ["r", "s"]}
    out = {"name": "John", "address": {"city": "New York", "zip": "1"}, "hobbies": ["r"]}
    assert json_diff(gt, out) == {"score": 0.6, "success": True}


def test_agenta_null_vs_null_scores_zero() -> None:
    assert json_diff({"a": None, "b": 1}, {"a": None, "b": 1})["score"] == 0.5


def test_agenta_empty_objects_score_zero() -> None:
    assert json_diff({}, {}) == {"score": 0.0, "success": False}
    assert json_diff({"a": []}, {"a": []})["score"] == 0.0


def test_agenta_json_diff_python_equality() -> None:
    assert json_diff({"a": 1, "b": True, "c": "1"}, {"a": 1.0, "b": 1, "c": 1})["score"] == 2 / 3


def test_agenta_schema_only_compares_type_objects() -> None:
    gt, out = {"a": 1, "b": True, "c": "x"}, {"a": 1.0, "b": 1, "c": "completely different"}
    assert json_diff(gt, out, compare_schema_only=True)["score"] == 1 / 3


def test_agenta_predict_keys_penalises_extra_keys_despite_docs() -> None:
    assert json_diff({"a": 1}, {"a": 1, "b": 2})["score"] == 1.0
    result = json_diff({"a": 1}, {"a": 1, "b": 2}, predict_keys=True, explain=True)
    assert result.score == 0.5
    assert by_path(result.fields)["b"].status is Status.HALLUCINATION


def test_agenta_dotted_keys_collide_with_nesting() -> None:
    assert json_diff({"a": {"b": 1}}, {"a.b": 1})["score"] == 1.0


def test_agenta_case_insensitive_keys_lowercase_full_paths() -> None:
    assert json_diff({"Name": "x"}, {"name": "x"})["score"] == 0.0
    assert json_diff({"Name": "x"}, {"name": "x"}, case_insensitive_keys=True)["score"] == 1.0


def test_agenta_case_insensitive_collision_last_wins() -> None:
    gt = {"Name": "a", "name": "b"}
    assert json_diff(gt, {"NAME": "b"}, case_insensitive_keys=True)["score"] == 1.0


def test_agenta_json_diff_string_holding_list_or_scalar() -> None:
    assert json_diff("[1, 2]", "[1, 3]")["score"] == 0.5
    assert json_diff('"just text"', '"just text"')["score"] == 0.0


def test_agenta_json_diff_raw_list_expected_raises() -> None:
    with pytest.raises(CompatInputError, match="InvalidInputV0Error"):
        json_diff([1], {"a": 1})


def test_agenta_json_diff_unparsable_inputs_raise() -> None:
    with pytest.raises(CompatInputError, match="InvalidInputV0Error"):
        json_diff("{oops", {"a": 1})
    with pytest.raises(CompatInputError, match="InvalidOutputsV0Error"):
        json_diff({"a": 1}, '```json\n{"a": 1}\n```')


@pytest.mark.parametrize(
    ("threshold", "success"), [(None, True), (0.0, True), (0.5, True), (0.6, False)]
)
def test_agenta_threshold_falsy_means_half(threshold: Any, success: bool) -> None:
    assert json_diff({"a": 1, "b": 2}, {"a": 1}, threshold=threshold)["success"] is success


def test_agenta_threshold_int_one_raises() -> None:
    with pytest.raises(CompatInputError, match="InvalidConfigurationParameterV0Error"):
        json_diff({"a": 1}, {"a": 1}, threshold=1)


@pytest.mark.parametrize("threshold", ["0.5", 1.5, -0.5, True])
def test_agenta_threshold_must_be_float_in_unit_interval(threshold: Any) -> None:
    with pytest.raises(CompatInputError):
        json_diff({"a": 1}, {"a": 1}, threshold=threshold)


def test_agenta_threshold_one_point_zero_allowed() -> None:
    assert json_diff({"a": 1}, {"a": 1}, threshold=1.0)["success"] is True


def test_agenta_json_diff_explained() -> None:
    gt = {"a": {"b": [1, None]}, "c": "x", "d": 1}
    out = {"a": {"b": [1, None]}, "c": "y", "e": 2}
    result = json_diff(gt, out, explain=True)
    got = by_path(result.fields)
    assert got["a.b[0]"].status is Status.MATCH and got["a.b[0]"].gold_pointer == "/a/b/0"
    assert got["a.b[1]"].status is Status.MISMATCH and "null" in (got["a.b[1]"].reason or "")
    assert got["d"].status is Status.OMISSION
    assert got["e"].status is Status.SKIPPED and got["e"].weight == 0.0
    assert result.score == 0.25


def test_agenta_metrics_entries() -> None:
    diff = METRICS["agenta.json_diff"](GROUND_TRUTH, MODEL_OUTPUT, threshold=0.4)
    assert (diff.score, diff.details["success"]) == (0.5, True)
    multi = METRICS["agenta.json_multi_field_match"](GROUND_TRUTH, MODEL_OUTPUT, fields=["name"])
    assert multi.score == 1.0
    assert METRICS["agenta.exact_match"]("a", "a", explain=False).score == 1.0
    with pytest.raises(CompatInputError, match="fields"):
        METRICS["agenta.json_multi_field_match"](GROUND_TRUTH, MODEL_OUTPUT)


# -- robustness ---------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_agenta_any_json_scores_in_range_or_raises_compat(
    data: st.DataObject,
    json_values: st.SearchStrategy[Any],
    field_invariants: Callable[[tuple[FieldResult, ...]], None],
    recomposed: Callable[[tuple[FieldResult, ...], float], float],
) -> None:
    gt, out = data.draw(json_values), data.draw(json_values)
    if data.draw(st.booleans()):
        gt, out = json.dumps(gt), json.dumps(out)
    options = {
        "compare_schema_only": data.draw(st.booleans()),
        "predict_keys": data.draw(st.booleans()),
        "case_insensitive_keys": data.draw(st.booleans()),
    }
    try:
        plain = json_diff(gt, out, **options)
    except CompatInputError:
        plain = None
    if plain is not None:
        result = json_diff(gt, out, **options, explain=True)
        assert 0.0 <= plain["score"] <= 1.0 and result.score == plain["score"]
        assert recomposed(result.fields, 0.0) == pytest.approx(plain["score"])
        field_invariants(result.fields)
    paths = data.draw(
        st.lists(st.sampled_from(["a", "a.b", "$.a", "$..a", "/a/0", "$[*]", "0"]), min_size=1)
    )
    try:
        multi = json_multi_field_match(gt, out, paths)
    except CompatInputError:
        return
    explained = json_multi_field_match(gt, out, paths, explain=True)
    assert explained.score == multi["aggregate_score"]
    assert recomposed(explained.fields, 0.0) == pytest.approx(multi["aggregate_score"])
    field_invariants(explained.fields)
    exact_match(gt, out)
    if isinstance(out, str | dict):
        contains_json(out)


def test_agenta_absurdly_deep_input_raises_compat_error(deep_object: dict[str, Any]) -> None:
    calls: list[Callable[[], object]] = [
        lambda: exact_match(deep_object, deep_object),
        lambda: json_diff(deep_object, deep_object),
        lambda: json_multi_field_match(deep_object, {"a": deep_object["a"]["a"]}, ["a"]),
        lambda: contains_json(deep_object),
    ]
    for call in calls:
        with pytest.raises(CompatInputError):
            call()
    # The same object on both sides is equal by identity: no recursion, as in Agenta.
    assert json_multi_field_match(deep_object, deep_object, ["a"])["a"] == 1.0


@pytest.mark.parametrize(
    "fields",
    [["name", "email", "address.city", "address.zip"], ["name", "address.city", "email"], ["typo"]],
)
def test_agenta_worked_examples_explained_equals_plain(
    fields: list[str], recomposed: Callable[[tuple[FieldResult, ...], float], float]
) -> None:
    plain = json_multi_field_match(GROUND_TRUTH, MODEL_OUTPUT, fields)
    result = json_multi_field_match(GROUND_TRUTH, MODEL_OUTPUT, fields, explain=True)
    assert result.score == plain["aggregate_score"] == recomposed(result.fields, 0.0)
    diff = json_diff(GROUND_TRUTH, MODEL_OUTPUT)
    explained = json_diff(GROUND_TRUTH, MODEL_OUTPUT, explain=True)
    assert explained.score == diff["score"] == recomposed(explained.fields, 0.0)
