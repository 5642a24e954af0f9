"""The registry: one list of names, custom registration, protection of built-ins."""

from __future__ import annotations

from typing import Any

import pytest

from evalschema import (
    Registry,
    RegistryError,
    builtin_registry,
    default_registry,
    evaluate,
    parse_eval_schema,
    register_comparator,
    register_transform,
)
from evalschema.rules.keywords import KEYWORDS


def test_builtins_are_all_declared() -> None:
    reg = builtin_registry()
    assert list(reg.comparators) == ["exact", "numeric", "oneof", "levenshtein", "normalized",
                                     "date", "type", "contains", "regex", "semantic"]
    assert list(reg.transforms) == ["lowercase", "casefold", "strip", "normalize_whitespace",
                                    "sort_tokens", "strip_accents", "normalize_unicode",
                                    "round_digits", "type_convert"]
    assert list(reg.strategies) == ["ordered", "key_field", "hungarian", "set"]
    for d in [*reg.comparators.values(), *reg.transforms.values(), *reg.strategies.values()]:
        assert d.doc and d.summary and d.builtin
        assert d.params.get("type") == "object"


def test_keywords_have_docs_and_value_schemas() -> None:
    assert set(KEYWORDS) == {"x-eval-compare", "x-eval-transform", "x-eval-align",
                             "x-eval-skip", "x-eval-weight", "x-eval-threshold", "x-eval-null",
                             "x-eval-id"}
    assert all(k.doc and k.value_schema and k.snippet for k in KEYWORDS.values())


def test_builtins_cannot_be_replaced() -> None:
    with pytest.raises(RegistryError, match="built in"):
        register_comparator("exact", lambda g, e, p: 1.0, registry=builtin_registry())


def test_custom_comparator_is_validated_and_used() -> None:
    reg = builtin_registry()

    def starts(g: Any, e: Any, params: dict[str, Any]) -> float:
        return 1.0 if str(e).startswith(str(g)[: params["n"]]) else 0.0

    register_comparator("prefix", starts, registry=reg, doc="Same first n characters.",
                        params={"type": "object", "properties": {"n": {"type": "integer"}},
                                "required": ["n"]})
    with pytest.raises(RegistryError, match="already registered"):
        register_comparator("prefix", starts, registry=reg)
    register_comparator("prefix", starts, registry=reg, overwrite=True,
                        params={"type": "object", "properties": {"n": {"type": "integer"}},
                                "required": ["n"]})
    schema = {"type": "object", "properties": {"s": {"type": "string",
                                                     "x-eval-compare": {"prefix": {"n": 3}}}}}
    run = evaluate([{"s": "abcdef"}], [{"s": "abcxyz"}], schema, registry=reg)
    assert run.records[0].field_results[0].status == "match"
    # the default registry never saw it
    assert "prefix" not in default_registry.comparators


def test_custom_comparator_may_return_bool_or_object() -> None:
    reg = builtin_registry()

    class R:
        score = 0.5

    register_comparator("half", lambda g, e, p: R(), registry=reg)
    register_comparator("yes", lambda g, e, p: True, registry=reg)
    schema = {"type": "object", "properties": {"a": {"x-eval-compare": "half"},
                                               "b": {"x-eval-compare": "yes"}}}
    rec = evaluate([{"a": 1, "b": 2}], [{"a": 1, "b": 2}], schema, registry=reg).records[0]
    assert [r.score for r in rec.field_results] == [0.5, 1.0]


def test_custom_transform() -> None:
    reg = builtin_registry()
    register_transform("digits_only", lambda v, p: "".join(c for c in v if c.isdigit()),
                       registry=reg)
    schema = {"type": "object", "properties": {"p": {"type": "string",
                                                     "x-eval-transform": ["digits_only"]}}}
    rec = evaluate([{"p": "+49 89 1234"}], [{"p": "4989-1234"}], schema, registry=reg).records[0]
    assert rec.field_results[0].status == "match"


def test_failing_custom_comparator_is_an_error_status() -> None:
    reg = builtin_registry()
    register_comparator("boom", lambda g, e, p: 1 / 0, registry=reg)
    schema = {"type": "object", "properties": {"a": {"x-eval-compare": "boom"}}}
    run = evaluate([{"a": 1}], [{"a": 1}], schema, registry=reg)
    r = run.records[0].field_results[0]
    assert r.status == "error"
    assert "ZeroDivisionError" in (r.reason or "")


def test_unknown_name_suggestions_come_from_the_registry() -> None:
    reg = Registry()
    reg = builtin_registry()
    register_comparator("money", lambda g, e, p: 1.0, registry=reg)
    from evalschema import check_eval_schema

    schema = {"type": "object", "properties": {"a": {"x-eval-compare": "mony"}}}
    p = check_eval_schema(schema, registry=reg).problems[0]
    assert p.suggestion == "did you mean 'money'?"
    assert parse_eval_schema({"type": "object", "properties": {"a": {"x-eval-compare": "money"}}},
                             registry=reg).children[0].comparator == "money"


def test_overwriting_a_comparator_enforces_its_new_parameter_schema() -> None:
    """What is known about an entry's parameters (its validator, which configurations are
    valid) belongs to that entry: after an overwrite the new schema holds, even when the new
    entry reuses the address (``id``) of the one it replaced."""
    from evalschema import check_eval_schema

    reg = builtin_registry()
    schema = {"type": "object", "properties": {"s": {"x-eval-compare": {"fuzzy": {"n": 3}}}}}
    for k in range(20):
        want = "integer" if k % 2 else "string"
        register_comparator("fuzzy", lambda g, e, p: 1.0, registry=reg, overwrite=True,
                            params={"type": "object", "properties": {"n": {"type": want}},
                                    "additionalProperties": False})
        codes = [p.code for p in check_eval_schema(schema, registry=reg).errors]
        assert codes == ([] if want == "integer" else ["bad-param"]), (k, want, codes)
