"""Bad and extreme input: deep nesting, huge arrays, duplicate ids, unequal counts,
unreadable answers. Extracted data is an outcome, never an exception; broken gold
or schema raises a located EvalSchemaError; nothing escapes as RecursionError.
"""

from __future__ import annotations

import json
import random
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hang_budget import HANG_SECONDS

from evalschema import (
    GoldValidationError,
    InputError,
    SchemaError,
    Status,
    check_eval_schema,
    evaluate,
    parse_lenient,
)

DEPTH = 10_000


def deep_object(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def deep_list(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def deep_schema(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


FLAT = {"type": "object", "properties": {
    "a": {"type": "string", "x-eval-compare": "exact"},
    "n": {"type": "integer"},
}}
BY_ID = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"}, "v": {"type": "integer"}}}


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Fail (TimeoutError) instead of hanging when the engine is too slow."""

    def handler(signum: int, frame: Any) -> None:
        raise TimeoutError(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def outcome(fn: Callable[[], Any]) -> Any:
    """Run ``fn``; a RecursionError is a failure, an EvalSchemaError a clean outcome."""
    try:
        return fn()
    except RecursionError as exc:  # pragma: no cover - the failure being tested for
        pytest.fail(f"RecursionError escaped: {exc}")


# -- deep nesting ----------------------------------------------------------------


def test_deep_extracted_value_under_a_leaf_is_a_mismatch() -> None:
    with time_limit(HANG_SECONDS):
        run = evaluate([{"a": "x", "n": 1}], [{"a": deep_object(DEPTH), "n": 1}], FLAT)
    assert (run.total_matches, run.total_mismatches) == (1, 1)
    bad = next(fr for fr in run.records[0].field_results if fr.path == "a")
    assert bad.status is Status.MISMATCH
    assert bad.extracted_pointer == "/a"


def test_deep_extracted_value_under_an_object_field_is_a_mismatch() -> None:
    schema = {"type": "object", "properties": {
        "o": {"type": "object", "properties": {"b": {"type": "string"}}}}}
    with time_limit(HANG_SECONDS):
        run = evaluate([{"o": {"b": "x"}}], [{"o": {"b": deep_list(DEPTH)}}], schema)
    assert run.total_mismatches == 1
    [fr] = run.records[0].field_results
    assert (fr.path, fr.status, fr.gold, fr.extracted_pointer) == (
        "o.b", Status.MISMATCH, "x", "/o/b")


def test_deep_extracted_value_under_an_unknown_key_is_a_hallucination() -> None:
    with time_limit(HANG_SECONDS):
        run = evaluate([{"a": "x"}], [{"a": "x", "zz": deep_object(DEPTH)}], FLAT)
    assert (run.total_matches, run.total_hallucinations) == (1, 1)
    hall = run.records[0].field_results[-1]
    assert (hall.path, hall.status, hall.reason) == ("zz", Status.HALLUCINATION,
                                                     "not in the schema")


def test_deep_identical_values_under_an_any_leaf_do_not_raise() -> None:
    """An untyped leaf compares whole values; 10,000 levels must give a result."""
    schema = {"type": "object", "properties": {"a": {}}}
    value = deep_list(DEPTH)
    with time_limit(HANG_SECONDS):
        run = outcome(lambda: evaluate([{"a": value}], [{"a": deep_list(DEPTH)}], schema))
    [fr] = run.records[0].field_results
    # Identical values should match; today the comparison overflows and is an error.
    assert fr.status in (Status.MATCH, Status.ERROR)
    if fr.status is Status.ERROR:
        assert "RecursionError" in (fr.reason or "")


def test_deep_schema_file_is_a_located_input_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.eval.json"
    path.write_text('{"properties": {"a": ' * DEPTH + "{}" + "}}" * DEPTH, encoding="utf-8")
    with pytest.raises(InputError) as info:
        evaluate([{"a": 1}], [{"a": 1}], path)
    [problem] = info.value.problems
    assert problem.code == "too-deep"
    assert problem.source == str(path)


def test_deep_schema_object_raises_schema_error() -> None:
    with time_limit(HANG_SECONDS), pytest.raises(SchemaError):
        outcome(lambda: evaluate([deep_object(DEPTH)], [deep_object(DEPTH)],
                                 deep_schema(DEPTH)))


def test_check_eval_schema_does_not_raise_on_a_deep_schema() -> None:
    with time_limit(HANG_SECONDS):
        check = outcome(lambda: check_eval_schema(deep_schema(DEPTH)))
    assert check.errors


def test_schema_nested_400_levels_still_scores() -> None:
    """Realistically deep schemas work; the limit above is about pathological depth."""
    with time_limit(HANG_SECONDS):
        run = evaluate([deep_object(400)], [deep_object(400, leaf=2)], deep_schema(400))
    assert (run.total_matches, run.total_mismatches) == (0, 1)
    [fr] = run.records[0].field_results
    assert fr.path == ".".join(["a"] * 400)
    assert fr.gold_pointer == "/a" * 400


@pytest.mark.parametrize("text", [
    "[" * DEPTH + "]" * DEPTH,
    '{"a": ' * DEPTH + "1" + "}" * DEPTH,
], ids=["arrays", "objects"])
def test_deep_extracted_text_is_an_outcome(text: str) -> None:
    with time_limit(HANG_SECONDS):
        run = outcome(lambda: evaluate([{"a": "x"}], [text], FLAT))
    assert run.total_records == 1
    assert run.total_omissions + run.total_mismatches + run.total_hallucinations >= 1


def test_deep_line_in_extracted_file_is_an_outcome(tmp_path: Path) -> None:
    ext = tmp_path / "run.jsonl"
    ext.write_text('{"a": "x"}\n' + "[" * DEPTH + "]" * DEPTH + "\n", encoding="utf-8")
    run = outcome(lambda: evaluate([{"a": "x"}, {"a": "y"}], ext, FLAT))
    assert run.total_matches == 1
    assert run.records[1].problem is not None


def test_deep_gold_file_is_a_located_input_error(tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text("[" * DEPTH + "]" * DEPTH, encoding="utf-8")
    """Regression: this raised RecursionError from records.load_records."""
    with pytest.raises(InputError) as info:
        outcome(lambda: evaluate(gold, [{"a": "x"}], FLAT))
    [problem] = info.value.problems
    assert (problem.code, problem.source) == ("too-deep", str(gold))


# -- huge arrays ----------------------------------------------------------------------
# Linear (or n log n, or one solver call) at these sizes: well under a second. The budget
# catches a quadratic walk (hours at 100,000), not a slow machine; bench/ has the figures.

N_BIG = 100_000


def _shuffled(n: int, seed: int = 7) -> list[int]:
    values = list(range(n))
    random.Random(seed).shuffle(values)
    return values


def test_hundred_thousand_scalars_ordered() -> None:
    schema = {"type": "object", "properties": {"xs": {"type": "array",
                                                      "items": {"type": "integer"}}}}
    ext = _shuffled(N_BIG)
    fixed = sum(1 for i, v in enumerate(ext) if i == v)
    start = time.perf_counter()
    run = evaluate([{"xs": list(range(N_BIG))}], [{"xs": ext}], schema)
    assert time.perf_counter() - start < HANG_SECONDS
    assert (run.total_matches, run.total_mismatches) == (fixed, N_BIG - fixed)
    assert run.per_field["xs[]"].counts.scored == N_BIG


def test_hundred_thousand_scalars_as_a_set() -> None:
    schema = {"type": "object", "properties": {"xs": {
        "type": "array", "items": {"type": "integer"}, "x-eval-align": {"match_by": "set"}}}}
    ext = [*_shuffled(N_BIG)[:N_BIG - 10], -1, -2]
    start = time.perf_counter()
    run = evaluate([{"xs": list(range(N_BIG))}], [{"xs": ext}], schema)
    assert time.perf_counter() - start < HANG_SECONDS
    assert (run.total_matches, run.total_omissions, run.total_hallucinations) == \
        (N_BIG - 10, 10, 2)


def test_two_thousand_objects_under_hungarian() -> None:
    n = 2000
    schema = {"type": "object", "properties": {"xs": {
        "type": "array", "x-eval-align": {"match_by": "hungarian"},
        "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "number"},
            "name": {"type": "string", "x-eval-compare": {"levenshtein": {"threshold": 0.8}}}}}}}}
    gold = [{"sku": f"S{i:05d}", "qty": i % 7, "name": f"part number {i}"} for i in range(n)]
    ext = [dict(gold[i]) for i in _shuffled(n)]
    start = time.perf_counter()
    run = evaluate([{"xs": gold}], [{"xs": ext}], schema)
    assert time.perf_counter() - start < HANG_SECONDS
    assert run.total_matches == 3 * n
    assert run.mean_f1 == 1.0


def test_two_thousand_objects_under_key_field() -> None:
    n = 2000
    schema = {"type": "object", "properties": {"xs": {
        "type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku"},
        "items": {"type": "object", "properties": {"sku": {"type": "string"},
                                                    "qty": {"type": "integer"}}}}}}
    gold = [{"sku": f"S{i}", "qty": i} for i in range(n)]
    ext = [{"sku": f"S{i}", "qty": i if i % 10 else -1} for i in _shuffled(n)]
    start = time.perf_counter()
    run = evaluate([{"xs": gold}], [{"xs": ext}], schema)
    assert time.perf_counter() - start < HANG_SECONDS
    assert (run.total_matches, run.total_mismatches) == (2 * n - n // 10, n // 10)


def test_two_thousand_scalars_under_hungarian_do_not_hang() -> None:
    n = 2000
    schema = {"type": "object", "properties": {"xs": {
        "type": "array", "items": {"type": "string"}, "x-eval-align": {"match_by": "hungarian"}}}}
    gold = [f"value {i}" for i in range(n)]
    ext = [gold[i] for i in _shuffled(n)]
    with time_limit(HANG_SECONDS):
        run = evaluate([{"xs": gold}], [{"xs": ext}], schema)
    assert run.total_matches == n


# -- ids and counts ---------------------------------------------------------------------


def test_gold_duplicate_ids_in_a_list_are_located() -> None:
    gold = [{"id": "a", "v": 1}, {"id": "b", "v": 2}, {"id": "a", "v": 3}]
    with pytest.raises(GoldValidationError) as info:
        evaluate(gold, [{"id": "a", "v": 1}], BY_ID)
    [problem] = info.value.problems
    assert problem.code == "duplicate-id"
    assert problem.pointer == "/2"
    assert '"a"' in problem.message and "record 1" in problem.message  # JSON, 1-based


def test_gold_duplicate_ids_in_a_jsonl_file_are_located(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "a", "v": 1}\n{"id": "b", "v": 2}\n\n{"id": "b", "v": 3}\n'
                    '{"id": "a", "v": 4}\n', encoding="utf-8")
    with pytest.raises(GoldValidationError) as info:
        evaluate(gold, [], BY_ID)
    problems = info.value.problems
    assert [(p.code, p.source, p.line) for p in problems] == [
        ("duplicate-id", str(gold), 4), ("duplicate-id", str(gold), 5)]
    assert str(gold) + ":4" in str(info.value)


def test_gold_records_without_ids_or_not_objects_are_all_reported() -> None:
    gold = [{"id": "a"}, {"v": 1}, "text", {"id": ["x"]}]
    with pytest.raises(GoldValidationError) as info:
        evaluate(gold, [], BY_ID)
    assert [(p.code, p.pointer) for p in info.value.problems] == [
        ("gold-missing-id", "/1"), ("gold-not-object", "/2"), ("gold-missing-id", "/3")]


def test_extracted_duplicate_ids_are_scored_not_raised() -> None:
    gold = [{"id": "a", "v": 1}, {"id": "b", "v": 2}]
    ext = [{"id": "a", "v": 1}, {"id": "a", "v": 5}, {"id": "b", "v": 2}]
    run = evaluate(gold, ext, BY_ID)
    assert [(r.record_id, r.gold_index, r.extracted_index) for r in run.records] == [
        ("a", 0, 0), ("b", 1, 2), ("a", None, 1)]
    dup = run.records[2]
    assert dup.problem == "duplicate id 'a' (first at extracted record #1)"
    assert (dup.counts.matches, dup.counts.hallucinations) == (0, 2)
    assert all(fr.status is Status.HALLUCINATION for fr in dup.field_results)
    assert (run.total_matches, run.total_hallucinations, run.total_records) == (4, 2, 3)
    assert run.mean_precision == pytest.approx((1 + 1 + 0) / 3)
    assert run.mean_recall == pytest.approx((1 + 1 + 1) / 3)


@pytest.mark.parametrize(("n_gold", "n_ext"), [(3, 1), (1, 3), (2, 0)])
def test_unequal_counts_by_position_are_not_an_error(n_gold: int, n_ext: int) -> None:
    gold = [{"a": "x", "n": i} for i in range(n_gold)]
    ext = [{"a": "x", "n": i} for i in range(n_ext)]
    run = evaluate(gold, ext, FLAT)
    paired = min(n_gold, n_ext)
    assert run.total_records == max(n_gold, n_ext)
    assert run.total_matches == 2 * paired
    assert run.total_omissions == 2 * (n_gold - paired)
    assert run.total_hallucinations == 2 * (n_ext - paired)
    problems = [r.problem for r in run.records[paired:]]
    want = "no extracted record" if n_gold > n_ext else "no gold record at this position"
    assert problems == [want] * abs(n_gold - n_ext)


def test_unequal_counts_by_id_are_not_an_error() -> None:
    gold = [{"id": "a", "v": 1}, {"id": "b", "v": 2}, {"id": "c", "v": 3}]
    ext = [{"id": "c", "v": 3}, {"id": "z", "v": 9}]
    run = evaluate(gold, ext, BY_ID)
    assert [(r.record_id, r.problem) for r in run.records] == [
        ("a", "no extracted record with this id"),
        ("b", "no extracted record with this id"),
        ("c", None),
        ("z", "no gold record with this id"),
    ]
    assert (run.total_matches, run.total_omissions, run.total_hallucinations) == (2, 4, 2)


# -- unreadable and odd extracted records ---------------------------------------------


def test_unreadable_text_by_position_omits_every_gold_field() -> None:
    run = evaluate([{"a": "x", "n": 1}], ["I could not find an invoice here."], FLAT)
    [rec] = run.records
    assert rec.problem is not None and rec.problem.startswith("unreadable extracted record")
    assert [(fr.path, fr.status) for fr in rec.field_results] == [
        ("a", Status.OMISSION), ("n", Status.OMISSION)]
    # Nothing extracted: precision undefined (never 1.0), recall 0, F1 0 (docs/metrics.md).
    assert (rec.precision, rec.recall, rec.f1) == (None, 0.0, 0.0)


def test_unreadable_text_by_id_leaves_the_gold_record_unmatched() -> None:
    gold = [{"id": "a", "v": 1}, {"id": "b", "v": 2}]
    ext = ['```json\n{"id": "a", "v": 1,}\n```', "nothing to see", 42]
    run = evaluate(gold, ext, BY_ID)
    assert [(r.record_id, r.repaired, r.problem) for r in run.records] == [
        ("a", True, None),
        ("b", False, "no extracted record with this id (2 extracted record(s) unreadable)"),
        (None, False, "unreadable extracted record: no JSON object found in 'nothing to see'"),
        (None, False, "extracted record is integer, not an object"),
    ]
    # unreadable records are listed, not counted
    assert run.total_records == 2
    assert (run.total_matches, run.total_omissions, run.total_hallucinations) == (2, 2, 0)


@pytest.mark.parametrize("text", [
    '```json\n{"a": "x", "n": 1}\n```',
    'Sure! Here is the record: {"a": "x", "n": 1}. Anything else?',
    "{'a': 'x', 'n': 1}",
    '{"a": "x", "n": 1,}',
    '{"a": "x", "n": 1',
])
def test_repairable_text_is_scored_and_flagged(text: str) -> None:
    run = evaluate([{"a": "x", "n": 1}], [text], FLAT)
    [rec] = run.records
    # a text cut short is flagged with the reason (issue 13); the others just repaired
    want: bool | str = "truncated" if text == '{"a": "x", "n": 1' else True
    assert (rec.repaired, type(rec.repaired)) == (want, type(want))
    assert rec.problem is None
    assert rec.f1 == 1.0


def test_lenient_repair_keeps_string_contents() -> None:
    got = parse_lenient('{"a": "x,}", "b": [1, 2,],}')
    assert got.value == {"a": "x,}", "b": [1, 2]}


@pytest.mark.parametrize(("value", "named"), [(None, "null"), (3, "integer"),
                                              ([1, 2], "array"), (True, "boolean")])
def test_extracted_record_of_the_wrong_type_is_an_outcome(value: Any, named: str) -> None:
    run = evaluate([{"a": "x", "n": 1}], [value], FLAT)
    [rec] = run.records
    assert rec.problem == f"extracted record is {named}, not an object"
    assert rec.counts.omissions == 2


def test_wrong_types_inside_extracted_records_are_outcomes() -> None:
    schema = {"type": "object", "properties": {
        "o": {"type": "object", "properties": {"b": {"type": "string"}}},
        "xs": {"type": "array", "items": {"type": "integer"}},
        "n": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.1}}}},
        "d": {"type": "string", "x-eval-compare": "date"},
        "s": {"type": "string", "x-eval-compare": "levenshtein",
              "x-eval-transform": ["lowercase"]},
    }}
    gold = [{"o": {"b": "x"}, "xs": [1], "n": 1.5, "d": "2026-01-02", "s": "Ab"}]
    ext = [{"o": "x", "xs": {"0": 1}, "n": "one", "d": "yesterday", "s": 12}]
    run = evaluate(gold, ext, schema)
    statuses = {fr.path: fr.status for fr in run.records[0].field_results}
    assert statuses == {"o": Status.MISMATCH, "xs": Status.MISMATCH, "n": Status.MISMATCH,
                        "d": Status.MISMATCH, "s": Status.MISMATCH}
    reasons = {fr.path: fr.reason or "" for fr in run.records[0].field_results}
    assert reasons["o"].startswith("type mismatch")
    assert reasons["s"].startswith("transform failed on the extracted value")
    json.dumps(run.to_dict())  # the whole result is plain JSON
