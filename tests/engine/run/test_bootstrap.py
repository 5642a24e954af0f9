"""The Poisson bootstrap (``evalschema.run.bootstrap``): weights seeded by record key alone,
Poisson(1) in distribution, pinned so a change of the generator is caught; unit keys; and
replicate tallies that merge whatever fields they hold."""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np
import pytest

from evalschema import InputError, evaluate
from evalschema.results import Counts, RecordResult
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.bootstrap import BootstrapSpec, unit_key
from evalschema.run.compare import compare_runs
from evalschema.run.replicates import THRESHOLDS, ReplicateTally, poisson_weights, tally_records

SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"}, "a": {"type": "string"}, "b": {"type": "string"}}}


def test_a_units_weights_depend_on_its_key_and_the_seed_only() -> None:
    spec = BootstrapSpec(50, 3)
    keys = [("id", f"r{i}") for i in range(40)]
    whole = poisson_weights(keys, spec)
    assert whole.shape == (50, 40)
    shuffled = [keys[i] for i in (7, 3, 39, 0)]
    assert np.array_equal(poisson_weights(shuffled, spec), whole[:, [7, 3, 39, 0]])
    assert np.array_equal(poisson_weights([keys[5], ("gold", 1)], spec)[:, 0], whole[:, 5])
    # the first replicates do not depend on how many are drawn
    assert np.array_equal(poisson_weights(keys, BootstrapSpec(10, 3)), whole[:10])
    assert not np.array_equal(poisson_weights(keys, BootstrapSpec(50, 4)), whole)
    # a list and a tuple are the same JSON, hence the same unit
    assert np.array_equal(poisson_weights([["id", "r1"]], spec), whole[:, [1]])


def test_weights_are_poisson_one() -> None:
    w = poisson_weights([("id", i) for i in range(20_000)], BootstrapSpec(200, 0))
    assert abs(w.mean() - 1.0) < 0.01 and abs(w.var() - 1.0) < 0.02
    share = [float((w == k).mean()) for k in range(4)]
    assert share == pytest.approx([math.exp(-1) / math.factorial(k) for k in range(4)],
                                  abs=0.005)


def test_the_thresholds_are_the_poisson_cdf() -> None:
    cdf = 0.0
    for k, t in enumerate(THRESHOLDS):
        cdf += math.exp(-1) / math.factorial(k)
        assert int(t) / 2**53 == pytest.approx(cdf, abs=1e-15)
    assert len(THRESHOLDS) == 17


def test_pinned_weights() -> None:
    """Fixed keys, fixed weights: the same on every platform and numpy version."""
    w = poisson_weights([("id", "a"), ("gold", 3), ("extra", "x", 0)], BootstrapSpec(10, 7))
    assert w.T.astype(int).tolist() == [[3, 0, 0, 1, 1, 0, 1, 1, 2, 1],
                                        [1, 0, 2, 0, 3, 1, 4, 3, 0, 0],
                                        [2, 1, 0, 1, 2, 0, 0, 1, 0, 1]]
    w = poisson_weights([("id", "r0"), ("id", "r1")], BootstrapSpec(8, 0))
    assert w.T.astype(int).tolist() == [[0, 2, 1, 1, 1, 1, 0, 0], [2, 3, 0, 0, 4, 2, 0, 1]]


def test_unit_keys() -> None:
    def rec(index: int, rid: Any, gold: int | None, name: str | None = None) -> RecordResult:
        return RecordResult(index, rid, (), Counts(), gold, None, name=name)

    seen: dict[Any, int] = {}
    assert [unit_key(r, seen) for r in (
        rec(0, "inv-1", 4), rec(1, None, 1), rec(2, "x", None), rec(3, "x", None),
        rec(4, None, None, "scan"), rec(5, None, None))] == [
        ("id", "inv-1"), ("gold", 1), ("extra", "x", 0), ("extra", "x", 1),
        ("extra", "scan", 0), ("extra", 5, 0)]


def test_hand_checked_interval() -> None:
    """Two records by id; the second wrong in run b. With the pinned weights w0, w1 of
    r0 and r1, replicate b's difference of macro (and micro) F1 is -w1/(w0+w1):
    -1, -3/5, 0, 0, -4/5, -2/3, undefined, -1; the 25th/75th percentiles of the seven
    defined ones (linear interpolation) are -0.9 and -0.3."""
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string", "x-eval-skip": True}, "a": {"type": "string"}}}
    gold = [{"id": "r0", "a": "x"}, {"id": "r1", "a": "y"}]
    a = evaluate(gold, gold, schema)
    b = evaluate(gold, [{"id": "r0", "a": "x"}, {"id": "r1", "a": "z"}], schema)
    assert [r.f1 for r in b.records] == [1.0, 0.0]
    c = compare_runs([a, b], resamples=8, seed=0, confidence=0.5)
    for name in ("macro_f1", "micro_f1"):
        d = c.overall[name].differences[0]
        assert (d.delta, d.low, d.high) == pytest.approx((-0.5, -0.9, -0.3), abs=1e-12)
    assert c.records == 2


def test_tallies_of_different_fields_merge_as_one() -> None:
    gold = [{"id": f"r{i}", "a": "x", "b": "y"} for i in range(6)]
    got = [{"id": f"r{i}", "a": "x" if i % 2 else "q"} if i < 3 else
           {"id": f"r{i}", "b": "y" if i % 3 else "w"} for i in range(6)]
    run = evaluate(gold, got, {**SCHEMA, "properties": {
        "id": {"type": "string"}, "a": {"type": "string"}, "b": {"type": "string"}}})
    spec = BootstrapSpec(30, 1)
    one, _ = tally_records(run.records, spec)
    first, _ = tally_records(run.records[3:], spec)  # "b" before "a"
    second, _ = tally_records(run.records[:3], spec)
    first.update(second)
    for t in (one, first):
        assert t.gold_units == 6 and t.extra_units == 0
    fields = ["a", "b"]
    for x, y in zip(one.columns(fields), first.columns(fields), strict=True):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-12)
    again = pickle.loads(pickle.dumps(first))
    assert np.array_equal(again.replicates, first.replicates) and again.fields == first.fields


def test_a_record_added_twice_or_other_settings_are_refused() -> None:
    gold = [{"id": "r0", "a": "x"}, {"id": "r1", "a": "y"}]
    run = evaluate(gold, gold, SCHEMA)
    acc = RunAccumulator(replicates=BootstrapSpec(20, 0))
    for rec in (*run.records, run.records[0]):
        acc.add(rec)
    twice = acc.result()
    with pytest.raises(InputError) as err:
        compare_runs([run, twice], resamples=20)
    assert err.value.problems[0].code == "duplicate-unit"
    other = ReplicateTally(BootstrapSpec(20, 1))
    with pytest.raises(InputError) as err:
        other.update(ReplicateTally(BootstrapSpec(20, 0)))
    assert err.value.problems[0].code == "bootstrap-mismatch"
