"""Binding x-eval-compare, x-eval-transform and x-eval-align to the registry: each problem a
user sees, whole (code, pointer, severity, target, message, suggestion, quick-fix data), and
what the node is bound to when the schema is right, or after a problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from evalschema import Problem, check_eval_schema
from evalschema.errors import Severity
from evalschema.rules.registry import (
    ComparatorDef,
    ParamIssue,
    Registry,
    StrategyDef,
    TransformDef,
    default_registry,
)
from evalschema.schema.node import SchemaNode

WARNING = Severity.WARNING
BUILTIN_COMPARATORS = ("exact, numeric, oneof, levenshtein, normalized, date, type, contains, "
                       "regex, semantic")
BUILTIN_TRANSFORMS = ("lowercase, casefold, strip, normalize_whitespace, sort_tokens, "
                      "strip_accents, normalize_unicode, round_digits, type_convert")
STRATEGIES = "ordered, key_field, hungarian, set"
F = "/properties/f"


def leaf(type_: Any = "string", **kw: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"f": {"type": type_, **kw}}}


def compare(raw: Any, type_: Any = "string") -> dict[str, Any]:
    return leaf(type_, **{"x-eval-compare": raw})


def checked(schema: Any, registry: Registry | None = None,
            defaults: bool = True) -> tuple[tuple[Problem, ...], SchemaNode]:
    """The problems, and the node of field ``f`` (or ``a``)."""
    result = check_eval_schema(schema, registry=registry, defaults=defaults)
    node = result.root.child_map.get("f") or result.root.child_map["a"]
    return result.problems, node


def err(code: str, message: str, pointer: str, suggestion: str | None = None, *,
        target: str = "value", severity: Severity = Severity.ERROR,
        data: dict[str, Any] | None = None) -> Problem:
    return Problem(code, message, pointer, suggestion, severity, target, data=data or {})


def registry_with(*entries: ComparatorDef) -> Registry:
    reg = default_registry.copy()
    for d in entries:
        reg.add_comparator(d)
    return reg


def const_factory(score: float) -> Any:
    return lambda params: (lambda g, e: score)


# -- x-eval-compare ---------------------------------------------------------

SHAPE = err("compare-shape", "x-eval-compare must be a comparator name or an object with "
            "exactly one key (the name) holding its parameters", f"{F}/x-eval-compare",
            'e.g. {"numeric": {"tolerance": {"rel": 0.01}}}')


@pytest.mark.parametrize("raw", [5, [], {}, {"exact": {}, "numeric": {}}, {1: {}}],
                         ids=["number", "list", "empty", "two-names", "non-string-name"])
def test_a_malformed_compare_is_one_problem_and_the_leaf_compares_exactly(raw: Any) -> None:
    problems, node = checked(compare(raw))
    assert problems == (SHAPE,)
    assert (node.comparator, dict(node.params), node.label) == ("exact", {}, "exact")
    assert node.compare is not None and node.compare("a", "a") == 1.0
    assert node.compare("a", "b") == 0.0


def test_a_malformed_compare_falls_back_to_exact_at_the_same_place() -> None:
    """Without an ``exact`` in the registry the fallback cannot bind either: that is
    reported where the malformed x-eval-compare is, too."""
    reg = Registry()
    reg.add_comparator(default_registry.comparators["levenshtein"])
    problems, node = checked(compare(5), reg)
    assert problems == (SHAPE, err("unknown-comparator", "unknown comparator 'exact'",
                                   f"{F}/x-eval-compare", "known comparators: levenshtein",
                                   data={"replacements": [], "kind": "comparator"}))
    assert node.comparator is None


def test_an_unknown_comparator_is_not_bound() -> None:
    problems, node = checked(compare("zzzzzzzzzz"))
    assert problems == (err("unknown-comparator", "unknown comparator 'zzzzzzzzzz'",
                            f"{F}/x-eval-compare", "known comparators: " + BUILTIN_COMPARATORS,
                            data={"replacements": [], "kind": "comparator"}),)
    assert (node.comparator, node.compare, node.batch) == (None, None, None)
    problems, _ = checked(compare({"numerc": {"tolerance": {"rel": 0.1}}}, "number"))
    assert problems == (err("unknown-comparator", "unknown comparator 'numerc'",
                            f"{F}/x-eval-compare/numerc", "did you mean 'numeric'?",
                            target="key", data={"replacements": ["numeric"],
                                                "kind": "comparator"}),)


def test_a_default_comparator_missing_from_the_registry_is_reported_on_the_node() -> None:
    """A registry built from scratch, without the type defaults: the node is the place."""
    reg = Registry()
    reg.add_comparator(default_registry.comparators["exact"])
    problems, node = checked(leaf("number"), reg)
    assert problems == (err("unknown-comparator", "unknown comparator 'numeric'", F,
                            "known comparators: exact",
                            data={"replacements": [], "kind": "comparator"}),)
    assert node.comparator is None


def test_the_type_defaults_ignore_null() -> None:
    _, node = checked(leaf(["number", "null"]))
    assert node.comparator == "numeric"
    _, node = checked(leaf(["boolean", "null"]))
    assert node.comparator == "exact"
    _, node = checked(leaf(["integer", "string"]))
    assert node.comparator == "exact"


def test_without_defaults_a_leaf_needs_a_compare_unless_skipped() -> None:
    problems, node = checked(leaf(), defaults=False)
    assert problems == (err("missing-compare", "leaf has no x-eval-compare", F,
                            "run annotate_xeval (evalschema infer/annotate) or add one"),)
    assert node.comparator is None
    problems, node = checked(leaf(**{"x-eval-skip": True}), defaults=False)
    assert problems == ()
    assert (node.skip, node.comparator) == (True, None)
    problems, node = checked(compare("levenshtein"), defaults=False)
    assert (problems, node.comparator) == ((), "levenshtein")


def test_parameters_that_are_not_an_object() -> None:
    problems, node = checked(compare({"numeric": 5}, "number"))
    assert problems == (err("bad-param", "parameters of comparator 'numeric' must be an object",
                            f"{F}/x-eval-compare/numeric"),)
    assert node.comparator is None


def test_unknown_parameters_at_any_depth_with_the_closest_known_one() -> None:
    where = f"{F}/x-eval-compare/numeric"
    problems, node = checked(compare({"numeric": {"tolerance": {"rell": 0.1}}}, "number"))
    assert problems == (err("unknown-param", "comparator 'numeric' has no parameter "
                            "'tolerance.rell'", f"{where}/tolerance/rell",
                            "did you mean 'rel'?", target="key",
                            data={"replacements": ["rel"]}),)
    assert node.comparator is None
    problems, _ = checked(compare({"numeric": {"tolerance": {"zzzzzz": 1}}}, "number"))
    assert problems == (err("unknown-param", "comparator 'numeric' has no parameter "
                            "'tolerance.zzzzzz'", f"{where}/tolerance/zzzzzz",
                            "tolerance: rel, abs", target="key", data={"replacements": []}),)
    problems, _ = checked(compare({"numeric": {"zzzzzz": 1, "partial": True}}, "number"))
    assert problems == (err("unknown-param", "comparator 'numeric' has no parameter 'zzzzzz'",
                            f"{where}/zzzzzz", "parameters: tolerance, partial", target="key",
                            data={"replacements": []}),)
    problems, _ = checked(compare({"exact": {"x": 1}}))
    assert problems == (err("unknown-param", "comparator 'exact' has no parameter 'x'",
                            f"{F}/x-eval-compare/exact/x", "it takes no parameters",
                            target="key", data={"replacements": []}),)


def test_a_bad_parameter_value_names_its_path() -> None:
    where = f"{F}/x-eval-compare/numeric"
    problems, node = checked(compare({"numeric": {"tolerance": {}}}, "number"))
    assert problems == (err("bad-param", "numeric: tolerance: {} should be non-empty",
                            f"{where}/tolerance"),)
    assert node.comparator is None
    problems, _ = checked(compare({"numeric": {"tolerance": {"rel": -1}}}, "number"))
    assert problems == (err("bad-param", "numeric: tolerance/rel: -1 is less than the minimum "
                            "of 0", f"{where}/tolerance/rel"),)


def test_custom_parameter_schemas_are_checked_the_same_way() -> None:
    """Errors on the parameter object itself say 'params'; pattern keys are known keys; a
    schema with no ``properties`` takes no parameters; every missing one is named."""
    reg = registry_with(
        ComparatorDef("few", "at most one parameter", {"type": "object", "maxProperties": 1},
                      factory=const_factory(1.0)),
        ComparatorDef("tagged", "x- keys", {"type": "object", "properties": {"a": {}},
                                            "patternProperties": {"^x-": {}},
                                            "additionalProperties": False},
                      factory=const_factory(1.0)),
        ComparatorDef("bare", "nothing", {"type": "object", "additionalProperties": False},
                      factory=const_factory(1.0)),
        ComparatorDef("pair", "two", {"type": "object", "required": ["lo", "hi"]},
                      factory=const_factory(1.0)))
    problems, _ = checked(compare({"few": {"a": 1, "b": 2}}), reg)
    assert problems == (err("bad-param", "few: params: {'a': 1, 'b': 2} has too many "
                            "properties", f"{F}/x-eval-compare/few"),)
    problems, node = checked(compare({"tagged": {"a": 1, "x-note": 2}}), reg)
    assert (problems, node.comparator) == ((), "tagged")
    problems, _ = checked(compare({"tagged": {"x-note": 2, "note": 3}}), reg)
    assert problems == (err("unknown-param", "comparator 'tagged' has no parameter 'note'",
                            f"{F}/x-eval-compare/tagged/note", "parameters: a", target="key",
                            data={"replacements": []}),)
    problems, _ = checked(compare({"bare": {"x": 1}}), reg)
    assert problems == (err("unknown-param", "comparator 'bare' has no parameter 'x'",
                            f"{F}/x-eval-compare/bare/x", "it takes no parameters",
                            target="key", data={"replacements": []}),)
    problems, node = checked(compare("pair"), reg)
    assert problems == (err("missing-param", "comparator 'pair' needs parameter(s) 'lo', 'hi'",
                            f"{F}/x-eval-compare", 'add "lo", "hi"',
                            data={"missing": ["lo", "hi"], "name": "pair",
                                  "kind": "comparator"}),)
    assert node.comparator is None
    problems, _ = checked(compare({"pair": {"lo": 1}}), reg)
    assert problems == (err("missing-param", "comparator 'pair' needs parameter(s) 'hi'",
                            f"{F}/x-eval-compare/pair", 'add "hi"',
                            data={"missing": ["hi"], "name": "pair", "kind": "comparator"}),)


def test_a_missing_parameter_does_not_hide_the_other_bad_ones() -> None:
    reg = registry_with(ComparatorDef("span", "", {
        "type": "object", "required": ["lo", "hi"],
        "properties": {"lo": {"type": "number"}, "hi": {"type": "number"}}},
        factory=const_factory(1.0)))
    problems, node = checked(compare({"span": {"lo": "x"}}), reg)
    where = f"{F}/x-eval-compare/span"
    assert problems == (
        err("missing-param", "comparator 'span' needs parameter(s) 'hi'", where, 'add "hi"',
            data={"missing": ["hi"], "name": "span", "kind": "comparator"}),
        err("bad-param", "span: lo: 'x' is not of type 'number'", f"{where}/lo"))
    assert node.comparator is None


def test_an_unknown_parameter_two_levels_down_is_named_by_its_dotted_path() -> None:
    deep = {"type": "object", "properties": {"outer": {"type": "object", "properties": {
        "inner": {"type": "object", "properties": {"c": {}}, "additionalProperties": False}}}}}
    reg = registry_with(ComparatorDef("deep", "", deep, factory=const_factory(1.0)))
    problems, _ = checked(compare({"deep": {"outer": {"inner": {"x": 1}}}}), reg)
    assert problems == (err("unknown-param", "comparator 'deep' has no parameter "
                            "'outer.inner.x'", f"{F}/x-eval-compare/deep/outer/inner/x",
                            "outer.inner: c", target="key", data={"replacements": []}),)


def test_a_comparator_of_the_wrong_type_is_reported_and_still_bound() -> None:
    problems, node = checked(compare("levenshtein", ["integer", "boolean", "null"]))
    assert problems == (err("comparator-type", "comparator 'levenshtein' does not judge "
                            "boolean/integer values (it takes null, string)",
                            f"{F}/x-eval-compare",
                            "comparators for this type: exact, numeric, oneof, type"),)
    assert node.comparator == "levenshtein"
    for type_ in ("null", ["string", "null"]):
        assert checked(compare("levenshtein", type_))[0] == ()
    assert checked({"type": "object", "properties": {"f": {"x-eval-compare": "date"}}})[0] == ()


def test_no_comparator_fits_the_type_leaves_the_suggestion_empty() -> None:
    reg = Registry()
    reg.add_comparator(default_registry.comparators["levenshtein"])
    problems, _ = checked(compare("levenshtein", "integer"), reg)
    assert problems == (err("comparator-type", "comparator 'levenshtein' does not judge "
                            "integer values (it takes null, string)", f"{F}/x-eval-compare",
                            ""),)


def test_null_is_never_a_wrong_type_for_a_comparator() -> None:
    """Null is judged before any comparator runs: a comparator that does not list it still
    fits a nullable field, and is suggested for one."""
    reg = Registry()
    reg.add_comparator(default_registry.comparators["levenshtein"])
    reg.add_comparator(ComparatorDef("counted", "", types=frozenset({"integer"}),
                                     factory=const_factory(1.0)))
    problems, node = checked(compare("counted", ["integer", "null"]), reg)
    assert (problems, node.comparator) == ((), "counted")
    problems, _ = checked(compare("counted", ["string", "null"]), reg)
    assert problems == (err("comparator-type", "comparator 'counted' does not judge string "
                            "values (it takes integer)", f"{F}/x-eval-compare",
                            "comparators for this type: levenshtein"),)
    problems, _ = checked(compare("levenshtein", ["integer", "null"]), reg)
    assert problems == (err("comparator-type", "comparator 'levenshtein' does not judge "
                            "integer values (it takes null, string)", f"{F}/x-eval-compare",
                            "comparators for this type: counted"),)


def test_a_nested_required_parameter_is_a_bad_param_at_its_object() -> None:
    reg = registry_with(ComparatorDef("ranged", "", {"type": "object", "properties": {
        "range": {"type": "object", "required": ["lo"]}}}, factory=const_factory(1.0)))
    problems, node = checked(compare({"ranged": {"range": {}}}), reg)
    assert problems == (err("bad-param", "ranged: range: 'lo' is a required property",
                            f"{F}/x-eval-compare/ranged/range"),)
    assert node.comparator is None


def test_what_a_bound_comparator_carries() -> None:
    problems, node = checked(compare({"levenshtein": {"threshold": 0.8}}))
    assert problems == ()
    assert (node.comparator, dict(node.params), node.threshold) == (
        "levenshtein", {"threshold": 0.8}, 0.8)
    assert node.label == default_registry.comparators["levenshtein"].label({"threshold": 0.8})
    assert node.compare is not None and node.compare("kitten", "kitten") == 1.0
    assert node.matrix is not None and node.batch is None
    _, node = checked(compare("date"))
    assert (node.comparator, node.matrix, node.threshold) == ("date", None, 1.0)
    assert node.compare is not None and node.compare("2021-01-02", "2021-01-02") == 1.0


def test_a_threshold_parameter_that_is_not_a_number_leaves_the_default() -> None:
    reg = registry_with(ComparatorDef("near", "", {"type": "object"}, threshold_param="cut",
                                      factory=const_factory(0.5)))
    for cut, want in ((0.25, 0.25), (1, 1.0), ("high", 1.0), (None, 1.0)):
        problems, node = checked(compare({"near": {"cut": cut}}), reg)
        assert (problems, node.threshold) == ((), want), cut
    problems, node = checked(compare({"near": {"cut": float("nan")}}), reg)
    assert node.threshold == 1.0
    assert [p.code for p in problems] == ["not-finite"]


@pytest.mark.parametrize(("written", "want"), [(0, 0.0), (1, 1.0), (0.5, 0.5), (True, 0.8),
                                               (-0.1, 0.8), (1.5, 0.8), ("0.5", 0.8)])
def test_x_eval_threshold_overrides_the_comparator_s_within_0_to_1(written: Any,
                                                                  want: float) -> None:
    _, node = checked(leaf(**{"x-eval-compare": {"levenshtein": {"threshold": 0.8}},
                              "x-eval-threshold": written}))
    assert node.threshold == want
    assert type(node.threshold) is float


def test_a_factory_refusing_its_parameters_is_a_bad_param() -> None:
    def refuse(params: Mapping[str, Any]) -> Any:
        raise ValueError(f"cannot use {dict(params)}")

    reg = registry_with(
        ComparatorDef("picky", "", {"type": "object"}, factory=refuse),
        ComparatorDef("picky_batch", "", {"type": "object"}, batch_factory=refuse),
        ComparatorDef("picky_matrix", "", {"type": "object"}, factory=const_factory(1.0),
                      matrix_factory=refuse))
    for name in ("picky", "picky_batch", "picky_matrix"):
        problems, _ = checked(compare({name: {"k": 1}}), reg)
        assert problems == (err("bad-param", f"{name}: cannot use {{'k': 1}}",
                                f"{F}/x-eval-compare/{name}"),)
    problems, _ = checked(compare("picky"), reg)
    assert problems == (err("bad-param", "picky: cannot use {}", f"{F}/x-eval-compare"),)


def test_a_batch_comparator_is_bound_as_a_batch() -> None:
    def batch(params: Mapping[str, Any]) -> Any:
        return lambda pairs: [1.0 for _ in pairs]

    reg = registry_with(ComparatorDef("judge", "", {"type": "object"}, batch_factory=batch,
                                      factory=const_factory(0.0)))
    problems, node = checked(compare("judge"), reg)
    assert (problems, node.compare, node.matrix) == ((), None, None)
    assert node.batch is not None and list(node.batch([("a", "b")])) == [1.0]


def test_a_comparator_s_own_check_is_reported_at_the_parameter_and_blocks_binding() -> None:
    seen: list[dict[str, Any]] = []

    def vet(params: Mapping[str, Any]) -> Sequence[ParamIssue]:
        seen.append(dict(params))
        return [ParamIssue("no-url", f"{key!r} is refused", key, "use a profile",
                           target="value" if key == "judge" else "key")
                for key in sorted(params) if key in ("url", "judge")]

    reg = registry_with(ComparatorDef("llm", "", {"type": "object"},
                                      factory=const_factory(1.0), vet=vet))
    problems, node = checked(compare({"llm": {"url": "http://x", "judge": "j"}}), reg)
    where = f"{F}/x-eval-compare/llm"
    assert problems == (err("no-url", "llm: 'judge' is refused", f"{where}/judge",
                            "use a profile"),
                        err("no-url", "llm: 'url' is refused", f"{where}/url", "use a profile",
                            target="key"))
    assert node.comparator is None
    problems, node = checked(compare({"llm": {"model": "m"}}), reg)
    assert (problems, node.comparator) == ((), "llm")
    problems, node = checked(compare({"llm": 3}), reg)
    assert [p.code for p in problems] == ["bad-param"]
    assert seen == [{"url": "http://x", "judge": "j"}, {"model": "m"}]


# -- x-eval-transform -------------------------------------------------------

T = f"{F}/x-eval-transform"


def test_transforms_must_be_a_list() -> None:
    problems, node = checked(leaf(**{"x-eval-transform": "strip"}))
    assert problems == (err("transform-shape", "x-eval-transform must be a list of transforms",
                            T, 'e.g. ["strip", "lowercase"]'),)
    assert (node.transforms, node.transform_fns) == ((), ())


def test_each_bad_transform_is_reported_and_the_good_ones_still_run() -> None:
    problems, node = checked(leaf(**{"x-eval-transform": [
        "strip", 5, {"a": {}, "b": {}}, "zzzzzzzz", {"lowercas": {}},
        {"round_digits": {"digits": "x"}}, "round_digits", {"round_digits": 3}, "lowercase"]}))
    assert problems == (
        err("transform-shape", "a transform is a name or a one-key object holding its "
            "parameters", f"{T}/1"),
        err("transform-shape", "a transform is a name or a one-key object holding its "
            "parameters", f"{T}/2"),
        err("unknown-transform", "unknown transform 'zzzzzzzz'", f"{T}/3",
            "known transforms: " + BUILTIN_TRANSFORMS,
            data={"replacements": [], "kind": "transform"}),
        err("unknown-transform", "unknown transform 'lowercas'", f"{T}/4/lowercas",
            "did you mean 'lowercase'?", target="key",
            data={"replacements": ["lowercase"], "kind": "transform"}),
        err("bad-param", "round_digits: digits: 'x' is not of type 'integer'",
            f"{T}/5/round_digits/digits"),
        err("missing-param", "transform 'round_digits' needs parameter(s) 'digits'", f"{T}/6",
            'add "digits"', data={"missing": ["digits"], "name": "round_digits",
                                  "kind": "transform"}),
        err("bad-param", "parameters of transform 'round_digits' must be an object",
            f"{T}/7/round_digits"),
    )
    assert node.transforms == (("strip", {}), ("lowercase", {}))
    assert [fn for fn in node.transform_fns][1](node.transform_fns[0]("  AbC ")) == "abc"


def test_transforms_bind_their_parameters_in_order() -> None:
    problems, node = checked(leaf("number", **{"x-eval-transform": [
        {"round_digits": {"digits": 1}}, {"type_convert": {"to": "str"}}]}))
    assert problems == ()
    assert node.transforms == (("round_digits", {"digits": 1}),
                               ("type_convert", {"to": "str"}))
    value: Any = 2.46
    for fn in node.transform_fns:
        value = fn(value)
    assert value == "2.5"


def test_a_transform_of_the_wrong_type_is_a_warning_and_still_runs() -> None:
    problems, node = checked(leaf(["integer", "null"], **{"x-eval-transform": ["lowercase"]}))
    assert problems == (err("transform-type", "transform 'lowercase' does not apply to integer "
                            "values", f"{T}/0", "it takes string", severity=WARNING),)
    assert node.transforms == (("lowercase", {}),)
    problems, _ = checked(leaf(["string", "boolean"], **{"x-eval-transform": [
        {"round_digits": {"digits": 0}}]}))
    assert problems == (err("transform-type", "transform 'round_digits' does not apply to "
                            "boolean/string values", f"{T}/0", "it takes integer, number",
                            severity=WARNING),)
    reg = default_registry.copy()
    reg.add_transform(TransformDef("halve", "", types=frozenset({"integer"}),
                                   factory=lambda p: lambda v: v // 2))
    assert checked(leaf("integer", **{"x-eval-transform": ["halve"]}), reg)[0] == ()
    untyped = {"type": "object", "properties": {"f": {"x-eval-transform": ["lowercase"]}}}
    assert checked(untyped)[0] == ()
    assert checked(leaf("null", **{"x-eval-transform": ["lowercase"]}))[0] == ()
    assert checked(leaf(["string", "null"], **{"x-eval-transform": ["strip"]}))[0] == ()


def test_an_entry_that_declares_no_types_takes_every_type() -> None:
    reg = registry_with(ComparatorDef("anything", "", types=frozenset(),
                                      factory=const_factory(1.0)))
    reg.add_transform(TransformDef("tag", "", types=frozenset(), factory=lambda p: str))
    problems, node = checked(leaf("integer", **{"x-eval-compare": "anything",
                                                "x-eval-transform": ["tag"]}), reg)
    assert problems == ()
    assert (node.comparator, node.transforms) == ("anything", (("tag", {}),))


# -- x-eval-align -----------------------------------------------------------

A = "/properties/a/x-eval-align"
OBJECTS = {"type": "object", "properties": {"sku": {"type": "string"},
                                            "name": {"type": "string"}}}


def arr(align: Any, items: Any = None) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": {
        "type": "array", "items": {"type": "string"} if items is None else items,
        "x-eval-align": align}}}


def aligned(align: Any, items: Any = None,
            registry: Registry | None = None) -> tuple[tuple[Problem, ...], Any]:
    problems, node = checked(arr(align, items), registry)
    assert node.align is not None
    return problems, (node.align.strategy, dict(node.align.params))


def test_an_array_without_align_is_ordered() -> None:
    problems, node = checked({"type": "object", "properties": {"a": {
        "type": "array", "items": {"type": "string"}}}})
    assert problems == ()
    assert node.align is not None and (node.align.strategy, dict(node.align.params)) == (
        "ordered", {})


@pytest.mark.parametrize(("align", "want"), [
    ("hungarian", ("hungarian", {})),
    ({"ordered": True}, ("ordered", {})),
    ({"match_by": "hungarian", "ordered": True}, ("hungarian", {})),
    ({"match_by": "set", "ordered": False}, ("set", {})),
])
def test_align_forms_that_bind(align: Any, want: Any) -> None:
    assert aligned(align) == ((), want)


def test_a_malformed_align_falls_back_to_ordered() -> None:
    assert aligned(5) == ((err("align-shape", 'x-eval-align must be an object such as '
                               '{"match_by": "hungarian"}', A),), ("ordered", {}))
    need = err("align-shape", 'x-eval-align needs "match_by" (or "ordered": true)', A,
               "strategies: " + STRATEGIES, data={"missing": ["match_by"], "kind": "align"})
    assert aligned({"ordered": False}) == ((need,), ("ordered", {}))
    assert aligned({"ordered": "yes"}) == (
        (err("align-shape", "'ordered' must be true or false", f"{A}/ordered"), need),
        ("ordered", {}))
    assert aligned({"match_by": "hungarian", "ordered": 1}) == (
        (err("align-shape", "'ordered' must be true or false", f"{A}/ordered"),),
        ("hungarian", {}))


def test_an_unknown_strategy_falls_back_to_ordered() -> None:
    def unknown(shown: str, suggestion: str, replacements: list[str]) -> Problem:
        return err("unknown-strategy", f"unknown alignment strategy {shown}", f"{A}/match_by",
                   suggestion, data={"replacements": replacements, "kind": "strategy"})

    assert aligned({"match_by": "zzzzzzzzz"}) == (
        (unknown("'zzzzzzzzz'", "strategies: " + STRATEGIES, []),), ("ordered", {}))
    assert aligned({"match_by": 5}) == (
        (unknown("5", "strategies: " + STRATEGIES, []),), ("ordered", {}))
    assert aligned({"match_by": "hungarain"}) == (
        (unknown("'hungarain'", "did you mean 'hungarian'?", ["hungarian"]),), ("ordered", {}))


def test_strategy_parameters_are_checked() -> None:
    assert aligned({"match_by": "hungarian", "foo": 1}) == (
        (err("unknown-param", "alignment strategy 'hungarian' has no parameter 'foo'",
             f"{A}/foo", "it takes no parameters", target="key", data={"replacements": []}),),
        ("ordered", {}))
    assert aligned({"match_by": "key_field"}, OBJECTS) == (
        (err("missing-param", "alignment strategy 'key_field' needs parameter(s) 'key'", A,
             'add "key"', data={"missing": ["key"], "name": "key_field",
                                "kind": "alignment strategy"}),), ("ordered", {}))
    assert aligned({"match_by": "key_field", "key": "sku"}, OBJECTS) == (
        (), ("key_field", {"key": "sku"}))


@pytest.mark.parametrize("items", [{"type": "string"}, {"type": "object"}, {},
                                   {"type": ["string", "null"], "properties": {"k": {}}}],
                         ids=["scalars", "no-properties", "untyped", "typed-not-object"])
def test_key_field_needs_items_that_are_objects_with_properties(items: Any) -> None:
    problems, got = aligned({"match_by": "key_field", "key": "k"}, items)
    assert problems == (err("align-items-not-object", "key_field alignment needs items that "
                            "are objects with properties", f"{A}/match_by",
                            'use {"match_by": "hungarian"} or "set" for scalars'),)
    assert got == ("key_field", {"key": "k"})


def test_key_field_key_must_be_an_item_property() -> None:
    untyped = {"properties": {"sku": {"type": "string"}}}
    assert aligned({"match_by": "key_field", "key": "sku"}, untyped) == (
        (), ("key_field", {"key": "sku"}))
    assert aligned({"match_by": "key_field", "key": "skuu"}, OBJECTS)[0] == (
        err("align-key-unknown", "key 'skuu' is not a property of the items", f"{A}/key",
            "did you mean 'sku'?", data={"replacements": ["sku"]}),)
    assert aligned({"match_by": "key_field", "key": "zzzzzz"}, OBJECTS)[0] == (
        err("align-key-unknown", "key 'zzzzzz' is not a property of the items", f"{A}/key",
            "properties: sku, name", data={"replacements": ["sku", "name"]}),)


@pytest.mark.parametrize("items", [OBJECTS, {"properties": {"sku": {}}},
                                   {"type": ["object", "null"]}],
                         ids=["objects", "untyped-with-properties", "typed-object"])
def test_set_alignment_of_objects_is_a_warning(items: Any) -> None:
    assert aligned({"match_by": "set"}, items) == (
        (err("align-set-objects", "set alignment compares scalars; these items are objects",
             f"{A}/match_by", 'use {"match_by": "hungarian"} or "key_field"',
             severity=WARNING),), ("set", {}))


def test_set_alignment_of_scalars_is_quiet() -> None:
    assert aligned({"match_by": "set"}, {"type": ["string", "integer"]}) == ((), ("set", {}))
    assert aligned({"match_by": "set"}, {}) == ((), ("set", {}))
    strings = {"type": "string", "properties": {"k": {}}}  # stray properties: still strings
    assert aligned({"match_by": "set"}, strings) == ((), ("set", {}))


def test_a_strategy_that_cannot_run_falls_back_to_ordered() -> None:
    reg = default_registry.copy()
    reg.strategies["ghost"] = StrategyDef("ghost", "no function")

    def refuse(params: Mapping[str, Any]) -> Any:
        raise ValueError("window must be positive")

    reg.add_strategy(StrategyDef("windowed", "", {"type": "object"}, factory=refuse))
    assert aligned({"match_by": "ghost"}, registry=reg) == (
        (err("strategy-no-function", "alignment strategy 'ghost' has no function in the "
             "registry, so it cannot run", f"{A}/match_by",
             "register it with register_strategy(name, fn)"),), ("ordered", {}))
    assert aligned({"match_by": "windowed", "window": 0}, registry=reg) == (
        (err("bad-param", "windowed: window must be positive", A),), ("ordered", {}))


def test_a_bound_strategy_runs_with_its_parameters() -> None:
    calls: list[dict[str, Any]] = []

    def factory(params: Mapping[str, Any]) -> Any:
        calls.append(dict(params))
        return lambda ctx, items, g, e: ([], [], [])

    reg = default_registry.copy()
    reg.add_strategy(StrategyDef("mine", "", {"type": "object"}, factory=factory))
    problems, node = checked(arr({"match_by": "mine", "width": 2, "ordered": False}), reg)
    assert problems == () and calls == [{"width": 2}]
    assert node.align is not None
    assert (node.align.strategy, dict(node.align.params)) == ("mine", {"width": 2})
    assert node.align.run(None, None, [], []) == ([], [], [])  # type: ignore[arg-type]
