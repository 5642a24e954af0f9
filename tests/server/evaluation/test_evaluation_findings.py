"""A suite's results as diagnostics (evaluation/findings.py): exact ranges, messages, the
per-file limit, severities and the mark cache, on the suite of ``eval_workspace``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eval_workspace import EXTRACTED_LINES, GOLD, scored_suite

from evalschema_server.evaluation.findings import (
    DiagnosticBuilder,
    FindingOptions,
    MarkCache,
    record_marks,
)
from evalschema_server.evaluation.locate import RecordLocator
from evalschema_server.evaluation.runner import CancelToken, SuiteCache, SuiteOutcome, run_suite
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
        ("omission", rng(1, 0, 1), 2),  # on the record's brace: no parent of currency
        ("mismatch", rng(1, qty, qty + 1), 2),
        ("hallucination", rng(1, line1.index('"color"'), line1.index('"color"') + 7), 2),
    ]


def test_a_mismatch_names_both_values_and_points_at_gold_and_the_schema_rule(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = shop
    [price] = [d for d in build(outcome)[files["extracted"].as_uri()]
               if d.get("data") == {"field": "price", "record": 0}]
    assert price["message"] == "price: 13.9 ≠ gold 12.5 (numeric, rel 1%)"
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
    assert got[-1]["message"].startswith("3 more findings in this file are not shown (the "
                                         "limit is 2 per file")


def test_gold_diagnostics_are_prefixed_with_the_run(shop: tuple[dict[str, Path], SuiteOutcome]
                                                    ) -> None:
    files, outcome = shop
    gold = build(outcome, FindingOptions(gold_diagnostics=True))[files["gold"].as_uri()]
    gold_line0 = files["gold"].read_text(encoding="utf-8").split("\n")[0]
    at = gold_line0.index("12.5") + 1
    [price] = [d for d in gold if d["range"]["start"]["line"] == 0]
    assert price["range"] == rng(0, at, at + 4)
    assert price["message"] == "[run1] price: 13.9 ≠ gold 12.5 (numeric, rel 1%)"
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
    assert low["code"] == "below-threshold"
    assert low["message"] == ("price: F1 undefined: nothing was judged in run1 (3 skipped; "
                              "needs >= 0.9)")


def test_marks_are_relative_to_the_record_and_reused_while_the_schema_stays(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    _, outcome = shop
    [run] = outcome.runs
    first = run.scored[0]
    assert first.gold is not None and first.gold.text.startswith('{"id": "a"')
    marks = record_marks(first, RecordLocator(), outcome.labels)
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
    gold = {"id": "a", "addr": {"city": "Oslo", "geo": {"zip": "0150"}}}
    line = '{"id": "a", "addr": {"city": "Oslo"}}'
    (tmp_path / "nest.eval.json").write_text(json.dumps(schema), encoding="utf-8")
    (tmp_path / "nest.gold.jsonl").write_text(json.dumps(gold) + "\n", encoding="utf-8")
    (tmp_path / "nest.run1.extracted.jsonl").write_text(line + "\n", encoding="utf-8")
    [suite] = discover([tmp_path], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    [run] = outcome.runs
    marks = record_marks(run.scored[0], RecordLocator(), outcome.labels)
    [omit] = [m for m in marks if m.side == "extracted"]
    assert (omit.code, omit.field) == ("omission", "addr.geo.zip")
    assert omit.span == (line.index('"addr"'), line.index('"addr"') + len('"addr"'))
