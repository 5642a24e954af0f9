"""Runs: pairing records, unequal counts, text records, selection, metrics, post-processing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import (
    GoldValidationError,
    InputError,
    RunAccumulator,
    Status,
    annotate_xeval,
    evaluate,
    infer_schema,
    iter_evaluate,
    make_evaluator,
    propagate_batch_errors,
    reclassify_nulls,
    validate_gold,
)
from evalschema.results import FieldResult

SCHEMA: dict[str, Any] = {
    "type": "object", "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "total": {"type": "number"},
        "vendor": {"type": "object", "properties": {"city": {"type": "string"}}},
        "items": {"type": "array", "items": {"type": "object",
                                             "properties": {"sku": {"type": "string"}}}},
    },
}
GOLD = [
    {"id": "a", "name": "x", "total": 1, "vendor": {"city": "Paris"}, "items": [{"sku": "s1"}]},
    {"id": "b", "name": "y", "total": 2, "vendor": {"city": "Rome"}, "items": []},
]


class TestPairing:
    def test_by_id_in_any_order(self) -> None:
        run = evaluate(GOLD, list(reversed(GOLD)), SCHEMA)
        assert [r.record_id for r in run.records] == ["a", "b"]
        assert [(r.gold_index, r.extracted_index) for r in run.records] == [(0, 1), (1, 0)]
        assert run.mean_f1 == 1.0

    def test_id_field_argument_overrides_schema(self) -> None:
        gold = [{"id": "a", "name": "x"}, {"id": "b", "name": "y"}]
        ext = [{"id": "zz", "name": "y"}, {"id": "b2", "name": "x"}]
        run = evaluate(gold, ext, SCHEMA, id_field="name")
        assert [r.record_id for r in run.records] == ["x", "y"]

    def test_by_position_without_id(self) -> None:
        schema = {k: v for k, v in SCHEMA.items() if k != "x-eval-id"}
        run = evaluate(GOLD, list(reversed(GOLD)), schema)
        assert run.mean_f1 < 1.0
        assert [r.record_id for r in run.records] == [None, None]

    def test_missing_extracted_record_is_all_omissions(self) -> None:
        run = evaluate(GOLD, [GOLD[0]], SCHEMA)
        missing = run.records[1]
        assert missing.problem == "no extracted record with this id"
        assert {str(r.status) for r in missing.field_results} == {"omission"}
        assert missing.recall == 0.0
        assert run.total_records == 2

    def test_extra_extracted_record_is_all_hallucinations(self) -> None:
        run = evaluate(GOLD, [*GOLD, {"id": "c", "name": "z"}], SCHEMA)
        extra = run.records[2]
        assert extra.record_id == "c"
        assert extra.problem == "no gold record with this id"
        assert [(r.path, str(r.status)) for r in extra.field_results] == [
            ("id", "hallucination"), ("name", "hallucination")]

    def test_unequal_counts_by_position(self) -> None:
        schema = {"type": "object", "properties": {"a": {"type": "string"}}}
        run = evaluate([{"a": "1"}], [{"a": "1"}, {"a": "2"}], schema)
        assert run.total_records == 2
        assert run.records[1].counts.hallucinations == 1

    def test_duplicate_gold_ids_are_a_located_error(self) -> None:
        with pytest.raises(GoldValidationError) as exc:
            evaluate([GOLD[0], GOLD[0]], GOLD, SCHEMA)
        p = exc.value.problems[0]
        assert (p.code, p.pointer) == ("duplicate-id", "/1")

    def test_gold_without_id_is_a_located_error(self, tmp_path: Path) -> None:
        gold = tmp_path / "g.jsonl"
        gold.write_text('{"id": "a"}\n{"name": "no id"}\n')
        with pytest.raises(GoldValidationError) as exc:
            evaluate(gold, [], SCHEMA)
        p = exc.value.problems[0]
        assert (p.code, p.source, p.line) == ("gold-missing-id", str(gold), 2)

    def test_duplicate_extracted_ids_are_scored(self) -> None:
        run = evaluate(GOLD, [*GOLD, GOLD[0]], SCHEMA)
        dup = run.records[2]
        assert dup.problem is not None and "duplicate id 'a'" in dup.problem
        assert dup.counts.hallucinations > 0


class TestTextRecords:
    def test_fenced_record_is_repaired_and_scored(self) -> None:
        text = "Here you go:\n```json\n" + json.dumps(GOLD[1]) + "\n```"
        run = evaluate(GOLD, [GOLD[0], text], SCHEMA)
        rec = run.records[1]
        assert rec.repaired
        assert rec.f1 == 1.0

    def test_unreadable_record_by_position_is_all_omissions(self) -> None:
        schema = {"type": "object", "properties": {"a": {"type": "string"},
                                                   "b": {"type": "string"}}}
        run = evaluate([{"a": "1", "b": "2"}], ["I could not read the document."], schema)
        rec = run.records[0]
        assert rec.problem is not None and rec.problem.startswith("unreadable extracted record")
        assert [str(r.status) for r in rec.field_results] == ["omission", "omission"]

    def test_unreadable_record_by_id_is_listed_not_scored(self) -> None:
        run = evaluate(GOLD, [GOLD[0], "garbage"], SCHEMA)
        assert run.total_records == 2
        assert len(run.records) == 3
        unread = run.records[2]
        assert unread.field_results == ()
        assert unread.problem is not None and "unreadable" in unread.problem
        assert "unreadable" in (run.records[1].problem or "")

    def test_non_object_record_is_an_outcome(self) -> None:
        schema = {"type": "object", "properties": {"a": {"type": "string"}}}
        run = evaluate([{"a": "1"}], [[1, 2]], schema)
        assert run.records[0].problem == "extracted record is array, not an object"

    def test_jsonl_with_a_broken_line(self, tmp_path: Path) -> None:
        ext = tmp_path / "run.jsonl"
        ext.write_text(json.dumps(GOLD[0]) + "\n" + json.dumps(GOLD[1])[:-1] + ",}\n")
        run = evaluate(GOLD, ext, SCHEMA)
        assert run.records[1].repaired
        assert run.mean_f1 == 1.0

    def test_broken_gold_line_is_located(self, tmp_path: Path) -> None:
        gold = tmp_path / "gold.jsonl"
        gold.write_text('{"id": "a"}\n{"id": "b",,}\n')
        with pytest.raises(InputError) as exc:
            evaluate(gold, [], SCHEMA)
        p = exc.value.problems[0]
        assert (p.code, p.line, p.column) == ("invalid-json", 2, 12)


class TestFiles:
    def test_array_jsonl_and_folder(self, tmp_path: Path) -> None:
        (tmp_path / "gold.json").write_text(json.dumps(GOLD))
        (tmp_path / "ext.jsonl").write_text("\n".join(json.dumps(g) for g in GOLD))
        folder = tmp_path / "runs"
        folder.mkdir()
        for g in GOLD:
            (folder / f"{g['id']}.json").write_text(json.dumps(g))
        for ext in (tmp_path / "ext.jsonl", folder):
            run = evaluate(tmp_path / "gold.json", ext, SCHEMA)
            assert (run.total_records, run.mean_f1) == (2, 1.0)

    def test_schema_from_path(self, tmp_path: Path) -> None:
        p = tmp_path / "s.eval.json"
        p.write_text(json.dumps(SCHEMA))
        assert evaluate(GOLD, GOLD, str(p)).mean_f1 == 1.0

    def test_missing_file(self, tmp_path: Path) -> None:
        with pytest.raises(InputError) as exc:
            evaluate(tmp_path / "nope.jsonl", GOLD, SCHEMA)
        assert exc.value.problems[0].code == "file-not-found"


class TestSelection:
    def test_fields_restrict_scoring(self) -> None:
        ext = [{**GOLD[0], "name": "WRONG", "total": 99, "extra": 1}]
        run = evaluate(GOLD[:1], ext, SCHEMA, fields=["total", "$.items[*].sku"])
        assert set(run.per_field) == {"total", "items[].sku"}
        assert run.total_mismatches == 1

    def test_pointer_and_dot_notation(self) -> None:
        run = evaluate(GOLD, GOLD, SCHEMA, fields=["/vendor/city"])
        assert set(run.per_field) == {"vendor.city"}

    def test_target_scores_a_subtree(self) -> None:
        ext = [{**GOLD[0], "name": "WRONG", "vendor": {"city": "Lyon"}}]
        run = evaluate(GOLD[:1], ext, SCHEMA, target="vendor")
        r = run.records[0].field_results[0]
        assert (r.path, r.gold_pointer, str(r.status)) == ("vendor.city", "/vendor/city",
                                                             "mismatch")
        assert len(run.records[0].field_results) == 1

    def test_unknown_field_is_an_input_error(self) -> None:
        with pytest.raises(InputError) as exc:
            evaluate(GOLD, GOLD, SCHEMA, fields=["totl"])
        assert exc.value.problems[0].suggestion == "did you mean 'total'?"


class TestMetrics:
    def test_macro_and_micro_differ(self) -> None:
        """Records where precision and recall differ, so the mean of F1s (macro), the F1 of
        the mean precision and recall, and the F1 of the pooled counts (micro) all differ."""
        schema = {"type": "object", "properties": {k: {"type": "string"} for k in "abcd"}}
        full = {"a": "1", "b": "1", "c": "1", "d": "1"}
        # Record 2: a matches, b omitted, c and d invented: P 1/3, R 1/2, F1 0.4.
        gold = [full, {"a": "1", "b": "1"}]
        ext = [full, {"a": "1", "c": "1", "d": "1"}]
        run = evaluate(gold, ext, schema)
        assert [r.f1 for r in run.records] == pytest.approx([1.0, 0.4])
        assert run.mean_precision == pytest.approx((1 + 1 / 3) / 2)
        assert run.mean_recall == pytest.approx((1 + 1 / 2) / 2)
        assert run.mean_f1 == pytest.approx(0.7)  # not 2PR/(P+R) of the means: 0.70588
        # Pooled: 5 matches, 1 omission, 2 hallucinations.
        assert run.micro_precision == pytest.approx(5 / 7)
        assert run.micro_recall == pytest.approx(5 / 6)
        assert run.micro_f1 == pytest.approx(10 / 13)
        assert run.total_fields == 8

    def test_per_field_aggregates(self) -> None:
        ext = [{**GOLD[0], "items": [{"sku": "s1"}, {"sku": "s9"}]}, GOLD[1]]
        run = evaluate(GOLD, ext, SCHEMA)
        agg = run.per_field["items[].sku"]
        assert (agg.counts.matches, agg.counts.hallucinations) == (1, 1)
        assert agg.precision == 0.5
        assert agg.recall == 1.0
        assert agg.mean_score == 0.5

    def test_no_records_is_undefined_not_perfect(self) -> None:
        run = evaluate([], [], SCHEMA)
        assert (run.mean_f1, run.micro_f1, run.total_records) == (None, None, 0)

    def test_to_dict_is_plain_json(self) -> None:
        run = evaluate(GOLD, [GOLD[0]], SCHEMA)
        doc = json.loads(json.dumps(run.to_dict()))
        assert doc["total_records"] == 2
        assert doc["records"][1]["field_results"][0]["status"] == "omission"
        assert doc["per_field"]["name"]["recall"] == 0.5

    def test_accumulators_merge(self) -> None:
        ev = make_evaluator(SCHEMA)
        a, b = RunAccumulator(), RunAccumulator()
        list(iter_evaluate(GOLD[:1], [GOLD[0]], ev, a))
        list(iter_evaluate(GOLD[1:], [{"id": "b"}], ev, b))
        merged = a.merge(b).result()
        whole = evaluate(GOLD, [GOLD[0], {"id": "b"}], SCHEMA)
        assert merged.mean_f1 == pytest.approx(whole.mean_f1)
        assert merged.per_field["name"].counts == whole.per_field["name"].counts

    def test_streaming_without_keeping_records(self) -> None:
        seen: list[str] = []
        run = evaluate(GOLD, GOLD, SCHEMA, keep_records=False,
                       on_record=lambda r: seen.append(r.record_id))
        assert run.records == ()
        assert seen == ["a", "b"]
        assert run.total_records == 2


class TestPostProcess:
    def test_reclassify_nulls(self) -> None:
        schema = {"type": "object", "properties": {k: {"type": "string"} for k in "abc"}}
        run = evaluate([{"a": None, "b": "x", "c": None}], [{"a": None, "b": None, "c": "y"}],
                       schema, post_process=reclassify_nulls())
        got = {r.path: str(r.status) for r in run.records[0].field_results}
        assert got == {"a": "skipped", "b": "omission", "c": "hallucination"}

    def test_reclassify_other_absent_values(self) -> None:
        schema = {"type": "object", "properties": {"a": {"type": "string"},
                                                   "n": {"type": "integer"}}}
        pp = reclassify_nulls(absent_values=["", 0], both_absent_skip=False)
        run = evaluate([{"a": "", "n": False}], [{"a": "", "n": False}], schema, post_process=pp)
        got = {r.path: str(r.status) for r in run.records[0].field_results}
        assert got == {"a": "match", "n": "match"}  # False is not absent when 0 is listed

    def test_propagate_batch_errors(self) -> None:
        base = FieldResult("a", "a", Status.BATCH_ERROR, 0.0)
        pend = FieldResult("b", "b", Status.PENDING, 0.0)
        out = propagate_batch_errors([base, pend])
        assert [str(r.status) for r in out] == ["batch_error", "batch_error"]


class TestSchemaFromData:
    def test_infer_then_annotate_scores_gold_perfectly(self) -> None:
        schema = annotate_xeval(infer_schema(GOLD))
        assert schema["properties"]["total"] == {"type": "integer", "x-eval-compare": "numeric"}
        assert schema["properties"]["vendor"]["properties"]["city"]["x-eval-compare"] == "exact"
        assert evaluate(GOLD, GOLD, schema).mean_f1 == 1.0

    def test_infer_mixed_numbers_and_nulls(self) -> None:
        s = infer_schema([{"a": 1, "b": None}, {"a": 1.5, "b": None}, {"a": None}])
        assert s["properties"]["a"]["type"] == ["number", "null"]
        assert s["properties"]["b"]["type"] == ["string", "null"]
        assert s["required"] == ["a"]

    def test_annotate_leaves_existing_and_refs_alone(self) -> None:
        schema = {"type": "object", "$defs": {"m": {"type": "number"}}, "properties": {
            "a": {"type": "string", "x-eval-compare": "normalized"},
            "b": {"$ref": "#/$defs/m"},
            "c": {"anyOf": [{"type": "null"}, {"type": "integer"}]}}}
        annotate_xeval(schema)
        assert schema["properties"]["a"]["x-eval-compare"] == "normalized"
        assert "x-eval-compare" not in schema["properties"]["b"]
        assert schema["$defs"]["m"]["x-eval-compare"] == "numeric"
        assert schema["properties"]["c"]["x-eval-compare"] == "numeric"

    def test_validate_gold(self) -> None:
        warnings = validate_gold([{"id": "a", "name": "x", "zzz": 1}], SCHEMA)
        codes = sorted({w.code for w in warnings})
        assert codes == ["gold-extra-field", "gold-missing-field"]
        with pytest.raises(GoldValidationError) as exc:
            validate_gold([{"id": "a", "total": "12"}], SCHEMA, strict_types=True)
        assert any(p.code == "gold-type" and p.pointer == "/0/total" for p in exc.value.problems)
