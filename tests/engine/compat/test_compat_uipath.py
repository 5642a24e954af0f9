"""UiPath JSON similarity (new and legacy): doc examples as the code scores them, quirks, robustness."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalschema.compat import METRICS, CompatInputError
from evalschema.compat.uipath import (
    json_similarity,
    json_similarity_details,
    legacy_json_similarity,
    legacy_json_similarity_details,
)
from evalschema.results import FieldResult, Status


def by_path(fields: tuple[FieldResult, ...]) -> dict[str, FieldResult]:
    return {f.path: f for f in fields}


# -- doc examples, as the code scores them ----------------------------------------------------------


def assert_error_result(details: Any, reason: str) -> None:
    """UiPath's wrapper turns a failure into an error result that scores 0, not a raise."""
    assert details.score == 0.0, details
    assert details.error is not None and reason in details.error, details.error
    assert details.fields == () or all(f.score == 0.0 for f in details.fields), details


def test_uipath_doc_numbers_example_scores_0_99507_not_1_percent_tolerance() -> None:
    score = json_similarity(
        {"temperature": 20.3, "humidity": 65}, {"temperature": 20.5, "humidity": 65}
    )
    assert score == pytest.approx((1 - 0.2 / 20.3 + 1) / 2)
    assert round(score, 5) == 0.99507


def test_uipath_doc_array_example_scores_0_8333_not_2_of_3() -> None:
    score = json_similarity(
        {"f": ["apple", "banana", "grape"]}, {"f": ["apple", "banana", "orange"]}
    )
    assert score == pytest.approx(2.5 / 3)  # grape/orange earns Levenshtein credit 0.5


def test_uipath_two_json_strings_compared_as_text_0_875() -> None:
    assert json_similarity('{"a":1}', '{"a": 1}') == 0.875


def test_uipath_details_report_fractional_matched_leaves() -> None:
    details = json_similarity_details({"a": 10, "b": "x"}, {"a": 15, "b": "x"})
    assert (details.score, details.matched_leaves, details.total_leaves) == (0.75, 1.5, 2.0)
    assert details.error is None


# -- one test per quirk ------------------------------------------------------------------------------


def test_uipath_string_expected_not_parsed_with_star_key() -> None:
    assert json_similarity('{"a": 1}', {"a": 1}) == 0.0


def test_uipath_scalar_key_parses_expected_string() -> None:
    assert json_similarity('{"a": {"b": 2}}', {"a": {"b": 2}}, "a.b") == 1.0
    assert (
        json_similarity(
            '{"items": [{"n": "x"}, {"n": "y"}]}', {"items": [{}, {"n": "y"}]}, "items[1].n"
        )
        == 1.0
    )


def test_uipath_missing_key_gives_error_result_zero() -> None:
    assert_error_result(json_similarity_details({"a": 1}, {"b": 1}, "a"), "key 'a' not found")
    assert json_similarity({"b": 1}, {"a": 1}, "a") == 0.0


def test_uipath_unparsable_expected_string_with_key_gives_error_result_zero() -> None:
    fenced = '```json\n{"a": 1}\n```'
    assert_error_result(json_similarity_details(fenced, {"a": 1}, "a"),
                        "expected output is not valid JSON")


def test_uipath_key_into_string_actual_gives_error_result_zero() -> None:
    assert_error_result(json_similarity_details({"a": 1}, '{"a": 1}', "a"),
                        "cannot read key 'a' of str")


def test_uipath_list_of_keys_compares_those_paths_only() -> None:
    expected = {"a": {"b": [1, 2]}, "c": "x"}
    actual = {"a": {"b": [1, 3]}, "c": "y"}
    result = json_similarity(expected, actual, ["a.b[0]", "a.b[1]"], explain=True)
    assert result.score == 0.75
    assert [f.gold_pointer for f in result.fields] == ["/a/b/0", "/a/b/1"]


def test_uipath_list_of_keys_needs_object_actual() -> None:
    assert_error_result(json_similarity_details({"a": 1}, '{"a": 1}', ["a"]),
                        "both outputs must be objects")


def test_uipath_list_of_keys_missing_one_gives_error_result() -> None:
    assert_error_result(json_similarity_details({"a": 1, "b": 2}, {"a": 1}, ["a", "b"]),
                        "key 'b' not found")


def test_uipath_numbers_normalised_int_equals_float() -> None:
    assert json_similarity({"a": 1}, {"a": 1.0}) == 1.0


def test_uipath_number_credit_relative_to_expected() -> None:
    assert json_similarity({"a": 10}, {"a": 15}) == 0.5
    assert json_similarity({"a": 15}, {"a": 10}) == pytest.approx(2 / 3)  # asymmetric
    assert json_similarity({"a": 10}, {"a": 25}) == 0.0
    assert json_similarity({"a": -5}, {"a": 5}) == 0.0


def test_uipath_expected_zero_needs_actual_within_1e_12() -> None:
    assert json_similarity({"a": 0}, {"a": 1e-13}) == 1.0
    assert json_similarity({"a": 0}, {"a": 1e-3}) == 0.0


@pytest.mark.parametrize(
    ("expected", "actual"),
    [(True, 1), (1, True), ("30", 30), ({"x": 1}, [1]), (None, 0), (0, None)],
)
def test_uipath_type_mismatch_scores_zero(expected: Any, actual: Any) -> None:
    assert json_similarity({"a": expected, "k": "v"}, {"a": actual, "k": "v"}) == 0.5


def test_uipath_type_mismatch_costs_the_expected_leaf_count() -> None:
    details = json_similarity_details(
        {"a": {"x": 1, "y": [2, 3]}, "k": "v"}, {"a": "flat", "k": "v"}
    )
    assert (details.matched_leaves, details.total_leaves) == (1.0, 4.0)


def test_uipath_extra_actual_keys_ignored() -> None:
    assert json_similarity({"a": 1}, {"a": 1, "b": 2}) == 1.0


def test_uipath_missing_key_costs_its_leaves() -> None:
    assert json_similarity({"a": 1, "b": {"c": 1, "d": 2}}, {"a": 1}) == pytest.approx(1 / 3)


def test_uipath_extra_actual_list_elements_ignored() -> None:
    assert json_similarity({"a": [1, 2]}, {"a": [1, 2, 3]}) == 1.0


def test_uipath_missing_expected_list_elements_counted() -> None:
    assert json_similarity({"a": [1, 2, 3]}, {"a": [1]}) == pytest.approx(1 / 3)


def test_uipath_bools_by_equality() -> None:
    assert json_similarity({"a": True}, {"a": False}) == 0.0
    assert json_similarity({"a": False}, {"a": False}) == 1.0


def test_uipath_strings_levenshtein_case_sensitive() -> None:
    assert json_similarity({"a": "Apple"}, {"a": "apple"}) == pytest.approx(0.8)


def test_uipath_one_empty_string_scores_zero_both_empty_one() -> None:
    assert json_similarity({"a": ""}, {"a": "x"}) == 0.0
    assert json_similarity({"a": ""}, {"a": ""}) == 1.0


def test_uipath_null_vs_null_scores_one() -> None:
    assert json_similarity({"a": None}, {"a": None}) == 1.0


def test_uipath_empty_expected_scores_one() -> None:
    assert json_similarity({}, {"anything": [1, 2]}) == 1.0
    assert json_similarity({"a": {}}, {}) == 1.0  # empty containers hold no leaves
    assert json_similarity({"a": []}, {"a": "x"}) == 1.0


def test_uipath_top_level_list_expected_raises() -> None:
    with pytest.raises(CompatInputError, match="ValidationError"):
        json_similarity([1, 2], {"a": 1})


def test_uipath_top_level_list_actual_raises() -> None:
    with pytest.raises(CompatInputError):
        json_similarity({"a": 1}, [1])
    with pytest.raises(CompatInputError):
        legacy_json_similarity({"a": 1}, [1])


def test_uipath_huge_int_anywhere_gives_error_result() -> None:
    # The new evaluator turns every number into a float before comparing.
    assert_error_result(json_similarity_details({"a": 1}, {"a": 1, "b": 10**400}),
                        "does not fit a float")
    assert legacy_json_similarity_details({"a": 1}, {"a": 1, "b": 10**400}).error is None


def test_uipath_path_syntax_skips_what_it_cannot_read() -> None:
    # "[x]" is neither a key nor an index: UiPath's tokenizer reads it as the key "x".
    assert json_similarity({"a": {"x": 1}}, {"a": {"x": 1}}, "a[x]") == 1.0
    assert_error_result(json_similarity_details({"a": 1}, {"a": 1}, "..."), "Invalid path")


# -- legacy -----------------------------------------------------------------------------------------


def test_uipath_legacy_scale_0_to_100() -> None:
    assert legacy_json_similarity({"a": 10}, {"a": 15}) == 50.0
    assert legacy_json_similarity({}, {"a": 1}) == 100.0


def test_uipath_legacy_accepts_list_expected() -> None:
    assert legacy_json_similarity([1, 2], '{"a": 1}') == 0.0
    assert legacy_json_similarity("abc", "abd") == pytest.approx(100 * 2 / 3)


def test_uipath_legacy_missing_key_in_expected_scores_100() -> None:
    assert legacy_json_similarity({"x": 1}, {"a": {"b": 1}}, "a.b") == 100.0


def test_uipath_legacy_missing_key_in_actual_scores_0() -> None:
    result = legacy_json_similarity({"a": {"b": 1}}, {"x": 1}, "a.b", explain=True)
    assert result.score == 0.0
    assert [(f.path, f.status) for f in result.fields] == [("a.b", Status.OMISSION)]


def test_uipath_legacy_unreadable_key_gives_error_result() -> None:
    assert_error_result(legacy_json_similarity_details({"a": 1}, {"a": 1}, "."), "Invalid path")


def test_uipath_legacy_empty_key_means_whole_output() -> None:
    assert legacy_json_similarity({"a": 1}, {"a": 1}, "") == 100.0


# -- explanation ------------------------------------------------------------------------------------


def test_uipath_explained_fields_locate_each_leaf() -> None:
    expected = {"a": [1, {"b": "x"}], "c": True, "d": {"e": 1}}
    actual = {"a": [1, {"b": "y"}, 5], "c": 1, "z": 0}
    result = json_similarity(expected, actual, explain=True)
    fields = by_path(result.fields)
    assert fields["a[0]"].status is Status.MATCH
    assert fields["a[0]"].comparator == "uipath.relative_number"
    assert fields["a[1].b"].status is Status.MISMATCH and fields["a[1].b"].field == "a[].b"
    assert fields["c"].comparator == "uipath.type_mismatch"
    assert fields["d"].status is Status.OMISSION and fields["d"].extracted_pointer is None
    assert fields["a[2]"].status is Status.SKIPPED and fields["z"].status is Status.SKIPPED
    assert result.details["matched_leaves"] == 1.0 and result.details["total_leaves"] == 4.0


def test_uipath_error_result_explained() -> None:
    result = json_similarity({"a": 1}, {"b": 1}, "a", explain=True)
    assert result.score == 0.0 and "error" in result.details
    assert [f.status for f in result.fields] == [Status.ERROR]


def test_uipath_metrics_entries() -> None:
    new = METRICS["uipath.json_similarity"]({"a": 10}, {"a": 15})
    legacy = METRICS["uipath.legacy_json_similarity"]({"a": 10}, {"a": 15}, target_output_key="a")
    assert (new.score, new.details["scale"]) == (0.5, 1.0)
    assert (legacy.score, legacy.details["scale"]) == (50.0, 100.0)
    assert METRICS["uipath.json_similarity"]({"a": 1}, {"a": 1}, explain=False).fields == ()


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_uipath_any_json_scores_in_range_or_raises_compat(
    data: st.DataObject,
    json_values: st.SearchStrategy[Any],
    json_objects: st.SearchStrategy[dict[str, Any]],
    field_invariants: Callable[[tuple[FieldResult, ...]], None],
    recomposed: Callable[[tuple[FieldResult, ...], float], float],
) -> None:
    expected = data.draw(st.one_of(json_values, json_objects))
    actual = data.draw(st.one_of(json_values, json_objects))
    key = data.draw(st.sampled_from(["*", "a", "a.b", "items[0]", "name", ".", ""]))
    for fn, top in ((json_similarity, 1.0), (legacy_json_similarity, 100.0)):
        try:
            score = fn(expected, actual, key)
        except CompatInputError:
            continue
        assert 0.0 <= score <= top
        result = fn(expected, actual, key, explain=True)
        assert result.score == score
        field_invariants(result.fields)
        if "error" not in result.details:
            assert top * recomposed(result.fields, 1.0) == pytest.approx(score, abs=1e-9)


def test_uipath_absurdly_deep_input_gives_error_result(deep_object: dict[str, Any]) -> None:
    # UiPath's evaluate() hits the recursion limit; its wrapper turns that into score 0.0.
    assert_error_result(json_similarity_details(deep_object, deep_object), "nested too deeply")
    assert_error_result(legacy_json_similarity_details(deep_object, deep_object),
                        "nested too deeply")


WORKED = [
    ({"temperature": 20.3, "humidity": 65}, {"temperature": 20.5, "humidity": 65}, "*"),
    ({"f": ["apple", "banana", "grape"]}, {"f": ["apple", "banana", "orange"]}, "*"),
    ('{"a":1}', '{"a": 1}', "*"),
    ('{"a": 1}', {"a": 1}, "*"),
    ({"a": {"b": [1, 2]}}, {"a": {"b": [1, 3]}}, "a.b[1]"),
]


@pytest.mark.parametrize(("expected", "actual", "key"), WORKED)
def test_uipath_worked_examples_explained_equals_plain(
    expected: Any,
    actual: Any,
    key: str,
    recomposed: Callable[[tuple[FieldResult, ...], float], float],
) -> None:
    for fn, top in ((json_similarity, 1.0), (legacy_json_similarity, 100.0)):
        plain = fn(expected, actual, key)
        result = fn(expected, actual, key, explain=True)
        assert result.score == plain
        assert top * recomposed(result.fields, 1.0) == pytest.approx(plain)
