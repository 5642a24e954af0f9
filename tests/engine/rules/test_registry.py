"""The registry: one list of names, custom registration, protection of built-ins."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from evalschema import (
    Registry,
    RegistryError,
    RunAccumulator,
    builtin_registry,
    default_registry,
    evaluate,
    iter_evaluate,
    make_evaluator,
    parse_eval_schema,
    register_comparator,
    register_strategy,
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
                             "x-eval-confidence", "x-eval-id"}
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


def test_which_parameters_are_valid_is_remembered_per_entry() -> None:
    """An entry never answers from its predecessor's memo (a remembered "valid" would let
    parameters the new schema refuses through), nor from a memo of JSON it could not write."""
    reg = builtin_registry()
    for want, valid in (("integer", True), ("string", False), ("integer", True)):
        d = register_comparator("fuzzy", lambda g, e, p: 1.0, registry=reg, overwrite=True,
                                params={"type": "object", "properties": {"n": {"type": want}},
                                        "additionalProperties": False})
        assert d.params_valid({"n": 3}) is valid, want
        assert d.params_valid({"n": 3}) is valid, want  # remembered: the same answer
    assert d.params_valid({"n": {1, 2}}) is False  # not JSON: checked, not remembered


def test_the_parameter_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-lived language server checks ever new configurations as the user types: the
    memo is emptied when full instead of growing without end."""
    from evalschema.rules import registry

    monkeypatch.setattr(registry, "_MEMO_SIZE", 4)
    d = builtin_registry().comparators["numeric"]
    d = dataclasses.replace(d)  # a fresh entry: an empty memo
    for k in range(20):
        assert d.params_valid({"tolerance": {"abs": k}})
        assert len(d._valid_params) <= 5
    assert d.params_valid({"tolerance": {"abs": -1}}) is False


def _reversed(g: list[Any], e: list[Any], params: dict[str, Any]) -> list[tuple[int, int]]:
    """Pair the k-th gold element with the k-th extracted element from the end."""
    n = min(len(g), len(e), params.get("limit", len(g)))
    return [(i, len(e) - 1 - i) for i in range(n)]


def _reversed_registry() -> Registry:
    reg = builtin_registry()
    register_strategy("reversed", _reversed, registry=reg, doc="Pairs from opposite ends.",
                      params={"type": "object", "properties": {"limit": {"type": "integer"}},
                              "additionalProperties": False})
    return reg


def _tags(align: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"tags": {"type": "array", "x-eval-align": align,
                                                      "items": {"type": "string"}}}}


def test_custom_strategy_is_validated_like_a_builtin() -> None:
    from evalschema import check_eval_schema

    reg = _reversed_registry()
    assert "reversed" not in default_registry.strategies
    assert list(reg.strategies)[-1] == "reversed" and not reg.strategies["reversed"].builtin
    assert check_eval_schema(_tags({"match_by": "reversed"}), registry=reg).problems == ()
    typo = check_eval_schema(_tags({"match_by": "revrsed"}), registry=reg).problems
    assert [(p.code, p.suggestion) for p in typo] == [("unknown-strategy",
                                                       "did you mean 'reversed'?")]
    bad = check_eval_schema(_tags({"match_by": "reversed", "limit": "x"}), registry=reg)
    assert [p.code for p in bad.problems] == ["bad-param"]
    unknown = check_eval_schema(_tags({"match_by": "reversed", "lmit": 1}), registry=reg)
    assert [(p.code, p.suggestion) for p in unknown.problems] == [
        ("unknown-param", "did you mean 'limit'?")]
    # Unknown to a registry that never saw it.
    assert [p.code for p in check_eval_schema(_tags({"match_by": "reversed"})).problems] == [
        "unknown-strategy"]


def test_custom_strategy_is_listed_like_a_builtin() -> None:
    """The readers of the registry (the CLI's list, the editors' completions and hovers,
    the meta-schema) see it through ``to_dict`` and ``strategies``, as they see built-ins."""
    reg = _reversed_registry()
    listed = reg.to_dict()["strategies"]
    assert [d["name"] for d in listed] == ["ordered", "key_field", "hungarian", "set",
                                           "reversed"]
    assert listed[-1] == {"name": "reversed", "doc": "Pairs from opposite ends.",
                          "params": reg.strategies["reversed"].params, "types": ["array"],
                          "builtin": False}


@pytest.mark.parametrize("specialized", [True, False])
def test_custom_strategy_is_used_when_scoring(specialized: bool) -> None:
    reg = _reversed_registry()
    schema = {"type": "object", "properties": {"id": {"type": "string"},
                                               **_tags({"match_by": "reversed"})["properties"]}}
    ev = make_evaluator(schema, registry=reg)
    assert ev.specialized is not None
    if not specialized:
        ev.specialized = None
    rec = next(iter_evaluate([{"id": "a", "tags": ["x", "y", "z"]}],
                             [{"id": "a", "tags": ["w", "z", "y", "x"]}], ev, RunAccumulator()))
    got = [(r.path, str(r.status), r.extracted_pointer) for r in rec.field_results]
    assert got == [("id", "match", "/id"), ("tags[0]", "match", "/tags/3"),
                   ("tags[1]", "match", "/tags/2"), ("tags[2]", "match", "/tags/1"),
                   ("tags[0]", "hallucination", "/tags/0")]
    bound = ev.root.child_map["tags"].align
    assert bound is not None and bound.strategy == "reversed"
    limited = {"type": "object", "properties": _tags({"match_by": "reversed", "limit": 1})[
        "properties"]}
    rec = evaluate([{"tags": ["x", "y"]}], [{"tags": ["x", "y"]}], limited,
                   registry=reg).records[0]
    assert [(r.path, str(r.status)) for r in rec.field_results] == [
        ("tags[0]", "mismatch"), ("tags[1]", "omission"), ("tags[0]", "hallucination")]


@pytest.mark.parametrize(("fn", "reason"), [
    (lambda g, e, p: 1 / 0, "alignment strategy odd failed: ZeroDivisionError"),
    (lambda g, e, p: [(0, 0), (1, 0)], "alignment strategy odd paired an element twice"),
    (lambda g, e, p: [(0, 5)], "alignment strategy odd returned an index outside the arrays"),
])
def test_failing_custom_strategy_is_an_error_result(fn: Any, reason: str) -> None:
    reg = builtin_registry()
    register_strategy("odd", fn, registry=reg)
    run = evaluate([{"tags": ["x", "y"]}], [{"tags": ["x", "y"]}], _tags({"match_by": "odd"}),
                   registry=reg)
    (r,) = run.records[0].field_results
    assert (r.path, str(r.status)) == ("tags", "error")
    assert (r.reason or "").startswith(reason)


def test_builtin_strategies_cannot_be_replaced() -> None:
    with pytest.raises(RegistryError, match="built in"):
        register_strategy("hungarian", _reversed, registry=builtin_registry())
