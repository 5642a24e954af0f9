"""struct_extract_eval compatibility: one test per quirk in the reference, named after it,
and agreement with the native engine outside the documented differences."""

from __future__ import annotations

from typing import Any

import pytest

from evalschema import SchemaError
from evalschema import evaluate as native_evaluate
from evalschema.compat import CompatInputError
from evalschema.compat.struct_extract_eval import evaluate


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


S = {"type": "string", "x-eval-compare": "exact"}
N = {"type": "number", "x-eval-compare": "numeric"}


def statuses(run: Any, i: int = 0) -> list[tuple[str, str]]:
    return [(r.path, str(r.status)) for r in run.records[i].field_results]


def test_null_leaf_is_a_mismatch_but_null_container_expands_to_omissions() -> None:
    schema = obj(name=S, exp=obj(a=S, b=S))
    run = evaluate([{"name": "x", "exp": {"a": "1", "b": "2"}}], [{"name": None, "exp": None}],
                   schema)
    assert statuses(run) == [("name", "mismatch"), ("exp.a", "omission"), ("exp.b", "omission")]


def test_hungarian_falls_back_to_ordered_above_2500_pairs() -> None:
    schema = obj(xs={"type": "array", "x-eval-align": {"match_by": "hungarian"}, "items": N})
    small = list(range(50))
    run = evaluate([{"xs": small}], [{"xs": small[::-1]}], schema)
    assert run.mean_f1 == 1.0  # 2,500 pairs: still Hungarian
    big = list(range(51))
    run = evaluate([{"xs": big}], [{"xs": big[::-1]}], schema)
    assert run.total_mismatches == 50  # 2,601 pairs: positional, only the middle agrees
    assert native_evaluate([{"xs": big}], [{"xs": big[::-1]}], schema).mean_f1 == 1.0


def test_extra_extracted_elements_get_negative_indices() -> None:
    schema = obj(steps={"type": "array", "items": obj(v=S)})
    run = evaluate([{"steps": [{"v": "a"}]}], [{"steps": [{"v": "a"}, {"v": "b"}, {"v": "c"}]}],
                   schema)
    assert statuses(run) == [("steps[0].v", "match"), ("steps[-1].v", "hallucination"),
                             ("steps[-2].v", "hallucination")]
    assert set(run.per_field) == {"steps[0].v", "steps[-1].v", "steps[-2].v"}


def test_per_field_is_keyed_by_instance_path() -> None:
    schema = obj(items={"type": "array", "items": obj(p=N)})
    run = evaluate([{"items": [{"p": 1}, {"p": 2}]}], [{"items": [{"p": 1}, {"p": 3}]}], schema)
    assert run.per_field["items[0].p"].mean_score == 1.0
    assert run.per_field["items[1].p"].mean_score == 0.0


def test_run_metrics_are_macro_means() -> None:
    schema = obj(**{k: S for k in "abcd"})
    run = evaluate([{"a": "1"}, {"a": "1", "b": "1", "c": "1", "d": "1"}],
                   [{"a": "x"}, {"a": "1", "b": "1", "c": "1", "d": "1"}], schema)
    assert run.mean_f1 == pytest.approx(0.5)


def test_transforms_are_applied_to_null() -> None:
    schema = obj(name={**S, "x-eval-transform": ["lowercase"]})
    run = evaluate([{"name": None}], [{"name": None}], schema)
    assert statuses(run) == [("name", "match")]


def test_transform_on_wrong_type_raises_like_the_original() -> None:
    schema = obj(name={**S, "x-eval-transform": ["lowercase"]})
    with pytest.raises(CompatInputError, match="raises TypeError"):
        evaluate([{"name": "a"}], [{"name": 5}], schema)


def test_different_lengths_raise_like_the_original() -> None:
    with pytest.raises(CompatInputError, match="raises ValueError"):
        evaluate([{}], [], obj(a=S))


def test_exact_checks_type_only_at_top_level() -> None:
    schema = obj(n={"type": "number", "x-eval-compare": "exact"},
                 o={"type": "object", "x-eval-compare": "exact"})
    run = evaluate([{"n": 42, "o": {"k": 1}}], [{"n": 42.0, "o": {"k": 1.0}}], schema)
    assert statuses(run) == [("n", "mismatch"), ("o", "match")]


def test_numeric_reads_strings_and_booleans_and_nan() -> None:
    schema = obj(a=N, b=N, c=N, d=N)
    run = evaluate([{"a": 42, "b": 1, "c": float("nan"), "d": 5}],
                   [{"a": "42", "b": True, "c": "nan", "d": " 5 "}], schema)
    assert {s for _, s in statuses(run)} == {"match"}


def test_numeric_has_no_float_slack() -> None:
    schema = obj(t={"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}})
    run = evaluate([{"t": 498.53}], [{"t": 498.54}], schema)
    assert statuses(run) == [("t", "mismatch")]
    assert native_evaluate([{"t": 498.53}], [{"t": 498.54}], schema).total_matches == 1


def test_identical_unparseable_values_are_a_numeric_type_error() -> None:
    run = evaluate([{"n": "n/a"}], [{"n": "n/a"}], obj(n=N))
    assert statuses(run) == [("n", "mismatch")]


def test_oneof_ignores_gold() -> None:
    schema = obj(c={"type": "string", "x-eval-compare": {"oneof": {"values": ["EUR", 1]}}})
    run = evaluate([{"c": "GBP"}, {"c": "x"}], [{"c": "EUR"}, {"c": True}], schema)
    assert [statuses(run, i) for i in (0, 1)] == [[("c", "match")], [("c", "match")]]


def test_key_field_first_duplicate_wins() -> None:
    schema = obj(xs={"type": "array", "x-eval-align": {"match_by": "key_field", "key": "k"},
                     "items": obj(k=S, v=S)})
    items = [{"k": "a", "v": "1"}, {"k": "a", "v": "2"}]
    run = evaluate([{"xs": items}], [{"xs": items}], schema)
    got = [s for _, s in statuses(run)]
    assert got.count("omission") == 2 and got.count("hallucination") == 2


def test_gold_key_outside_schema_makes_extracted_copy_a_hallucination() -> None:
    run = evaluate([{"a": "1", "po": "X"}], [{"a": "1", "po": "X"}], obj(a=S))
    assert statuses(run) == [("a", "match"), ("po", "hallucination")]


def test_unknown_xeval_keys_are_tolerated() -> None:
    run = evaluate([{"a": "1"}], [{"a": "1"}], obj(a={**S, "x-eval-foo": 1}))
    assert run.mean_f1 == 1.0


def test_leaf_without_comparator_is_a_schema_error() -> None:
    with pytest.raises(SchemaError):
        evaluate([{"a": "1"}], [{"a": "1"}], obj(a={"type": "string"}))


def test_empty_objects_match_at_the_root() -> None:
    run = evaluate([{}], [{}], obj(a=S))
    assert statuses(run) == [("", "match")]


def test_only_hallucinations_is_precision_0_recall_1() -> None:
    run = evaluate([{}], [{"a": "1"}], obj(a=S))
    rec = run.records[0]
    assert (rec.precision, rec.recall, rec.f1) == (0.0, 1.0, 0.0)


def test_hungarian_zero_f1_pairs_stay_unmatched() -> None:
    schema = obj(xs={"type": "array", "x-eval-align": {"match_by": "hungarian"},
                     "items": obj(v=S)})
    run = evaluate([{"xs": [{"v": "a"}]}], [{"xs": [{"v": "b"}]}], schema)
    assert sorted(s for _, s in statuses(run)) == ["hallucination", "omission"]


def test_round_digits_is_bankers_rounding() -> None:
    schema = obj(x={"type": "number", "x-eval-compare": "exact",
                    "x-eval-transform": [{"round_digits": {"digits": 2}}]})
    run = evaluate([{"x": 2.67}], [{"x": 2.675}], schema)
    assert statuses(run) == [("x", "match")]


@pytest.mark.parametrize("case", range(4))
def test_agrees_with_native_outside_the_documented_differences(case: int) -> None:
    schema = obj(name=S, total=N, vendor=obj(city=S),
                 items={"type": "array", "items": obj(sku=S, qty=N)})
    gold = [{"name": "a", "total": 10, "vendor": {"city": "x"}, "items": [{"sku": "1", "qty": 1}]},
            {"name": "b", "total": 5, "vendor": {"city": "y"}, "items": []}]
    variants = [
        gold,
        [{"name": "A", "total": 10.0}, {"name": "b", "total": "5", "vendor": None, "zz": 1}],
        [{"items": [{"sku": "1", "qty": 2}]}, {"total": 6, "vendor": {"city": "y"}}],
        [{}, {"name": None, "total": None}],
    ]
    ours = native_evaluate(gold, variants[case], schema)
    theirs = evaluate(gold, variants[case], schema)
    assert (ours.mean_recall, ours.mean_f1) == (theirs.mean_recall, theirs.mean_f1)
    if case == 3:
        # A documented difference: record 0 extracted nothing, so its precision is
        # undefined and left out of the native mean; struct_extract_eval counts it as 1.0.
        assert ours.undefined.precision == 1 and theirs.undefined.precision == 0
        assert theirs.records[0].precision == 1.0 and ours.records[0].precision is None
        assert theirs.mean_precision == (1.0 + ours.mean_precision) / 2
    else:
        assert ours.mean_precision == theirs.mean_precision
    assert [statuses(ours, i) for i in range(2)] == [statuses(theirs, i) for i in range(2)]


# -- edge cases reproduced (issue 13); tests/engine/compat/test_compat_parity_packages.py
# checks each kind against the real package where it is installed --------------------------

SHOP = obj(id={"type": "string", "x-eval-skip": True}, name=S,
           vendor=obj(city=S, geo=obj(lat=N)), tags={"type": "array", "items": S})


def results(run: Any, i: int = 0) -> list[tuple[str, str, float]]:
    return [(r.path, str(r.status), r.score) for r in run.records[i].field_results]


def test_a_record_of_another_type_is_one_result_at_the_root() -> None:
    run = evaluate(["text", ["a"], 1, "text"], ["text", ["a"], True, {"name": "x"}], SHOP)
    assert [results(run, i) for i in range(4)] == [
        [("", "match", 1.0)], [("", "match", 1.0)],
        [("", "match", 1.0)],  # 1 == True: the package compares with ==
        [("", "mismatch", 0.0)]]


def test_a_null_record_expands_into_the_other_sides_fields() -> None:
    gold = [None, {"id": "a", "name": "x", "vendor": {"city": "y"}, "tags": ["t", "u"]}, None]
    extracted = [{"id": "b", "name": "x", "vendor": {"city": "y"}, "tags": []}, None, None]
    run = evaluate(gold, extracted, SHOP)
    assert results(run, 0) == [("name", "hallucination", 0.0), ("vendor.city", "hallucination", 0.0),
                               ("tags", "hallucination", 0.0)]
    assert results(run, 1) == [("name", "omission", 0.0), ("vendor.city", "omission", 0.0),
                               ("tags[0]", "omission", 0.0), ("tags[1]", "omission", 0.0)]
    assert results(run, 2) == []
    assert run.records[2].f1 == 1.0


def test_a_container_of_the_wrong_type_is_one_result_equal_only_by_value() -> None:
    gold = [{"vendor": {"city": "x"}, "tags": ["a"]}, {"vendor": "x", "tags": "a"},
            {"vendor": 1, "tags": [1]}]
    extracted = [{"vendor": ["x"], "tags": {"0": "a"}}, {"vendor": {"city": "x"}, "tags": ["a"]},
                 {"vendor": 1.0, "tags": [True]}]
    run = evaluate(gold, extracted, SHOP)
    skipped_id = ("id", "skipped", 0.0)  # listed wherever its object is judged
    assert results(run, 0) == [skipped_id, ("vendor", "mismatch", 0.0), ("tags", "mismatch", 0.0)]
    assert results(run, 1) == [skipped_id, ("vendor", "mismatch", 0.0), ("tags", "mismatch", 0.0)]
    # 1 == 1.0; [1] is a list as the schema says, so its element is judged by `exact`.
    assert results(run, 2) == [skipped_id, ("vendor", "match", 1.0), ("tags[0]", "mismatch", 0.0)]


def test_a_wrong_typed_container_on_one_side_only() -> None:
    run = evaluate([{"vendor": "x", "tags": "a"}, {}, {"vendor": "x"}, {"vendor": {"city": "x"}}],
                   [{}, {"vendor": 5, "tags": 5}, {"vendor": None}, {"vendor": []}], SHOP)
    # Missing key: an object node finds none of its fields in a string, so nothing is
    # scored; an array node reports the value as one omission or hallucination.
    skipped_id = ("id", "skipped", 0.0)
    assert results(run, 0) == [skipped_id, ("tags", "omission", 0.0)]
    assert results(run, 1) == [skipped_id, ("tags", "hallucination", 0.0)]
    # Present but null: one result for the value itself.
    assert results(run, 2) == [skipped_id, ("vendor", "omission", 0.0)]
    assert results(run, 3) == [skipped_id, ("vendor", "mismatch", 0.0)]


def test_an_empty_object_against_a_missing_one_scores_nothing() -> None:
    gold = [{"vendor": {}}, {}, {"vendor": {}}, {"vendor": {"geo": {}}}, {}, {"tags": []}]
    extracted = [{}, {"vendor": {}}, {"vendor": None}, {"vendor": {}}, None, {}]
    run = evaluate(gold, extracted, SHOP)
    skipped_id = ("id", "skipped", 0.0)
    assert [results(run, i) for i in range(5)] == [[skipped_id]] * 4 + [[]]
    assert [r.f1 for r in run.records[:5]] == [1.0] * 5
    # An empty array is one omission.
    assert results(run, 5) == [skipped_id, ("tags", "omission", 0.0)]
    both_empty = evaluate([{"vendor": {}}], [{"vendor": {}}], SHOP)
    assert results(both_empty) == [skipped_id, ("vendor", "match", 1.0)]


def test_a_dotted_property_is_read_from_its_last_segment() -> None:
    schema = obj(**{"a.b": S, "c.d": obj(e=S)})
    run = evaluate([{"a.b": "x", "b": "y", "d": {"e": "1"}}],
                   [{"a.b": "x", "b": "y", "d": {"e": "2"}}], schema)
    assert results(run) == [("a.b", "match", 1.0), ("c.d.e", "mismatch", 0.0),
                            ("a.b", "hallucination", 0.0)]
    assert run.per_field["a.b"].counts.matches == 1
    assert run.per_field["a.b"].counts.hallucinations == 1
    assert run.per_field["a.b"].mean_score == 0.5


def test_records_pair_by_position_and_ids_only_label_them() -> None:
    schema = {**SHOP, "x-eval-id": "id"}
    gold = [{"id": "a", "name": "x"}, {"id": "b", "name": "y"}]
    extracted = [{"id": "b", "name": "y"}, {"id": "a", "name": "x"}]
    run = evaluate(gold, extracted, schema)  # x-eval-id is not its key: ignored
    assert [r.record_id for r in run.records] == [0, 1]
    assert results(run, 0) == [("id", "skipped", 0.0), ("name", "mismatch", 0.0)]
    run = evaluate(gold, extracted, schema, id_field="id")
    assert [r.record_id for r in run.records] == ["a", "b"]
    assert results(run, 1) == [("id", "skipped", 0.0), ("name", "mismatch", 0.0)]


@pytest.mark.parametrize(("gold", "original"), [([{"name": "x"}], "KeyError"),
                                                (["text"], "TypeError"), ([None], "TypeError")])
def test_a_gold_record_without_the_id_field_raises_like_the_original(
        gold: list[Any], original: str) -> None:
    with pytest.raises(CompatInputError, match="gold record 1 has no id field 'id'") as info:
        evaluate(gold, [{"name": "x"}], SHOP, id_field="id")
    assert info.value.original == original
    assert info.value.record == 0


def test_x_eval_threshold_is_not_its_key() -> None:
    schema = obj(n={**N, "x-eval-threshold": 0.0})
    assert results(evaluate([{"n": 1}], [{"n": 2}], schema)) == [("n", "mismatch", 0.0)]


def test_key_field_results_follow_gold_order_then_first_keys_then_the_rest() -> None:
    schema = obj(xs={"type": "array", "x-eval-align": {"match_by": "key_field", "key": "k"},
                     "items": obj(k=S)})
    run = evaluate([{"xs": [{"k": "a"}, {"k": "z"}, {"k": "b"}]}],
                   [{"xs": [{"k": "a"}, {"k": "a"}, "x", {"k": "b"}, {"k": "c"}]}], schema)
    assert results(run) == [
        ("xs[0].k", "match", 1.0), ("xs[1].k", "omission", 0.0), ("xs[2].k", "match", 1.0),
        ("xs[-1].k", "hallucination", 0.0),  # {"k": "c"}: the first holder of its key
        ("xs[-2].k", "hallucination", 0.0)]  # the second {"k": "a"}; "x" holds no field
    assert run.records[0].field_results[3].extracted == "c"


def test_reclassify_nulls_reads_the_compared_values() -> None:
    from evalschema.compat.struct_extract_eval import NullHandling, reclassify_nulls

    schema = obj(name={**S, "x-eval-transform": ["lowercase"]}, vendor=obj(city=S))
    gold = [{"name": None, "vendor": {"city": "x"}}, {"vendor": {}}, "text"]
    extracted = [{"name": "A", "vendor": "x"}, {"vendor": {}}, "text"]
    run = evaluate(gold, extracted, schema,
                   post_process=lambda frs: reclassify_nulls(frs, NullHandling()))
    # A container judged without a comparator has no compared values: both "absent".
    assert results(run, 0) == [("name", "hallucination", 0.0), ("vendor", "skipped", 0.0)]
    assert results(run, 1) == [("vendor", "skipped", 0.0)]
    assert results(run, 2) == [("", "skipped", 0.0)]
    run = evaluate(gold, extracted, schema, post_process=lambda frs: reclassify_nulls(
        frs, NullHandling(absent_values=[None], both_absent_skip=False)))
    assert results(run, 0) == [("name", "hallucination", 0.0), ("vendor", "match", 1.0)]


def test_cli_scores_records_of_any_type_and_locates_what_raises(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from evalschema.cli.main import main

    (tmp_path / "s.json").write_text(json.dumps(SHOP))
    (tmp_path / "g.jsonl").write_text('{"id": "a", "name": "x"}\n"text"\nnull\n{"vendor": {}}\n')
    (tmp_path / "x.jsonl").write_text('{"id": "b", "name": "x"}\n"text"\n{"name": "z"}\nnull\n')
    base = ["eval", str(tmp_path / "s.json"), "--gold", str(tmp_path / "g.jsonl"),
            "--extracted", str(tmp_path / "x.jsonl"), "--metric", "struct_extract_eval.evaluate"]
    assert main([*base, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    run = doc["runs"][0] if "runs" in doc else doc
    assert run["mean_f1"] == pytest.approx((1 + 1 + 0 + 1) / 4)
    assert run["total_hallucinations"] == 1 and run["total_matches"] == 2
    assert main([*base, "--id-field", "id"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'g.jsonl'}:2: gold record 2 has no id field 'id'" in err
    assert "Traceback" not in err


def test_a_container_judged_by_a_comparator_expands_into_its_own_fields_when_one_sided() -> None:
    schema = obj(any={"type": "object", "x-eval-compare": "exact",
                      "properties": {"z": S, "w": {"type": "array", "items": N}}},
                 raw={"type": "array", "x-eval-compare": "exact", "items": obj(q=S)})
    run = evaluate([{"any": {"z": "x", "w": [1, 2]}, "raw": [{"q": "1"}, 2]},
                    {"any": {"z": "x"}, "raw": [{"q": "1"}]}],
                   [{}, {"any": {"z": "x"}, "raw": [{"q": 1}]}], schema)
    assert results(run, 0) == [("any.z", "omission", 0.0), ("any.w[0]", "omission", 0.0),
                               ("any.w[1]", "omission", 0.0), ("raw[0].q", "omission", 0.0)]
    assert results(run, 1) == [("any", "match", 1.0), ("raw", "mismatch", 0.0)]  # judged whole


def test_the_fields_of_a_container_judged_by_a_comparator_are_checked_too() -> None:
    schema = obj(any={"type": "object", "x-eval-compare": "exact",
                      "properties": {"z": {"type": "string"}}})
    with pytest.raises(SchemaError, match="/properties/any/properties/z"):
        evaluate([{"any": {}}], [{"any": {}}], schema)
