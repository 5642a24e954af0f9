"""Scoring behaviour, one class per concern: what each kind of difference becomes."""

from __future__ import annotations

from typing import Any

import pytest

from evalschema import RecordResult, Status, evaluate


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def one(gold: Any, extracted: Any, schema: dict[str, Any], **kw: Any) -> RecordResult:
    run = evaluate([gold], [extracted], schema, **kw)
    assert run.total_records == 1
    return run.records[0]


def statuses(rec: RecordResult) -> dict[str, str]:
    return {r.path: str(r.status) for r in rec.field_results}


S = {"type": "string"}
N = {"type": "number"}


class TestFlat:
    schema = obj(name=S, age=N, ok={"type": "boolean"})

    def test_identical_is_all_match(self) -> None:
        rec = one({"name": "a", "age": 3, "ok": True}, {"name": "a", "age": 3, "ok": True},
                  self.schema)
        assert statuses(rec) == {"name": "match", "age": "match", "ok": "match"}
        assert (rec.precision, rec.recall, rec.f1) == (1.0, 1.0, 1.0)

    def test_mismatch_counts_against_both(self) -> None:
        rec = one({"name": "a", "age": 3, "ok": True}, {"name": "b", "age": 3, "ok": True},
                  self.schema)
        assert statuses(rec)["name"] == "mismatch"
        assert rec.precision == pytest.approx(2 / 3)
        assert rec.recall == pytest.approx(2 / 3)

    def test_omission_lowers_recall_only(self) -> None:
        rec = one({"name": "a", "age": 3}, {"name": "a"}, self.schema)
        assert statuses(rec) == {"name": "match", "age": "omission"}
        assert rec.precision == 1.0
        assert rec.recall == 0.5
        om = rec.field_results[1]
        assert (om.gold, om.extracted, om.gold_pointer, om.extracted_pointer) == (3, None, "/age",
                                                                                   None)

    def test_hallucination_lowers_precision_only(self) -> None:
        rec = one({"name": "a"}, {"name": "a", "age": 4}, self.schema)
        assert statuses(rec) == {"name": "match", "age": "hallucination"}
        assert (rec.precision, rec.recall) == (0.5, 1.0)

    def test_key_not_in_schema_but_in_gold_is_skipped(self) -> None:
        rec = one({"name": "a", "po": "X"}, {"name": "a", "po": "X"}, self.schema)
        assert statuses(rec) == {"name": "match", "po": "skipped"}
        assert rec.f1 == 1.0

    def test_key_not_in_schema_is_hallucination(self) -> None:
        rec = one({"name": "a"}, {"name": "a", "zz": 1, "aa": 2}, self.schema)
        halls = [r for r in rec.field_results if r.status is Status.HALLUCINATION]
        assert [h.path for h in halls] == ["aa", "zz"]
        assert halls[0].reason == "not in the schema"
        assert halls[0].extracted_pointer == "/aa"

    def test_both_absent_gives_nothing(self) -> None:
        rec = one({"name": "a"}, {"name": "a"}, self.schema)
        assert statuses(rec) == {"name": "match"}

    def test_only_hallucinations_is_f1_zero(self) -> None:
        """Gold had nothing: recall is undefined, not 1.0; invented values only is F1 0."""
        rec = one({}, {"name": "x"}, self.schema)
        assert (rec.precision, rec.recall, rec.f1) == (0.0, None, 0.0)

    def test_nothing_extracted_is_f1_zero_with_precision_undefined(self) -> None:
        rec = one({"name": "x"}, {}, self.schema)
        assert (rec.precision, rec.recall, rec.f1) == (None, 0.0, 0.0)

    def test_empty_objects_match(self) -> None:
        rec = one({}, {}, self.schema)
        assert statuses(rec) == {"": "match"}
        assert rec.f1 == 1.0

    def test_exact_is_type_strict(self) -> None:
        rec = one({"name": "1"}, {"name": 1}, self.schema)
        assert statuses(rec) == {"name": "mismatch"}

    def test_numeric_default_reads_numeric_strings(self) -> None:
        rec = one({"age": 42}, {"age": "42"}, self.schema)
        assert statuses(rec) == {"age": "match"}

    def test_numeric_unparseable_is_mismatch_with_reason(self) -> None:
        rec = one({"age": 42}, {"age": "forty-two"}, self.schema)
        r = rec.field_results[0]
        assert r.status is Status.MISMATCH
        assert r.reason is not None and "not a number" in r.reason


class TestNested:
    schema = obj(vendor=obj(name=S, address=obj(city=S, zip=S)))

    def test_paths_and_pointers(self) -> None:
        rec = one({"vendor": {"name": "a", "address": {"city": "x", "zip": "1"}}},
                  {"vendor": {"name": "a", "address": {"city": "y", "zip": "1"}}}, self.schema)
        city = next(r for r in rec.field_results if r.path == "vendor.address.city")
        assert city.status is Status.MISMATCH
        assert city.field == "vendor.address.city"
        assert city.gold_pointer == "/vendor/address/city"
        assert city.schema_pointer == "/properties/vendor/properties/address/properties/city"

    def test_missing_container_expands_to_leaf_omissions(self) -> None:
        rec = one({"vendor": {"name": "a", "address": {"city": "x", "zip": "1"}}}, {},
                  self.schema)
        assert statuses(rec) == {"vendor.name": "omission", "vendor.address.city": "omission",
                                 "vendor.address.zip": "omission"}

    def test_null_container_expands(self) -> None:
        rec = one({"vendor": {"name": "a"}}, {"vendor": None}, self.schema)
        assert statuses(rec) == {"vendor.name": "omission"}

    def test_container_type_mismatch_is_one_mismatch(self) -> None:
        rec = one({"vendor": {"name": "a"}}, {"vendor": "a"}, self.schema)
        assert statuses(rec) == {"vendor": "mismatch"}
        assert "type mismatch" in (rec.field_results[0].reason or "")

    def test_hallucinated_container_expands_with_extra_keys(self) -> None:
        rec = one({}, {"vendor": {"name": "a", "phone": "1"}}, self.schema)
        assert statuses(rec) == {"vendor.name": "hallucination", "vendor.phone": "hallucination"}

    def test_dotted_property_names_are_read_as_keys(self) -> None:
        rec = one({"a.b": 1}, {"a.b": 1}, obj(**{"a.b": N}))
        assert statuses(rec) == {"a.b": "match"}
        assert rec.field_results[0].gold_pointer == "/a.b"

    def test_pointer_escaping(self) -> None:
        rec = one({"a/b~c": "x"}, {"a/b~c": "y"}, obj(**{"a/b~c": S}))
        assert rec.field_results[0].gold_pointer == "/a~1b~0c"


class TestNulls:
    schema = obj(name=S, total=N)

    def test_null_leaf_is_a_value(self) -> None:
        rec = one({"name": None, "total": None}, {"name": None, "total": None}, self.schema)
        assert statuses(rec) == {"name": "match", "total": "match"}

    def test_null_vs_value_is_mismatch(self) -> None:
        rec = one({"name": None}, {"name": "x"}, self.schema)
        assert statuses(rec) == {"name": "mismatch"}

    def test_absent_policy_per_run(self) -> None:
        rec = one({"name": None, "total": 1}, {"name": "x", "total": None}, self.schema,
                  null_policy="absent")
        assert statuses(rec) == {"name": "hallucination", "total": "omission"}

    def test_absent_policy_both_null_skipped(self) -> None:
        rec = one({"name": None}, {"name": None}, self.schema, null_policy="absent")
        assert statuses(rec) == {"name": "skipped"}

    def test_absent_policy_per_field(self) -> None:
        schema = obj(name={**S, "x-eval-null": "absent"}, total=N)
        rec = one({"name": None, "total": None}, {"name": "x", "total": 1}, schema)
        assert statuses(rec) == {"name": "hallucination", "total": "mismatch"}


class TestOrderedArrays:
    schema = obj(items={"type": "array", "items": obj(sku=S, qty=N)})

    def test_positional_pairs(self) -> None:
        rec = one({"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}]},
                  {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 3}]}, self.schema)
        assert statuses(rec)["items[1].qty"] == "mismatch"
        assert {r.field for r in rec.field_results} == {"items[].sku", "items[].qty"}

    def test_extra_and_missing_elements(self) -> None:
        rec = one({"items": [{"sku": "a"}]}, {"items": [{"sku": "a"}, {"sku": "b"}]},
                  self.schema)
        assert statuses(rec) == {"items[0].sku": "match", "items[1].sku": "hallucination"}
        extra = rec.field_results[1]
        assert extra.extracted_pointer == "/items/1/sku"
        rec = one({"items": [{"sku": "a"}, {"sku": "b"}]}, {"items": [{"sku": "a"}]},
                  self.schema)
        assert statuses(rec) == {"items[0].sku": "match", "items[1].sku": "omission"}

    def test_empty_arrays_match(self) -> None:
        rec = one({"items": []}, {"items": []}, self.schema)
        assert statuses(rec) == {"items": "match"}

    def test_empty_gold_array_vs_elements(self) -> None:
        rec = one({"items": []}, {"items": [{"sku": "a"}]}, self.schema)
        assert statuses(rec) == {"items[0].sku": "hallucination"}

    def test_scalar_array(self) -> None:
        schema = obj(tags={"type": "array", "items": S})
        rec = one({"tags": ["a", "b"]}, {"tags": ["a", "c"]}, schema)
        assert statuses(rec) == {"tags[0]": "match", "tags[1]": "mismatch"}


class TestKeyFieldArrays:
    schema = obj(items={"type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku"},
                        "items": obj(sku=S, qty=N)})

    def test_reordered_items_pair_by_key(self) -> None:
        rec = one({"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}]},
                  {"items": [{"sku": "b", "qty": 2}, {"sku": "a", "qty": 5}]}, self.schema)
        assert statuses(rec) == {"items[0].sku": "match", "items[0].qty": "mismatch",
                                 "items[1].sku": "match", "items[1].qty": "match"}
        qty = rec.field_results[1]
        assert (qty.gold_pointer, qty.extracted_pointer) == ("/items/0/qty", "/items/1/qty")

    def test_unknown_and_duplicate_keys(self) -> None:
        rec = one({"items": [{"sku": "a", "qty": 1}]},
                  {"items": [{"sku": "a", "qty": 1}, {"sku": "a", "qty": 1}, {"qty": 3}]},
                  self.schema)
        halls = [r.path for r in rec.field_results if r.status is Status.HALLUCINATION]
        assert halls == ["items[1].sku", "items[1].qty", "items[2].qty"]

    def test_repeated_keys_pair_in_order(self) -> None:
        items = [{"sku": "a", "qty": 1}, {"sku": "a", "qty": 2}]
        rec = one({"items": items}, {"items": list(reversed(items))}, self.schema)
        assert statuses(rec) == {"items[0].sku": "match", "items[0].qty": "mismatch",
                                 "items[1].sku": "match", "items[1].qty": "mismatch"}
        assert one({"items": items}, {"items": items}, self.schema).f1 == 1.0

    def test_key_values_pair_by_hash_equality(self) -> None:
        schema = obj(items={"type": "array", "x-eval-align": {"match_by": "key_field",
                                                                "key": "n"}, "items": obj(n=N)})
        rec = one({"items": [{"n": 1}, {"n": "2"}]}, {"items": [{"n": 1.0}, {"n": 2}]}, schema)
        paths = [(r.path, str(r.status)) for r in rec.field_results]
        assert paths == [("items[0].n", "match"), ("items[1].n", "omission"),
                         ("items[1].n", "hallucination")]


class TestHungarianArrays:
    schema = obj(items={"type": "array", "x-eval-align": {"match_by": "hungarian"},
                        "items": obj(desc={**S, "x-eval-compare": "levenshtein"}, qty=N)})

    def test_finds_the_best_pairing(self) -> None:
        gold = {"items": [{"desc": "steel bolts", "qty": 1}, {"desc": "copper wire", "qty": 2}]}
        ext = {"items": [{"desc": "copper wir", "qty": 2}, {"desc": "steel bolts", "qty": 1}]}
        rec = one(gold, ext, self.schema)
        pairs = {(r.gold_pointer, r.extracted_pointer) for r in rec.field_results}
        assert ("/items/0/desc", "/items/1/desc") in pairs
        assert ("/items/1/desc", "/items/0/desc") in pairs

    def test_zero_f1_pairs_stay_unpaired(self) -> None:
        rec = one({"items": [{"desc": "aaaa", "qty": 1}]}, {"items": [{"desc": "zzzz", "qty": 9}]},
                  self.schema)
        assert sorted(str(r.status) for r in rec.field_results) == [
            "hallucination", "hallucination", "omission", "omission"]

    def test_large_arrays_are_not_aligned_by_position(self) -> None:
        # struct_extract_eval falls back to ordered above 2,500 pairs; we do not.
        n = 60
        gold = {"items": [{"desc": f"item number {i}", "qty": i} for i in range(n)]}
        ext = {"items": list(reversed(gold["items"]))}
        rec = one(gold, ext, self.schema)
        assert rec.f1 == 1.0


class TestSetArrays:
    schema = obj(tags={"type": "array", "x-eval-align": {"match_by": "set"},
                       "items": {**S, "x-eval-transform": ["lowercase"]}})

    def test_order_free_with_transforms(self) -> None:
        rec = one({"tags": ["a", "B", "c"]}, {"tags": ["b", "A", "d"]}, self.schema)
        got = sorted((r.path, str(r.status)) for r in rec.field_results)
        assert got == [("tags[0]", "match"), ("tags[1]", "match"), ("tags[2]", "hallucination"),
                       ("tags[2]", "omission")]


class TestTransforms:
    def test_chain_applies_to_both_sides(self) -> None:
        schema = obj(name={**S, "x-eval-transform": ["strip", "lowercase", "strip_accents"]})
        rec = one({"name": "  José "}, {"name": "JOSE"}, schema)
        assert statuses(rec) == {"name": "match"}

    def test_wrong_type_in_extracted_is_mismatch_not_crash(self) -> None:
        schema = obj(name={**S, "x-eval-transform": ["lowercase"]})
        rec = one({"name": "a"}, {"name": 5}, schema)
        r = rec.field_results[0]
        assert r.status is Status.MISMATCH
        assert "extracted" in (r.reason or "")

    def test_wrong_type_in_gold_is_error(self) -> None:
        schema = obj(name={**S, "x-eval-transform": ["lowercase"]})
        run = evaluate([{"name": 5}], [{"name": "a"}], schema)
        r = run.records[0].field_results[0]
        assert r.status is Status.ERROR
        assert run.total_errors == 1
        assert run.records[0].counts.scored == 0

    def test_transforms_pass_null_through(self) -> None:
        schema = obj(name={**S, "x-eval-transform": ["lowercase"]})
        rec = one({"name": None}, {"name": None}, schema)
        assert statuses(rec) == {"name": "match"}


class TestSkipWeightThreshold:
    def test_skip(self) -> None:
        schema = obj(name=S, notes={**S, "x-eval-skip": True})
        rec = one({"name": "a", "notes": "x"}, {"name": "a", "notes": "y"}, schema)
        assert statuses(rec) == {"name": "match", "notes": "skipped"}
        assert rec.f1 == 1.0

    def test_skip_container(self) -> None:
        schema = obj(meta={**obj(a=S), "x-eval-skip": True}, name=S)
        rec = one({"meta": {"a": "1"}, "name": "a"}, {"name": "a"}, schema)
        assert statuses(rec) == {"meta": "skipped", "name": "match"}

    def test_weights_give_weighted_score(self) -> None:
        schema = obj(total={**N, "x-eval-weight": 3}, note={**S, "x-eval-weight": 1})
        rec = one({"total": 1, "note": "a"}, {"total": 1, "note": "b"}, schema)
        assert rec.weighted_score == pytest.approx(0.75)
        assert rec.f1 == pytest.approx(0.5)  # unweighted metrics unchanged

    def test_weight_is_inherited(self) -> None:
        schema = obj(vendor={**obj(a=S, b=S), "x-eval-weight": 2})
        rec = one({"vendor": {"a": "x", "b": "y"}}, {"vendor": {"a": "x"}}, schema)
        assert {r.weight for r in rec.field_results} == {2.0}

    def test_threshold_makes_partial_score_a_match(self) -> None:
        schema = obj(name={**S, "x-eval-compare": "levenshtein", "x-eval-threshold": 0.8})
        rec = one({"name": "abcdefghij"}, {"name": "abcdefghiX"}, schema)
        r = rec.field_results[0]
        assert r.status is Status.MATCH
        assert r.score == pytest.approx(0.9)
        assert rec.f1 == pytest.approx(0.9)

    def test_partial_mismatch_earns_partial_credit(self) -> None:
        schema = obj(name={**S, "x-eval-compare": "levenshtein"})
        rec = one({"name": "abcd"}, {"name": "abcX"}, schema)
        assert rec.field_results[0].status is Status.MISMATCH
        assert rec.precision == pytest.approx(0.75)

    def test_container_with_compare_is_one_leaf(self) -> None:
        schema = obj(meta={"type": "object", "x-eval-compare": "exact",
                           "properties": {"a": S}})
        rec = one({"meta": {"a": "1", "b": 2}}, {"meta": {"b": 2, "a": "1"}}, schema)
        assert statuses(rec) == {"meta": "match"}


class TestIdenticalValues:
    def test_identical_values_match_even_if_the_comparator_cannot_judge_them(self) -> None:
        schema = obj(n={**N, "x-eval-compare": "numeric"},
                     s={**S, "x-eval-compare": "levenshtein"})
        rec = one({"n": "n/a", "s": 5}, {"n": "n/a", "s": 5}, schema)
        assert statuses(rec) == {"n": "match", "s": "match"}
        rec = one({"n": "n/a", "s": 5}, {"n": "N/A", "s": 6}, schema)
        assert statuses(rec) == {"n": "mismatch", "s": "mismatch"}
