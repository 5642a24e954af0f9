"""A suite's results as diagnostics (evaluation/findings.py): exact ranges, messages, the
per-file limit, severities and the mark cache, on the suite of ``eval_workspace``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from eval_workspace import EXTRACTED_LINES, GOLD, scored_suite, scored_whole

from evalschema.errors import Problem
from evalschema.results import Counts, FieldResult, RecordResult, Status
from evalschema_server.evaluation import findings
from evalschema_server.evaluation.datafile import RecordSlice
from evalschema_server.evaluation.findings import (
    DiagnosticBuilder,
    FindingOptions,
    Mark,
    MarkCache,
    _finding_count,
    record_marks,
    short_label,
)
from evalschema_server.evaluation.locate import RecordLocator
from evalschema_server.evaluation.runner import (
    CancelToken,
    ScoredRecord,
    SuiteCache,
    SuiteOutcome,
    run_suite,
)
from evalschema_server.evaluation.suites import discover


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], SuiteOutcome]:
    files, _, outcome = scored_suite(tmp_path_factory.mktemp("findings") / "p")
    return files, outcome


def build(outcome: SuiteOutcome, options: FindingOptions | None = None,
          cache: MarkCache | None = None) -> dict[str, list[dict[str, Any]]]:
    return DiagnosticBuilder(outcome, options or FindingOptions(), cache or MarkCache(),
                             RecordLocator(), Path.as_uri, schema_open=False).build()


def rng(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def suite_outcome(folder: Path, schema: dict[str, Any] | str, gold: list[str], run: list[str]
                  ) -> tuple[dict[str, Path], SuiteOutcome]:
    """A suite ``t`` (a schema's text, or the schema indented; one record a line), found
    and run from disk."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"schema": folder / "t.eval.json", "gold": folder / "t.gold.jsonl",
             "extracted": folder / "t.run1.extracted.jsonl"}
    files["schema"].write_text(schema if isinstance(schema, str) else json.dumps(schema, indent=2),
                               encoding="utf-8")
    files["gold"].write_text("\n".join(gold) + "\n", encoding="utf-8")
    files["extracted"].write_text("\n".join(run) + "\n", encoding="utf-8")
    files = {k: p.resolve() for k, p in files.items()}
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    return files, run_suite(suite, {}, SuiteCache(), CancelToken())


def test_every_file_of_the_suite_gets_a_list_and_the_run_file_its_findings(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = shop
    built = build(outcome)
    assert set(built) == {p.as_uri() for p in files.values()}
    assert built[files["schema"].as_uri()] == [] and built[files["gold"].as_uri()] == []
    got = [(d["code"], d["range"], d["severity"]) for d in built[files["extracted"].as_uri()]]
    line0, line1 = EXTRACTED_LINES[0], EXTRACTED_LINES[1]
    qty = line1.index('"qty": 4') + len('"qty": ')
    assert got == [
        ("unreadable-record", rng(2, 0, len(EXTRACTED_LINES[2])), 1),
        # UTF-16: the emoji before it counts two.
        ("mismatch", rng(0, line0.index("13.9") + 1, line0.index("13.9") + 5), 2),
        ("omission", rng(1, 1, 5), 2),  # on the record's first key: no parent of currency
        ("mismatch", rng(1, qty, qty + 1), 2),
        ("hallucination", rng(1, line1.index('"color"'), line1.index('"color"') + 7), 2),
    ]


def test_a_mismatch_names_both_values_and_points_at_gold_and_the_schema_rule(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = shop
    [price] = [d for d in build(outcome)[files["extracted"].as_uri()]
               if d.get("data") == {"field": "price", "record": 0}]
    # The record first: the Problems panel lists findings by file and line, not record.
    assert price["message"] == "a · price: 13.9 ≠ gold 12.5 (numeric, rel 1%)"
    assert price["source"] == "evalschema"
    gold_line = files["gold"].read_text(encoding="utf-8").split("\n")[0]
    at = gold_line.index("12.5") + 1  # the emoji again
    schema_lines = files["schema"].read_text(encoding="utf-8").split("\n")
    [key_line] = [i for i, ln in enumerate(schema_lines) if '"price"' in ln]
    key_col = schema_lines[key_line].index('"price"')
    assert price["relatedInformation"] == [
        {"location": {"uri": files["gold"].as_uri(), "range": rng(0, at, at + 4)},
         "message": "gold value"},
        {"location": {"uri": files["schema"].as_uri(),
                      "range": rng(key_line, key_col, key_col + 7)},
         "message": "schema rule: numeric, rel 1%"}]


def test_columns_follow_the_position_encoding(shop: tuple[dict[str, Path], SuiteOutcome]
                                              ) -> None:
    files, outcome = shop
    line0 = EXTRACTED_LINES[0]
    cols = {}
    for enc in ("utf-16", "utf-8", "utf-32"):
        [price] = [d for d in build(outcome, FindingOptions(encoding=enc))[
            files["extracted"].as_uri()] if d.get("data") == {"field": "price", "record": 0}]
        cols[enc] = price["range"]["start"]["character"]
    before = line0[:line0.index("13.9")]
    assert cols == {"utf-32": len(before), "utf-16": len(before) + 1,
                    "utf-8": len(before.encode("utf-8"))}


def test_severities_per_kind_and_off(shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = shop
    options = FindingOptions(severity={"mismatch": "error", "hallucination": "off"})
    got = [(d["code"], d["severity"]) for d in build(outcome, options)[
        files["extracted"].as_uri()]]
    assert got == [("unreadable-record", 1), ("mismatch", 1), ("omission", 2), ("mismatch", 1)]


def test_past_the_limit_only_the_count_is_shown(shop: tuple[dict[str, Path], SuiteOutcome]
                                                ) -> None:
    files, outcome = shop
    got = build(outcome, FindingOptions(max_per_file=2))[files["extracted"].as_uri()]
    assert [d["code"] for d in got] == ["unreadable-record", "mismatch", "more-findings"]
    assert got[-1]["range"] == rng(0, 0, 0) and got[-1]["severity"] == 3
    assert got[-1]["message"].startswith("3 more findings in 1 record (b) not shown: this "
                                         "file shows its first 2 (evalschema.maxDiagnostics")
    assert got[-1]["data"] == {"hidden": 3, "records": ["b"]}


def test_gold_diagnostics_are_prefixed_with_the_run(shop: tuple[dict[str, Path], SuiteOutcome]
                                                    ) -> None:
    files, outcome = shop
    gold = build(outcome, FindingOptions(gold_diagnostics=True))[files["gold"].as_uri()]
    gold_line0 = files["gold"].read_text(encoding="utf-8").split("\n")[0]
    at = gold_line0.index("12.5") + 1
    [price] = [d for d in gold if d["range"]["start"]["line"] == 0]
    assert price["range"] == rng(0, at, at + 4)
    assert price["message"] == "[run1] a · price: 13.9 ≠ gold 12.5 (numeric, rel 1%)"
    assert {d["code"] for d in gold} == {"mismatch", "omission"}


def test_thresholds_below_the_limit_mark_the_schema_key(tmp_path: Path) -> None:
    files, _, outcome = scored_suite(tmp_path / "p", config=True)  # price: threshold 0.9
    [low] = build(outcome)[files["schema"].as_uri()]
    assert low["code"] == "below-threshold"
    assert low["message"] == ("price: F1 0.667 < 0.9 in run1 (2 matched, 1 wrong, 0 missing, "
                              "0 invented)")
    assert low["data"] == {"field": "price", "run": "run1"}


def test_a_threshold_on_a_field_nothing_judged_says_so(tmp_path: Path) -> None:
    """A skipped field has no F1: its threshold is not met, and the message says why
    (never "F1 1.000")."""
    import json

    from eval_workspace import write_suite

    from evalschema_server.evaluation.runner import CancelToken, SuiteCache, run_suite
    from evalschema_server.evaluation.suites import discover

    files = {k: p.resolve() for k, p in write_suite(tmp_path / "p", config=True).items()}
    schema = json.loads(files["schema"].read_text(encoding="utf-8"))
    schema["properties"]["price"]["x-eval-skip"] = True  # price: threshold 0.9
    files["schema"].write_text(json.dumps(schema), encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    [low] = build(outcome)[files["schema"].as_uri()]
    schema_lines = files["schema"].read_text(encoding="utf-8").split("\n")
    assert (low["range"], low["severity"], low["code"], low["data"]) == (
        rng(0, *span_of(schema_lines[0], '"price"')), 2, "below-threshold",
        {"field": "price", "run": "run1"})
    assert low["message"] == ("price: F1 undefined: nothing was judged in run1 (3 skipped; "
                              "needs >= 0.9)")
    # The fields after it are still checked (here against a threshold for every field).
    every = build(outcome, FindingOptions(field_threshold=1.0))[files["schema"].as_uri()]
    assert [d["data"]["field"] for d in every] == ["price", "currency", "items[].qty", "color"]
    # A comparator typo: every value of the field is an error; the message counts them.
    schema["properties"]["price"] = {"type": "number", "x-eval-compare": "numerc"}
    files["schema"].write_text(json.dumps(schema), encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    lows = [d for d in build(outcome)[files["schema"].as_uri()] if d["code"] == "below-threshold"]
    assert [d["message"] for d in lows] == [
        "price: F1 undefined: nothing was judged in run1 (3 errors; needs >= 0.9)"]


def test_marks_are_relative_to_the_record_and_reused_while_the_schema_stays(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    _, outcome = shop
    [run] = outcome.runs
    first = run.scored[0]
    assert first.gold is not None and first.gold.text.startswith('{"id": "a"')
    marks = record_marks(first, outcome.findings_of, RecordLocator(), outcome.labels)
    ext = EXTRACTED_LINES[0]
    assert [(m.side, m.span, m.code, m.field) for m in marks] == [
        ("extracted", (ext.index("13.9"), ext.index("13.9") + 4), "mismatch", "price"),
        ("gold", (first.gold.text.index("12.5"), first.gold.text.index("12.5") + 4),
         "mismatch", "price")]
    assert GOLD[0]["price"] == 12.5
    cache = MarkCache()
    build(outcome, cache=cache)
    kept = dict(cache.marks)
    build(outcome, cache=cache)
    assert all(cache.marks[k] is v for k, v in kept.items())  # not located again


def test_a_nested_omission_is_shown_on_the_nearest_present_parent_key(tmp_path: Path) -> None:
    """Missing ``/addr/geo/zip`` with ``/addr/geo`` absent too: the mark sits on the key
    ``"addr"`` (the nearest parent present), not on the record's brace."""
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"},
        "addr": {"type": "object", "properties": {
            "city": {"type": "string"},
            "geo": {"type": "object", "properties": {"zip": {"type": "string"}}}}}}}
    gold = '{"id": "a", "addr": {"city": "Oslo", "geo": {"zip": "0150"}}}'
    line = '{"id": "a", "addr": {"city": "Oslo"}}'
    _, outcome = suite_outcome(tmp_path, schema, [gold], [line])
    [run] = outcome.runs
    marks = record_marks(run.scored[0], outcome.findings_of, RecordLocator(), outcome.labels)
    [omit] = [m for m in marks if m.side == "extracted"]
    assert (omit.code, omit.field) == ("omission", "addr.geo.zip")
    assert omit.span == (line.index('"addr"'), line.index('"addr"') + len('"addr"'))


# -- marks of one record pair, from results built by hand ----------------------------

E_TEXT = ('{"id": "a", "name": "a", "price": 13.9, "extra": {"k": 1}, '
          '"addr": {"city": "Oslo"}, "tags": ["x"]}')
G_TEXT = ('{"id": "a", "name": 5, "price": 12.5, "addr": {"city": "Oslo", "zip": "0150"}, '
          '"tags": ["x", "y"]}')


def span_of(text: str, needle: str, after: str = "") -> tuple[int, int]:
    start = text.index(needle, text.index(after) + len(after) if after else 0)
    return start, start + len(needle)


def result(path: str, status: Status, *, field: str | None = None, gp: str | None = None,
           ep: str | None = None, gold: Any = None, ext: Any = None, reason: str | None = None,
           comparator: str | None = None, sp: str = "") -> FieldResult:
    return FieldResult(path, field or path, status, 0.0, comparator, reason, gold, ext, gp, ep,
                       sp)


def pair(results: list[FieldResult], gold: str | None, extracted: str | None, *,
         rid: Any = "a", problem: str | None = None) -> ScoredRecord:
    rec = RecordResult(0, rid, tuple(results), Counts(), problem=problem)
    return scored_whole(rec, None if gold is None else RecordSlice(0, 0, gold, None),
                        None if extracted is None else RecordSlice(0, 0, extracted, None))


def marks_of(s: ScoredRecord, locator: RecordLocator, labels: dict[str, str]
             ) -> tuple[Mark, ...]:
    """The marks of a record kept whole (its results built by hand)."""
    return record_marks(s, lambda s: s.record.field_results, locator, labels)


def test_each_kind_of_finding_is_marked_where_it_happened() -> None:
    """The wrong value, the invented key, the nearest present parent of what is missing,
    the value a comparison failed on; on gold, the right value. Matches, skipped and
    pending fields are no findings; a result whose place is not in the text goes on the
    nearest parent present (the record's first key at the top): never dropped."""
    zip_sp, tags_sp = "/properties/addr/properties/zip", "/properties/tags/items"
    gold_zip = span_of(G_TEXT, '"0150"')
    results = [
        result("id", Status.MATCH, gp="/id", ep="/id"),
        result("name", Status.SKIPPED, gp="/name", ep="/name"),
        result("price", Status.PENDING, gp="/price", ep="/price"),
        result("gone", Status.MISMATCH, gp="/price", ep="/gone", gold=1, ext=2),
        result("price", Status.MISMATCH, gp="/price", ep="/price", gold=12.5, ext=13.9,
               comparator="numeric", sp="/properties/price"),
        result("extra.q", Status.HALLUCINATION, ep="/extra/q", ext=2),
        result("extra.k", Status.HALLUCINATION, ep="/extra/k", ext=1, sp="/properties/extra"),
        result("addr.zip", Status.OMISSION, gp="/addr/zip", ep="/addr/zip", gold="0150",
               sp=zip_sp),
        result("tags[1]", Status.OMISSION, field="tags[]", gp="/tags/1", gold="y",
               comparator="exact", sp=tags_sp),
        result("name", Status.ERROR, gp="/name", ep="/name", gold=5, ext="a",
               reason="transform failed on the gold value", comparator="exact",
               sp="/properties/name"),
        result("geo", Status.ERROR, reason="no comparator"),
        result("addr.zip", Status.BATCH_ERROR, gp="/addr/zip", comparator="llm"),
    ]
    marks = marks_of(pair(results, G_TEXT, E_TEXT), RecordLocator(),
                         {zip_sp: "postal code", "/properties/name": ""})
    price_msg = "price: 13.9 ≠ gold 12.5 (numeric)"
    gone_msg = "gone: 2 ≠ gold 1 (no comparator)"
    assert marks == (
        # Its value is not in the text: on the record's first key.
        Mark("extracted", span_of(E_TEXT, '"id"'), "mismatch", "mismatch", gone_msg, "gone",
             "", span_of(G_TEXT, "12.5")),
        Mark("gold", span_of(G_TEXT, "12.5"), "mismatch", "mismatch", gone_msg, "gone", "",
             span_of(G_TEXT, "12.5")),
        Mark("extracted", span_of(E_TEXT, "13.9"), "mismatch", "mismatch", price_msg, "price",
             "/properties/price", span_of(G_TEXT, "12.5")),
        Mark("gold", span_of(G_TEXT, "12.5"), "mismatch", "mismatch", price_msg, "price",
             "/properties/price", span_of(G_TEXT, "12.5")),
        # Not in the text: on its nearest parent present.
        Mark("extracted", span_of(E_TEXT, '"extra"'), "hallucination", "hallucination",
             "extra.q: invented 2 (gold has no value here)", "extra.q"),
        Mark("extracted", span_of(E_TEXT, '"k"'), "hallucination", "hallucination",
             "extra.k: invented 1 (gold has no value here)", "extra.k", "/properties/extra"),
        Mark("extracted", span_of(E_TEXT, '"addr"'), "omission", "omission",
             'addr.zip: missing (gold "0150")', "addr.zip", zip_sp, gold_zip),
        Mark("gold", gold_zip, "omission", "omission",
             'addr.zip: gold "0150", extracted nothing (postal code)', "addr.zip", zip_sp,
             gold_zip),
        # No extracted pointer: the nearest parent of where gold has it.
        Mark("extracted", span_of(E_TEXT, '"tags"'), "omission", "omission",
             'tags[1]: missing (gold "y")', "tags[]", tags_sp, span_of(G_TEXT, '"y"')),
        Mark("gold", span_of(G_TEXT, '"y"'), "omission", "omission",
             'tags[1]: gold "y", extracted nothing (exact)', "tags[]", tags_sp,
             span_of(G_TEXT, '"y"')),
        Mark("extracted", span_of(E_TEXT, '"a"', after='"name": '), "error", "error",
             "name: transform failed on the gold value (exact)", "name", "/properties/name",
             span_of(G_TEXT, "5")),
        # Nowhere to point: the record's first key; no label, no "()".
        Mark("extracted", span_of(E_TEXT, '"id"'), "error", "error", "geo: no comparator", "geo"),
        Mark("extracted", span_of(E_TEXT, '"addr"'), "error", "batch_error",
             "addr.zip: batch_error (llm)", "addr.zip", "", gold_zip),
    )


def test_a_record_with_no_value_in_its_text_still_gets_every_finding() -> None:
    """Nothing in its text to point at: each finding goes on its first character."""
    results = [result("a", Status.OMISSION, gp="/a", ep="/a", gold=1),
               result("b", Status.ERROR, ep="/b", reason="boom")]
    marks = marks_of(pair(results, '{"a": 1}', "  "), RecordLocator(), {})
    assert marks == (
        Mark("extracted", (0, 1), "omission", "omission", "a: missing (gold 1)", "a", "",
             (6, 7)),
        Mark("gold", (6, 7), "omission", "omission", "a: gold 1, extracted nothing", "a", "",
             (6, 7)),
        Mark("extracted", (0, 1), "error", "error", "b: boom", "b"))
    assert marks_of(pair(results[1:], '{"a": 1}', ""), RecordLocator(), {}) == (
        Mark("extracted", (0, 0), "error", "error", "b: boom", "b"),), "an empty text"


def test_an_unpaired_record_is_one_mark_that_counts_its_fields() -> None:
    loc = RecordLocator()
    fields = [result("a", Status.HALLUCINATION), result("b", Status.HALLUCINATION),
              result("c", Status.SKIPPED), result("d", Status.MATCH)]
    # A record dug out of prose: its value's first character.
    assert marks_of(pair(fields, None, 'Sure: {"id": "z"}', rid="z"), loc, {}) == (
        Mark("extracted", (6, 7), "record", "record-hallucinated",
             "record z: no gold record; its 2 fields count as hallucinations"),)
    assert marks_of(pair(fields, None, "  ", rid=None, problem="duplicate id 7"), loc,
                        {}) == (
        Mark("extracted", (0, 2), "record", "record-hallucinated",
             "record #1: duplicate id 7; its 2 fields count as hallucinations"),)
    missing = [result("a", Status.OMISSION), result("b", Status.OMISSION),
               result("c", Status.OMISSION), result("d", Status.SKIPPED)]
    assert marks_of(pair(missing, '{"id": 3}', None, rid=3), loc, {}) == (
        Mark("gold", (0, 1), "record", "record-omitted",
             "record 3: missing from this run; its 3 fields count as omissions"),)
    assert marks_of(pair(missing, '{"id": 3}', None, problem="not read"), loc, {}) == (
        Mark("gold", (0, 1), "record", "record-omitted",
             "record a: not read; its 3 fields count as omissions"),)
    assert marks_of(pair(fields, None, None), loc, {}) == ()


def test_every_kind_of_finding_counts_towards_the_hidden_number() -> None:
    counts = Counts(matches=6, mismatches=1, omissions=2, hallucinations=3, skipped=7,
                    errors=4, pending=8, batch_errors=5)
    rec = RecordResult(0, "a", (), counts)
    g, e = RecordSlice(0, 0, "{}", {}), RecordSlice(0, 0, "{}", {})
    assert _finding_count(scored_whole(rec, g, e)) == 15
    invented = (*(result(f"items[{i}].x", Status.HALLUCINATION, field="items[].x")
                  for i in range(3)),
                result("y", Status.HALLUCINATION),
                result("items[3]", Status.HALLUCINATION, field="items[]"))
    rec2 = RecordResult(0, "a", invented, counts._replace(hallucinations=5))
    # A key invented in three items is one finding, as record_marks shows it; an
    # invented item is one each.
    assert _finding_count(scored_whole(rec2, g, e)) == 17 - 2
    assert _finding_count(scored_whole(rec, None, e)) == 1  # the record is the finding
    assert _finding_count(scored_whole(rec, g, None)) == 1
    assert _finding_count(scored_whole(rec, None, None)) == 0


def test_a_file_line_table_is_kept_while_its_text_stays() -> None:
    cache, path = MarkCache(), Path("/x/run.jsonl")
    first = cache.line_table(path, "a\nb")
    assert cache.line_table(path, "a\nb") is first
    changed = cache.line_table(path, "a\nbc\n")
    assert changed is not first and changed.position(5, "utf-16") == (2, 0)
    assert cache.line_table(Path("/x/other.jsonl"), "a\nbc\n") is not changed


# -- diagnostics of a suite with every kind of record ----------------------------------

ORDERS_SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"},
    "name": {"type": "string", "x-eval-transform": ["lowercase"]},
    "price": {"type": "number", "x-eval-compare": "numeric"}}}
ORDERS_GOLD = ['{"id": "a", "name": "Ann", "price": 1.0}',
               '{"id": "b", "name": 5, "price": 2.0}',  # a number: lowercase fails on it
               '{"id": "c", "name": "Cy", "price": 3.0}']  # not in the run
#: In another order than gold's; record 2 has no gold, record 3 repeats record 1's id.
ORDERS_RUN = ['{"id": "b", "name": "bo", "price": 2.0}',
              '{"id": "a", "name": "ann", "price": 1.5}',
              '{"id": "z", "name": "Zed", "price": 9.0}',
              '{"id": "a", "name": "Ann", "price": 1.0}']


@pytest.fixture(scope="module")
def orders(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], SuiteOutcome]:
    return suite_outcome(tmp_path_factory.mktemp("orders"), ORDERS_SCHEMA, ORDERS_GOLD,
                         ORDERS_RUN)


def at_line(lines: list[str], line: int, needle: str, after: str = "") -> dict[str, Any]:
    return rng(line, *span_of(lines[line], needle, after))


def test_records_without_a_partner_and_failed_comparisons_in_file_order(
        orders: tuple[dict[str, Path], SuiteOutcome]) -> None:
    """Input issues first, then each extracted record's findings in the file's order (not
    gold's), then the gold records missing from the run, on the run file's first character
    and pointing at the gold record."""
    files, outcome = orders
    schema_lines = files["schema"].read_text(encoding="utf-8").split("\n")

    def schema_key(key: str) -> dict[str, Any]:
        [line] = [i for i, ln in enumerate(schema_lines) if f'"{key}": {{' in ln]
        return {"uri": files["schema"].as_uri(), "range": at_line(schema_lines, line,
                                                                  f'"{key}"')}

    gold_uri = files["gold"].as_uri()
    [dup] = [s for s in outcome.runs[0].scored if s.extracted and s.extracted.index == 3]
    assert dup.record.problem is not None
    assert build(outcome)[files["extracted"].as_uri()] == [
        {"range": rng(3, 0, len(ORDERS_RUN[3])), "severity": 2, "code": "duplicate-id",
         "source": "evalschema", "message": "id 'a' appears again (first in record 2): this "
         "record counts as hallucinated"},
        {"range": at_line(ORDERS_RUN, 0, '"bo"'), "severity": 1, "code": "error",
         "source": "evalschema", "message": "b · name: transform failed on the gold value: "
         "lowercase needs a string, got 5 (exact)",
         "relatedInformation": [
             {"location": {"uri": gold_uri, "range": at_line(ORDERS_GOLD, 1, "5")},
              "message": "gold value"},
             {"location": schema_key("name"), "message": "schema rule: exact"}],
         "data": {"field": "name", "record": 1}},
        {"range": at_line(ORDERS_RUN, 1, "1.5"), "severity": 2, "code": "mismatch",
         "source": "evalschema", "message": "a · price: 1.5 ≠ gold 1.0 (numeric)",
         "relatedInformation": [
             {"location": {"uri": gold_uri, "range": at_line(ORDERS_GOLD, 0, "1.0")},
              "message": "gold value"},
             {"location": schema_key("price"), "message": "schema rule: numeric"}],
         "data": {"field": "price", "record": 0}},
        {"range": rng(2, 0, 1), "severity": 2, "code": "record-hallucinated",
         "source": "evalschema", "message": "record z: no gold record with this id; its 3 "
         "fields count as hallucinations", "data": {"field": "", "record": 3}},
        {"range": rng(3, 0, 1), "severity": 2, "code": "record-hallucinated",
         "source": "evalschema", "message": f"record a: {dup.record.problem}; its 3 fields "
         "count as hallucinations", "data": {"field": "", "record": 4}},
        {"range": rng(0, 0, 0), "severity": 2, "code": "record-omitted", "source": "evalschema",
         "message": "record c: no extracted record with this id; its 3 fields count as "
         "omissions", "relatedInformation": [
             {"location": {"uri": gold_uri, "range": rng(2, 0, len(ORDERS_GOLD[2]))},
              "message": "gold record"}]},
    ]


def test_past_the_limit_every_hidden_finding_is_counted(
        orders: tuple[dict[str, Path], SuiteOutcome]) -> None:
    """The issue fills the file's one place: the error, the mismatch and three records
    without a partner are counted."""
    files, outcome = orders
    got = build(outcome, FindingOptions(max_per_file=1))[files["extracted"].as_uri()]
    assert [d["code"] for d in got] == ["duplicate-id", "more-findings"]
    assert got[1]["message"] == (
        "5 more findings in 4 records (b, a, z, c) not shown: this file shows its first 1 "
        "(evalschema.maxDiagnosticsPerFile, under the editor's limit of 1,000 per file). The "
        "results view and hovers have every finding; evalschema.diagnosticsMode \"record\" "
        "shows one per record.")
    assert got[1]["data"] == {"hidden": 5, "records": ["b", "a", "z", "c"]}
    unlimited = build(outcome, FindingOptions(max_per_file=0))[files["extracted"].as_uri()]
    assert len(unlimited) == 6 and "more-findings" not in {d["code"] for d in unlimited}


def test_the_default_limit_stays_under_the_editors_thousand(tmp_path: Path) -> None:
    """VS Code drops a file's problems past 1,000 with a note of its own; ours comes first,
    names the records and is the file's last diagnostic (information, under the warnings)."""
    schema = {"type": "object", "properties": {"v": {"type": "integer"}}}
    files, outcome = suite_outcome(tmp_path, schema, ['{"v": 1}'] * 2001, ['{"v": 2}'] * 2001)
    got = build(outcome)[files["extracted"].as_uri()]
    assert FindingOptions().max_per_file == 900
    assert len(got) == 901 and {d["code"] for d in got[:900]} == {"mismatch"}
    summary = got[900]
    assert (summary["code"], summary["severity"], summary["range"]) == (
        "more-findings", 3, rng(0, 0, 0))
    assert summary["message"].startswith(
        "1,101 more findings in 1,101 records (#901, #902, #903, #904, #905 and 1,096 more) "
        "not shown: this file shows its first 900 ")
    assert summary["data"]["hidden"] == 1101
    assert summary["data"]["records"][:2] == ["#901", "#902"]
    assert len(summary["data"]["records"]) == 100


def test_every_severity_name_of_the_settings(shop: tuple[dict[str, Path], SuiteOutcome]
                                             ) -> None:
    files, outcome = shop
    options = FindingOptions(severity={"input": "hint", "mismatch": "info",
                                       "omission": "information", "hallucination": "error"})
    got = [(d["code"], d["severity"]) for d in build(outcome, options)[
        files["extracted"].as_uri()]]
    assert got == [("unreadable-record", 4), ("mismatch", 3), ("omission", 3), ("mismatch", 3),
                   ("hallucination", 1)]


def test_a_threshold_for_every_field_marks_each_field_below_it(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    """``field_threshold`` applies where the config names no threshold; a field exactly at
    it passes (id, name, items, items[].sku: F1 1.0); a field the schema does not have
    (the invented ``color``) is marked on the schema's first character."""
    files, outcome = shop
    schema = files["schema"].read_text(encoding="utf-8").split("\n")

    def key(name: str, line_has: str) -> dict[str, Any]:
        [line] = [i for i, ln in enumerate(schema) if line_has in ln]
        return at_line(schema, line, f'"{name}"')

    got = [(d["range"], d["severity"], d["message"], d["data"]) for d in build(
        outcome, FindingOptions(field_threshold=1.0))[files["schema"].as_uri()]]
    assert got == [
        (key("price", '"price": {'), 2, "price: F1 0.667 < 1 in run1 (2 matched, 1 wrong, "
         "0 missing, 0 invented)", {"field": "price", "run": "run1"}),
        (key("currency", '"currency": {'), 2, "currency: F1 0.800 < 1 in run1 (2 matched, "
         "0 wrong, 1 missing, 0 invented)", {"field": "currency", "run": "run1"}),
        (key("qty", '"qty": {'), 2, "items[].qty: F1 0.667 < 1 in run1 (2 matched, 1 wrong, "
         "0 missing, 0 invented)", {"field": "items[].qty", "run": "run1"}),
        (rng(0, 0, 1), 2, "color: F1 0.000 < 1 in run1 (0 matched, 0 wrong, 0 missing, "
         "1 invented)", {"field": "color", "run": "run1"}),
    ]
    assert [d["data"]["field"] for d in build(outcome, FindingOptions(field_threshold=0.7))[
        files["schema"].as_uri()]] == ["price", "items[].qty", "color"]


def test_schema_problems_are_marked_in_the_schema_unless_it_is_open(tmp_path: Path) -> None:
    """The key the problem is about, with the suggestion; a syntax error at its offsets.
    While the schema is open, its own diagnostics say it (no double report)."""
    unknown = '{"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": "nope"}}}'
    files, outcome = suite_outcome(tmp_path / "u", unknown, ['{"a": "x"}'], ['{"a": "x"}'])
    uri = files["schema"].as_uri()
    assert build(outcome)[uri] == [
        {"range": rng(0, *span_of(unknown, '"x-eval-compare"')), "severity": 1,
         "code": "unknown-comparator", "source": "evalschema",
         "message": "unknown comparator 'nope' (did you mean 'type'?)"}]
    opened = DiagnosticBuilder(outcome, FindingOptions(), MarkCache(), RecordLocator(),
                               Path.as_uri, schema_open=True).build()
    assert opened[uri] == []
    broken = '{"type": "object", "properties": {"a": {"type": "string"}}} x'
    files, outcome = suite_outcome(tmp_path / "b", broken, ['{"a": "x"}'], ['{"a": "x"}'])
    [syntax] = build(outcome)[files["schema"].as_uri()]
    assert (syntax["range"], syntax["code"], syntax["message"]) == (
        rng(0, len(broken) - 1, len(broken)), "invalid-json",
        "the schema is not valid JSON: Extra data")
    nowhere = replace(outcome, schema_problems=(Problem("odd", "something is odd"),))
    [odd] = build(nowhere)[files["schema"].as_uri()]
    assert (odd["range"], odd["message"]) == (rng(0, 0, 0), "something is odd")


def test_gold_diagnostics_have_their_own_limit(shop: tuple[dict[str, Path], SuiteOutcome]
                                               ) -> None:
    """With the run file full, records are still located for the gold file until it is
    full too; only the run file's hidden findings are counted on it."""
    files, outcome = shop
    built = build(outcome, FindingOptions(gold_diagnostics=True, max_per_file=2))
    gold = built[files["gold"].as_uri()]
    assert [(d["code"], d["data"]["field"]) for d in gold[:2]] == [("mismatch", "price"),
                                                                   ("omission", "currency")]
    assert gold[1]["message"] == '[run1] b · currency: gold "USD", extracted nothing (exact)'
    assert gold[2]["code"] == "more-findings" and gold[2]["data"] == {
        "hidden": 1, "records": ["run1 b"]}, "b's qty, counted on the gold file"
    ext = built[files["extracted"].as_uri()]
    assert [d["code"] for d in ext] == ["unreadable-record", "mismatch", "more-findings"]
    assert ext[-1]["message"].startswith("3 more findings")


def test_marks_are_located_again_when_the_schema_changes(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    _, outcome = shop
    cache = MarkCache()
    build(outcome, cache=cache)
    kept = dict(cache.marks)
    assert cache.fingerprint == outcome.schema_text and kept
    edited = replace(outcome, schema_text=(outcome.schema_text or "") + "\n")
    build(edited, cache=cache)
    assert cache.marks == kept and all(cache.marks[k] is not v for k, v in kept.items() if v)
    assert cache.fingerprint == edited.schema_text


def test_a_rule_without_a_label_is_named_plainly(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"addr": {"type": "object", "properties": {
        "city": {"type": "string"}}}}}
    files, outcome = suite_outcome(tmp_path, schema, ['{"addr": "Oslo"}'],
                                   ['{"addr": {"city": "Oslo"}}'])
    [wrong] = build(outcome)[files["extracted"].as_uri()]
    assert wrong["message"] == ('#1 · addr: type mismatch: gold value "Oslo" is string, '
                                'expected an object')
    assert [r["message"] for r in wrong["relatedInformation"]] == ["gold value", "schema rule"]


def record_key(s: ScoredRecord) -> tuple[Any, ...]:
    return (s.gold.text if s.gold else None, s.extracted.text if s.extracted else None,
            s.record.problem)


def test_records_past_both_limits_are_not_located(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    """Locating is what costs: once the run file and (when shown) the gold file are full,
    records are only counted; while the gold file has room they are still located."""
    files, outcome = shop
    [run] = outcome.runs
    by_id = {s.gold.value["id"]: record_key(s) for s in run.scored if s.gold}
    cache = MarkCache()
    build(outcome, FindingOptions(max_per_file=2), cache)  # full after record a
    assert set(cache.marks) == {by_id["a"]}
    cache = MarkCache()
    # Gold: a's price, then b's currency and qty; full after b, so c is not located.
    gold = build(outcome, FindingOptions(gold_diagnostics=True, max_per_file=2), cache)
    assert [d["code"] for d in gold[files["gold"].as_uri()]] == ["mismatch", "omission",
                                                                 "more-findings"]
    assert set(cache.marks) == {by_id["a"], by_id["b"]}


def test_a_gold_record_missing_from_a_full_run_file_is_counted(
        orders: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = orders
    built = build(outcome, FindingOptions(gold_diagnostics=True, max_per_file=3))
    ext = built[files["extracted"].as_uri()]
    assert [d["code"] for d in ext] == ["duplicate-id", "error", "mismatch", "more-findings"]
    # z and the repeated a (their record marks), and c missing from the run.
    assert ext[-1]["message"].startswith("3 more findings in 3 records (z, a, c) not shown")
    [price] = built[files["gold"].as_uri()]
    assert price["message"] == "[run1] a · price: 1.5 ≠ gold 1.0 (numeric)"
    assert [r["message"] for r in price["relatedInformation"]] == ["gold value",
                                                                  "schema rule: numeric"]
    assert price["relatedInformation"][0]["location"]["range"] == price["range"]


def test_pairs_with_the_same_text_on_one_side_keep_their_own_findings(tmp_path: Path) -> None:
    """Marks are cached by both texts: the same gold with another extracted value (or the
    reverse) is another finding."""
    schema = {"type": "object", "properties": {"v": {"type": "integer"}}}
    files, outcome = suite_outcome(tmp_path, schema, ['{"v": 1}', '{"v": 1}', '{"v": 2}'],
                                   ['{"v": 1}', '{"v": 2}', '{"v": 2}'])
    got = [(d["range"], d["message"]) for d in build(outcome)[files["extracted"].as_uri()]]
    assert got == [(rng(1, 6, 7), "#2 · v: 2 ≠ gold 1 (numeric)")]


class CountingLocator(RecordLocator):
    def __init__(self) -> None:
        super().__init__()
        self.located: list[tuple[str, str | None]] = []

    def value(self, text: str, pointer: str | None) -> tuple[int, int] | None:
        self.located.append((text, pointer))
        return super().value(text, pointer)


def test_a_record_pair_in_two_runs_is_located_once(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"v": {"type": "integer"}}}
    files, _ = suite_outcome(tmp_path, schema, ['{"v": 1}'], ['{"v": 2}'])
    second = files["extracted"].with_name("t.run2.extracted.jsonl")
    second.write_text('{"v": 2}\n', encoding="utf-8")
    [suite] = discover([tmp_path], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    assert len(outcome.runs) == 2
    locator, cache = CountingLocator(), MarkCache()
    built = DiagnosticBuilder(outcome, FindingOptions(), cache, locator, Path.as_uri,
                              schema_open=False).build()
    assert [len(built[p.as_uri()]) for p in (files["extracted"], second)] == [1, 1]
    # the suspect gold value first (both runs say 2), then the pair's marks, once: gold,
    # extracted
    assert locator.located == [('{"v": 1}', "/v"), ('{"v": 1}', "/v"), ('{"v": 2}', "/v")]
    assert [d["message"] for d in built[files["gold"].as_uri()]] == [
        "2 of 2 runs say 2; gold says 1"]
    [(key, marks)] = cache.marks.items()
    assert key == ('{"v": 1}', '{"v": 2}', None)
    assert marks == (Mark("extracted", (6, 7), "mismatch", "mismatch", "v: 2 ≠ gold 1 (numeric)",
                          "v", "/properties/v", (6, 7)),
                     Mark("gold", (6, 7), "mismatch", "mismatch", "v: 2 ≠ gold 1 (numeric)",
                          "v", "/properties/v", (6, 7)))


def test_a_file_that_cannot_be_read_is_marked_at_its_start(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"v": {"type": "integer"}}}
    files, _ = suite_outcome(tmp_path, schema, ['{"v": 1}'], ['{"v": 1}'])
    files["extracted"].write_bytes('{"v": "é"}\n'.encode("latin-1"))
    [suite] = discover([tmp_path], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    assert files["extracted"] not in outcome.texts
    [d] = build(outcome)[files["extracted"].as_uri()]
    assert (d["range"], d["severity"], d["code"]) == (rng(0, 0, 0), 1, "unreadable-file")
    assert d["message"].startswith("cannot read t.run1.extracted.jsonl: not UTF-8")


def test_each_file_is_converted_with_its_own_line_table(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = shop
    cache = MarkCache()
    builder = DiagnosticBuilder(outcome, FindingOptions(), cache, RecordLocator(), Path.as_uri,
                                schema_open=False)
    builder.build()
    tables = {p: text for p, (text, _) in cache.line_tables.items()}
    assert tables == {p: outcome.texts[p] for p in files.values()}
    doc = builder.doc(files["extracted"])
    assert builder.doc(files["extracted"]) is doc  # one URI and table per file and build
    assert doc.lines is cache.line_tables[files["extracted"]][1]


def test_a_threshold_on_a_field_of_another_schema_file_leaves_the_next_fields_checked(
        tmp_path: Path) -> None:
    """``addr.city`` is defined in ``addr.json``, which has no place in this schema's text:
    it is not marked, and ``z`` after it still is."""
    (tmp_path / "addr.json").write_text(json.dumps(
        {"type": "object", "properties": {"city": {"type": "string"}}}), encoding="utf-8")
    schema = {"type": "object", "properties": {"addr": {"$ref": "addr.json"},
                                               "z": {"type": "string"}}}
    files, outcome = suite_outcome(tmp_path, schema, ['{"addr": {"city": "Oslo"}, "z": "a"}'],
                                   ['{"addr": {"city": "Rome"}, "z": "b"}'])
    assert outcome.runs[0].result.per_field["addr.city"].counts.f1 == 0.0
    got = build(outcome, FindingOptions(field_threshold=1.0))[files["schema"].as_uri()]
    assert [d["data"]["field"] for d in got] == ["z"]


def test_every_gold_record_missing_from_the_run_is_reported(tmp_path: Path) -> None:
    """Two gold records the run lacks: one record-omitted finding each, in gold's order."""
    gold = ['{"id": "a", "name": "A", "price": 1}', '{"id": "b", "name": "B", "price": 2}',
            '{"id": "c", "name": "C", "price": 3}']
    files, outcome = suite_outcome(tmp_path, ORDERS_SCHEMA, gold, [gold[1]])
    got = build(outcome)[files["extracted"].as_uri()]
    assert [(d["code"], d["message"].split(":")[0],
             d["relatedInformation"][0]["location"]["range"]["start"]["line"]) for d in got] == [
        ("record-omitted", "record a", 0), ("record-omitted", "record c", 2)]


def test_input_issues_count_toward_the_limit(tmp_path: Path) -> None:
    """Hundreds of unreadable records are findings like any other: capped, then counted."""
    schema = {"type": "object", "properties": {"v": {"type": "integer"}}}
    files, outcome = suite_outcome(tmp_path, schema, ['{"v": 1}'] * 5, ["garbage"] * 5)
    got = build(outcome, FindingOptions(max_per_file=3))[files["extracted"].as_uri()]
    assert [d["code"] for d in got] == ["unreadable-record"] * 3 + ["more-findings"]
    # Two unreadable records hidden, then five gold records missing from the run.
    assert got[-1]["data"]["hidden"] == 7
    assert got[-1]["data"]["records"] == ["#1", "#2", "#3", "#4", "#5"]


def test_record_mode_is_one_diagnostic_per_record_listing_its_findings(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = shop
    ext_uri = files["extracted"].as_uri()
    each = build(outcome)[ext_uri]
    got = build(outcome, FindingOptions(mode="record"))[ext_uri]
    assert [d["code"] for d in got] == ["unreadable-record", "record-findings",
                                        "record-findings"]
    a, b = got[1], got[2]
    # On the record's first key, its line.
    assert a["range"] == rng(0, 1, 5) and b["range"] == rng(1, 1, 5)
    assert a["message"] == "a: 1 finding: price (mismatch)"
    assert b["message"] == ("b: 3 findings: currency (omission), items[].qty (mismatch), "
                            "color (hallucination)")
    assert b["data"] == {"record": 1, "fields": ["currency", "items[].qty", "color"]}
    # Each finding is a related location, with the message it has in "finding" mode.
    per_finding = [(d["range"], d["message"].removeprefix("b · ")) for d in each
                   if d["range"]["start"]["line"] == 1 and d["code"] != "unreadable-record"]
    assert [(r["location"]["range"], r["message"]) for r in b["relatedInformation"]] == \
        per_finding
    assert all(r["location"]["uri"] == ext_uri for r in b["relatedInformation"])
    assert a["severity"] == 2
    # The loudest severity of its findings.
    loud = build(outcome, FindingOptions(mode="record", severity={"omission": "error"}))[ext_uri]
    assert [d["severity"] for d in loud] == [1, 2, 1]
    # A kind turned off is not listed; a record with nothing left gets nothing.
    quiet = build(outcome, FindingOptions(mode="record", severity={"mismatch": "off"}))[ext_uri]
    assert [d["message"] for d in quiet[1:]] == [
        "b: 2 findings: currency (omission), color (hallucination)"]


def test_findings_in_a_record_read_out_of_a_string_are_shown_on_it(tmp_path: Path) -> None:
    """A model answer stored as a JSON string holding the JSON (or prose around it): its
    values cannot be pointed at, so each finding sits on the record's first character,
    never nowhere (a finding not shown looks like a match)."""
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"}, "v": {"type": "integer"}, "w": {"type": "integer"}}}
    inner = json.dumps({"id": "a", "v": 2, "x": 1})
    line = json.dumps(f"Sure! Here it is: {inner}")
    files, outcome = suite_outcome(tmp_path, schema, ['{"id": "a", "v": 1, "w": 3}'], [line])
    got = build(outcome)[files["extracted"].as_uri()]
    assert [(d["code"], d["range"]) for d in got] == [
        ("mismatch", rng(0, 0, 1)), ("omission", rng(0, 0, 1)), ("hallucination", rng(0, 0, 1))]
    assert [d["message"] for d in got] == ["a · v: 2 ≠ gold 1 (numeric)",
                                           "a · w: missing (gold 3)",
                                           "a · x: invented 1 (gold has no value here)"]


def test_a_key_invented_in_every_item_is_one_finding_of_its_record(tmp_path: Path) -> None:
    """One diagnostic on its first place, the others as related locations (items the
    model added, their values invented alike); no empty "schema rule" for a key the schema
    does not have; other fields are one finding each."""
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}}}}}}
    gold = '{"id": "a", "items": [{"sku": "x"}, {"sku": "y"}, {"sku": "z"}]}'
    run = ('{"id": "a", "items": [{"sku": "x", "note": 1}, {"sku": "y", "note": 2}, '
           '{"sku": "z", "note": 3}]}')
    files, outcome = suite_outcome(tmp_path, schema, [gold], [run])
    [d] = build(outcome)[files["extracted"].as_uri()]
    notes = [i for i in range(len(run)) if run.startswith('"note"', i)]
    assert d["code"] == "hallucination"
    assert d["range"] == rng(0, notes[0], notes[0] + 6)
    assert d["message"] == "a · items[].note: invented in 3 items (gold has no value there)"
    assert [(r["location"]["range"], r["message"]) for r in d["relatedInformation"]] == [
        (rng(0, n, n + 6), "also invented here") for n in notes[1:]]
    [run_outcome] = outcome.runs
    assert _finding_count(run_outcome.scored[0]) == 1, "hidden, it counts as shown"
    # Two items the model added: their sku, invented twice, is one finding; the id of
    # another record, wrong, is one of its own.
    extra = '{"id": "a", "items": [{"sku": "x"}, {"sku": "y"}, {"sku": "z"}, {"sku": "w"}, {"sku": "v"}]}'
    files, outcome = suite_outcome(tmp_path / "2", schema, [gold, '{"id": "b", "items": []}'],
                                   [extra, '{"id": "b", "items": [{"sku": 1}]}'])
    got = build(outcome)[files["extracted"].as_uri()]
    assert [d["message"] for d in got if d["code"] == "hallucination"] == [
        "a · items[].sku: invented in 2 items (gold has no value there)",
        "b · items[0].sku: invented 1 (gold has no value here)"]


def test_a_huge_record_id_is_cut_in_every_message(tmp_path: Path) -> None:
    """Ids come from the data: a 100 kB id repeated in each finding of its record, and in
    the summary of those not shown, would make megabytes of diagnostics."""
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"}, "a": {"type": "integer"}, "b": {"type": "integer"}}}
    rid = "x" * 100_000
    gold = json.dumps({"id": rid, "a": 1, "b": 2})
    files, outcome = suite_outcome(tmp_path, schema, [gold], [json.dumps({"id": rid, "a": 3})])
    for options in (FindingOptions(), FindingOptions(max_per_file=1),
                    FindingOptions(mode="record"), FindingOptions(gold_diagnostics=True)):
        for diags in build(outcome, options).values():
            for d in diags:
                assert len(d["message"]) < 1000, (options, d["message"][:80])
                assert len(json.dumps(d.get("data"))) < 1000
    [a, b] = build(outcome)[files["extracted"].as_uri()]
    assert a["message"] == f"{'x' * 59}… · a: 3 ≠ gold 1 (numeric)"
    assert b["message"].startswith(f"{'x' * 59}… · b: missing")


# -- the wording and counting of what is rolled up or left out (mutation tests) ----------------

WIDE = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"}, **{f"f{i}": {"type": "integer"} for i in range(1, 9)}}}


def _wide(rid: str, wrong: int) -> tuple[str, str]:
    """A record of WIDE whose first ``wrong`` fields are wrong in the run."""
    gold = {"id": rid, **{f"f{i}": i for i in range(1, 9)}}
    run = {"id": rid, **{f"f{i}": i + (100 if i <= wrong else 0) for i in range(1, 9)}}
    return json.dumps(gold), json.dumps(run)


def test_a_record_roll_up_names_six_fields_then_counts_the_rest(tmp_path: Path) -> None:
    pairs = [_wide(rid, n) for rid, n in (("six", 6), ("seven", 7), ("eight", 8))]
    files, outcome = suite_outcome(tmp_path, WIDE, [g for g, _ in pairs], [r for _, r in pairs])
    got = build(outcome, FindingOptions(mode="record"))[files["extracted"].as_uri()]
    names = ", ".join(f"f{i} (mismatch)" for i in range(1, 7))
    assert [d["message"] for d in got] == [
        f"six: 6 findings: {names}",
        f"seven: 7 findings: {names} and 1 more",
        f"eight: 8 findings: {names} and 2 more"]


def test_the_loudest_finding_of_a_record_sets_its_severity(tmp_path: Path) -> None:
    """The record's first finding is a warning, a later one an error: the roll-up is an error."""
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"}, "a": {"type": "integer"}, "b": {"type": "integer"}}}
    files, outcome = suite_outcome(tmp_path, schema, ['{"id": "r", "a": 1, "b": 2}'],
                                   ['{"id": "r", "a": 3}'])
    [d] = build(outcome, FindingOptions(mode="record", severity={"omission": "error"})
                )[files["extracted"].as_uri()]
    assert d["message"] == "r: 2 findings: a (mismatch), b (omission)" and d["severity"] == 1


def test_records_past_the_limit_in_record_mode_are_counted_by_record(tmp_path: Path) -> None:
    pairs = [_wide("one", 2), _wide("two", 3)]
    files, outcome = suite_outcome(tmp_path, WIDE, [g for g, _ in pairs], [r for _, r in pairs])
    got = build(outcome, FindingOptions(mode="record", max_per_file=1)
                )[files["extracted"].as_uri()]
    assert [d["code"] for d in got] == ["record-findings", "more-findings"]
    assert got[1]["message"].startswith("3 more findings in 1 record (two) not shown")
    assert got[1]["data"] == {"hidden": 3, "records": ["two"]}
    # With gold diagnostics on, the gold file has room (record mode marks no gold value), so
    # the record is marked, then found to have no room in the run file: counted the same.
    both = build(outcome, FindingOptions(mode="record", max_per_file=1, gold_diagnostics=True))
    assert both[files["extracted"].as_uri()] == got


def test_the_summary_lists_five_records_then_counts_and_speaks_in_the_singular(
        tmp_path: Path) -> None:
    pairs = [_wide(f"r{i}", 1) for i in range(7)]
    files, outcome = suite_outcome(tmp_path, WIDE, [g for g, _ in pairs], [r for _, r in pairs])
    uri = files["extracted"].as_uri()
    five = build(outcome, FindingOptions(max_per_file=2))[uri][-1]["message"]
    assert five.startswith("5 more findings in 5 records (r2, r3, r4, r5, r6) not shown:")
    one = build(outcome, FindingOptions(max_per_file=6))[uri][-1]["message"]
    assert one.startswith("1 more finding in 1 record (r6) not shown: this file shows its first 6 ")


def test_findings_not_shown_that_belong_to_no_record_are_counted_alone(tmp_path: Path) -> None:
    """Thresholds on the schema file: no record to name."""
    pairs = [_wide("r", 8)]
    files, outcome = suite_outcome(tmp_path, WIDE, [g for g, _ in pairs], [r for _, r in pairs])
    got = build(outcome, FindingOptions(field_threshold=0.9, max_per_file=1)
                )[files["schema"].as_uri()]
    assert [d["code"] for d in got] == ["below-threshold", "more-findings"]
    assert got[1]["message"].startswith("7 more findings not shown: this file shows its first 1 ")
    assert got[1]["data"] == {"hidden": 7, "records": []}


def test_past_both_limits_the_gold_side_counts_the_records_gold_marks(tmp_path: Path) -> None:
    """A gold mark per mismatch and omission of a paired record, named with its run; a gold
    record missing from the run has none."""
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"}, "a": {"type": "integer"}, "b": {"type": "integer"}}}
    gold = ['{"id": "p", "a": 1, "b": 2}', '{"id": "q", "a": 1, "b": 2}',
            '{"id": "m", "a": 1, "b": 2}']
    run = ['{"id": "p", "a": 9, "b": 9}', '{"id": "q", "a": 9}']
    files, outcome = suite_outcome(tmp_path, schema, gold, run)
    got = build(outcome, FindingOptions(gold_diagnostics=True, max_per_file=2))
    ext, gold_side = got[files["extracted"].as_uri()], got[files["gold"].as_uri()]
    assert [d["code"] for d in gold_side] == ["mismatch", "mismatch", "more-findings"]
    assert gold_side[-1]["data"] == {"hidden": 2, "records": ["run1 q"]}
    assert gold_side[-1]["message"].startswith("2 more findings in 1 record (run1 q) not shown")
    assert ext[-1]["data"] == {"hidden": 3, "records": ["q", "m"]}


def test_other_findings_are_never_folded_into_an_invented_item_key(tmp_path: Path) -> None:
    """Only the same key invented in several items is one finding: not a mismatch before it,
    not another invented key, not items the model added."""
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"}, "n": {"type": "integer"},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}}}}}}
    gold = '{"id": "a", "n": 1, "items": [{"sku": "x"}, {"sku": "y"}]}'
    run = '{"id": "a", "n": 2, "items": [{"sku": "x", "note": 1}, {"sku": "y", "tag": 2}]}'
    files, outcome = suite_outcome(tmp_path, schema, [gold], [run])
    got = build(outcome)[files["extracted"].as_uri()]
    assert [d["message"] for d in got] == [
        "a · n: 2 ≠ gold 1 (numeric)",
        "a · items[0].note: invented 1 (gold has no value here)",
        "a · items[1].tag: invented 2 (gold has no value here)"]
    uri = files["extracted"].as_uri()
    twice = '{"id": "a", "n": 1, "items": [{"sku": "x", "note": 1}, {"sku": "y", "note": 2}]}'
    files, outcome = suite_outcome(tmp_path / "2", schema, [gold], [twice])
    [d] = build(outcome)[files["extracted"].as_uri()]
    assert {r["location"]["uri"] for r in d["relatedInformation"]} == {
        files["extracted"].as_uri()}
    assert uri != files["extracted"].as_uri()


def test_a_label_of_exactly_the_limit_is_not_cut() -> None:
    assert short_label("x" * 60) == "x" * 60
    assert short_label("x" * 61) == "x" * 59 + "…"


def test_items_the_model_added_to_a_list_of_values_are_one_finding_each(tmp_path: Path) -> None:
    """Folding is for a key invented inside items; each extra value is its own finding."""
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}
    files, outcome = suite_outcome(tmp_path, schema, ['{"id": "a", "tags": ["x"]}'],
                                   ['{"id": "a", "tags": ["x", "y", "z"]}'])
    got = build(outcome)[files["extracted"].as_uri()]
    assert [d["code"] for d in got] == ["hallucination", "hallucination"]
    assert len({json.dumps(d["range"]) for d in got}) == 2


def test_a_threshold_is_met_in_the_editor_exactly_when_the_cli_passes_it(tmp_path: Path) -> None:
    """One comparison (``gate.meets``): a figure a rounding error under its threshold
    passes ``evalschema eval``, so the editor must not mark it below."""
    from evalschema.project.gate import Check

    files, _, outcome = scored_suite(tmp_path / "p")
    [run] = outcome.runs
    f1 = run.result.per_field["price"].f1
    assert f1 is not None and abs(f1 - 2 / 3) < 1e-12
    noisy = f1 + 1e-12
    assert Check("price", "F1", f1, noisy).passed, "the CLI passes it"
    marked = build(outcome, FindingOptions(field_threshold=noisy))[files["schema"].as_uri()]
    assert "price" not in {d["data"]["field"] for d in marked}
    assert "price" in {d["data"]["field"] for d in build(outcome, FindingOptions(
        field_threshold=f1 + 1e-6))[files["schema"].as_uri()]}


def test_hidden_counts_kept_from_the_last_build_follow_an_edit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Records past the limit keep their counts from the last build while their results
    are the same objects; an edited record is counted afresh: the summary after an edit is
    a fresh build's."""
    from eval_workspace import write_suite

    files = write_suite(tmp_path / "p")
    gold = [json.dumps({"id": f"r{i}", "name": f"Item {i}", "price": i + 1.0})
            for i in range(1200)]
    wrong = [json.dumps({"id": f"r{i}", "name": f"item {i}x", "price": i + 2.0})
             for i in range(1200)]
    files["gold"].write_text("\n".join(gold) + "\n", encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    path = files["extracted"]
    runs, marks = SuiteCache(), MarkCache()
    options = FindingOptions(max_per_file=20)

    def summary(outcome: SuiteOutcome, cache: MarkCache) -> dict[str, Any]:
        [last] = [d for d in build(outcome, options, cache)[path.as_uri()]
                  if d["code"] == "more-findings"]
        return last

    first = summary(run_suite(suite, {path: "\n".join(wrong) + "\n"}, runs, CancelToken()),
                    marks)
    assert first["data"]["hidden"] > 500
    wrong[500] = gold[500]  # a record far past the limit: no finding left
    text = "\n".join(wrong) + "\n"
    outcome = run_suite(suite, {path: text}, runs, CancelToken())
    counted: list[object] = []
    real = findings._finding_count

    def counting(s: ScoredRecord) -> int:
        counted.append(s)
        return real(s)

    monkeypatch.setattr(findings, "_finding_count", counting)
    got = summary(outcome, marks)
    # The records up to the first chunk's place, and the edited record's chunk.
    assert len(counted) < 2 * findings.HIDDEN_CHUNK
    assert got == summary(outcome, MarkCache())
    assert got["data"]["hidden"] < first["data"]["hidden"]


def test_diagnostics_kept_from_the_last_build_are_a_fresh_builds(tmp_path: Path) -> None:
    """A record shown whole keeps its diagnostics for the next build while its marks and
    its place are the same: after an edit of one record the others' are the very same
    objects, and every build equals a fresh one, also when an edit moves the records
    below it down a line or the options change."""
    from eval_workspace import write_suite

    files = write_suite(tmp_path / "p")
    gold = [json.dumps({"id": f"r{i}", "name": f"Item é {i}", "price": i + 1.0},
                       ensure_ascii=False) for i in range(60)]
    wrong = [json.dumps({"id": f"r{i}", "name": f"item é {i}x", "price": i + 2.0},
                        ensure_ascii=False) for i in range(60)]
    files["gold"].write_text("\n".join(gold) + "\n", encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    path, uri = files["extracted"], files["extracted"].as_uri()
    runs, marks = SuiteCache(), MarkCache()
    options = FindingOptions(max_per_file=49, gold_diagnostics=True)

    def check(text: str, opts: FindingOptions = options) -> dict[str, list[dict[str, Any]]]:
        outcome = run_suite(suite, {path: text}, runs, CancelToken())
        got = build(outcome, opts, marks)
        assert got == build(outcome, opts, MarkCache())
        return got

    first = check("\n".join(wrong) + "\n")
    # Two findings a record: 49 and the summary, the 25th record cut by the limit (its
    # second finding is counted, not shown); after the edit below it is shown whole.
    assert len(first[uri]) == 50 and first[uri][-1]["data"]["hidden"] > 1
    wrong[3] = json.dumps({"id": "r3", "name": "Item é 3", "price": 9.0}, ensure_ascii=False)
    again = check("\n".join(wrong) + "\n")
    by_record = {d["data"]["record"]: d for d in again[uri] if "record" in d.get("data", {})}
    kept = {d["data"]["record"]: d for d in first[uri] if "record" in d.get("data", {})}
    assert by_record[3] is not kept[3] and by_record[3]["message"] != kept[3]["message"]
    assert all(by_record[k] is kept[k] for k in (0, 1, 2, 4, 10))
    gold_uri = files["gold"].as_uri()
    assert again[gold_uri] and again[gold_uri][0] is first[gold_uri][0]
    # A line inserted above: every record below moves down; nothing is taken as it was.
    moved = check("\n" + "\n".join(wrong) + "\n")
    line = again[uri][0]["range"]["start"]["line"]
    assert moved[uri][0]["range"]["start"]["line"] == line + 1
    # Other positions (UTF-8 counts é twice): located again.
    utf8 = check("\n" + "\n".join(wrong) + "\n", replace(options, encoding="utf-8"))
    assert utf8[uri] != moved[uri]
    # The schema opened under another URI: its rules are pointed at there.
    schema_uri = "untitled:schema"

    def to_uri(p: Path) -> str:
        return schema_uri if p == files["schema"] else p.as_uri()

    outcome = run_suite(suite, {path: "\n" + "\n".join(wrong) + "\n"}, runs, CancelToken())
    opts = replace(options, encoding="utf-8")
    renamed = DiagnosticBuilder(outcome, opts, marks, RecordLocator(), to_uri, False).build()
    assert schema_uri in json.dumps(renamed[uri]) and schema_uri not in json.dumps(utf8[uri])
