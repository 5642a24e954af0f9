"""Parity with the real peer packages, where they are installed (optional "parity" extra).

Each test generates a few hundred seeded random and adversarial inputs, scores
them with the peer's own code and with ``evalschema.compat``, and requires the
same score (1e-9) or, where the peer raises, a CompatInputError. Only the
packages' scoring entry points are called.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import logging
import math
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from evalschema.compat import CompatInputError, agenta, lynxius, uipath

CASES = 300
TOL = 1e-9


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=0, abs_tol=TOL)


def pairs(make: Any, seed: int, n: int = CASES) -> Iterator[tuple[Any, Any]]:
    """Near-copies most of the time, unrelated values sometimes."""
    gen = make(seed)
    for i in range(n):
        expected = gen.value()
        yield expected, gen.value() if i % 7 == 0 else gen.mutate(expected)


def objects(make: Any, seed: int, n: int = CASES) -> Iterator[tuple[dict[str, Any], Any]]:
    gen = make(seed)
    count = 0
    while count < n:
        expected = gen.value()
        if isinstance(expected, dict):
            count += 1
            yield expected, gen.mutate(expected)


def leaf_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += leaf_paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += leaf_paths(v, (*prefix, i))
    return out


class Tally:
    """Counts what was compared; printed with ``-s`` and checked so a run cannot be vacuous."""

    def __init__(self, name: str) -> None:
        self.name, self.scored, self.raised = name, 0, 0

    def report(self, minimum: int = 100) -> None:
        print(f"\n[parity] {self.name}: {self.scored} scores equal, {self.raised} errors matched")
        assert self.scored >= minimum


# -- Lynxius ----------------------------------------------------------------------------------


def random_weights(gen: Any, value: Any) -> Any:
    """Weights shaped like ``value``: numbers, nested objects, loopback entries, zeros."""
    r = gen.rng
    if isinstance(value, list):
        return random_weights(gen, value[0]) if value and r.random() < 0.7 else {}
    if not isinstance(value, dict):
        return r.choice([0.0, 0.25, 0.5, 1.0])
    out: dict[str, Any] = {}
    for key, child in value.items():
        if r.random() < 0.6:
            out[key] = random_weights(gen, child)
            if isinstance(out[key], dict) and r.random() < 0.5:
                out[key]["__" + key] = r.choice([0.0, 0.3, 0.8, 1.0])
    return out


def test_lynxius_parity(random_json: Any) -> None:
    evaluators = pytest.importorskip(
        "lynxius_evals.evaluators.json_diff_evaluator",
        reason="lynxius (parity extra) not installed",
    )
    client = pytest.importorskip("lynxius.evals.json_diff", reason="lynxius not installed")
    engine = evaluators.JsonDiffEval()
    tally = Tally("lynxius.json_diff")
    gen = random_json(7)
    cases = [
        (r, o, random_weights(gen, r) if gen.rng.random() < 0.6 else {})
        for r, o in pairs(random_json, 1)
    ]
    for reference, output, weights in [*ADVERSARIAL_LYNXIUS, *cases]:
        try:
            want = float(engine.json_diff(reference, output, weights))
        except ZeroDivisionError:
            with pytest.raises(CompatInputError) as info:
                lynxius.json_diff(reference, output, weights, validate_inputs=False)
            assert info.value.original == "ZeroDivisionError"
            tally.raised += 1
            continue
        got = lynxius.json_diff(reference, output, weights, validate_inputs=False)
        explained = lynxius.json_diff(
            reference, output, weights, validate_inputs=False, explain=True
        )
        assert same(got, want), (reference, output, weights, got, want)
        assert same(explained.score, want)
        tally.scored += 1
        # The client-side checks: the same inputs rejected for the same reason.
        try:
            client.JsonDiff(label="parity").add_trace(reference, output, weights)
            client_ok = True
        except ValueError:
            client_ok = False
        try:
            lynxius.json_diff(reference, output, weights)
            ours_ok = True
        except CompatInputError as exc:
            assert exc.original == "ValueError"
            ours_ok = False
        assert client_ok == ours_ok, (reference, output, weights)
    tally.report()


MENU = {
    "margherita": 19.0,
    "pepperoni": 21.0,
    "beer": 6.0,
    "fixed_menus": [
        {"menu_name": "baby", "pizza": "margerita", "drink": "Coca-Cola", "price": 24.0},
        {"menu_name": "adult", "pizza": "pepperoni", "drink": "beer", "price": 27.0},
    ],
}
ADVERSARIAL_LYNXIUS: list[tuple[Any, Any, Any]] = [
    (
        MENU,
        {
            **MENU,
            "margherita": 39.0,
            "fixed_menus": [MENU["fixed_menus"][0], {**MENU["fixed_menus"][1], "pizza": "peppers"}],
        },
        {
            "margherita": 1.0,
            "pepperoni": 1.0,
            "beer": 0.25,
            "fixed_menus": {"__fixed_menus": 0.8, "price": 1.0},
        },
    ),
    ({"a": "x"}, {"a": "x", "b": "y"}, {}),
    ({"a": None}, {"a": None}, {}),
    ({"a": [1, 2]}, {"a": [1, 2, 3, 4]}, {}),
    ({"a": []}, {"a": [1]}, {}),
    ({"a": {}}, {"a": {}}, {}),
    ({"a": True}, {"a": 2}, {}),
    ({"a": -5}, {"a": 5}, {}),
    ({"a": "é"}, {"a": "e\u0301"}, {}),
    ({"a": "x", "b": "y"}, {"a": "x", "b": "z"}, {"a": 0.0, "b": 0.0}),
    ({"c": {"d": "x", "e": "y"}}, {"c": {"d": "x", "e": "z"}}, {"c": 0.5}),
    ({"a": 1}, {"a": 1}, {"a": [1.0]}),
    ({"a": 1}, {"a": 1}, {"a": 1.5}),
    ({}, {"a": 1}, {}),
]


# -- UiPath -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def uipath_eval() -> Iterator[Callable[..., Any]]:
    evaluators = pytest.importorskip("uipath.eval.evaluators", reason="uipath not installed")
    models = pytest.importorskip("uipath.eval.models", reason="uipath not installed")
    legacy_models = pytest.importorskip("uipath.eval.models.models")
    loop = asyncio.new_event_loop()

    def run(expected: Any, actual: Any, key: Any, legacy: bool) -> Any:
        workload = models.WorkloadExecution(
            agent_input=None, workload_output=actual, workload_trace=[]
        )
        if legacy:
            ev = evaluators.LegacyJsonSimilarityEvaluator(
                id="p",
                config={},
                category=legacy_models.LegacyEvaluatorCategory.Deterministic,
                type=legacy_models.LegacyEvaluatorType.JsonSimilarity,
                targetOutputKey=key,
                createdAt="",
                updatedAt="",
            )
            criteria: Any = {"expected_output": expected, "expected_agent_behavior": ""}
        else:
            ev = evaluators.JsonSimilarityEvaluator(
                id="p", evaluatorConfig={"target_output_key": key}
            )
            criteria = {"expected_output": expected}
        return loop.run_until_complete(ev.validate_and_evaluate_criteria(workload, criteria))

    yield run
    loop.close()


def uipath_keys(gen: Any, expected: Any) -> list[Any]:
    """ "*", real paths in UiPath syntax, a missing key and a list of keys."""
    from evalschema.compat._explain import to_path

    paths = [
        to_path(p) for p in leaf_paths(expected) if p and all(k and "." not in str(k) for k in p)
    ]
    keys: list[Any] = ["*", "missing.key"]
    if paths:
        keys.append(gen.rng.choice(paths))
        keys.append(gen.rng.sample(paths, min(2, len(paths))))
    return keys


@pytest.mark.parametrize("legacy", [False, True], ids=["json_similarity", "legacy"])
def test_uipath_parity(uipath_eval: Callable[..., Any], legacy: bool, random_json: Any) -> None:
    tally = Tally(f"uipath {'legacy' if legacy else 'json_similarity'}")
    gen = random_json(11)
    for expected, actual in objects(random_json, 2, 150):
        for key in uipath_keys(gen, expected):
            if legacy and not isinstance(key, str):
                continue
            for e, a in ((expected, actual), (str(expected), actual), (expected, {"wrap": actual})):
                check_uipath(uipath_eval, e, a, key, legacy, tally)
    for e, a in ADVERSARIAL_UIPATH:
        check_uipath(uipath_eval, e, a, "*", legacy, tally)
    tally.report()


ADVERSARIAL_UIPATH: list[tuple[Any, Any]] = [
    ({"temperature": 20.3, "humidity": 65}, {"temperature": 20.5, "humidity": 65}),
    ({"f": ["apple", "banana", "grape"]}, {"f": ["apple", "banana", "orange"]}),
    ('{"a":1}', '{"a": 1}'),
    ('{"a": 1}', {"a": 1}),
    ({}, {"x": 1}),
    ({"a": {}}, {}),
    ({"a": 10}, {"a": 25}),
    ({"a": -5}, {"a": 5}),
    ({"a": 0}, {"a": 1e-13}),
    ({"a": True}, {"a": 1}),
    ({"a": None}, {"a": None}),
    ({"a": ""}, {"a": "x"}),
    ({"a": 10**400}, {"a": 1}),
    ({"a": [1, 2, 3]}, {"a": [1]}),
]


def check_uipath(
    run: Callable[..., Any], e: Any, a: Any, key: Any, legacy: bool, tally: Tally
) -> None:
    fn = uipath.legacy_json_similarity_details if legacy else uipath.json_similarity_details
    try:
        result = run(e, a, key, legacy)
    except Exception:
        with pytest.raises(CompatInputError):
            fn(e, a, key)
        tally.raised += 1
        return
    ours = fn(e, a, key)
    assert same(ours.score, float(result.score)), (e, a, key, ours, result)
    justification = getattr(result, "details", None)
    if not legacy and hasattr(justification, "matched_leaves"):
        assert same(ours.matched_leaves, justification.matched_leaves)
        assert same(ours.total_leaves, justification.total_leaves)
    assert (ours.error is not None) == (int(result.score_type) == 2), (e, a, key, ours, result)
    tally.scored += 1


# -- Agenta -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def handlers() -> Iterator[Any]:
    """Agenta's handlers module; its import logs noisily and tries a network fetch (LiteLLM)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = pytest.importorskip(
                "agenta.sdk.engines.running.handlers", reason="agenta not installed"
            )
        yield module
    finally:
        logging.disable(logging.NOTSET)


def call(handler: Any, **kwargs: Any) -> Any:
    """The handler without its tracing decorator (which needs ``ag.init()``)."""
    return getattr(handler, "__wrapped__", handler)(**kwargs)


def test_agenta_json_diff_parity(handlers: Any, random_json: Any) -> None:
    tally = Tally("agenta.json_diff")
    gen = random_json(3)
    for i, (gt, out) in enumerate(pairs(random_json, 4)):
        options = {
            "compare_schema_only": i % 5 == 1,
            "predict_keys": i % 3 == 1,
            "case_insensitive_keys": i % 4 == 1,
            "threshold": gen.rng.choice([None, 0.0, 0.5, 0.9, 1.0, None, 0.3, 1, "0.5", 1.5]),
        }
        for g, o in ((gt, out), (str_or(gt), str_or(out)), *ADVERSARIAL_DIFF):
            try:
                want = call(
                    handlers.auto_json_diff_v0,
                    parameters=options,
                    inputs={"correct_answer": g},
                    outputs=o,
                )
            except Exception:
                with pytest.raises(CompatInputError):
                    agenta.json_diff(g, o, **options)
                tally.raised += 1
                continue
            got = agenta.json_diff(g, o, **options)
            assert same(got["score"], want["score"]) and got["success"] == want["success"], (
                g,
                o,
                options,
                got,
                want,
            )
            assert same(agenta.json_diff(g, o, **options, explain=True).score, want["score"])
            tally.scored += 1
    tally.report()


ADVERSARIAL_DIFF: list[tuple[Any, Any]] = [
    ({"a": None, "b": 1}, {"a": None, "b": 1}),
    ({}, {}),
    ({"a": []}, {"a": []}),
    ({"a": {"b": 1}}, {"a.b": 1}),
    ({"Name": "a", "name": "b"}, {"NAME": "b"}),
    ("[1, 2]", "[1, 3]"),
    ('"text"', '"text"'),
    ({"a": 1, "b": True, "c": "1"}, {"a": 1.0, "b": 1, "c": 1}),
    ({"": {"a": 1}}, {"a": 1}),
]


def str_or(value: Any) -> Any:
    import json

    return json.dumps(value)


def test_agenta_exact_contains_field_parity(handlers: Any, random_json: Any) -> None:
    tally = Tally("agenta exact/contains/field")
    texts = ['x [{"a":1}] y', "[1,2]", '{"a": NaN}', "{'a': 1}", '{"a":1} and {"b":2}', "", "}{"]
    for gt, out in pairs(random_json, 5):
        for o in (out, str_or(out), *texts):
            want = call(handlers.auto_exact_match_v0, inputs={"correct_answer": gt}, outputs=o)
            assert agenta.exact_match(gt, o) == want["success"], (gt, o)
            if isinstance(o, str | dict):
                want = call(handlers.auto_contains_json_v0, outputs=o)
                assert agenta.contains_json(o) == want["success"], o
            for field in ("a", "name", "a.b", "missing"):
                want = call(
                    handlers.field_match_test_v0,
                    parameters={"json_field": field},
                    inputs={"correct_answer": gt},
                    outputs=o,
                )
                assert agenta.field_match(gt, o, field) == want["success"], (gt, o, field)
            tally.scored += 1
    tally.report()


QUIRKY_PATHS = [
    "$user.name",
    "items[0].name",
    "",
    ".",
    "a..b",
    "a.b",
    "/a.b",
    "/a~1b",
    "/0",
    "/items/-",
    "/items/01",
    "/#a",
    "$",
    "$[0]",
    "$['a.b']",
    "$..a",
    "$..*",
    "$.items[*].name",
    "$.items[-1]",
    "$.items[0:2]",
    "$.items[::-1]",
    "$['a','b']",
    "$.é",
    "$.a-b",
    "$.0",
    "$.a.b[01]",
    "0",
    "items.0",
    "items.5",
]


def agenta_paths(gen: Any, expected: Any) -> list[str]:
    from evalschema.compat._explain import to_pointer

    out = []
    for parts in leaf_paths(expected)[1:]:
        if gen.rng.random() < 0.5:
            continue
        out.append(".".join(str(p) for p in parts))
        out.append(to_pointer(parts))
        out.append("$" + "".join(f"[{p}]" if isinstance(p, int) else f"['{p}']" for p in parts))
    return out + gen.rng.sample(QUIRKY_PATHS, 6)


def test_agenta_multi_field_parity(handlers: Any, random_json: Any) -> None:
    tally = Tally("agenta.json_multi_field_match")
    gen = random_json(9)
    for expected, actual in objects(random_json, 6):
        expected.setdefault("items", [{"name": "a"}, {"name": "b"}])
        fields = agenta_paths(gen, expected)
        for path in fields:
            for e, a in ((expected, actual), (str_or(expected), str_or(actual))):
                compare_multi_field(handlers, e, a, [path], tally)
        compare_multi_field(handlers, expected, actual, [f for f in fields if f != "$.0"], tally)
    doc_truth = {
        "name": "John Doe",
        "email": "john@example.com",
        "address": {"city": "New York", "zip": "10001"},
    }
    doc_output = {
        "name": "John Doe",
        "email": "jane@example.com",
        "address": {"city": "New York", "zip": "10002"},
    }
    compare_multi_field(
        handlers, doc_truth, doc_output, ["name", "email", "address.city", "address.zip"], tally
    )
    compare_multi_field(handlers, {"a": 1, "b": 1}, {"a": 1, "b": 2}, ["a", "a", "b"], tally)
    compare_multi_field(
        handlers, {"aggregate_score": 1}, {"aggregate_score": 2}, ["aggregate_score"], tally
    )
    tally.report()


def compare_multi_field(handlers: Any, e: Any, a: Any, fields: list[str], tally: Tally) -> None:
    try:
        want = call(
            handlers.json_multi_field_match_v0,
            parameters={"fields": fields},
            inputs={"correct_answer": e},
            outputs=a,
        )
    except Exception:
        with pytest.raises(CompatInputError):
            agenta.json_multi_field_match(e, a, fields)
        tally.raised += 1
        return
    got = agenta.json_multi_field_match(e, a, fields)
    assert got == want, (e, a, fields, got, want)
    assert same(
        agenta.json_multi_field_match(e, a, fields, explain=True).score, want["aggregate_score"]
    )
    tally.scored += 1


# -- struct_extract_eval --------------------------------------------------------------------
#
# FAIRmat-NFDI/extract-eval @ 6a51aa28 (package struct_extract_eval 0.1.0) is not on PyPI:
# install it from a checkout of that commit (``pip install PATH``) to run these tests.
# Each case is scored by its ``evaluate`` and by ``evalschema.compat.struct_extract_eval``,
# and every figure it reports must agree: per record the id, P/R/F1 and the (path, status,
# score) of every field result in order; per run the macro means, the totals and
# ``per_field`` (mean score and status counts per instance path).

SX_S = {"type": "string", "x-eval-compare": "exact"}
SX_N = {"type": "number", "x-eval-compare": "numeric"}
SX_ID = {"type": "string", "x-eval-skip": True}


def sx_obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def sx_arr(items: Any, **align: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": items}
    if align:
        out["x-eval-align"] = align
    return out


#: Schemas with every container kind the edge cases need: nested objects, arrays of
#: objects and of scalars (each alignment), a skipped id, property names with dots
#: (with and without the last segment as a sibling), a container judged by a comparator
#: and a transform.
SX_SCHEMAS: list[dict[str, Any]] = [
    sx_obj(
        id=SX_ID,
        name=SX_S,
        total=SX_N,
        vendor=sx_obj(city=SX_S, geo=sx_obj(lat=SX_N)),
        tags=sx_arr(SX_S),
        items=sx_arr(sx_obj(sku=SX_S, qty=SX_N)),
    ),
    sx_obj(**{"a.b": SX_S, "b": SX_S, "c.d": sx_obj(e=SX_S), "x.y": sx_arr(SX_N)}),
    {
        # evalschema's own keys, which that package only logs as unknown
        **sx_obj(**{
            "id": SX_ID,
            "v.w": {**SX_S, "x-eval-null": "absent"},
            "meta": sx_obj(**{"k.l": {**SX_N, "x-eval-threshold": 0.0}, "n": SX_S}),
        }),
        "x-eval-id": "id",
    },
    sx_obj(
        id=SX_ID,
        lines=sx_arr(sx_obj(id=SX_ID, k=SX_S, v=SX_N), match_by="key_field", key="k"),
        pts=sx_arr(sx_obj(x=SX_N, y=SX_N), match_by="hungarian"),
        nums=sx_arr(SX_N, match_by="hungarian"),
    ),
    sx_obj(
        any={"type": "object", "x-eval-compare": "exact",
             "properties": {"z": SX_S, "w": sx_arr(SX_N), "o": sx_obj(p=SX_S)}},
        raw={"type": "array", "x-eval-compare": "exact", "items": sx_obj(q=SX_S)},
        bare={"type": "object", "x-eval-compare": "exact"},
        multi={"type": ["object", "array", "null"], "x-eval-compare": "exact",
               "properties": {"m": {"type": "string"}}},
        low={"type": "string", "x-eval-compare": "exact", "x-eval-transform": ["lowercase"]},
        inner=sx_obj(s=SX_S, arr=sx_arr(sx_arr(SX_N))),
    ),
    # records that are arrays, or one value, by the schema
    sx_arr(sx_obj(**{"a": SX_S, "b.c": SX_N}), match_by="hungarian"),
    SX_S,
]

#: What an LLM puts where a container or a record belongs.
SX_ODD: list[Any] = [None, "text", "", 0, 1, 1.0, True, [], {}, [1], ["x"], {"z": "x"}, [{}]]


class SxCases:
    """Records conforming to a schema, then broken the ways the compat bullets list."""

    def __init__(self, gen: Any) -> None:
        self.gen = gen
        self.r = gen.rng

    def conform(self, schema: dict[str, Any], depth: int = 0) -> Any:
        r = self.r
        t = schema["type"]
        if t == "object" and "properties" in schema and "x-eval-compare" not in schema:
            out: dict[str, Any] = {}
            for name, sub in schema["properties"].items():
                if r.random() < 0.85:
                    # a dotted name is read from its last segment: write either or both
                    keys = [name, name.rsplit(".", 1)[-1]]
                    for key in r.sample(keys, r.randint(1, 2)) if "." in name else [name]:
                        out[key] = self.conform(sub, depth + 1)
            if r.random() < 0.15:  # the last dot segment of a dotted name, or an unknown key
                out[r.choice(["b", "d", "y", "w", "l", "zz", "a.b"])] = r.choice(["x", 1])
            return out
        if t == "array" and "x-eval-compare" not in schema:
            return [self.conform(schema["items"], depth + 1) for _ in range(r.randint(0, 3))]
        if t == "object" or t == "array":
            return self.gen.value(2)
        if t == "number":
            return r.choice([0, 1, 2.5, 10, -3, "4"])
        if schema.get("x-eval-skip"):
            return r.choice(["r1", "r2", "r3", 7])
        return r.choice(["apple", "Apple", "x", "", "a b"])

    def near(self, schema: dict[str, Any], value: Any) -> Any:
        """A near-copy of ``value`` with containers retyped, emptied or dropped."""
        r = self.r
        roll = r.random()
        if roll < 0.12:
            return r.choice(SX_ODD)
        if roll < 0.18:
            return self.conform(schema)
        t = schema["type"]
        if isinstance(value, dict) and t == "object" and "properties" in schema:
            props = schema["properties"]
            out = {
                k: self.near(props[k], v) if k in props and r.random() < 0.6 else v
                for k, v in value.items()
            }
            if out and r.random() < 0.2:
                out.pop(r.choice(list(out)))
            if r.random() < 0.1:
                out[r.choice(["b", "a.b", "zz", "id"])] = r.choice(SX_ODD)
            return out
        if isinstance(value, list) and t == "array" and "items" in schema:
            out_list = [self.near(schema["items"], v) if r.random() < 0.5 else v for v in value]
            if r.random() < 0.3:
                r.shuffle(out_list)
            if out_list and r.random() < 0.2:
                out_list.pop()
            if r.random() < 0.2:
                out_list.append(self.conform(schema["items"]))
            return out_list
        return self.gen.mutate(value, 2)

    def record(self, schema: dict[str, Any]) -> Any:
        r = self.r
        return r.choice(SX_ODD) if r.random() < 0.08 else self.conform(schema)

    def run(self, schema: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        r = self.r
        gold = [self.record(schema) for _ in range(r.randint(1, 4))]
        extracted = [
            self.near(schema, g) if r.random() < 0.85 else self.record(schema) for g in gold
        ]
        return gold, extracted


#: Edge cases written out: each names the bullet it covers.
SX_ADVERSARIAL: list[tuple[int, list[Any], list[Any]]] = [
    # non-object records
    (0, ["text"], ["text"]),
    (0, ["text"], [{"name": "x"}]),
    (0, [{"name": "x"}], ["text"]),
    (0, [["a"]], [["a"]]),
    (0, [None], [None]),
    (0, [None], [{"name": "x", "vendor": {"city": "y"}}]),
    (0, [{"name": "x", "tags": ["a", "b"]}], [None]),
    (0, [1], [True]),
    (0, [{}], [None]),
    (0, [{}], [[]]),
    # containers of the wrong type
    (0, [{"vendor": {"city": "x"}}], [{"vendor": ["x"]}]),
    (0, [{"vendor": {"city": "x"}}], [{"vendor": "x"}]),
    (0, [{"tags": ["a"]}], [{"tags": {"0": "a"}}]),
    (0, [{"tags": ["a"]}], [{"tags": "a"}]),
    (0, [{"vendor": "x"}], [{"vendor": {"city": "x"}}]),
    (0, [{"tags": "a"}], [{"tags": ["a"]}]),
    (0, [{"vendor": 1}], [{"vendor": True}]),
    (0, [{"vendor": 1}], [{"vendor": 1.0}]),
    (0, [{"vendor": "x"}], [{}]),
    (0, [{}], [{"vendor": "x"}]),
    (0, [{"tags": "a"}], [{}]),
    (0, [{"items": ["x", {"sku": "1"}]}], [{"items": [{"sku": "1"}, "x"]}]),
    (0, [{"items": [None]}], [{"items": [{"sku": "1"}]}]),
    # empty objects against missing ones
    (0, [{"vendor": {}}], [{}]),
    (0, [{}], [{"vendor": {}}]),
    (0, [{"vendor": {}}], [{"vendor": None}]),
    (0, [{"vendor": None}], [{"vendor": {}}]),
    (0, [{"vendor": {"geo": {}}}], [{"vendor": {}}]),
    (0, [{"vendor": {"geo": None}}], [{}]),
    (0, [{"tags": []}], [{}]),
    (0, [{}], [{}]),
    (0, [{"vendor": {}}], [{"vendor": {}}]),
    # property names containing dots
    (1, [{"a.b": "x", "b": "y"}], [{"a.b": "x", "b": "y"}]),
    (1, [{"a.b": "x"}], [{"a.b": "x"}]),
    (1, [{"b": "y"}], [{"b": "y", "d": "z"}]),
    (1, [{"c.d": {"e": "1"}, "d": {"e": "1"}}], [{"d": {"e": "2"}}]),
    (1, [{"x.y": [1, 2], "y": [1]}], [{"y": [1, 3]}]),
    (2, [{"meta": {"k.l": 1, "l": 2}}], [{"meta": {"l": 2, "k.l": 1}}]),
    (2, [{"meta": {"l": 1}, "w": None, "v.w": "x"}], [{"meta": {"l": 2}, "w": None}]),
    (2, [{"meta": {"l": 1}, "w": "x"}], [{"meta": {"l": 0.5}, "w": None}]),
    # skipped id fields under positional pairing
    (3, [{"id": "r1", "lines": [{"id": 1, "k": "a", "v": 1}]}],
     [{"id": "r2", "lines": [{"id": 2, "k": "a", "v": 1}]}]),
    (3, [{"id": "r1"}, {"id": "r2"}], [{"id": "r2"}, {"id": "r1"}]),
    (3, [{"lines": [{"k": "a"}, "x"]}], [{"lines": {"k": "a"}}]),
    (3, [{"pts": [{"x": 1}, "p"]}], [{"pts": ["p", {"x": 1}]}]),
    (3, [{"pts": [{"x": 1}], "nums": [1, "2"]}], [{"pts": [{}], "nums": {"0": 1}}]),
    # containers judged by a comparator
    (4, [{"any": [1], "raw": {"a": 1}}], [{"any": [1], "raw": {"a": 1}}]),
    (4, [{"inner": {"arr": [[1], 2]}}], [{"inner": {"arr": [3, [1]]}}]),
    (4, [{"any": {"z": "x", "w": [1, 2], "o": {"p": "y"}}, "raw": [{"q": "1"}, 2]}], [{}]),
    (4, [{"any": None, "raw": None}], [{"any": {"z": "x", "o": {}}, "raw": []}]),
    (4, [{"bare": {"a": 1}, "multi": {"m": "x"}}], [{"bare": None}]),
    # a Hungarian matrix above 256 pairs (computed a whole matrix at a time natively)
    (3, [{"pts": [{"x": i, "y": i % 3} if i % 4 else "p" for i in range(17)]}],
     [{"pts": [{"x": 16 - i, "y": i % 2} if i % 5 else [i] for i in range(17)]}]),
    (5, [[{"a": "x", "c": 1}, "y", {}]], [[{}, {"a": "x", "b.c": 1}, {"c": 1}]]),
    (5, [{"a": "x"}], [[{"a": "x"}]]),
    (6, ["x", None, {}], ["x", "y", None]),
]

#: Schemas that package refuses (SchemaError), each the first record of a run.
SX_BAD_SCHEMAS: list[Any] = [
    sx_obj(any={"type": "object", "x-eval-compare": "exact", "properties": {"z": {"type": "string"}}}),
    sx_obj(raw={"type": "array", "x-eval-compare": "exact",
                "items": {"type": "string", "x-eval-compare": "nope"}}),
    sx_obj(a={"type": "string"}),
    sx_obj(a={**SX_S, "x-eval-skip": "yes"}),
    sx_obj(a=sx_arr(SX_S, match_by="key_field", key="k")),
    [],
]


@pytest.fixture(scope="module")
def sx_real() -> Any:
    return pytest.importorskip(
        "struct_extract_eval",
        reason="struct_extract_eval (FAIRmat-NFDI/extract-eval @ 6a51aa28) not installed",
    )


def sx_post_processors(real: Any) -> list[tuple[str, Any, Any]]:
    """(name, the package's post-processor, compat's): none, a user's own, and null
    handling two ways."""
    from evalschema.compat import struct_extract_eval as ours

    pp = importlib.import_module("struct_extract_eval.postprocess")
    configs = [
        ([None], True),
        ([None, "", [], {}], False),
    ]
    def drop_root_and_omissions(frs: list[Any]) -> list[Any]:
        """A user's own post-processor: the same code over either package's results."""
        return [f for f in frs if f.path != "" and f.status != "omission"]

    out: list[tuple[str, Any, Any]] = [
        ("none", None, None),
        ("user's own", drop_root_and_omissions, drop_root_and_omissions),
    ]
    for absent, skip in configs:
        theirs_cfg = pp.NullHandling(absent_values=list(absent), both_absent_skip=skip)
        ours_cfg = ours.NullHandling(absent_values=list(absent), both_absent_skip=skip)
        out.append((
            f"nulls {absent} skip={skip}",
            lambda frs, c=theirs_cfg: pp.reclassify_nulls(frs, c),
            lambda frs, c=ours_cfg: ours.reclassify_nulls(frs, c),
        ))
    return out


def sx_summary(run: Any, per_field: dict[str, Any]) -> dict[str, Any]:
    """What a run reports, in a form both packages' runs give (statuses as strings)."""
    return {
        "records": [
            (rec.record_id, [(f.path, str(f.status), f.score) for f in rec.field_results])
            for rec in run.records
        ],
        "metrics": [(rec.precision, rec.recall, rec.f1) for rec in run.records],
        "means": (run.mean_precision, run.mean_recall, run.mean_f1),
        "totals": (run.total_records, run.total_fields, run.total_omissions,
                   run.total_hallucinations, run.total_batch_errors),
        "per_field": per_field,
    }


def sx_per_field_real(run: Any) -> dict[str, Any]:
    return {
        path: (agg.mean_score, agg.matches, agg.mismatches, agg.omissions, agg.hallucinations)
        for path, agg in run.per_field.items()
    }


def sx_per_field_ours(run: Any) -> dict[str, Any]:
    """Ours lists skipped-only paths too; the package lists paths with a scored result."""
    return {
        path: (agg.mean_score, agg.counts.matches, agg.counts.mismatches,
               agg.counts.omissions, agg.counts.hallucinations)
        for path, agg in run.per_field.items()
        if agg.counts.scored
    }


def sx_same(a: Any, b: Any) -> bool:
    """Equal, floats within TOL (NaN equal to NaN), containers element-wise."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and same(a, b)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(sx_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(sx_same(a[k], b[k]) for k in a)
    return bool(a == b) and type(a) is type(b)


#: The package's exceptions and the class of error compat raises for each.
SX_RAISES = {"ValueError": "CompatInputError", "TypeError": "CompatInputError",
             "KeyError": "CompatInputError", "SchemaError": "SchemaError"}


def check_sx(real: Any, case: tuple[Any, ...], tally: Tally) -> None:
    from evalschema.compat import struct_extract_eval as ours

    schema, gold, extracted, id_field, (_, theirs_pp, ours_pp) = case
    logging.disable(logging.WARNING)  # the package logs every wrong type it meets
    try:
        want = real.evaluate(copy.deepcopy(gold), copy.deepcopy(extracted), schema,
                             id_field=id_field, post_process=theirs_pp)
    except Exception as exc:
        expected = SX_RAISES[type(exc).__name__]
        with pytest.raises(Exception) as info:
            ours.evaluate(gold, extracted, schema, id_field=id_field, post_process=ours_pp)
        assert type(info.value).__name__ == expected, (case, exc, info.value)
        if expected == "CompatInputError":
            assert info.value.original == type(exc).__name__, (case, exc, info.value)
        tally.raised += 1
        return
    finally:
        logging.disable(logging.NOTSET)
    got = ours.evaluate(gold, extracted, schema, id_field=id_field, post_process=ours_pp)
    theirs = sx_summary(want, sx_per_field_real(want))
    mine = sx_summary(got, sx_per_field_ours(got))
    for key in theirs:
        assert sx_same(mine[key], theirs[key]), (key, case, mine[key], theirs[key])
    tally.scored += 1


def sx_cases(real: Any, random_json: Any, seed: int, n: int) -> Iterator[tuple[Any, ...]]:
    """Seeded generated runs: (schema, gold, extracted, id_field, post-processors)."""
    gen = SxCases(random_json(seed))
    pps = sx_post_processors(real)
    for i in range(n):
        schema = SX_SCHEMAS[i % len(SX_SCHEMAS)]
        gold, extracted = gen.run(schema)
        if gen.r.random() < 0.1:  # a record dropped: the lengths differ
            extracted = extracted[:-1]
        id_field = "id" if i % 3 == 0 else None
        if id_field and gen.r.random() < 0.7:
            for k, g in enumerate(gold):
                if isinstance(g, dict):
                    g["id"] = f"r{k}"
        yield schema, gold, extracted, id_field, pps[i % len(pps)]


def test_struct_extract_eval_parity_edge_cases(sx_real: Any) -> None:
    """The edge cases written out, under each post-processor and both kinds of ids."""
    tally = Tally("struct_extract_eval edge cases")
    for pp in sx_post_processors(sx_real):
        for schema_index, gold, extracted in SX_ADVERSARIAL:
            for id_field in (None, "id"):
                case = (SX_SCHEMAS[schema_index], gold, extracted, id_field, pp)
                check_sx(sx_real, case, tally)
    tally.report(minimum=100)


def test_struct_extract_eval_parity_schema_errors(sx_real: Any) -> None:
    """Schemas it refuses, including the children of a container judged by a comparator,
    which it checks too; and the valid multi-type schema whose properties it never reads."""
    tally = Tally("struct_extract_eval schema errors")
    none = sx_post_processors(sx_real)[0]
    for schema in SX_BAD_SCHEMAS:
        check_sx(sx_real, (schema, [{"a": "x"}], [{"a": "x"}], None, none), tally)
    assert tally.raised == len(SX_BAD_SCHEMAS)
    check_sx(sx_real, (SX_SCHEMAS[4], [{"multi": {"m": 1}}], [{}], None, none), tally)
    assert tally.scored == 1


@pytest.mark.parametrize("seed", [1, 2])
def test_struct_extract_eval_parity_generated(
    sx_real: Any, random_json: Any, seed: int
) -> None:
    tally = Tally(f"struct_extract_eval generated (seed {seed})")
    for case in sx_cases(sx_real, random_json, seed, CASES):
        check_sx(sx_real, case, tally)
    tally.report(minimum=150)


def test_struct_extract_eval_parity_hypothesis(sx_real: Any) -> None:
    """Hypothesis draws the broken records: any JSON value in place of a record or of
    a container, against each schema."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    pps = sx_post_processors(sx_real)
    tally = Tally("struct_extract_eval hypothesis")
    odd = st.one_of(st.sampled_from(SX_ODD), st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", "x", "a b"])),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.sampled_from(["name", "a.b", "b", "city", "z", "k", "x"]),
                            inner, max_size=3),
        ),
        max_leaves=6,
    ))

    @settings(max_examples=200, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(
        schema_index=st.integers(0, len(SX_SCHEMAS) - 1),
        gold=st.lists(odd, min_size=1, max_size=3),
        extracted=st.lists(odd, min_size=1, max_size=3),
        pp_index=st.integers(0, len(pps) - 1),
        id_field=st.sampled_from([None, "id"]),
    )
    def run(schema_index: int, gold: list[Any], extracted: list[Any], pp_index: int,
            id_field: str | None) -> None:
        extracted = (extracted * 3)[: len(gold)]
        check_sx(sx_real, (SX_SCHEMAS[schema_index], gold, extracted, id_field, pps[pp_index]),
                 tally)

    run()
    tally.report(minimum=80)
