"""The general walk (``scoring.walk.RecordScorer``) off its hot path: what each unusual
value becomes, with the reason, values and pointers the user is shown.

Scored with the walk itself (an evaluator would take the specialized scorer for most of
these schemas, which hands these cases back to the walk; test_specialized checks both
give the same).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest

from evalschema import evaluate, parse_eval_schema
from evalschema.policy import NATIVE, STRUCT_EXTRACT_EVAL, ScoringPolicy
from evalschema.rules.builtins import builtin_registry
from evalschema.rules.registry import CompareTypeError, register_comparator, register_strategy
from evalschema.scoring.walk import RecordScorer

S = {"type": "string"}
LEV = {"type": "string", "x-eval-compare": "levenshtein"}
PRICE = {"anyOf": [
    {"type": "string", "x-eval-compare": "date"},
    {"type": "integer", "x-eval-compare": {"numeric": {"tolerance": {"abs": 2}}}},
]}

Row = tuple[Any, ...]


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def walk(schema: dict[str, Any], gold: Any, extracted: Any, policy: ScoringPolicy = NATIVE,
         **kw: Any) -> list[Row]:
    """(path, field, status, score, reason, gold, extracted, gold pointer, extracted pointer)
    of each result."""
    scorer = RecordScorer(parse_eval_schema(schema, **kw), policy)
    return [(r.path, r.field, str(r.status), r.score, r.reason, r.gold, r.extracted,
             r.gold_pointer, r.extracted_pointer) for r in scorer.score(gold, extracted)]


def spy_methods(monkeypatch: pytest.MonkeyPatch, names: tuple[str, ...]
                ) -> list[tuple[str, str]]:
    """Calls of the named ``RecordScorer`` methods, as (method, path of the node given).
    A fast path and its fallback give the same results: only these calls tell them apart."""
    calls: list[tuple[str, str]] = []
    for name in names:
        general = getattr(RecordScorer, name)

        def spy(self: RecordScorer, node: Any, *args: Any, _name: str = name,
                _general: Any = general) -> None:
            calls.append((_name, node.path))
            _general(self, node, *args)

        monkeypatch.setattr(RecordScorer, name, spy)
    return calls


class TestContainerTypeErrors:
    vendor = obj(vendor=obj(name=S))

    def test_null_containers(self) -> None:
        assert walk(self.vendor, {"vendor": None}, {"vendor": None}) == []
        assert walk(self.vendor, {"vendor": None}, {"vendor": {"name": "a"}}) == [
            ("vendor.name", "vendor.name", "hallucination", 0.0, "not in gold", None, "a",
             None, "/vendor/name")]
        assert walk(self.vendor, {"vendor": {"name": "a"}}, {"vendor": None}) == [
            ("vendor.name", "vendor.name", "omission", 0.0, "missing from extracted", "a",
             None, "/vendor/name", None)]

    def test_equal_non_containers_match_with_a_note(self) -> None:
        assert walk(self.vendor, {"vendor": "x"}, {"vendor": "x"}) == [
            ("vendor", "vendor", "match", 1.0, "type mismatch", "x", "x", "/vendor", "/vendor")]
        # Equal in Python but not the same JSON value: 1 is not true.
        assert walk(self.vendor, {"vendor": 1}, {"vendor": True}) == [
            ("vendor", "vendor", "mismatch", 0.0,
             "type mismatch: extracted value true is boolean, expected an object", 1, True,
             "/vendor", "/vendor")]

    def test_the_message_names_the_side_that_is_wrong(self) -> None:
        assert walk(self.vendor, {"vendor": "x"}, {"vendor": {"name": "a"}})[0][4] == (
            'type mismatch: gold value "x" is string, expected an object')
        tags = obj(tags={"type": "array", "items": S})
        assert walk(tags, {"tags": ["a"]}, {"tags": 5}) == [
            ("tags", "tags", "mismatch", 0.0,
             "type mismatch: extracted value 5 is integer, expected an array", ["a"], 5,
             "/tags", "/tags")]
        assert walk(tags, {"tags": {"a": 1}}, {"tags": ["a"]})[0][4] == (
            'type mismatch: gold value {"a": 1} is object, expected an array')


class TestLeaves:
    def test_a_skipped_child_on_one_side_keeps_its_value_and_pointer(self) -> None:
        schema = obj(a={**S, "x-eval-skip": True}, b=S)
        assert walk(schema, {"a": "x", "b": "k"}, {"b": "k"})[0] == (
            "a", "a", "skipped", 0.0, None, "x", None, "/a", None)
        assert walk(schema, {"b": "k"}, {"a": "y", "b": "k"})[0] == (
            "a", "a", "skipped", 0.0, None, None, "y", None, "/a")
        assert walk(schema, {"a": "x"}, {"a": "y"})[0] == (
            "a", "a", "skipped", 0.0, None, "x", "y", "/a", "/a")

    def test_a_leaf_off_the_hot_path_goes_straight_to_leaf(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Null as absent takes a leaf off the inlined path, to ``child``, which judges it
        itself rather than through ``node`` (one frame less per leaf)."""
        calls = spy_methods(monkeypatch, ("node", "leaf"))
        assert walk(obj(a=S), {"a": "x"}, {"a": "y"}, null_policy="absent")[0][2] == "mismatch"
        assert calls == [("node", ""), ("leaf", "a")]

    def test_skipped_array_items_keep_their_values(self) -> None:
        schema = obj(tags={"type": "array", "items": {**S, "x-eval-skip": True}})
        assert walk(schema, {"tags": ["a", "b"]}, {"tags": ["a", "c"]}) == [
            ("tags[0]", "tags[]", "skipped", 0.0, None, "a", "a", "/tags/0", "/tags/0"),
            ("tags[1]", "tags[]", "skipped", 0.0, None, "b", "c", "/tags/1", "/tags/1")]

    def test_a_failing_transform_is_scored_by_side(self) -> None:
        schema = obj(name={**S, "x-eval-transform": ["lowercase"]})
        assert walk(schema, {"name": 5}, {"name": "A"}) == [
            ("name", "name", "error", 0.0,
             "transform failed on the gold value: lowercase needs a string, got 5", 5, "A",
             "/name", "/name")]
        # The gold value as transformed is shown beside the extracted value that failed.
        assert walk(schema, {"name": "A"}, {"name": 5}) == [
            ("name", "name", "mismatch", 0.0,
             "transform failed on the extracted value: lowercase needs a string, got 5", "a", 5,
             "/name", "/name")]

    def test_a_failing_transform_raises_when_the_policy_says_so(self) -> None:
        schema = obj(name={**S, "x-eval-transform": ["lowercase"]})
        with pytest.raises(CompareTypeError, match="lowercase needs a string, got 5"):
            walk(schema, {"name": 5}, {"name": "a"}, STRUCT_EXTRACT_EVAL)
        with pytest.raises(CompareTypeError, match="lowercase needs a string, got 5"):
            walk(schema, {"name": "a"}, {"name": 5}, STRUCT_EXTRACT_EVAL)

    def test_values_the_comparator_cannot_judge(self) -> None:
        assert walk(obj(s=LEV), {"s": 5}, {"s": 5}) == [
            ("s", "s", "match", 1.0, "identical values (levenshtein cannot judge them: gold "
             "value 5 is integer, not a string)", 5, 5, "/s", "/s")]
        mismatch = ("s", "s", "mismatch", 0.0,
                    "gold value 5 is integer, not a string (levenshtein)", 5, 5, "/s", "/s")
        assert walk(obj(s=LEV), {"s": 5}, {"s": 5}, STRUCT_EXTRACT_EVAL) == [mismatch]
        assert walk(obj(s=LEV), {"s": 5}, {"s": 6}) == [(*mismatch[:6], 6, *mismatch[7:])]
        # Equal in Python, not the same JSON value.
        assert walk(obj(s=LEV), {"s": 1}, {"s": True})[0][2:4] == ("mismatch", 0.0)

    def test_a_comparator_that_raises_is_an_error(self) -> None:
        reg = builtin_registry()

        def touchy(g: Any, e: Any, params: Any) -> float:
            raise ValueError(f"cannot read {e}")

        register_comparator("touchy", touchy, registry=reg)
        schema = obj(t={"type": "string", "x-eval-compare": "touchy"})
        assert walk(schema, {"t": "a"}, {"t": "b"}, registry=reg) == [
            ("t", "t", "error", 0.0, "comparator touchy failed: ValueError: cannot read b", "a",
             "b", "/t", "/t")]

    def test_a_verdict_with_a_reason(self) -> None:
        """The date comparator judges with a reason: a score (status by threshold), or
        none (an error)."""
        schema = obj(d={"type": "string", "x-eval-compare": "date"})
        assert walk(schema, {"d": "2021-03-04"}, {"d": "2021"}) == [
            ("d", "d", "mismatch", 0.0, '"2021" ≠ gold "2021-03-04" (date): the extracted '
             "value gives the year only, gold the day", "2021-03-04", "2021", "/d", "/d")]
        assert walk(schema, {"d": "2021"}, {"d": "2021-03-04"})[0][2:5] == ("match", 1.0, None)
        assert walk(schema, {"d": "N/A"}, {"d": "2021"}) == [
            ("d", "d", "error", 0.0, 'gold value "N/A" is not a date, so the date comparator '
             "cannot judge this field (fix the gold value)", "N/A", "2021", "/d", "/d")]


class TestBranches:
    def test_no_branch_takes_the_value(self) -> None:
        schema = obj(v=PRICE)
        assert walk(schema, {"v": True}, {"v": True}) == [
            ("v", "v", "match", 1.0, "no anyOf branch takes boolean (they take string, "
             "integer); equal values match", True, True, "/v", "/v")]
        assert walk(schema, {"v": True}, {"v": False})[0][2:5] == (
            "mismatch", 0.0, "no anyOf branch takes boolean (they take string, integer)")
        assert walk(schema, {"v": 1}, {"v": True})[0][2:4] == ("match", 1.0)  # integer branch
        assert walk(schema, {"v": [1]}, {"v": [1]})[0][4] == (
            "no anyOf branch takes array (they take string, integer); equal values match")
        # Only the extracted value has a type: its branch judges the null gold value.
        assert walk(schema, {"v": None}, {"v": 3})[0][2:5] == (
            "mismatch", 0.0, "anyOf/1 (integer): gold value is null, not a number (numeric, "
                             "abs 2)")
        assert walk(schema, {"v": True}, {"v": None})[0][4] == (
            "no anyOf branch takes boolean (they take string, integer)")
        assert walk(schema, {"v": None}, {"v": True})[0][4] == (
            "no anyOf branch takes boolean (they take string, integer)")

    def test_the_gold_type_names_the_missing_branch(self) -> None:
        assert walk(obj(v=PRICE), {"v": True}, {"v": [1]})[0][4] == (
            "no anyOf branch takes boolean (they take string, integer)")

    def test_branches_of_array_items_name_their_combiner(self) -> None:
        """Items of a union of arrays: the branch labels run on (``anyOf/0/items``)."""
        union = {"anyOf": [{"type": "array", "items": PRICE["anyOf"][0]},
                           {"type": "array", "items": PRICE["anyOf"][1]}]}
        assert walk(obj(v=union), {"v": [True]}, {"v": [False]})[0][4] == (
            "no anyOf branch takes boolean (they take string, integer)")

    def test_a_null_gold_value_does_not_pick_a_branch(self) -> None:
        """Even a branch that takes any type: the extracted value's type picks."""
        union = {"anyOf": [{"type": "string", "x-eval-compare": "date"},
                           {"x-eval-compare": "exact"}]}
        assert walk(obj(v=union), {"v": None}, {"v": "2021-01-05"}) == [
            ("v", "v", "mismatch", 0.0, "anyOf/0 (string): gold value is null, not a date "
             "(date)", None, "2021-01-05", "/v", "/v")]

    def test_nulls_no_branch_takes_match(self) -> None:
        assert walk(obj(v=PRICE), {"v": None}, {"v": None}) == [
            ("v", "v", "match", 1.0, None, None, None, "/v", "/v")]

    def test_one_sided_values_and_reasons_are_tagged_with_the_branch(self) -> None:
        schema = obj(v=PRICE)
        assert walk(schema, {}, {"v": 3}) == [
            ("v", "v", "hallucination", 0.0, "anyOf/1 (integer): not in gold", None, 3, None,
             "/v")]
        assert walk(schema, {"v": "2021"}, {})[0][2:5] == (
            "omission", 0.0, "anyOf/0 (string): missing from extracted")
        assert walk(schema, {"v": "2021"}, {"v": "2021-03-04"})[0][2:5] == (
            "match", 1.0, "anyOf/0 (string)")

    def test_only_the_branch_results_are_tagged(self) -> None:
        """Fields scored before the union keep their own reasons."""
        rows = walk(obj(a=S, v=PRICE), {"a": "x", "v": "2021"}, {"a": "y", "v": "2021-03-04"})
        assert [r[:5] for r in rows] == [
            ("a", "a", "mismatch", 0.0, None),
            ("v", "v", "match", 1.0, "anyOf/0 (string)")]


class TestUnknownKeys:
    schema = obj(v=obj(a=S))
    gold: ClassVar[dict[str, Any]] = {"v": {"a": "x", "zz": 1}}
    extracted: ClassVar[dict[str, Any]] = {"v": {"a": "x", "zz": 2, "yy": 3}}

    def test_keys_gold_also_holds_are_skipped(self) -> None:
        assert walk(self.schema, self.gold, self.extracted)[1:] == [
            ("v.yy", "v.yy", "hallucination", 0.0, "not in the schema", None, 3, None, "/v/yy"),
            ("v.zz", "v.zz", "skipped", 0.0, "in gold and extracted but not in the schema", 1,
             2, "/v/zz", "/v/zz")]

    def test_or_are_hallucinations_by_policy(self) -> None:
        assert walk(self.schema, self.gold, self.extracted, STRUCT_EXTRACT_EVAL)[1:] == [
            ("v.yy", "v.yy", "hallucination", 0.0, "not in the schema", None, 3, None, "/v/yy"),
            ("v.zz", "v.zz", "hallucination", 0.0, "not in the schema", None, 2, None, "/v/zz")]

    def test_in_array_items_the_field_is_the_items(self) -> None:
        schema = obj(xs={"type": "array", "items": obj(a=S)})
        assert walk(schema, {"xs": [{"a": "p"}]}, {"xs": [{"a": "p", "b~/": 1}]})[1] == (
            "xs[0].b~/", "xs[].b~/", "hallucination", 0.0, "not in the schema", None, 1, None,
            "/xs/0/b~0~1")


class TestArrays:
    schema = obj(xs={"type": "array", "items": obj(a=S)})

    def test_extra_elements_are_labelled_by_index_or_from_the_end(self) -> None:
        gold, extracted = {"xs": [{"a": "p"}]}, {"xs": [{"a": "p"}, {"a": "q"}, {"a": "r"}]}
        assert [(r[0], r[8]) for r in walk(self.schema, gold, extracted)] == [
            ("xs[0].a", "/xs/0/a"), ("xs[1].a", "/xs/1/a"), ("xs[2].a", "/xs/2/a")]
        assert [(r[0], r[8]) for r in walk(self.schema, gold, extracted,
                                           STRUCT_EXTRACT_EVAL)] == [
            ("xs[0].a", "/xs/0/a"), ("xs[-1].a", "/xs/1/a"), ("xs[-2].a", "/xs/2/a")]

    def test_a_failing_alignment_is_one_error(self) -> None:
        reg = builtin_registry()
        register_strategy("twice", lambda g, e, p: [(0, 0), (0, 1)], registry=reg)
        schema = obj(xs={"type": "array", "items": S, "x-eval-align": {"match_by": "twice"}})
        assert walk(schema, {"xs": ["a"]}, {"xs": ["a", "b"]}, registry=reg) == [
            ("xs", "xs", "error", 0.0, "alignment strategy twice paired an element twice",
             ["a"], ["a", "b"], "/xs", "/xs")]


    def test_the_pair_f1_of_an_items_node_is_built_once(self) -> None:
        """Hungarian alignment asks for it per array: one function per items node, per
        scorer (a sub-scorer and the flat form are built once, not per record)."""
        root = parse_eval_schema(self.schema)
        items, scorer = root.child_map["xs"].items, RecordScorer(root)
        other = parse_eval_schema(obj(ys={"type": "array", "items": obj(b=S)})).child_map[
            "ys"].items
        assert items is not None and other is not None
        f1 = scorer.pair_f1(items)
        assert scorer.pair_f1(items) is f1
        assert scorer.pair_f1(other) is not f1
        assert scorer.pair_f1(other) is scorer.pair_f1(other)
        assert f1({"a": "p"}, {"a": "p"}) == 1.0


class TestMaps:
    skills = obj(m={"type": "object", "properties": {"top": S},
                    "additionalProperties": {"type": "array", "items": S}})
    pattern = obj(m={"type": "object", "properties": {"top": S},
                     "patternProperties": {"^x_": {"type": "number"}}})

    def test_entries_are_judged_by_key(self) -> None:
        assert walk(self.skills, {"m": {"top": "a", "L": ["x", "y"], "T~": ["g"]}},
                    {"m": {"top": "a", "L": ["x"], "H/": ["c"]}}) == [
            ("m.top", "m.top", "match", 1.0, None, "a", "a", "/m/top", "/m/top"),
            ("m{L}[0]", "m{}[]", "match", 1.0, None, "x", "x", "/m/L/0", "/m/L/0"),
            ("m{L}[1]", "m{}[]", "omission", 0.0, "missing from extracted", "y", None,
             "/m/L/1", None),
            ("m{T~}[0]", "m{}[]", "omission", 0.0, "missing from extracted", "g", None,
             "/m/T~0/0", None),
            ("m{H/}[0]", "m{}[]", "hallucination", 0.0, "not in gold", None, "c", None,
             "/m/H~1/0")]

    def test_keys_no_entry_takes_are_extra_keys(self) -> None:
        # Keys outside the schema come first: the entries after them are still judged.
        got = walk(self.pattern, {"m": {"r": 1, "q": 2, "top": "a", "x_1": 1}},
                   {"m": {"z": 3, "top": "a", "x_1": 1, "x_2": 2, "q": 2}})
        assert got[1:] == [
            ("m{x_1}", "m{}", "match", 1.0, None, 1, 1, "/m/x_1", "/m/x_1"),
            ("m{x_2}", "m{}", "hallucination", 0.0, "not in gold", None, 2, None, "/m/x_2"),
            ("m.q", "m.q", "skipped", 0.0, "in gold and extracted but not in the schema", 2, 2,
             "/m/q", "/m/q"),
            ("m.z", "m.z", "hallucination", 0.0, "not in the schema", None, 3, None, "/m/z")]

    def test_a_selection_opens_the_map(self) -> None:
        """With ``fields=``, keys outside the selection are not held against the extractor."""
        schema = {"type": "object", "properties": {"top": S, "other": S},
                  "patternProperties": {"^x_": {"type": "number"}}}
        run = evaluate([{"top": "a", "x_1": 1}], [{"top": "a", "z": 3, "x_1": 2, "other": "b"}],
                       schema, fields=["top"])
        assert [(r.path, str(r.status)) for r in run.records[0].field_results] == [
            ("top", "match"), ("{x_1}", "mismatch")]

    def test_skipped_entries_keep_the_values_of_their_sides(self) -> None:
        schema = obj(m={"type": "object", "additionalProperties": {**S, "x-eval-skip": True}})
        assert walk(schema, {"m": {"a": "x", "b": "y"}}, {"m": {"a": "z", "c": "w"}}) == [
            ("m{a}", "m{}", "skipped", 0.0, None, "x", "z", "/m/a", "/m/a"),
            ("m{b}", "m{}", "skipped", 0.0, None, "y", None, "/m/b", None),
            ("m{c}", "m{}", "skipped", 0.0, None, None, "w", None, "/m/c")]

    def test_a_map_at_the_root(self) -> None:
        schema = {"type": "object", "patternProperties": {"^x_": {"type": "number"}}}
        assert walk(schema, {"x_1": 1, "q": 1}, {"x_1": 1, "z": 2, "q": 1}) == [
            ("{x_1}", "{}", "match", 1.0, None, 1, 1, "/x_1", "/x_1"),
            ("q", "q", "skipped", 0.0, "in gold and extracted but not in the schema", 1, 1,
             "/q", "/q"),
            ("z", "z", "hallucination", 0.0, "not in the schema", None, 2, None, "/z")]

    def test_one_sided_maps_expand_by_entry(self) -> None:
        gold = {"m": {"top": "a", "x_1": 1, "q": 2}}
        assert walk(self.pattern, gold, {}) == [
            ("m.top", "m.top", "omission", 0.0, "missing from extracted", "a", None, "/m/top",
             None),
            ("m{x_1}", "m{}", "omission", 0.0, "missing from extracted", 1, None, "/m/x_1",
             None)]
        assert walk(self.pattern, {}, gold) == [
            ("m.top", "m.top", "hallucination", 0.0, "not in gold", None, "a", None, "/m/top"),
            ("m{x_1}", "m{}", "hallucination", 0.0, "not in gold", None, 1, None, "/m/x_1"),
            ("m.q", "m.q", "hallucination", 0.0, "not in the schema", None, 2, None, "/m/q")]

    def test_null_entries_under_null_as_absent(self) -> None:
        gold = {"m": {"top": None, "x_1": None, "x_2": 5}}
        assert walk(self.pattern, gold, {"m": {"x_1": None, "x_2": None}},
                    null_policy="absent") == [
            ("m{x_1}", "m{}", "skipped", 0.0, "null on both sides (null counts as absent)",
             None, None, "/m/x_1", "/m/x_1"),
            ("m{x_2}", "m{}", "omission", 0.0, "missing from extracted", 5, None, "/m/x_2",
             None)]
        assert walk(self.pattern, {}, gold, null_policy="absent") == [
            ("m{x_2}", "m{}", "hallucination", 0.0, "not in gold", None, 5, None, "/m/x_2")]


class TestOneSidedContainers:
    def test_skipped_and_null_children(self) -> None:
        schema = obj(v={**obj(a=S, b={**S, "x-eval-skip": True}, c=S)})
        value = {"v": {"a": "x", "b": "y", "c": None}}
        assert walk(schema, value, {}, null_policy="absent") == [
            ("v.a", "v.a", "omission", 0.0, "missing from extracted", "x", None, "/v/a", None),
            ("v.b", "v.b", "skipped", 0.0, None, "y", None, "/v/b", None)]
        assert walk(schema, {}, value, null_policy="absent") == [
            ("v.a", "v.a", "hallucination", 0.0, "not in gold", None, "x", None, "/v/a"),
            ("v.b", "v.b", "skipped", 0.0, None, None, "y", None, "/v/b")]
        # Null as a value: a null child is omitted like any other.
        assert walk(schema, value, {})[2] == (
            "v.c", "v.c", "omission", 0.0, "missing from extracted", None, None, "/v/c", None)

    def test_a_null_child_counted_as_absent_is_passed_over_not_the_end(self) -> None:
        schema = obj(v=obj(a=S, b=S))
        assert walk(schema, {"v": {"a": None, "b": "x"}}, {}, null_policy="absent") == [
            ("v.b", "v.b", "omission", 0.0, "missing from extracted", "x", None, "/v/b", None)]

    def test_a_whole_record_on_one_side_keeps_its_paths(self) -> None:
        """A record that is not an object: every gold leaf is an omission at its own path
        (no leading dot), and the record's own keys are judged from its root."""
        rows = walk(obj(a=S, o=obj(b=S)), {"a": "x", "o": {"b": "y"}}, None)
        assert [r[:3] + r[7:] for r in rows] == [
            ("a", "a", "omission", "/a", None), ("o.b", "o.b", "omission", "/o/b", None)]

    def test_arrays_and_empty_containers(self) -> None:
        schema = obj(xs={"type": "array", "items": obj(a=S)}, o=obj(a=S))
        assert walk(schema, {}, {"xs": [{"a": "p"}, {"a": "q"}], "o": {}}) == [
            ("xs[0].a", "xs[].a", "hallucination", 0.0, "not in gold", None, "p", None,
             "/xs/0/a"),
            ("xs[1].a", "xs[].a", "hallucination", 0.0, "not in gold", None, "q", None,
             "/xs/1/a"),
            ("o", "o", "hallucination", 0.0, "not in gold", None, {}, None, "/o")]
        assert walk(schema, {"xs": []}, {})[0] == (
            "xs", "xs", "omission", 0.0, "missing from extracted", [], None, "/xs", None)


class TestHotPath:
    """What the walk's inlined paths (``object``: plain leaves, containers on both sides)
    give, and that they are taken: the general methods they stand for give the same results,
    so only a count of calls can tell a fast path from its fallback."""

    schema = obj(o=obj(a=S), xs={"type": "array", "items": obj(p=obj(q=S), n=S)}, v=LEV)

    def test_empty_containers_on_both_sides_match_where_they_are(self) -> None:
        gold = {"o": {}, "xs": [{"p": {}, "n": "1"}], "v": "abc"}
        assert walk(self.schema, gold, gold) == [
            ("o", "o", "match", 1.0, None, {}, {}, "/o", "/o"),
            ("xs[0].p", "xs[].p", "match", 1.0, None, {}, {}, "/xs/0/p", "/xs/0/p"),
            ("xs[0].n", "xs[].n", "match", 1.0, None, "1", "1", "/xs/0/n", "/xs/0/n"),
            ("v", "v", "match", 1.0, None, "abc", "abc", "/v", "/v")]

    def test_empty_arrays_and_skipped_object_items(self) -> None:
        schema = obj(xs={"type": "array", "items": {**obj(a=S), "x-eval-skip": True}})
        assert walk(schema, {"xs": []}, {"xs": []}) == [
            ("xs", "xs", "match", 1.0, None, [], [], "/xs", "/xs")]
        assert walk(schema, {"xs": [{"a": "x"}]}, {"xs": [{"a": "y"}]}) == [
            ("xs[0]", "xs[]", "skipped", 0.0, None, {"a": "x"}, {"a": "y"}, "/xs/0", "/xs/0")]

    def test_plain_leaves_and_containers_skip_the_general_methods(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        calls: list[str] = []
        for name in ("leaf", "child"):
            general = getattr(RecordScorer, name)

            def spy(self: RecordScorer, *args: Any, _name: str = name, _general: Any = general
                    ) -> None:
                calls.append(_name)
                _general(self, *args)

            monkeypatch.setattr(RecordScorer, name, spy)
        gold = {"o": {"a": "x"}, "xs": [{"p": {"q": "y"}, "n": "1"}], "v": "abcd"}
        extracted = {"o": {"a": "x"}, "xs": [{"p": {"q": "z"}, "n": "1"}], "v": "abce"}
        rows = walk(self.schema, gold, extracted)
        assert [(r[0], r[2], r[3]) for r in rows] == [
            ("o.a", "match", 1.0), ("xs[0].p.q", "mismatch", 0.0), ("xs[0].n", "match", 1.0),
            ("v", "mismatch", 0.75)]
        assert calls == []
        # A missing value leaves the hot path: the general method takes each of o and xs
        # (absent on both sides) and v (an omission).
        assert walk(self.schema, {"v": "a"}, {})[0][2] == "omission"
        assert calls == ["child", "child", "child"]

    def test_a_sub_scorer_for_pair_f1_keeps_the_policy(self) -> None:
        """Elements the flat form cannot judge (nested objects) are scored by a walk of their
        own, under the same policy: under struct_extract_eval's, a key the schema does not
        know is a hallucination even when gold holds it too."""
        items = obj(inner=obj(a=S))
        pair = {"inner": {"a": "x", "z": 1}}
        native = RecordScorer(parse_eval_schema(obj(xs={"type": "array", "items": items})))
        strict = RecordScorer(native.root, STRUCT_EXTRACT_EVAL)
        node = native.root.child_map["xs"].items
        assert node is not None
        assert native.pair_f1(node)(pair, pair) == 1.0
        assert strict.pair_f1(node)(pair, pair) == pytest.approx(2 / 3)  # p 1/2, r 1


class TestBatchLeaves:
    SEM: ClassVar[dict[str, Any]] = {"type": "string", "x-eval-compare": "semantic"}

    def test_batch_leaves_wait_in_one_batch_per_node(self) -> None:
        """Left pending where they are, with their values; the pairs of one node (here the
        items of an array) gathered in one batch, with the indices of their results."""
        scorer = RecordScorer(parse_eval_schema(obj(xs={"type": "array", "items": self.SEM},
                                                    b=self.SEM)))
        for _ in range(2):  # a second record starts with no batch of the first
            out = scorer.score({"xs": ["p", "q"], "b": "y"}, {"xs": ["p2", "q2"], "b": "y2"})
            assert [(r.path, str(r.status), r.score, r.reason, r.gold, r.extracted,
                     r.gold_pointer, r.extracted_pointer) for r in out] == [
                ("xs[0]", "pending", 0.0, None, "p", "p2", "/xs/0", "/xs/0"),
                ("xs[1]", "pending", 0.0, None, "q", "q2", "/xs/1", "/xs/1"),
                ("b", "pending", 0.0, None, "y", "y2", "/b", "/b")]
            assert [(b.node.path, b.indices, b.pairs) for b in scorer.pending.values()] == [
                ("xs[]", [0, 1], [("p", "p2"), ("q", "q2")]), ("b", [2], [("y", "y2")])]

    def test_a_leaf_with_no_comparator_is_an_error_where_it_is(self) -> None:
        """Only a node built by hand can lack one; it is reported, not skipped."""
        root = parse_eval_schema(obj(a=S, b=S))
        root.child_map["a"].compare = None
        assert RecordScorer(root).score({"a": "x", "b": "k"}, {"a": "y", "b": "k"})[0][:10] == (
            "a", "a", "error", 0.0, "exact", "no comparator", "x", "y", "/a", "/a")


def test_results_carry_the_record_they_belong_to() -> None:
    """The index and id a caller passes (and index 0 by default) are on every result: the
    report and the editor find the record by them."""
    scorer = RecordScorer(parse_eval_schema(obj(a=S, b=LEV)))
    first = scorer.score({"a": "x", "b": "y"}, {"a": "x"})
    assert [(r.record_index, r.record_id) for r in first] == [(0, None), (0, None)]
    later = scorer.score({"a": "x"}, {"a": "z"}, index=7, record_id="INV-7")
    assert [(r.record_index, r.record_id) for r in later] == [(7, "INV-7")]


def test_results_of_omitted_invented_and_unknown_values_share_their_paths_across_records(
) -> None:
    """Paths and pointers built for one result (a line item missing from extracted, one
    invented, a key the schema does not know) are interned: the kept results of many
    records hold one copy of each, not one per result (the language server keeps them)."""
    schema = {"type": "object", "additionalProperties": False, "properties": {
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "number"}}}}}}
    gold = [{"items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]} for _ in range(3)]
    extracted = [{"items": [{"sku": "A", "qty": 1}], "note": "x"} for _ in range(2)]
    extracted.append({"items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2},
                                {"sku": "C", "qty": 3}], "note": "x"})
    # Records as a file gives them: each parsed on its own (no string shared by chance).
    run = evaluate([json.loads(json.dumps(g)) for g in gold],
                   [json.loads(json.dumps(e)) for e in extracted], schema)
    found: dict[tuple[str, str, str | None, str | None], list[Any]] = {}
    for rec in run.records:
        for r in rec.field_results:
            if r.status.value in ("omission", "hallucination"):
                found.setdefault((r.status.value, r.path, r.gold_pointer, r.extracted_pointer),
                                 []).append(r)
    omitted = found[("omission", "items[1].sku", "/items/1/sku", None)]
    assert len(omitted) == 2 and omitted[0].path is omitted[1].path
    assert omitted[0].gold_pointer is omitted[1].gold_pointer
    unknown = found[("hallucination", "note", None, "/note")]
    assert len(unknown) == 3
    assert all(r.path is unknown[0].path and r.extracted_pointer is unknown[0].extracted_pointer
               and r.field is unknown[0].field for r in unknown)
    [invented] = found[("hallucination", "items[2].qty", None, "/items/2/qty")]
    assert invented.score == 0.0
