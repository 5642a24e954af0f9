"""Parity with the real peer packages, where they are installed (optional "parity" extra).

Each test generates a few hundred seeded random and adversarial inputs, scores
them with the peer's own code and with ``evalschema.compat``, and requires the
same score (1e-9) or, where the peer raises, a CompatInputError. Only the
packages' scoring entry points are called.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import math
import os
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import struct_extract_eval_parity as sx

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
# FAIRmat-NFDI/extract-eval @ 6a51aa28 (package struct_extract_eval 0.1.0) is not on PyPI, so
# these tests compare compat with a recording of what it reports
# (tests/data/parity/struct_extract_eval.json, written by
# scripts/record_struct_extract_eval_parity.py); the cases and the comparison are in
# tests/engine/struct_extract_eval_parity.py.

SX_RECORDED = sx.load()
SX_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "record_struct_extract_eval_parity.py"


def test_struct_extract_eval_recording_is_current() -> None:
    """The recording holds exactly the cases defined now (re-record after changing them),
    each with the package's outcome."""
    assert SX_RECORDED["package"] == sx.PACKAGE
    assert SX_RECORDED["schemas"] == sx.SCHEMAS
    current = sx.cases()
    assert current == sx.cases()  # generating them changes nothing shared
    recorded = [{k: v for k, v in c.items() if k != "expected"} for c in SX_RECORDED["cases"]]
    assert recorded == current
    assert all("expected" in c for c in SX_RECORDED["cases"])


#: Per group of recorded cases: at least this many scored runs and raised errors.
SX_GROUPS = {"edge": (200, 150), "schema-error": (1, 6), "generated-1": (150, 50),
             "generated-2": (150, 50), "odd": (80, 50)}


@pytest.mark.parametrize("group", list(SX_GROUPS))
def test_struct_extract_eval_parity(group: str) -> None:
    """Every figure compat reports equals the package's, recorded: per record the id,
    P/R/F1 and (path, status, score) of each field result in order; per run the means,
    totals and per_field; where the package raised, the error compat raises for it."""
    tally = Tally(f"struct_extract_eval {group} (recorded)")
    failures: list[str] = []
    for case in SX_RECORDED["cases"]:
        if case["id"].split("/")[0] != group:
            continue
        failures += [f"{case['id']} {d}" for d in sx.compare(
            sx.outcome_ours(case), case["expected"], exact_errors=False)]
        if "raises" in case["expected"]:
            tally.raised += 1
        else:
            tally.scored += 1
    assert not failures, "\n".join(failures[:20])
    scored, raised = SX_GROUPS[group]
    tally.report(minimum=scored)
    assert tally.raised >= raised


def test_struct_extract_eval_compare_finds_each_difference() -> None:
    """The comparison the tests and ``--check`` share: a changed score, status, order,
    id, per_field count or error is a difference; float noise below 1e-9 is not."""
    case = next(c for c in SX_RECORDED["cases"] if c["id"].startswith("edge/")
                and "raises" not in c["expected"] and len(c["expected"]["records"][0]["fields"]) > 1)
    want = case["expected"]
    assert sx.compare(copy.deepcopy(want), want, exact_errors=True) == []

    def changed(edit: Callable[[dict[str, Any]], None]) -> list[str]:
        got = copy.deepcopy(want)
        edit(got)
        return sx.compare(got, want, exact_errors=True)

    def score(g: dict[str, Any]) -> None:
        g["records"][0]["fields"][0][2] += 1e-6

    def noise(g: dict[str, Any]) -> None:
        g["means"][2] += 1e-12

    assert changed(score) and not changed(noise)
    assert changed(lambda g: g["records"][0]["fields"][0].__setitem__(1, "no such status"))
    assert changed(lambda g: g["records"][0]["fields"].reverse())
    assert changed(lambda g: g["records"][0].__setitem__("id", "other"))
    assert changed(lambda g: g["totals"].__setitem__(1, g["totals"][1] + 1))
    assert changed(lambda g: g["per_field"].popitem())
    error = {"raises": {"class": "KeyError", "message": "'id'"}}
    ours = {"raises": {"class": "CompatInputError", "original": "KeyError", "message": "..."}}
    assert sx.compare(ours, error, exact_errors=False) == []
    assert sx.compare({**ours, "raises": {**ours["raises"], "original": "TypeError"}}, error,
                      exact_errors=False)
    assert sx.compare(ours, error, exact_errors=True)
    assert sx.compare(want, error, exact_errors=False)


def test_struct_extract_eval_record_script_without_the_package() -> None:
    """Without the package the script exits 2 and says how to install it."""
    code = ("import runpy, sys; sys.modules['struct_extract_eval'] = None; "
            f"sys.argv = [{str(SX_SCRIPT)!r}, '--check']; "
            f"runpy.run_path({str(SX_SCRIPT)!r}, run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "not on PyPI" in proc.stderr and "6a51aa28" in proc.stderr
    assert "pip install" in proc.stderr and "Traceback" not in proc.stderr
