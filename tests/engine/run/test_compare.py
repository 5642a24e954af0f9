"""compare_runs: side-by-side figures equal each run's own, paired bootstrap intervals
(seeded, vectorised, checked against a plain loop), and flipped records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalschema import InputError, evaluate
from evalschema.results import FieldAggregation
from evalschema.run.bootstrap import BootstrapSpec
from evalschema.run.compare import compare_runs
from evalschema.run.replicates import poisson_weights

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SCHEMA = EXAMPLES / "invoices.eval.json"
GOLD = EXAMPLES / "invoices.gold.jsonl"


@pytest.fixture(scope="module")
def runs() -> tuple[Any, Any]:
    return (evaluate(GOLD, EXAMPLES / "invoices.model-a.extracted.jsonl", SCHEMA),
            evaluate(GOLD, EXAMPLES / "invoices.model-b.extracted.jsonl", SCHEMA))


def test_figures_are_each_runs_own(runs: tuple[Any, Any]) -> None:
    a, b = runs
    c = compare_runs([a, b], ["a", "b"], resamples=200)
    o = c.overall
    assert o["macro_f1"].values == pytest.approx((a.mean_f1, b.mean_f1), abs=1e-12)
    assert o["macro_precision"].values == pytest.approx((a.mean_precision, b.mean_precision))
    assert o["macro_recall"].values == pytest.approx((a.mean_recall, b.mean_recall))
    assert o["micro_f1"].values == pytest.approx((a.micro_f1, b.micro_f1), abs=1e-12)
    assert o["micro_precision"].values == pytest.approx((a.micro_precision, b.micro_precision))
    for f in c.fields:
        fa = a.per_field.get(f.field, FieldAggregation(f.field))
        fb = b.per_field.get(f.field, FieldAggregation(f.field))
        assert f.f1.values == pytest.approx((fa.f1, fb.f1), abs=1e-12), f.field
        assert f.precision.values == pytest.approx((fa.precision, fb.precision), abs=1e-12)
        assert f.recall.values == pytest.approx((fa.recall, fb.recall), abs=1e-12)
        d = f.f1.differences[0]
        if fa.f1 is None or fb.f1 is None:  # undefined on one side: so is the difference
            assert (d.delta, d.low, d.high, d.significant) == (None, None, None, False)
        else:
            assert d.delta == pytest.approx(fb.f1 - fa.f1)
    assert set(a.per_field) | set(b.per_field) == {f.field for f in c.fields}
    assert c.records == a.total_records


def test_model_b_is_significantly_worse_and_intervals_hold_the_estimate(
        runs: tuple[Any, Any]) -> None:
    a, b = runs
    c = compare_runs([a, b], ["a", "b"])
    d = c.overall["macro_f1"].differences[0]
    assert d.significant and d.high < 0 and d.low <= d.delta <= d.high
    total = c.field("total").f1.differences[0]
    assert total.significant and total.delta < 0
    # every field's interval contains its observed difference
    for f in c.fields:
        for m in (f.precision, f.recall, f.f1):
            x = m.differences[0]
            if x.delta is None:
                assert None in m.values, (f.field, x)
                continue
            assert x.low is not None and x.high is not None
            assert x.low - 1e-9 <= x.delta <= x.high + 1e-9 or f.only_extracted, (f.field, x)


def test_identical_runs_differ_by_exactly_zero(runs: tuple[Any, Any]) -> None:
    a, _ = runs
    c = compare_runs([a, a], resamples=300)
    for m in c.overall.values():
        (d,) = m.differences
        assert (d.delta, d.low, d.high, d.significant) == (0.0, 0.0, 0.0, False)
    assert c.flips == ()


def test_seeded_and_reproducible(runs: tuple[Any, Any]) -> None:
    a, b = runs
    one = compare_runs([a, b], seed=7, resamples=500).to_dict()
    two = compare_runs([a, b], seed=7, resamples=500).to_dict()
    other = compare_runs([a, b], seed=8, resamples=500).to_dict()
    assert one == two
    assert one["overall"] != other["overall"]


def test_vectorised_bootstrap_equals_a_plain_loop(runs: tuple[Any, Any]) -> None:
    """The same Poisson weights (each gold record by its id), summed one replicate at a
    time in Python, give the same interval."""
    a, b = runs
    c = compare_runs([a, b], seed=3, resamples=400)
    keys = [("id", r.record_id) for r in a.records]
    w = poisson_weights(keys, BootstrapSpec(400, 3))
    by_id = {r.record_id: r.f1 for r in b.records}
    f1a = [r.f1 for r in a.records]
    f1b = [by_id[r.record_id] for r in a.records]
    loop = []
    for row in w:  # the slow, obvious version
        mean_a = sum(x * f for x, f in zip(row, f1a, strict=True)) / sum(row)
        mean_b = sum(x * f for x, f in zip(row, f1b, strict=True)) / sum(row)
        loop.append(mean_b - mean_a)
    lo, hi = np.quantile(loop, [0.025, 0.975])
    d = c.overall["macro_f1"].differences[0]
    assert (d.low, d.high) == pytest.approx((lo, hi), abs=1e-12)


def test_three_runs_and_flips() -> None:
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"}, "a": {"type": "string"}, "b": {"type": "number"}}}
    gold = [{"id": f"r{i}", "a": "x", "b": i} for i in range(6)]
    base = [dict(g) for g in gold]
    worse = [dict(g) for g in gold]
    worse[1]["a"] = "y"
    del worse[2]["b"]
    better = [dict(g) for g in gold]
    base[4]["a"] = "z"  # wrong in the baseline, right in `worse`: a fix
    runs = [evaluate(gold, r, schema) for r in (base, worse, better)]
    c = compare_runs(runs, ["base", "worse", "better"], resamples=200)
    flips = [(f.run, f.record_id, f.regressed, f.fixed) for f in c.flips]
    assert flips == [(1, "r1", ("a",), ()), (1, "r2", ("b",), ()), (1, "r4", (), ("a",)),
                     (2, "r4", (), ("a",))]
    fa = c.field("a")
    assert (fa.regressed, fa.fixed) == ((1, 0), (1, 1))
    assert len(c.overall["micro_f1"].differences) == 2
    assert c.to_dict()["labels"] == ["base", "worse", "better"]


def test_bad_input() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    one = evaluate([{"a": "x"}], [{"a": "x"}], schema)
    two = evaluate([{"a": "x"}, {"a": "y"}], [{"a": "x"}], schema)
    lean = evaluate([{"a": "x"}], [{"a": "x"}], schema, keep_records=False, stream=False)
    for bad in ([one], [one, two], [one, lean]):
        with pytest.raises(InputError):
            compare_runs(bad)
    with pytest.raises(InputError):
        compare_runs([one, one], resamples=0)
