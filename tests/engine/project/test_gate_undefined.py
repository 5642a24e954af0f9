"""Thresholds on an undefined F1 (nothing was judged) fail with a clear message: a
threshold nothing was measured against has not been met."""

from __future__ import annotations

from evalschema import evaluate
from evalschema.project.gate import check_run, passed

SCHEMA = {"type": "object", "properties": {"a": {"type": "string"},
                                           "b": {"type": "string", "x-eval-skip": True}}}


def test_overall_and_field_checks_on_undefined_f1_fail_and_say_why() -> None:
    run = evaluate([{"b": "x"}], [{"b": "y"}], SCHEMA)
    assert run.mean_f1 is None and run.micro_f1 is None
    for metric in ("macro", "micro"):
        [check] = check_run(run, fail_under=0.0, fail_metric=metric)
        assert not check.passed and check.value is None
        assert check.describe() == (f"overall {metric} F1 undefined: nothing was judged "
                                    "(needs >= 0.0000)")
        assert check.to_dict()["value"] is None and check.to_dict()["passed"] is False
    checks = check_run(run, thresholds={"b": 0.0, "never": 0.0})
    assert not passed(checks)
    assert [c.describe() for c in checks] == [
        "b: F1 undefined: nothing was judged (needs >= 0.0000)",
        "never: F1 undefined: nothing was judged (needs >= 0.0000)"]


def test_a_defined_f1_still_passes_and_fails_as_before() -> None:
    run = evaluate([{"a": "x"}, {"a": "y"}], [{"a": "x"}, {"a": "z"}], SCHEMA)
    assert [c.passed for c in check_run(run, fail_under=0.5, thresholds={"a": 0.6})] == [
        True, False]
