"""The whole-matrix pair F1 of Hungarian alignment (``scoring.vectorized``) against its
definitions: the F1 of the results the walk gives each pair, and ``pair_similarity``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from test_properties import HUNGARIAN_ABC, NAMES, SETTINGS, leaf_schema, object_value

from evalschema import parse_eval_schema
from evalschema.policy import NATIVE, STRUCT_EXTRACT_EVAL
from evalschema.results import count_results, pair_similarity
from evalschema.rules.alignment import SMALL_MATRIX
from evalschema.scoring.pair_f1 import pair_f1_matrix
from evalschema.scoring.vectorized import _f1, _scalar_f1, vectorized_f1
from evalschema.scoring.walk import RecordScorer


def walked_f1(walk: RecordScorer, g: list[Any], e: list[Any]) -> np.ndarray:
    """Every pair's F1 as the definition gives it: the walk's results for the pair, counted."""
    return np.array([[count_results(walk.score(gv, ev)).pair_similarity() for ev in e]
                     for gv in g])


@st.composite
def flat_items(draw: st.DrawFn) -> tuple[dict[str, Any], list[Any], list[Any], str | None]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    props = {}
    for n in names:
        leaf = draw(leaf_schema(symmetric=False))
        leaf.pop("x-eval-transform", None)
        props[n] = leaf
    items = {"type": "object", "properties": props}
    g = draw(st.lists(object_value(items, True), min_size=1, max_size=4))
    e = draw(st.lists(object_value(items, True), min_size=1, max_size=4))
    # Unknown keys: only in extracted (a hallucination) or on both sides (skipped).
    if draw(st.booleans()):
        e = [{**v, "zz": 1} if i % 2 else v for i, v in enumerate(e)]
    if draw(st.booleans()):
        g = [{**v, "zz": 2} if i % 2 == 0 else v for i, v in enumerate(g)]
    return items, g, e, draw(st.sampled_from([None, "absent"]))


@SETTINGS
@given(flat_items())
def test_vectorized_pair_f1_matches_per_pair_scores(case: tuple[Any, ...]) -> None:
    items_schema, g, e, null_policy = case
    schema = {"type": "object", "properties": {
        "xs": {"type": "array", "items": items_schema, "x-eval-align": {"match_by": "hungarian"}},
    }}
    root = parse_eval_schema(schema, null_policy=null_policy)
    items = root.child_map["xs"].items
    assert items is not None
    fast = vectorized_f1(items, g, e)
    slow = walked_f1(RecordScorer(items), g, e)
    if fast is not None:  # the same floats: the assignment depends on every bit (ties)
        np.testing.assert_array_equal(fast, slow)
    np.testing.assert_allclose(pair_f1_matrix(RecordScorer(root), items, g, e), slow,
                               atol=1e-12)


def test_hungarian_shared_unknown_keys_matrix_agrees_with_scorer() -> None:
    """Regression: the pairing matrix skips unknown keys both sides hold, as the scorer does."""
    root = parse_eval_schema(HUNGARIAN_ABC)
    items = root.child_map["xs"].items
    assert items is not None
    g = [{"a": 1, "b": 1, "c": 1, "z": 0}]
    e = [{"a": 1, "b": 1, "c": 1, "z": 0}]
    assert count_results(RecordScorer(items).score(g[0], e[0])).pair_similarity() == 1.0
    assert vectorized_f1(items, g, e) == pytest.approx(np.array([[1.0]]))


@pytest.mark.parametrize("policy", [NATIVE, STRUCT_EXTRACT_EVAL])
def test_large_matrices_follow_the_policy_on_shared_unknown_keys(policy: Any) -> None:
    """Above ``SMALL_MATRIX`` pairs the matrix is vectorised; it still takes the policy's
    rule on an unknown key both sides hold (skipped, or a hallucination)."""
    root = parse_eval_schema(HUNGARIAN_ABC)
    items = root.child_map["xs"].items
    assert items is not None
    g = [{"a": i, "b": 1, "c": 1, "z": 0} for i in range(20)]
    e = [{"a": i, "b": 1, "c": 1, "z": 0} for i in range(20)]
    want = walked_f1(RecordScorer(items, policy), g, e)
    assert len(g) * len(e) > SMALL_MATRIX
    got = pair_f1_matrix(RecordScorer(root, policy), items, g, e)
    np.testing.assert_array_equal(got, want)
    assert got[0, 0] == (1.0 if policy.shared_unknown_keys_skipped else 6 / 7)


def test_pair_f1_matrix_of_no_elements_has_the_shape_of_the_pairs() -> None:
    items = parse_eval_schema(HUNGARIAN_ABC).child_map["xs"].items
    scorer = RecordScorer(items)
    assert pair_f1_matrix(scorer, items, [], [{"a": 1}]).shape == (0, 1)
    assert pair_f1_matrix(scorer, items, [{"a": 1}], []).shape == (1, 0)
    assert pair_f1_matrix(scorer, items, [{"a": 1}], [None]).dtype == np.float64


def _hex(values: Any) -> list[str]:
    return [float(v).hex() for v in values]


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5),
                          st.floats(0, 1)), min_size=1, max_size=30))
@example([(0, 0, 0, 0.0), (0, 2, 0, 0.0), (0, 0, 1, 0.0), (0, 1, 1, 0.0), (1, 0, 0, 0.0),
          (1, 0, 0, 1.0), (1, 1, 0, 1.0), (2, 0, 1, 0.5), (3, 2, 1, 0.25)])
def test_matrix_formula_is_pair_similarity(cells: list[tuple[int, int, int, float]]
                                               ) -> None:
    """``_f1`` copies the formula element-wise: the same floats, bit for bit."""
    both = [b for b, _, _, _ in cells]
    omit = [o for _, o, _, _ in cells]
    hall = [h for _, _, h, _ in cells]
    s = [b * x for b, _, _, x in cells]  # a score sum of ``both`` scores in [0, 1]
    with np.errstate(divide="raise", invalid="raise"):  # no division by zero, even masked
        got = _f1(np.array(s), np.array(both, float), np.array(omit, float), np.array(hall, float))
    assert _hex(got.tolist()) == _hex(pair_similarity(*c)
                                      for c in zip(s, both, omit, hall, strict=True))


@SETTINGS
@given(st.lists(st.floats(1, 10), min_size=1, max_size=8),
       st.lists(st.floats(1, 10), min_size=1, max_size=8))
def test_scalar_items_f1_is_the_one_leaf_f1(g: list[float], e: list[float]) -> None:
    """Scalar items: one leaf per pair, so its F1 is ``pair_similarity(s, 1, 0, 0)``.
    (A ``numeric`` comparator with ``partial`` credit gives scores across [0, 1].)"""
    items = parse_eval_schema({"type": "array", "items": {
        "type": "number", "x-eval-compare": {"numeric": {"partial": True}}}}).items
    assert items is not None and items.matrix is not None
    scores = items.matrix(g, e)
    with np.errstate(divide="raise", invalid="raise"):
        got = _scalar_f1(items, g, e)
    assert got is not None
    want = [pair_similarity(sc, 1, 0, 0) for sc in scores.ravel().tolist()]
    assert _hex(got.ravel().tolist()) == _hex(want)


def _items(items: dict[str, Any], **kw: Any) -> Any:
    node = parse_eval_schema({"type": "array", "items": items}, **kw).items
    assert node is not None
    return node


LEAVES = {"a": {"type": "string", "x-eval-compare": "levenshtein"}, "b": {"type": "integer"}}


@pytest.mark.parametrize(("items", "kw", "g", "e"), [
    ({"type": "string", "x-eval-skip": True}, {}, ["a", "b"], ["b", "a"]),
    ({"type": "string", "x-eval-compare": "date"}, {}, ["2021"], ["2021"]),
    ({"type": "string"}, {"null_policy": "absent"}, ["a", None], ["a"]),
    ({"type": "string"}, {"null_policy": "absent"}, ["a"], [None, "a"]),
    ({"type": "object", "properties": LEAVES, "x-eval-skip": True}, {}, [{"a": "x"}], [{"a": "x"}]),
    ({"type": "object", "properties": LEAVES, "additionalProperties": {"type": "string"}}, {},
     [{"a": "x"}], [{"a": "x", "z": "y"}]),
    ({"type": "object", "properties": {}}, {}, [{"a": "x"}], [{"a": "y"}]),
    ({"type": "object", "properties": {**LEAVES, "c": {"type": "object", "properties": {
        "d": {"type": "string"}}}}}, {}, [{"a": "x"}], [{"a": "x"}]),
    ({"type": "object", "properties": {**LEAVES, "d": {"type": "string",
                                                        "x-eval-compare": "date"}}}, {},
     [{"a": "x"}], [{"a": "x"}]),
    ({"type": "object", "properties": LEAVES}, {}, [{"a": "x"}, {}], [{"a": "x"}]),
    ({"type": "object", "properties": LEAVES}, {}, [{"a": "x"}], [{"a": "x"}, "x"]),
    ({"type": "object", "properties": LEAVES}, {}, [None], [{"a": "x"}]),
])
def test_shapes_left_to_the_per_pair_f1(items: dict[str, Any], kw: dict[str, Any],
                                        g: list[Any], e: list[Any]) -> None:
    """Items the matrix form cannot judge (skipped, maps, containers inside, a comparator
    with no matrix form, a null counted as absent, an element that is not a non-empty
    object) get no matrix: the caller scores those pairs one by one."""
    node = _items(items, **kw)
    assert vectorized_f1(node, g, e) is None
    want = walked_f1(RecordScorer(node), g, e)
    np.testing.assert_array_equal(pair_f1_matrix(RecordScorer(node), node, g * 300, e), np.tile(
        want, (300, 1)))


@pytest.mark.parametrize("null_policy", [None, "absent"])
def test_null_scalars_under_null_as_a_value(null_policy: str | None) -> None:
    """Null as a value is judged like any value, by the matrix too; null as absent is
    left to the per-pair F1 only when a null is there."""
    node = _items({"type": ["string", "null"], "x-eval-compare": "levenshtein"},
                  null_policy=null_policy)
    g, e = ["ab", None, "b"], [None, "abc", ""]
    want = walked_f1(RecordScorer(node), g, e)
    got = vectorized_f1(node, g, e)
    if null_policy == "absent":
        assert got is None
        assert vectorized_f1(node, ["ab", "b"], ["abc", ""]) is not None
    else:
        assert got is not None
        np.testing.assert_array_equal(got, want)


def test_a_skipped_child_takes_no_part() -> None:
    node = _items({"type": "object", "properties": {
        **LEAVES, "s": {"type": "string", "x-eval-skip": True}}})
    g = [{"a": "abcd", "b": 1, "s": "p"}, {"a": "xyz", "s": "q"}]
    e = [{"a": "abcX", "b": 1, "s": "q"}, {"b": 2, "s": "p"}]
    want = walked_f1(RecordScorer(node), g, e)
    got = vectorized_f1(node, g, e)
    assert got is not None
    np.testing.assert_array_equal(got, want)


def test_transforms_apply_before_the_matrix_comparator() -> None:
    """The matrix compares transformed values, as the walk does: "ACME " is "acme"."""
    node = _items({"type": "object", "properties": {
        "a": {"type": "string", "x-eval-compare": "levenshtein",
              "x-eval-transform": ["strip", "lowercase"]},
        "b": {"type": "integer"}}})
    g = [{"a": "acme", "b": 1}, {"a": "Globex", "b": 2}]
    e = [{"a": " ACME ", "b": 1}, {"a": "globex", "b": 3}]
    want = walked_f1(RecordScorer(node), g, e)
    got = vectorized_f1(node, g, e)
    assert got is not None
    np.testing.assert_array_equal(got, want)
    assert got[0, 0] == 1.0 and got[1, 1] == 0.5


@pytest.mark.parametrize("policy", [NATIVE, STRUCT_EXTRACT_EVAL])
def test_large_matrices_add_unknown_keys_to_the_other_hallucinations(policy: Any) -> None:
    """An extracted key the schema does not know adds to the hallucinations the known
    fields already gave (b is in no gold element), under either policy."""
    root = parse_eval_schema(HUNGARIAN_ABC)
    items = root.child_map["xs"].items
    assert items is not None
    g = [{"a": i, "c": 1} for i in range(20)]
    e = [{"a": i, "b": 1, "c": 1, "z": 0} for i in range(20)]
    want = walked_f1(RecordScorer(items, policy), g, e)
    got = pair_f1_matrix(RecordScorer(root, policy), items, g, e)
    np.testing.assert_array_equal(got, want)
    # a and c match; b and z (in no gold element, so under either policy) are invented:
    # p 2/4, r 1.
    assert got[0, 0] == pytest.approx(2 / 3)


@pytest.mark.parametrize("null_policy", [None, "absent"])
def test_missing_and_null_children_add_up_over_the_children(null_policy: str | None) -> None:
    """Several children missing from one side of the same pair each count (omissions and
    hallucinations add up); a missing key is absent, and a null is absent only under the
    absent policy: the matrix gives the walk's own pair F1 for each."""
    node = _items({"type": "object", "properties": {
        "a": {"type": ["string", "null"], "x-eval-compare": "levenshtein"},
        "b": {"type": ["integer", "null"]}, "c": {"type": ["string", "null"]}}},
        null_policy=null_policy)
    g = [{"a": "x", "b": 1, "c": "k"}, {"a": None, "b": 2}, {"a": "yy", "c": None},
         {"a": None, "b": 5, "c": "k"}]
    e = [{"c": "k"}, {"a": "x", "b": None, "c": "q"}, {"a": None, "c": "k"}]
    want = walked_f1(RecordScorer(node), g, e)
    got = vectorized_f1(node, g, e)
    assert got is not None
    np.testing.assert_array_equal(got, want)
    # The pair of the first elements: a and b omitted, c matched.
    assert want[0, 0] == pytest.approx(2 * 1 / (2 * 1 + 2 + 0))
    # A null gold `a` against a missing one: omitted only when null is a value.
    assert want[3, 0] == pytest.approx(2 / (2 + 2) if null_policy is None else 2 / (2 + 1))
