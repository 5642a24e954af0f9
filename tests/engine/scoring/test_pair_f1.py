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
from evalschema.results import count_results
from evalschema.rules.registry import CompareTypeError
from evalschema.scoring.pair_f1 import flat_pair_f1
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
