"""Hungarian alignment's pair F1 for flat items, computed without building results
(``pair_f1.flat_pair_f1``), against the F1 of the results the general walk builds.

The assignment depends on every bit of these numbers (ties, near-ties), so they must
be equal, not close.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS, STRING_TRANSFORMS, leaf_schema, object_value

from evalschema import parse_eval_schema
from evalschema.policy import NATIVE, STRUCT_EXTRACT_EVAL
from evalschema.results import FieldResult, Status, count_results
from evalschema.rules.alignment import SMALL_MATRIX
from evalschema.rules.registry import CompareTypeError
from evalschema.scoring.pair_f1 import flat_pair_f1, make_pair_f1, pair_f1_matrix
from evalschema.scoring.walk import RecordScorer


@st.composite
def flat_items_with_transforms(draw: st.DrawFn) -> tuple[Any, ...]:
    names = draw(st.lists(st.sampled_from(["a", "b", "c/d", "e~f"]), min_size=1, max_size=4,
                          unique=True))
    props = {}
    for n in names:
        leaf = draw(leaf_schema(symmetric=False))
        if leaf.get("type") in ("string", ["string", "null"]) and draw(st.booleans()):
            leaf["x-eval-transform"] = draw(st.sampled_from(STRING_TRANSFORMS))
        props[n] = leaf
    items = {"type": "object", "properties": props}
    pairs = draw(st.lists(st.tuples(object_value(items, True, True),
                                    object_value(items, True, True)), min_size=1, max_size=6))
    # Unknown keys on both sides (skipped, or not, by policy) and non-objects.
    if draw(st.booleans()):
        pairs = [({**g, "zz": 1}, {**e, "zz": 2}) for g, e in pairs]
    if draw(st.integers(0, 5)) == 0:
        pairs.append((draw(st.sampled_from([None, 1, "x", []])), {}))
    return (items, pairs, draw(st.sampled_from([None, "absent"])),
            draw(st.sampled_from([NATIVE, STRUCT_EXTRACT_EVAL])))


def _raised(results: list[FieldResult]) -> bool:
    """A transform or comparator raised, so the walk judged that leaf itself and gave its
    result a reason (the only judged results with one); the flat form declines those."""
    return any(r.reason is not None for r in results
               if r.status in (Status.MATCH, Status.MISMATCH, Status.ERROR))


@SETTINGS
@given(flat_items_with_transforms())
def test_flat_pair_f1_is_the_walked_f1_exactly(case: tuple[Any, ...]) -> None:
    items_schema, pairs, null_policy, policy = case
    schema = {"type": "object", "properties": {
        "xs": {"type": "array", "items": items_schema, "x-eval-align": {"match_by": "hungarian"}},
    }}
    items = parse_eval_schema(schema, null_policy=null_policy).child_map["xs"].items
    assert items is not None
    flat = flat_pair_f1(items, policy.shared_unknown_keys_skipped)
    assert flat is not None
    walk = RecordScorer(items, policy)
    f1 = RecordScorer(items, policy).pair_f1(items)
    for g, e in pairs:
        try:
            want = count_results(walk.score(g, e)).pair_similarity()
        except CompareTypeError:  # a failing transform under transform_errors_scored=False
            assert flat(g, e) is None
            with pytest.raises(CompareTypeError):
                f1(g, e)
            continue
        got = flat(g, e)
        if type(g) is dict and type(e) is dict and not _raised(walk.score(g, e)):
            assert got is not None, (g, e)  # declining is only for pairs the walk must judge
        assert got is None or got.hex() == want.hex(), (g, e, got, want)
        assert f1(g, e).hex() == want.hex()


def test_items_with_containers_are_not_flat() -> None:
    schema = {"type": "object", "properties": {"xs": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "string"},
                                         "b": {"type": "object", "properties": {
                                             "c": {"type": "string"}}}}}}}}
    items = parse_eval_schema(schema).child_map["xs"].items
    assert items is not None
    assert flat_pair_f1(items, True) is None


def _xs_items(items: dict[str, Any]) -> Any:
    node = parse_eval_schema({"type": "object", "properties": {"xs": {
        "type": "array", "items": items, "x-eval-align": {"match_by": "hungarian"}}}}
    ).child_map["xs"].items
    assert node is not None
    return node


FLAT = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}


@pytest.mark.parametrize("items", [
    {**FLAT, "x-eval-skip": True},
    {**FLAT, "additionalProperties": {"type": "string"}},
    {"type": "object", "properties": {"a": {"type": "string"}, "u": {"anyOf": [
        {"type": "string"}, {"type": "object", "properties": {"c": {"type": "string"}}}]}}},
    {"type": "object", "properties": {"a": {"type": "string"}, "s": {
        "type": "string", "x-eval-compare": "semantic"}}},
    {"type": "object", "properties": {"a": {"type": "string"}, "o": {
        "type": "object", "x-eval-skip": True, "properties": {"c": {"type": "string"}}}}},
    {"type": "string"},
])
def test_shapes_the_flat_form_leaves_to_the_walk(items: dict[str, Any]) -> None:
    """Skipped items, maps, a leaf with no comparator of its own (a union, a batched
    judge), any container
    child (even a skipped one) and scalar items: no flat form, the walk judges every pair."""
    node = _xs_items(items)
    assert flat_pair_f1(node, True) is None

    def walked(g: Any, e: Any) -> float:
        return 0.25

    assert make_pair_f1(node, True, walked) is walked


def test_make_pair_f1_asks_the_walk_only_for_pairs_the_flat_form_declines() -> None:
    calls: list[tuple[Any, Any]] = []

    def walked(g: Any, e: Any) -> float:
        calls.append((g, e))
        return 0.25

    f1 = make_pair_f1(_xs_items(FLAT), True, walked)
    # a matches, b mismatches: precision = recall = 1/2, so F1 1/2 (not the walk's 0.25).
    assert f1({"a": "x", "b": 1}, {"a": "x", "b": 2}) == 0.5
    assert f1({"a": "x"}, {"a": "x"}) == 1.0
    assert calls == []
    assert f1(None, {"a": "x"}) == 0.25  # not two objects: the walk's figure
    assert f1({"a": "x"}, ["x"]) == 0.25
    assert calls == [(None, {"a": "x"}), ({"a": "x"}, ["x"])]


def test_unknown_keys_count_only_where_the_items_are_closed() -> None:
    """A field selection opens the object (``closed=False``): keys outside it are not
    judged, so an extracted key the schema does not name is no hallucination there."""
    from dataclasses import replace

    closed = _xs_items(FLAT)
    opened = replace(closed, closed=False)
    g, e = {"a": "x"}, {"a": "x", "z": 1}
    closed_f1, open_f1 = flat_pair_f1(closed, True), flat_pair_f1(opened, True)
    assert closed_f1 is not None and open_f1 is not None
    assert closed_f1(g, e) == pytest.approx(2 / 3)  # 1 match, 1 hallucination
    assert open_f1(g, e) == 1.0
    walk = RecordScorer(opened)
    assert count_results(walk.score(g, e)).pair_similarity() == 1.0


def test_a_field_null_on_both_sides_is_passed_over_not_the_end_of_the_pair() -> None:
    """Null as absent: a field null on both sides is skipped, and the fields after it are
    still judged (b's mismatch and c's omission count)."""
    items = _xs_items({"type": "object", "x-eval-null": "absent", "properties": {
        "a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}})
    g, e = {"a": None, "b": "x", "c": "y"}, {"a": None, "b": "z"}
    flat = flat_pair_f1(items, True)
    assert flat is not None
    walked = count_results(RecordScorer(items).score(g, e))
    assert (walked.matches, walked.mismatches, walked.omissions, walked.skipped) == (0, 1, 1, 1)
    assert flat(g, e) == walked.pair_similarity() == 0.0
    g2, e2 = {"a": None, "b": "x", "c": "y"}, {"a": None, "b": "x"}
    assert flat(g2, e2) == count_results(RecordScorer(items).score(g2, e2)).pair_similarity() \
        == pytest.approx(2 / 3)  # b matches, c omitted: p 1, r 1/2


def test_omissions_and_hallucinations_add_up_over_the_fields() -> None:
    items = _xs_items({"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "string"},
        "d": {"type": "string"}, "e": {"type": "string"}}})
    flat = flat_pair_f1(items, True)
    assert flat is not None
    g, e = {"a": "x", "b": 1, "c": "k"}, {"c": "k", "d": "u", "e": "v"}
    # c matches; a, b omitted; d, e invented: precision 1/3, recall 1/3.
    assert flat(g, e) == count_results(RecordScorer(items).score(g, e)).pair_similarity() \
        == pytest.approx(1 / 3)


def test_large_matrices_are_not_scored_pair_by_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``SMALL_MATRIX`` pairs, items the whole-matrix form judges never reach the
    per-pair F1 (which is about a hundred times slower there)."""
    items = _xs_items(FLAT)
    scorer = RecordScorer(parse_eval_schema({"type": "object"}))
    monkeypatch.setattr(scorer, "pair_f1", lambda _items: pytest.fail("scored pair by pair"))
    n = int(SMALL_MATRIX ** 0.5) + 1
    g = [{"a": str(i), "b": i} for i in range(n)]
    matrix = pair_f1_matrix(scorer, items, g, g[::-1])
    assert matrix.shape == (n, n) and matrix[0, n - 1] == 1.0 and matrix[0, 0] == 0.0
