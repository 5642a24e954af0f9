"""Coverage of the gold by the schema (``schema.coverage``, ``RunResult.coverage``): gold
values under keys no schema node covers, by pointer pattern, through the API."""

from __future__ import annotations

from typing import Any

import pytest

from evalschema import evaluate, parse_eval_schema
from evalschema.results import Coverage
from evalschema.run.accumulator import RunAccumulator
from evalschema.schema.coverage import gold_coverage, off_schema, values_below

S = {"type": "string"}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "meet": S,
        "results": {"type": "array", "items": {
            "type": "object", "properties": {"name": S, "time": S,
                                             "club": {"type": "object", "properties": {"n": S}}}}},
        "notes": {"type": "string", "x-eval-skip": True},
        "tags": {"type": "array", "items": S, "x-eval-compare": "exact"},
    },
}
GOLD = {
    "meet": "Open",
    "results": [
        {"name": "A", "time": "1:00", "split_time": "30.1", "club": {"n": "X", "city": "Y"}},
        {"name": "B", "time": "1:01", "split_time": "30.4", "heat": {"no": 1, "lane": [4, 5]}},
        "not an object",
    ],
    "events": [{"e": 1}, {"e": 2, "f": {}}],
    "notes": "skipped on purpose",
    "tags": ["a", "b"],
}


def test_values_below_counts_scalars_and_empty_containers() -> None:
    assert values_below(3) == values_below(None) == values_below({}) == values_below([]) == 1
    assert values_below({"a": [1, 2, {"b": None}], "c": {}}) == 4


def test_off_schema_keys_by_pointer_pattern_with_array_indices_as_stars() -> None:
    tally: dict[str, int] = {}
    off_schema(parse_eval_schema(SCHEMA))(GOLD, tally)
    assert tally == {"/results/*/split_time": 2, "/results/*/club/city": 1,
                     "/results/*/heat": 3, "/events": 3}


def test_gold_coverage_counts_judged_values_without_scoring() -> None:
    cov = gold_coverage(parse_eval_schema(SCHEMA), [GOLD, {"meet": None, "x~y/z": 1}])
    # judged: meet, tags (one value: its leaf judges the whole array), and per result
    # name, time, club.n (2 + 3 + 2); "notes" is skipped on purpose: in neither count.
    assert cov.judged == 2 + 5
    assert cov.keys == (("/events", 3), ("/results/*/heat", 3), ("/results/*/split_time", 2),
                        ("/results/*/club/city", 1), ("/x~0y~1z", 1))
    assert cov.off_schema == 10
    assert cov.share == pytest.approx(7 / 17)


def test_a_run_reports_its_coverage_and_a_full_one_lists_nothing() -> None:
    run = evaluate([GOLD], [GOLD], SCHEMA)
    cov = run.coverage
    assert cov.judged == run.totals.matches + run.totals.mismatches + run.totals.omissions
    assert dict(cov.keys) == {"/results/*/split_time": 2, "/results/*/club/city": 1,
                              "/results/*/heat": 3, "/events": 3}
    assert run.to_dict()["coverage"]["off_schema_keys"][0] == {"pointer": "/events",
                                                                "values": 3}
    full = evaluate([{"meet": "a"}], [{}], SCHEMA).coverage
    assert (full.judged, full.keys, full.share) == (1, (), 1.0)
    assert evaluate([], [], SCHEMA).coverage.share is None


def test_unpaired_extracted_records_add_nothing_to_the_gold_coverage() -> None:
    run = evaluate([{"meet": "a", "zz": 1}], [{"meet": "a"}, {"meet": "b", "yy": 2}], SCHEMA)
    assert run.coverage.keys == (("/zz", 1),)


def test_target_and_field_selections_do_not_report_the_rest_as_uncovered() -> None:
    run = evaluate([GOLD], [GOLD], SCHEMA, fields=["meet"])
    assert run.coverage.keys == ()


def test_accumulators_merge_and_copy_the_tallies() -> None:
    a, b = RunAccumulator(), RunAccumulator()
    a.off_schema.update({"/x": 2})
    b.off_schema.update({"/x": 1, "/y": 5})
    merged = a.merge(b).result().coverage
    a.update(b)
    assert a.result().coverage == merged
    assert merged.keys == (("/y", 5), ("/x", 3))
    copy = a.copy()
    copy.off_schema["/x"] += 1
    assert a.off_schema["/x"] == 3


def test_describe_is_one_line_with_the_top_keys() -> None:
    cov = Coverage.of(10, {f"/k{i}": i + 1 for i in range(7)})
    text = cov.describe()
    assert text.startswith("gold coverage 26.3% (10 of 38 values); not in the schema: /k6 (7),")
    assert text.endswith("… 2 more") and "\n" not in text
    assert Coverage().describe() == "gold coverage —: gold had no value"


def _nested(depth: int) -> tuple[dict[str, Any], Any, str]:
    """An object/array chain ``depth`` levels deep with an off-schema key at the bottom,
    and property names that would break out of generated source if they were pasted."""
    schema: dict[str, Any] = {"type": "object", "properties": {"leaf": S}}
    gold: Any = {"leaf": "x", "extra\"')\n#": 1}
    pattern = "/extra\"')\n#"
    for i in range(depth):
        name = f"k{i}'\"\\"
        if i % 3 == 2:
            schema, gold, pattern = ({"type": "array", "items": schema}, [gold, gold],
                                     "/*" + pattern)
        schema = {"type": "object", "properties": {name: schema}}
        gold = {name: gold}
        pattern = "/" + name.replace("~", "~0").replace("/", "~1") + pattern
    return schema, gold, pattern


@pytest.mark.parametrize("depth", [0, 1, 5, 30])
def test_the_compiled_walker_equals_the_closures_at_any_depth(depth: int) -> None:
    from evalschema.schema.coverage import _walker

    schema, gold, pattern = _nested(depth)
    root = parse_eval_schema(schema)
    fast: dict[str, int] = {}
    slow: dict[str, int] = {}
    off_schema(root)(gold, fast)
    _walker(root, False, "")(gold, slow)
    copies = 2 ** (depth // 3)
    assert fast == slow == {pattern: copies}


#: A map of objects, a patternProperties map, and a union judged branch by branch.
MAPS: dict[str, Any] = {"type": "object", "properties": {
    "m": {"type": "object", "additionalProperties": {
        "type": "object", "properties": {"x": {"type": "integer"}}}},
    "p": {"type": "object", "properties": {"q": S}, "patternProperties": {"^z": S}},
    "v": {"anyOf": [{"type": "string", "x-eval-compare": "date"},
                    {"type": "object", "properties": {"a": {"type": "integer",
                                                            "x-eval-compare": "numeric"}}}]},
}}
MAPS_GOLD = {"m": {"k1": {"x": 1, "y": 2}, "k2": {"x": 3}},
             "p": {"q": "a", "z1": "b", "other": "c"},
             "v": {"a": 1, "b": 2, "c": {"d": 3}}}


def test_map_keys_are_data_and_union_branches_are_walked() -> None:
    """Map keys were reported as off-schema keys ("/m/k1": its judged values counted on
    both sides), and the keys of an object branch no branch names were in no count."""
    want = {"/m/*/y": 1, "/p/other": 1, "/v/b": 1, "/v/c": 1}
    tally: dict[str, int] = {}
    off_schema(parse_eval_schema(MAPS))(MAPS_GOLD, tally)
    assert tally == want
    run = evaluate([MAPS_GOLD], [MAPS_GOLD], MAPS)
    assert dict(run.coverage.keys) == want
    # judged: m{k1}.x, m{k2}.x, p.q, p{z1}, v.a
    assert run.coverage.judged == 5
    cov = gold_coverage(parse_eval_schema(MAPS), [MAPS_GOLD])
    assert (cov.judged, dict(cov.keys)) == (5, want)


def test_a_schema_nested_deeper_than_python_blocks_allow_is_walked() -> None:
    """The compiled walker may nest only so many blocks (Python allows 20); deeper
    objects and arrays are walked all the same, their off-schema keys found."""
    depth = 50  # 25 arrays: 25 nested loops, past the 20 Python compiles
    schema: dict[str, Any] = {"type": "object", "properties": {"leaf": {"type": "string"}}}
    gold: Any = {"leaf": "x", "extra": 1}
    for k in range(depth):
        schema = {"type": "object", "properties": {
            "a": {"type": "array", "items": schema} if k % 2 else schema}}
        gold = {"a": [gold] if k % 2 else gold}
    pattern = "".join("/a/*" if k % 2 else "/a" for k in reversed(range(depth))) + "/extra"
    root = parse_eval_schema(schema)
    tally: dict[str, int] = {}
    off_schema(root)(gold, tally)
    assert tally == {pattern: 1}
    assert gold_coverage(root, [gold]).keys == ((pattern, 1),)


def test_a_coverage_line_says_more_only_when_keys_are_hidden() -> None:
    five = Coverage(1, 5, tuple((f"/k{i}", 1) for i in range(5)))
    assert "more" not in five.describe(top=5)
    assert five.describe(top=4).endswith(", … 1 more")
