"""Galtea JSON Field Match family: doc examples, documented rules, our decisions, robustness."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalschema.compat import METRICS, CompatInputError
from evalschema.compat.galtea import (
    json_field_match,
    json_field_match_normalized,
    json_field_match_normalized_strict,
)
from evalschema.results import FieldResult, Status

ALL = (json_field_match, json_field_match_normalized, json_field_match_normalized_strict)


def by_path(fields: tuple[FieldResult, ...]) -> dict[str, FieldResult]:
    return {f.path: f for f in fields}


# -- doc examples ------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["SI", "si", "Sí", "sÍ"])
def test_galtea_normalized_accents_and_case(variant: str) -> None:
    assert json_field_match_normalized({"answer": "Sí"}, {"answer": variant}) == 1.0


def test_galtea_normalized_jose_matches_jose_without_accent() -> None:
    assert json_field_match_normalized({"name": "José"}, {"name": "Jose"}) == 1.0


def test_galtea_plain_field_match_does_not_normalise() -> None:
    assert json_field_match({"answer": "Sí"}, {"answer": "SI"}) == 0.0


def test_galtea_strict_six_of_eight_is_0_75() -> None:
    expected = {f"k{i}": i for i in range(7)}
    actual = {**{f"k{i}": i for i in range(6)}, "k6": "wrong", "extra": 1}
    assert json_field_match_normalized_strict(expected, actual) == 0.75


def test_galtea_empty_expected_scores_one() -> None:
    for metric in (json_field_match, json_field_match_normalized):
        assert metric({}, {"anything": 1}) == 1.0


def test_galtea_strict_empty_expected_nonempty_actual_scores_zero() -> None:
    assert json_field_match_normalized_strict({}, {"a": 1}) == 0.0
    assert json_field_match_normalized_strict({}, {}) == 1.0


# -- documented rules ------------------------------------------------------------------------------------


def test_galtea_non_strings_compared_strictly() -> None:
    assert json_field_match_normalized({"age": 30}, {"age": "30"}) == 0.0


def test_galtea_only_top_level_keys_and_missing_counts_as_non_matching() -> None:
    expected = {"a": 1, "b": 2, "c": 3, "d": 4}
    assert json_field_match(expected, {"a": 1, "b": 2, "c": 0}) == 0.5


def test_galtea_extra_keys_ignored_unless_strict() -> None:
    assert json_field_match({"a": 1}, {"a": 1, "b": 2}) == 1.0
    assert json_field_match_normalized_strict({"a": 1}, {"a": 1, "b": 2}) == 0.5


def test_galtea_nested_values_normalised_recursively() -> None:
    expected = {"person": {"name": "José", "tags": ["Sí", "NO"]}}
    assert (
        json_field_match_normalized(expected, {"person": {"name": "jose", "tags": ["si", "no"]}})
        == 1.0
    )


def test_galtea_array_order_matters() -> None:
    assert json_field_match_normalized({"t": ["a", "b"]}, {"t": ["b", "a"]}) == 0.0


def test_galtea_actual_parsed_leniently() -> None:
    fenced = 'Here you go:\n```json\n{"a": "SÍ"}\n```'
    assert json_field_match_normalized({"a": "si"}, fenced) == 1.0
    assert json_field_match({"a": 1}, 'The answer is {"a": 1} as requested.') == 1.0
    result = json_field_match({"a": 1}, fenced.replace('"SÍ"', "1"), explain=True)
    assert result.details["parse"] == "fence"


def test_galtea_unreadable_actual_raises() -> None:
    for metric in ALL:
        with pytest.raises(CompatInputError):
            metric({"a": 1}, "no json here")
        with pytest.raises(CompatInputError):
            metric({"a": 1}, [1, 2])


def test_galtea_expected_must_be_strict_json_object() -> None:
    assert json_field_match('{"a": 1}', {"a": 1}) == 1.0
    for bad in ("```json\n{}\n```", "[1]", [1], 5, None):
        with pytest.raises(CompatInputError):
            json_field_match(bad, {"a": 1})


# -- decisions where the docs are silent (docs/compat.md) -------------------------------------------------


def test_galtea_decision_int_equals_float_as_python() -> None:
    assert json_field_match({"a": 1}, {"a": 1.0}) == 1.0


def test_galtea_decision_true_equals_one_as_python() -> None:
    assert json_field_match({"a": True}, {"a": 1}) == 1.0


def test_galtea_decision_casefold_not_lower() -> None:
    assert json_field_match_normalized({"street": "Straße"}, {"street": "STRASSE"}) == 1.0


def test_galtea_decision_whitespace_not_trimmed() -> None:
    assert json_field_match_normalized({"a": "si"}, {"a": " si "}) == 0.0


def test_galtea_decision_keys_not_normalised() -> None:
    assert json_field_match_normalized({"Año": 1}, {"ano": 1}) == 0.0


def test_galtea_decision_nfd_not_nfkd() -> None:
    # Compatibility forms (superscripts, circled digits) stay apart; only accents go.
    assert json_field_match_normalized({"a": "m²"}, {"a": "m2"}) == 0.0
    assert json_field_match_normalized({"a": "①"}, {"a": "1"}) == 0.0


# -- explanation ------------------------------------------------------------------------------------------


def test_galtea_explained_statuses() -> None:
    result = json_field_match_normalized_strict(
        {"a": "Sí", "b": 1, "c": 2}, {"a": "si", "b": 2, "d": 3}, explain=True
    )
    got = by_path(result.fields)
    assert got["a"].status is Status.MATCH and "folding" in (got["a"].reason or "")
    assert got["b"].status is Status.MISMATCH
    assert got["c"].status is Status.OMISSION and got["c"].extracted_pointer is None
    assert got["d"].status is Status.HALLUCINATION and got["d"].weight == 1.0
    assert result.score == 0.25


def test_galtea_extra_keys_skipped_when_not_strict() -> None:
    result = json_field_match({"a": 1}, {"a": 1, "b": 2}, explain=True)
    assert by_path(result.fields)["b"].status is Status.SKIPPED


def test_galtea_metrics_entries() -> None:
    for name in ("galtea.json_field_match", "galtea.json_field_match_normalized"):
        assert METRICS[name]({"a": "Jose"}, {"a": "Jose"}).score == 1.0
    strict = METRICS["galtea.json_field_match_normalized_strict"]({}, {"a": 1}, explain=False)
    assert (strict.score, strict.fields) == (0.0, ())


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_galtea_any_json_scores_in_range_or_raises_compat(
    data: st.DataObject,
    json_values: st.SearchStrategy[Any],
    json_objects: st.SearchStrategy[dict[str, Any]],
    field_invariants: Callable[[tuple[FieldResult, ...]], None],
    recomposed: Callable[[tuple[FieldResult, ...], float], float],
) -> None:
    expected = data.draw(st.one_of(json_objects, json_values))
    actual = data.draw(st.one_of(json_objects, json_values, st.text(max_size=20)))
    for metric in ALL:
        try:
            score = metric(expected, actual)
        except CompatInputError:
            continue
        assert 0.0 <= score <= 1.0
        result = metric(expected, actual, explain=True)
        assert result.score == score
        assert recomposed(result.fields, 1.0) == pytest.approx(score)
        field_invariants(result.fields)


def test_galtea_absurdly_deep_input_raises_compat_error(deep_object: dict[str, Any]) -> None:
    with pytest.raises(CompatInputError):
        json_field_match_normalized(deep_object, deep_object)


WORKED = [
    ({"answer": "Sí"}, {"answer": "SI"}),
    ({"name": "José"}, {"name": "Jose"}),
    ({f"k{i}": i for i in range(7)}, {**{f"k{i}": i for i in range(6)}, "k6": "x", "extra": 1}),
    ({}, {"a": 1}),
    ({"age": 30}, {"age": "30"}),
]


@pytest.mark.parametrize(("expected", "actual"), WORKED)
def test_galtea_worked_examples_explained_equals_plain(
    expected: Any, actual: Any, recomposed: Callable[[tuple[FieldResult, ...], float], float]
) -> None:
    for metric in ALL:
        result = metric(expected, actual, explain=True)
        assert result.score == metric(expected, actual)
        assert recomposed(result.fields, 1.0) == pytest.approx(result.score)
