"""The specialized scorer (``evalschema.scoring.specialized``) against the general walk.

An evaluator scores with a scorer specialized to its schema when it has one, and with
the general walk (``RecordScorer``) otherwise. Both must give the same results, record
counts and per-field tallies, to the last bit of every float, on any schema and
records: checked on the random suites of the property tests, and on shapes those do
not reach (deep nesting, targets, selected fields, every fallback).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from test_properties import SETTINGS, suite
from test_walk import spy_methods

from evalschema import (
    RecordResult,
    RunAccumulator,
    iter_evaluate,
    make_evaluator,
    parse_eval_schema,
    reclassify_nulls,
)
from evalschema.policy import STRUCT_EXTRACT_EVAL
from evalschema.rules.builtins import builtin_registry
from evalschema.rules.registry import register_comparator, register_strategy
from evalschema.run.evaluate import Evaluator
from evalschema.scoring.specialized import (
    LOCATION_CACHE,
    MAX_DEPTH,
    _Locations,
    specializable,
)


def _general(schema: Any, **kw: Any) -> Evaluator:
    ev = make_evaluator(schema, **kw)
    ev.specialized = None
    return ev


def _specialized(schema: Any, **kw: Any) -> Evaluator:
    return make_evaluator(schema, **kw)


def _run(ev: Evaluator, gold: list[Any], extracted: list[Any]
         ) -> tuple[list[RecordResult], RunAccumulator]:
    acc = RunAccumulator()
    return list(iter_evaluate(gold, extracted, ev, acc)), acc


def _bits(x: Any) -> Any:
    """Floats by their exact representation (0.0 and -0.0 differ, as they may downstream)."""
    if isinstance(x, float):
        return x.hex()
    if isinstance(x, tuple | list):
        return [_bits(v) for v in x]
    if isinstance(x, dict):
        return {k: _bits(v) for k, v in x.items()}
    return x


def assert_same(schema: Any, gold: list[Any], extracted: list[Any], **kw: Any) -> None:
    slow, fast = _general(schema, **kw), _specialized(schema, **kw)
    assert fast.specialized is not None
    want, want_acc = _run(slow, gold, extracted)
    got, got_acc = _run(fast, gold, extracted)
    assert _bits(got) == _bits(want)
    assert _bits(got_acc.per_field) == _bits(want_acc.per_field)
    assert list(got_acc.per_field) == list(want_acc.per_field)  # first-seen order
    assert _bits(got_acc.result().to_dict()) == _bits(want_acc.result().to_dict())


@SETTINGS
@given(suite(symmetric=False, noisy=True, extra=True))
def test_specialized_scorer_matches_general_walk(case: tuple[Any, ...]) -> None:
    schema, gold, extracted, null_policy = case
    assert_same(schema, gold, extracted, null_policy=null_policy)


@SETTINGS
@given(suite(symmetric=False, noisy=False, extra=False))
def test_specialized_scorer_matches_general_walk_on_clean_records(case: tuple[Any, ...]) -> None:
    """Mostly the hot path (values present and of the right type)."""
    schema, gold, extracted, null_policy = case
    assert_same(schema, gold, extracted, null_policy=null_policy)


INVOICE = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "total": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}},
                  "x-eval-weight": 0.1},
        "currency": {"type": "string", "x-eval-transform": ["strip", "lowercase"]},
        "vendor": {"type": "object", "properties": {
            "name": {"type": "string", "x-eval-compare": {"levenshtein": {"threshold": 0.8}}},
            "address": {"type": "object", "properties": {
                "city": {"type": "string", "x-eval-compare": "normalized"}}}}},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"},
            "qty": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "dims": {"type": "object", "properties": {"w": {"type": "number"}}}}}},
        "notes": {"type": "array", "items": {"type": "string"},
                  "x-eval-align": {"match_by": "hungarian"}},
    },
}

GOLD = [
    {"id": "a", "total": 10.0, "currency": " EUR", "vendor": {"name": "Acme", "address": {
        "city": "Zürich"}}, "items": [{"sku": "x", "qty": 1, "tags": ["p", "q"],
                                       "dims": {"w": 1.5}}, {"sku": "y", "qty": 2}],
     "notes": ["one", "two"]},
    {"id": "b", "total": 3, "currency": 7, "vendor": {}, "items": [], "notes": []},
    {"id": "c", "vendor": {"name": None}, "items": [{"sku": "z"}, "not an object"]},
]
EXTRACTED = [
    {"id": "a", "total": 10.05, "currency": "eur", "vendor": {"name": "Acme Inc", "address": {
        "city": "zurich", "zip": "8000"}}, "items": [{"sku": "x", "qty": "1", "tags": ["q"],
                                                       "dims": {"w": 1.5, "h": 2}},
                                                      {"sku": "y", "qty": 2}, {"sku": "w"}],
     "notes": ["two", "one", "three"], "extra": True},
    {"id": "b", "total": None, "currency": "7", "vendor": [], "items": [], "notes": []},
    {"id": "c", "vendor": {"name": None}, "items": {"sku": "z"}},
]


def test_same_on_an_invoice_with_every_fallback() -> None:
    """Weights, transforms (one failing), nested objects, extra keys, type mismatches,
    nested arrays inside items, Hungarian-aligned scalars."""
    assert_same(INVOICE, GOLD, EXTRACTED)
    assert_same(INVOICE, GOLD, EXTRACTED, null_policy="absent")


def test_same_with_a_target_and_selected_fields() -> None:
    assert_same(INVOICE, GOLD, EXTRACTED, target="vendor")
    assert_same(INVOICE, GOLD, EXTRACTED, fields=["items[].sku", "total"])


def test_same_on_nesting_deeper_than_the_specialized_scorer_goes() -> None:
    depth = MAX_DEPTH + 3
    schema: dict[str, Any] = {"type": "string", "x-eval-compare": "levenshtein"}
    gold: Any = "leaf"
    extracted: Any = "lead"
    for i in range(depth):
        schema = {"type": "object", "properties": {f"k{i}": schema, "n": {"type": "integer"}}}
        gold = {f"k{i}": gold, "n": i}
        extracted = {f"k{i}": extracted, "n": i + i % 2}
    assert_same(schema, [gold], [extracted])


def test_batch_comparators_keep_the_general_walk() -> None:
    """Batch results are pending until the record is done: they cannot be tallied as
    the walk emits them."""
    schema = {"type": "object", "properties": {"a": {"type": "string",
                                                     "x-eval-compare": "semantic"}}}
    assert not specializable(make_evaluator(schema).root)
    assert specializable(make_evaluator(INVOICE).root)


def test_post_processors_see_the_general_walks_results() -> None:
    """Post-processors rewrite results before they are tallied: those runs keep the
    general walk and its separate tally."""
    want_ev = _general(INVOICE, post_process=reclassify_nulls())
    got_ev = _specialized(INVOICE, post_process=reclassify_nulls())
    assert got_ev.specialized is not None
    want, want_acc = _run(want_ev, GOLD, EXTRACTED)
    got, got_acc = _run(got_ev, GOLD, EXTRACTED)
    assert _bits(got) == _bits(want)
    assert _bits(got_acc.result().to_dict()) == _bits(want_acc.result().to_dict())


class Boom(BaseException):
    """Not an Exception: nothing on the way catches it."""


def test_a_record_failing_part_way_is_tallied_nowhere() -> None:
    """The specialized scorer tallies as it goes; a record that raises half-way (the
    language server carries on past it) must leave the accumulator as it was."""
    reg = builtin_registry()

    def touchy(g: Any, e: Any, params: Any) -> float:
        if e == "boom":
            raise Boom
        return 1.0 if g == e else 0.0

    register_comparator("touchy", touchy, registry=reg)
    schema = {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "number", "x-eval-weight": 0.3},
        "new": {"type": "string"},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "x": {"type": "string"}, "y": {"type": "string", "x-eval-compare": "touchy"}}}}}}
    ok = {"a": "x", "b": 1.5, "items": [{"x": "p", "y": "q"}]}
    bad_g = {"a": "x", "b": 1.5, "new": "n", "items": [{"x": "p", "y": "q"}] * 2}
    bad_e = {"a": "y", "b": 1.2, "new": "m", "zz": 1,
             "items": [{"x": "p", "y": "q"}, {"x": "p", "y": "boom"}]}
    for ev in (_specialized(schema, registry=reg), _general(schema, registry=reg)):
        acc = RunAccumulator()
        ev.score_pair(ok, ok, index=0, acc=acc)
        before = {k: list(t) for k, t in acc.per_field.items()}
        try:
            ev.score_pair(bad_g, bad_e, index=1, acc=acc)
        except Boom:
            pass
        else:
            raise AssertionError("the comparator should have raised")
        assert list(acc.per_field) == list(before)
        for k, t in acc.per_field.items():
            assert t[:8] == before[k][:8]
            assert t[8:] == pytest.approx(before[k][8:])
        assert acc.n == 1
        ev.score_pair(ok, ok, index=2, acc=acc)
        assert acc.result().total_matches == 2 * 4


MAPS_AND_UNIONS = {
    "type": "object",
    "properties": {
        "skills": {"type": "object", "properties": {"top": {"type": "string"}},
                   "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "v": {"anyOf": [{"type": "string", "x-eval-compare": "date"},
                        {"type": "integer", "x-eval-compare": {"numeric": {
                            "tolerance": {"abs": 2}}}}]},
        "rows": {"type": "array", "items": {"type": "object", "properties": {
            "n": {"type": "string"}},
            "patternProperties": {"^x_": {"type": "number"}}}},
    },
}


def test_same_with_maps_and_anyof_branches() -> None:
    gold = [{"skills": {"top": "py", "L": ["a", "b"], "T": ["git"]}, "v": 100,
             "rows": [{"n": "a", "x_1": 1}, {"n": "b"}]},
            {"skills": {}, "v": "2021-01-05", "rows": []},
            {"skills": ["not", "a", "map"], "v": True}]
    extracted = [{"skills": {"top": "py", "L": ["a", "c"], "H": ["chess"]}, "v": 101,
                  "rows": [{"n": "a", "x_1": 2, "y": 0}, {"n": "b", "x_2": 3}]},
                 {"skills": {"L": []}, "v": "Jan 5, 2021", "rows": [{"n": "c"}]},
                 {"skills": {"L": ["a"]}}]
    assert_same(MAPS_AND_UNIONS, gold, extracted)
    assert_same(MAPS_AND_UNIONS, gold, extracted, null_policy="absent")


def test_same_on_arrays_longer_than_the_location_cache() -> None:
    """Element locations are cached up to ``LOCATION_CACHE``; a longer array gets the
    cached ones and new ones past them, in order (a shorter record first fills some)."""
    schema = {"type": "object", "properties": {"xs": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "integer"}}}}}}
    n = LOCATION_CACHE + 5
    short = {"xs": [{"a": i} for i in range(3)]}
    long_gold = {"xs": [{"a": i} for i in range(n)]}
    long_extracted = {"xs": [{"a": i if i % 7 else -i} for i in range(n - 2)]}
    assert_same(schema, [short, long_gold, short], [short, long_extracted, long_gold])
    ev = _specialized(schema)
    (rec,) = _run(ev, [long_gold], [long_extracted])[0]
    last = rec.field_results[-1]
    assert (last.path, last.gold_pointer, str(last.status)) == (
        f"xs[{n - 1}].a", f"/xs/{n - 1}/a", "omission")


GENERAL_METHODS = ("node", "object", "child", "leaf", "expand", "limited", "extra_keys",
                   "array")


def _spy_general(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Calls into the general walk: the closures and their fallbacks give the same
    results, so only these calls tell them apart."""
    return spy_methods(monkeypatch, GENERAL_METHODS)


HOT = {"type": "object", "properties": {
    "id": {"type": "string"},
    "total": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
    "vendor": {"type": "object", "properties": {
        "name": {"type": "string", "x-eval-compare": "levenshtein"},
        "address": {"type": "object", "properties": {"city": {"type": "string"}}}}},
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}, "qty": {"type": "integer"}}}}}}


def test_clean_records_never_reach_the_general_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain leaves, objects inside objects and arrays of objects are scored by the
    closures: the general walk is not asked for any of them."""
    ev = _specialized(HOT)
    calls = _spy_general(monkeypatch)
    gold = {"id": "a", "total": 10.0, "vendor": {"name": "Acme", "address": {"city": "Bern"}},
            "items": [{"sku": "x", "qty": 1}, {"sku": "y", "qty": 2}]}
    extracted = {"id": "a", "total": 10.05, "vendor": {"name": "Acme!", "address": {
        "city": "Basel"}}, "items": [{"sku": "x", "qty": 1}, {"sku": "z", "qty": 2}]}
    (rec,) = _run(ev, [gold], [extracted])[0]
    assert [(r.path, str(r.status)) for r in rec.field_results] == [
        ("id", "match"), ("total", "match"), ("vendor.name", "mismatch"),
        ("vendor.address.city", "mismatch"), ("items[0].sku", "match"), ("items[0].qty", "match"),
        ("items[1].sku", "mismatch"), ("items[1].qty", "match")]
    assert calls == []
    # Null counted as absent on one side only: judged in the closures too.
    absent = _specialized(HOT, null_policy="absent")
    (rec,) = _run(absent, [gold], [{**extracted, "id": None}])[0]
    assert (rec.field_results[0].path, str(rec.field_results[0].status)) == ("id", "omission")
    assert calls == []
    # An array empty on one side: the closures expand the other side's elements.
    _run(ev, [{**gold, "items": []}], [extracted])
    assert calls == [("expand", "items[]"), ("expand", "items[].sku"),
                     ("expand", "items[].qty")] * 2
    calls.clear()
    # Arrays inside nested objects are closures too.
    nested = _specialized({"type": "object", "properties": {"o": {"type": "object", "properties": {
        "xs": HOT["properties"]["items"]}}}})
    _run(nested, [{"o": {"xs": gold["items"]}}], [{"o": {"xs": extracted["items"]}}])
    assert calls == []
    # A value of the wrong type leaves the closures, for that field only.
    _run(ev, [gold], [{**extracted, "vendor": "Acme"}])
    assert calls == [("child", "vendor"), ("node", "vendor")]


def test_objects_are_inlined_down_to_max_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first object deeper than ``MAX_DEPTH`` is where the general walk takes over."""
    schema: dict[str, Any] = {"type": "string"}
    gold: Any = "x"
    for _ in range(MAX_DEPTH + 2):
        schema = {"type": "object", "properties": {"k": schema}}
        gold = {"k": gold}
    ev = _specialized(schema)
    calls = _spy_general(monkeypatch)
    _run(ev, [gold], [gold])
    assert calls[0] == ("child", ".".join(["k"] * (MAX_DEPTH + 1)))


def test_array_locations_are_cached_and_extended_in_order() -> None:
    """Entries made once per index: a longer array extends the cache from where it ends;
    past ``LOCATION_CACHE`` the cached ones are reused and the rest made, not kept."""
    locations = _Locations("xs", "/xs", [(0, "a", "/a")])
    three = list(locations.upto(3))
    assert three == [("xs[0]", "/xs/0", "xs[0].a", "/xs/0/a"),
                     ("xs[1]", "/xs/1", "xs[1].a", "/xs/1/a"),
                     ("xs[2]", "/xs/2", "xs[2].a", "/xs/2/a")]
    five = locations.upto(5)
    assert five[:3] == three and [e[0] for e in five] == [f"xs[{i}]" for i in range(5)]
    assert all(a is b for a, b in zip(five, three, strict=False))  # made once
    assert len(locations.upto(LOCATION_CACHE)) == LOCATION_CACHE == len(locations.cache)
    longer = locations.upto(LOCATION_CACHE + 2)
    assert len(locations.cache) == LOCATION_CACHE  # not kept past the cap
    assert longer[-1][0] == f"xs[{LOCATION_CACHE + 1}]"
    assert all(a is b for a, b in zip(longer, locations.cache, strict=False))


def test_same_where_a_comparator_gives_a_verdict_or_an_alignment_fails() -> None:
    """Fields after a verdict, a failed alignment or a null skipped on both sides are
    still scored, with the results and tallies the general walk gives."""
    reg = builtin_registry()
    register_strategy("twice", lambda g, e, p: [(0, 0), (0, 1)], registry=reg)
    schema = {"type": "object", "properties": {
        "d": {"type": "string", "x-eval-compare": "date"},
        "z": {"type": ["string", "null"], "x-eval-null": "absent"},
        "n": {"type": "string"},
        "xs": {"type": "array", "items": {"type": "string"}, "x-eval-align": {"match_by": "twice"}},
        "m": {"type": "string"}}}
    gold = [{"d": "2021-03-04", "z": None, "n": "a", "xs": ["a"], "m": "k"},
            {"d": "not a date", "z": None, "n": "b", "m": "k"}]
    extracted = [{"d": "2021", "z": None, "n": "a", "xs": ["a", "b"], "m": "k"},
                 {"d": "x", "z": None, "n": "c", "m": "q"}]
    assert_same(schema, gold, extracted, registry=reg)
    (first, second), _ = _run(_specialized(schema, registry=reg), gold, extracted)
    assert [(r.path, str(r.status), r.score, r.gold_pointer, r.extracted_pointer)
            for r in first.field_results] == [
        ("d", "mismatch", 0.0, "/d", "/d"), ("z", "skipped", 0.0, "/z", "/z"),
        ("n", "match", 1.0, "/n", "/n"), ("xs", "error", 0.0, "/xs", "/xs"),
        ("m", "match", 1.0, "/m", "/m")]
    d, xs = first.field_results[0], first.field_results[3]
    assert (d.gold, d.extracted, d.reason) == (
        "2021-03-04", "2021", '"2021" ≠ gold "2021-03-04" (date): the extracted value gives '
        "the year only, gold the day")
    assert (xs.gold, xs.extracted, xs.reason) == (
        ["a"], ["a", "b"], "alignment strategy twice paired an element twice")
    assert [(r.path, str(r.status)) for r in second.field_results] == [
        ("d", "error"), ("z", "skipped"), ("n", "mismatch"), ("m", "mismatch")]


def test_same_on_array_items_nested_as_deep_as_the_closures_go(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Items are inlined from level 1: their objects' rows are laid out to the same depth,
    and the general walk takes over below it."""
    items: dict[str, Any] = {"type": "string"}
    value: Any = "x"
    for _ in range(MAX_DEPTH + 1):
        items = {"type": "object", "properties": {"k": items, "n": {"type": "integer"}}}
        value = {"k": value, "n": 1}
    schema = {"type": "object", "properties": {"xs": {"type": "array", "items": items}}}
    assert_same(schema, [{"xs": [value]}], [{"xs": [value, value]}])
    ev = _specialized(schema)
    calls = _spy_general(monkeypatch)
    _run(ev, [{"xs": [value]}], [{"xs": [value]}])
    assert calls[0] == ("child", ".".join(["xs[]", *["k"] * MAX_DEPTH]))


def test_same_when_every_node_weighs_the_same_but_not_one() -> None:
    """No weight of 1.0 anywhere, the root's included: the weight sums still carry them."""
    schema = {"type": "object", "x-eval-weight": 2, "properties": {
        "a": {"type": "string", "x-eval-weight": 2},
        "o": {"type": "object", "x-eval-weight": 2, "properties": {
            "b": {"type": "string", "x-eval-weight": 2}}}}}
    assert_same(schema, [{"a": "x", "o": {"b": "y"}}], [{"a": "x", "o": {"b": "z"}}])
    _, acc = _run(_specialized(schema), [{"a": "x", "o": {"b": "y"}}],
                  [{"a": "x", "o": {"b": "z"}}])
    assert acc.result().to_dict()["mean_weighted_score"] == 0.5


def test_same_under_a_policy_that_counts_extra_elements_from_the_end() -> None:
    """struct_extract_eval labels extra extracted elements ``xs[-1]``, ``xs[-2]``…"""
    schema = {"type": "object", "properties": {"xs": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "string"}}}}}}
    slow = Evaluator(parse_eval_schema(schema), policy=STRUCT_EXTRACT_EVAL)
    fast = Evaluator(parse_eval_schema(schema), policy=STRUCT_EXTRACT_EVAL)
    slow.specialized = None
    assert fast.specialized is not None
    gold, extracted = [{"xs": [{"a": "p"}]}], [{"xs": [{"a": "p"}, {"a": "q"}, {"a": "r"}]}]
    (want,), _ = _run(slow, gold, extracted)
    (got,), _ = _run(fast, gold, extracted)
    assert _bits(got) == _bits(want)
    assert [r.path for r in got.field_results] == ["xs[0].a", "xs[-1].a", "xs[-2].a"]
