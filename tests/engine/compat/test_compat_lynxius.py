"""Lynxius JSON Difference: worked examples, one test per quirk, explanation, robustness."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalschema.compat import METRICS, CompatInputError
from evalschema.compat.lynxius import json_diff
from evalschema.results import FieldResult, Status

# The restaurant menu of the Lynxius docs (reference, LLM output, weights).
MENU = {
    "margherita": 19.0,
    "pepperoni": 21.0,
    "beer": 6.0,
    "fixed_menus": [
        {"menu_name": "baby", "pizza": "margerita", "drink": "Coca-Cola", "price": 24.0},
        {"menu_name": "adult", "pizza": "pepperoni", "drink": "beer", "price": 27.0},
    ],
}
MENU_OUTPUT = {
    "margherita": 39.0,
    "pepperoni": 21.0,
    "beer": 6.0,
    "fixed_menus": [
        {"menu_name": "baby", "pizza": "margerita", "drink": "Coca-Cola", "price": 24.0},
        {"menu_name": "adult", "pizza": "peppers", "drink": "beer", "price": 27.0},
    ],
}
MENU_WEIGHTS = {
    "margherita": 1.0,
    "pepperoni": 1.0,
    "beer": 0.25,
    "fixed_menus": {"__fixed_menus": 0.8, "price": 1.0},
}


def by_path(fields: tuple[FieldResult, ...]) -> dict[str, FieldResult]:
    return {f.path: f for f in fields}


# -- worked examples -----------------------------------------------------------------------


def test_lynxius_docs_menu_example_scores_0_87601() -> None:
    score = json_diff(MENU, MENU_OUTPUT, MENU_WEIGHTS)
    assert round(score, 5) == 0.87601
    # 4 top-level keys weighing 3.05: (0.655·1 + 1·1 + 1·0.25 + 0.958·0.8) / 3.05
    expected = (1 - 20 / 58 + 1 + 0.25 + 0.8 * (1 + (1 + 2 / 3 + 1 + 1) / 4) / 2) / 3.05
    assert score == pytest.approx(expected, abs=1e-12)


def test_lynxius_docs_menu_example_explained() -> None:
    result = json_diff(MENU, MENU_OUTPUT, MENU_WEIGHTS, explain=True)
    fields = by_path(result.fields)
    assert result.score == json_diff(MENU, MENU_OUTPUT, MENU_WEIGHTS)
    assert fields["margherita"].weight == pytest.approx(1 / 3.05)
    assert fields["beer"].weight == pytest.approx(0.25 / 3.05)
    # a menu element key: 0.8/3.05 for the list, 1/2 per element, 1/4 per key
    pizza = fields["fixed_menus[1].pizza"]
    assert pizza.weight == pytest.approx(0.8 / 3.05 / 2 / 4)
    assert pizza.status is Status.MISMATCH
    assert pizza.score == pytest.approx(2 / 3)
    assert pizza.comparator == "lynxius.levenshtein"
    assert pizza.field == "fixed_menus[].pizza"
    assert pizza.gold_pointer == pizza.extracted_pointer == "/fixed_menus/1/pizza"
    assert "weight 0.25 of 3.05" in fields["beer"].reason
    assert sum(f.weight for f in result.fields) == pytest.approx(1.0)
    assert sum(f.weight * f.score for f in result.fields) == pytest.approx(result.score, abs=1e-12)


def test_lynxius_notebook_example_without_weights() -> None:
    ref = {"prop1": True, "prop2": 0.85, "prop3": [{"prop4": 0.92}, {"prop4": 0.22}]}
    out = {"prop1": False, "prop2": 0.71, "prop3": [{"prop4": 0.89}, {"prop4": 0.34}]}
    p3 = ((1 - 0.03 / 1.81) + (1 - 0.12 / 0.56)) / 2
    assert json_diff(ref, out) == pytest.approx((0 + (1 - 0.14 / 1.56) + p3) / 3)


# -- one test per quirk ------------------------------------------------------------------------


def test_lynxius_extra_keys_penalised_by_union() -> None:
    # The source comment says only the intersection counts; the code uses the union.
    assert json_diff({"a": "x"}, {"a": "x", "b": "y"}) == 0.5
    fields = by_path(json_diff({"a": "x"}, {"a": "x", "b": "y"}, explain=True).fields)
    assert fields["b"].status is Status.HALLUCINATION
    assert fields["b"].gold_pointer is None


def test_lynxius_missing_key_scores_zero() -> None:
    result = json_diff({"a": "x", "b": "y"}, {"a": "x"}, explain=True)
    assert result.score == 0.5
    assert by_path(result.fields)["b"].status is Status.OMISSION


def test_lynxius_null_on_both_sides_scores_one() -> None:
    assert json_diff({"a": None}, {"a": None}) == 1.0


def test_lynxius_null_against_value_scores_zero() -> None:
    assert json_diff({"a": None, "b": 1}, {"a": 1, "b": 1}) == 0.5


def test_lynxius_extra_list_elements_ignored_by_zip() -> None:
    assert json_diff({"a": [1, 2]}, {"a": [1, 2, 3, 4]}) == 1.0
    assert json_diff({"a": [1, 2, 3]}, {"a": [1]}) == 1.0
    fields = json_diff({"a": [1, 2]}, {"a": [1, 2, 3]}, explain=True).fields
    dropped = [f for f in fields if f.status is Status.SKIPPED]
    assert [(f.path, f.weight) for f in dropped] == [("a[2]", 0.0)]


def test_lynxius_empty_list_vs_nonempty_raises() -> None:
    with pytest.raises(CompatInputError, match="ZeroDivisionError") as info:
        json_diff({"a": []}, {"a": [1]})
    assert info.value.original == "ZeroDivisionError"
    with pytest.raises(CompatInputError):
        json_diff({"a": [1]}, {"a": []})


def test_lynxius_empty_containers_score_one() -> None:
    assert json_diff({"a": []}, {"a": []}) == 1.0
    assert json_diff({"a": {}}, {"a": {}}) == 1.0
    assert json_diff({}, {}, validate_inputs=False) == 1.0


def test_lynxius_numbers_symmetric_normalized_difference() -> None:
    assert json_diff({"a": 10}, {"a": 15}) == pytest.approx(0.8)
    assert json_diff({"a": 15}, {"a": 10}) == pytest.approx(0.8)


def test_lynxius_opposite_signs_score_zero() -> None:
    assert json_diff({"a": -5}, {"a": 5}) == 0.0


def test_lynxius_both_zero_scores_one() -> None:
    assert json_diff({"a": 0}, {"a": 0.0}) == 1.0


def test_lynxius_bools_count_as_numbers() -> None:
    assert json_diff({"a": True}, {"a": False}) == 0.0
    assert json_diff({"a": True}, {"a": 1}) == 1.0
    assert json_diff({"a": True}, {"a": 2}) == pytest.approx(2 / 3)


def test_lynxius_string_vs_number_scores_zero() -> None:
    assert json_diff({"a": "30"}, {"a": 30}) == 0.0


def test_lynxius_dict_vs_list_scores_zero() -> None:
    assert json_diff({"a": {"b": 1}}, {"a": [1]}) == 0.0


def test_lynxius_levenshtein_over_code_points_no_normalisation() -> None:
    # NFC "é" against NFD "e" + combining accent: 2 edits over 2 code points.
    assert json_diff({"a": "é"}, {"a": "e\u0301"}) == 0.0
    assert json_diff({"a": "Apple"}, {"a": "apple"}) == pytest.approx(0.8)


def test_lynxius_empty_strings_score_one() -> None:
    assert json_diff({"a": ""}, {"a": ""}) == 1.0


def test_lynxius_default_weight_is_one() -> None:
    assert json_diff({"a": "x", "b": "y"}, {"a": "x", "b": "z"}, {"a": 1.0}) == 0.5


def test_lynxius_loopback_weight_sets_container_weight() -> None:
    weights = {"a": 1.0, "c": {"__c": 0.0}}
    assert json_diff({"a": "x", "c": {"d": 1}}, {"a": "x", "c": {"d": 2}}, weights) == 1.0


def test_lynxius_numeric_weight_on_container_resets_children_to_one() -> None:
    ref, out = {"c": {"d": "x", "e": "y"}}, {"c": {"d": "x", "e": "z"}}
    assert json_diff(ref, out, {"c": 0.5}) == 0.5
    assert json_diff(ref, out, {"c": {"e": 0.0}}) == 1.0


def test_lynxius_list_weights_apply_to_every_element() -> None:
    ref = {"l": [{"k": "a", "v": "x"}, {"k": "b", "v": "y"}]}
    out = {"l": [{"k": "a", "v": "q"}, {"k": "b", "v": "r"}]}
    assert json_diff(ref, out, {"l": {"v": 0.0}}) == 1.0


def test_lynxius_all_zero_weights_reset_to_one() -> None:
    assert json_diff({"a": "x", "b": "y"}, {"a": "x", "b": "z"}, {"a": 0.0, "b": 0.0}) == 0.5
    fields = json_diff({"a": "x", "b": "y"}, {"a": "x", "b": "z"}, {"a": 0, "b": 0}, explain=True)
    assert [f.weight for f in fields.fields] == [0.5, 0.5]


def test_lynxius_no_rounding() -> None:
    assert json_diff({"a": "abc"}, {"a": "abd"}) == 1 - 1 / 3


def test_lynxius_client_rejects_falsy_reference_or_output() -> None:
    for ref, out in (({}, {"a": 1}), ({"a": 1}, {}), ([], [1]), ({"a": 1}, None)):
        with pytest.raises(CompatInputError, match="must be provided") as info:
            json_diff(ref, out)
        assert info.value.original == "ValueError"


@pytest.mark.parametrize(
    "weights", [{"a": [1.0]}, {"a": "1"}, {"a": True}, {"a": 1.5}, {"a": -0.1}]
)
def test_lynxius_client_rejects_bad_weights(weights: dict[str, Any]) -> None:
    with pytest.raises(CompatInputError) as info:
        json_diff({"a": 1}, {"a": 1}, weights)
    assert info.value.original == "ValueError"


def test_lynxius_validate_inputs_false_scores_what_the_client_rejects() -> None:
    assert json_diff({}, {"a": 1}, validate_inputs=False) == 0.0
    assert json_diff({"a": 1, "b": 2}, {"a": 1, "b": 0}, {"a": 2.0}, validate_inputs=False) == (
        pytest.approx(2 / 3)
    )
    assert json_diff({"a": 1, "b": 2}, {"a": 1}, {"a": True}, validate_inputs=False) == 0.5


def test_lynxius_weights_the_engine_cannot_read_raise() -> None:
    with pytest.raises(CompatInputError, match="AttributeError"):
        json_diff({"a": {"b": 1}}, {"a": {"b": 1}}, {"a": "x"}, validate_inputs=False)
    with pytest.raises(CompatInputError, match="TypeError"):
        json_diff({"a": {"b": 1}}, {"a": {"b": 1}}, {"a": {"__a": {"x": 1}}})


def test_lynxius_huge_int_against_float_raises() -> None:
    with pytest.raises(CompatInputError) as info:
        json_diff({"a": 10**400}, {"a": 1.5})
    assert info.value.original == "OverflowError"
    assert json_diff({"a": 10**400}, {"a": 10**400}) == 1.0


def test_lynxius_metrics_entry() -> None:
    result = METRICS["lynxius.json_diff"](MENU, MENU_OUTPUT, weights=MENU_WEIGHTS)
    assert round(result.score, 5) == 0.87601
    assert result.fields
    lean = METRICS["lynxius.json_diff"](MENU, MENU_OUTPUT, weights=MENU_WEIGHTS, explain=False)
    assert lean.fields == () and lean.score == result.score
    with pytest.raises(CompatInputError, match="no option"):
        METRICS["lynxius.json_diff"](MENU, MENU_OUTPUT, wieghts={})


# -- explanation and robustness -------------------------------------------------------------------


def recursive_mean(fields: tuple[FieldResult, ...]) -> float:
    """The recursive weighted mean unrolled: every field already carries its share of the total."""
    return sum(f.weight * f.score for f in fields)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_lynxius_any_json_scores_in_range_or_raises_compat(
    data: st.DataObject,
    json_values: st.SearchStrategy[Any],
    field_invariants: Callable[[tuple[FieldResult, ...]], None],
) -> None:
    ref, out = data.draw(json_values), data.draw(json_values)
    validate = data.draw(st.booleans())
    try:
        score = json_diff(ref, out, validate_inputs=validate)
    except CompatInputError:
        with pytest.raises(CompatInputError):
            json_diff(ref, out, validate_inputs=validate, explain=True)
        return
    assert 0.0 <= score <= 1.0
    result = json_diff(ref, out, validate_inputs=validate, explain=True)
    assert result.score == score
    assert recursive_mean(result.fields) == pytest.approx(score, abs=1e-9)
    scored = [f for f in result.fields if f.status is not Status.SKIPPED]
    assert math.fsum(f.weight for f in scored) == pytest.approx(1.0)
    field_invariants(result.fields)


def test_lynxius_absurdly_deep_input_raises_compat_error(deep_object: dict[str, Any]) -> None:
    with pytest.raises(CompatInputError) as info:
        json_diff(deep_object, deep_object)
    assert info.value.original == "RecursionError"
