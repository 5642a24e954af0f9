"""find_suspects: gold values two or more runs agree against, judged with the field's own
transforms and comparator; exact items for two and three runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalschema import InputError, evaluate
from evalschema.io.records import load_records
from evalschema.results import RecordResult
from evalschema.run.evaluate import make_evaluator
from evalschema.run.suspects import SuspectGold, find_suspects
from evalschema.scoring.walk import RecordScorer

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

SCHEMA: dict[str, Any] = {
    "type": "object", "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "vendor": {"type": "string", "x-eval-transform": ["casefold"]},
        "city": {"type": "string"},
        "total": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}},
        "po": {"type": "string"},
        "items": {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku"},
                  "items": {"type": "object", "properties": {
                      "sku": {"type": "string"}, "qty": {"type": "integer"},
                      "note": {"type": "string"}}}},
    },
}


def audit(gold: list[Any], *runs: list[Any], schema: dict[str, Any] = SCHEMA
          ) -> tuple[SuspectGold, ...]:
    results = [evaluate(gold, ext, schema).records for ext in runs]

    def extracted(k: int, rec: RecordResult) -> Any:
        assert rec.extracted_index is not None
        return runs[k][rec.extracted_index]

    return find_suspects(results, [f"run{k + 1}" for k in range(len(runs))],
                         make_evaluator(schema).root, lambda i: gold[i], extracted)


def suspect(path: str, pointer: str, gold: Any, agreed: Any, runs: tuple[str, ...],
            scored: int, *, kind: str = "mismatch", field: str | None = None,
            schema_pointer: str, gold_index: int = 0, rid: str = "r1") -> SuspectGold:
    return SuspectGold(gold_index, rid, rid, field or path, path, pointer, kind,  # type: ignore[arg-type]
                       gold, agreed, len(runs), scored, runs, schema_pointer)


def test_two_of_two_runs_agree_against_gold() -> None:
    gold = [{"id": "r1", "city": "Gothenburg", "total": 10.0}]
    a = [{"id": "r1", "city": "Göteborg", "total": 10.0}]
    b = [{"id": "r1", "city": "Göteborg", "total": 10.0}]
    assert audit(gold, a, b) == (suspect(
        "city", "/city", "Gothenburg", "Göteborg", ("run1", "run2"), 2,
        schema_pointer="/properties/city"),)


def test_two_of_three_agree_and_the_third_is_counted_as_scored() -> None:
    gold = [{"id": "r1", "city": "Lyon"}]
    a = [{"id": "r1", "city": "Paris"}]
    b = [{"id": "r1", "city": "Lyon"}]  # matches gold
    c = [{"id": "r1", "city": "Paris"}]
    assert audit(gold, a, b, c) == (suspect(
        "city", "/city", "Lyon", "Paris", ("run1", "run3"), 3,
        schema_pointer="/properties/city"),)


def test_three_runs_that_all_disagree_with_each_other_are_no_suspect() -> None:
    gold = [{"id": "r1", "city": "Lyon"}]
    runs = [[{"id": "r1", "city": c}] for c in ("Paris", "Nice", "Lille")]
    assert audit(gold, *runs) == ()


def test_one_run_alone_is_no_suspect() -> None:
    gold = [{"id": "r1", "city": "Lyon"}]
    assert audit(gold, [{"id": "r1", "city": "Paris"}], [{"id": "r1", "city": "Lyon"}]) == ()


def test_transforms_make_values_agree_and_the_value_is_shown_as_written() -> None:
    gold = [{"id": "r1", "vendor": "Acme Gmbh Ltd"}]
    a = [{"id": "r1", "vendor": "ACME GMBH"}]
    b = [{"id": "r1", "vendor": "acme gmbh"}]
    assert audit(gold, a, b) == (suspect(
        "vendor", "/vendor", "Acme Gmbh Ltd", "ACME GMBH", ("run1", "run2"), 2,
        schema_pointer="/properties/vendor"),)
    # without the transform they are two values
    plain = {**SCHEMA, "properties": {**SCHEMA["properties"], "vendor": {"type": "string"}}}
    assert audit(gold, a, b, schema=plain) == ()


def test_the_comparator_tolerance_decides_agreement() -> None:
    gold = [{"id": "r1", "total": 90.0}]
    near = audit(gold, [{"id": "r1", "total": 100.004}], [{"id": "r1", "total": 100.006}])
    assert near == (suspect("total", "/total", 90.0, 100.004, ("run1", "run2"), 2,
                            schema_pointer="/properties/total"),)
    assert audit(gold, [{"id": "r1", "total": 100.0}], [{"id": "r1", "total": 100.02}]) == ()


def test_array_elements_are_compared_as_alignment_paired_them() -> None:
    gold = [{"id": "r1", "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]}]
    a = [{"id": "r1", "items": [{"sku": "B", "qty": 3}, {"sku": "A", "qty": 1}]}]
    b = [{"id": "r1", "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 3}]}]
    assert audit(gold, a, b) == (suspect(
        "items[1].qty", "/items/1/qty", 2, 3, ("run1", "run2"), 2, field="items[].qty",
        schema_pointer="/properties/items/items/properties/qty"),)


def test_a_key_gold_lacks_is_a_hallucination_suspect_even_in_a_moved_element() -> None:
    gold = [{"id": "r1", "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]}]
    a = [{"id": "r1", "po": "PO-7",
          "items": [{"sku": "B", "qty": 2, "note": "fragile"}, {"sku": "A", "qty": 1}]}]
    b = [{"id": "r1", "po": "PO-7",
          "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2, "note": "fragile"}]}]
    assert audit(gold, a, b) == (
        suspect("po", "/po", None, "PO-7", ("run1", "run2"), 2, kind="hallucination",
                schema_pointer="/properties/po"),
        suspect("items[1].note", "/items/1/note", None, "fragile", ("run1", "run2"), 2,
                kind="hallucination", field="items[].note",
                schema_pointer="/properties/items/items/properties/note"),
    )


def test_values_gold_lacks_are_compared_after_the_fields_transforms() -> None:
    gold = [{"id": "r1"}]
    assert audit(gold, [{"id": "r1", "vendor": "ACME"}], [{"id": "r1", "vendor": "acme"}]) == (
        suspect("vendor", "/vendor", None, "ACME", ("run1", "run2"), 2, kind="hallucination",
                schema_pointer="/properties/vendor"),)


def test_unpaired_extra_elements_and_omissions_are_no_suspects() -> None:
    gold = [{"id": "r1", "city": "Lyon", "items": [{"sku": "A", "qty": 1}]}]
    run = [{"id": "r1", "items": [{"sku": "A", "qty": 1}, {"sku": "Z", "qty": 5}]}]
    assert audit(gold, run, run) == ()


def test_more_agreeing_runs_first_then_gold_order() -> None:
    gold = [{"id": "r1", "city": "Lyon"}, {"id": "r2", "city": "Nice", "total": 1.0}]
    a = [{"id": "r1", "city": "Paris"}, {"id": "r2", "city": "Nizza", "total": 2.0}]
    b = [{"id": "r1", "city": "Paris"}, {"id": "r2", "city": "Nizza", "total": 3.0}]
    c = [{"id": "r1", "city": "Lyon"}, {"id": "r2", "city": "Nizza", "total": 2.0}]
    got = audit(gold, a, b, c)
    assert [(s.label, s.path, s.agreed, s.runs) for s in got] == [
        ("r2", "city", "Nizza", ("run1", "run2", "run3")),
        ("r1", "city", "Paris", ("run1", "run2")),
        ("r2", "total", 2.0, ("run1", "run3")),
    ]
    assert got[0].to_dict() == {
        "gold_index": 1, "record_id": "r2", "label": "r2", "field": "city", "path": "city",
        "gold_pointer": "/city", "kind": "mismatch", "gold": "Nice", "agreed": "Nizza",
        "agreeing": 3, "scored": 3, "runs": ["run1", "run2", "run3"],
        "schema_pointer": "/properties/city"}


def test_a_run_missing_the_record_does_not_count_as_scored() -> None:
    gold = [{"id": "r1", "city": "Lyon"}]
    wrong = [{"id": "r1", "city": "Paris"}]
    got = audit(gold, wrong, wrong, [])
    assert [(s.agreeing, s.scored) for s in got] == [(2, 2)]


def test_labels_must_match_runs() -> None:
    with pytest.raises(InputError, match="one label per run"):
        find_suspects([(), ()], ["a"], make_evaluator(SCHEMA).root, lambda i: None,
                      lambda k, r: None)


def test_bundled_example_judges_each_doubly_wrong_position_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear: one agreement judgement per gold position both runs got wrong (two runs),
    none for the thousands of other results."""
    schema = EXAMPLES / "invoices.eval.json"
    gold = load_records(EXAMPLES / "invoices.gold.jsonl")
    exts = [load_records(EXAMPLES / f"invoices.model-{m}.extracted.jsonl") for m in "ab"]
    runs = [evaluate(gold, e, schema).records for e in exts]
    both_wrong = {(r.gold_index, f.gold_pointer) for r in runs[0] for f in r.field_results
                  if f.status == "mismatch"} & {
        (r.gold_index, f.gold_pointer) for r in runs[1] for f in r.field_results
        if f.status == "mismatch"}
    calls = 0
    real = RecordScorer.score

    def counted(self: RecordScorer, *args: Any, **kw: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(self, *args, **kw)

    monkeypatch.setattr(RecordScorer, "score", counted)
    got = find_suspects(runs, ["a", "b"], make_evaluator(schema).root, lambda i: gold[i],
                        lambda k, r: exts[k][r.extracted_index])  # type: ignore[index]
    assert calls == len(both_wrong) == 109
    assert len(got) == 43
    assert got[0] == SuspectGold(
        9, "INV-2026-00034", "INV-2026-00034", "currency", "currency", "/currency",
        "mismatch", "EUR", "eur", 2, 2, ("a", "b"), "/properties/currency")
    assert got[-1].label == "INV-2026-00383"  # the last gold record with one
