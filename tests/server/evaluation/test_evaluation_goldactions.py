"""evaluation/goldactions.py: from a finding of a real run to the edit of its gold record.

A small suite is run with the editor's runner; each finding is found again by its range,
as a code action request finds it, and accepted: the resulting gold text is asserted whole.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evalschema.run.suspects import find_suspects
from evalschema_server.evaluation import goldactions, runner
from evalschema_server.evaluation.findings import extracted_span
from evalschema_server.evaluation.locate import RecordLocator
from evalschema_server.evaluation.runner import CancelToken, SuiteCache, SuiteOutcome, run_suite
from evalschema_server.evaluation.suites import discover
from evalschema_server.evaluation.suspects import suspect_span

SCHEMA = {
    "type": "object", "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "vendor": {"type": "object", "properties": {"name": {"type": "string"},
                                                     "city": {"type": "string"}}},
        "items": {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku"},
                  "items": {"type": "object", "properties": {"sku": {"type": "string"},
                                                             "qty": {"type": "integer"}}}},
    },
}


def run(tmp_path: Path, gold: list[dict[str, Any]], extracted: list[dict[str, Any]]
        ) -> SuiteOutcome:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "t.eval.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (folder / "t.gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gold),
                                         encoding="utf-8")
    (folder / "t.run.extracted.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in extracted), encoding="utf-8")
    [suite] = discover([folder.resolve()], lambda p: p.read_text("utf-8")).suites
    return run_suite(suite, {}, SuiteCache(), CancelToken())


def accepted(outcome: SuiteOutcome, path: str) -> dict[str, str | None]:
    """Each finding of ``path`` (a field path) in record 0: its accept edit applied to the
    gold text (None: no edit offered), found again by its range as a request finds it."""
    loc = RecordLocator()
    [run_] = outcome.runs
    gold_path = outcome.suite.config.gold
    gold_text = outcome.texts[gold_path]
    out: dict[str, str | None] = {}
    s = run_.scored[0]
    assert s.extracted is not None
    for r in outcome.findings_of(s):
        if r.path != path or str(r.status) not in goldactions.KINDS:
            continue
        a, b = extracted_span(r, s.extracted.text, loc)
        [found] = goldactions.findings_at([outcome], run_.path, outcome.texts[run_.path],
                                          s.extracted.start + a, s.extracted.start + b,
                                          str(r.status), loc)
        change = goldactions.accept(found, gold_text, loc)
        out[str(r.status)] = None if change is None else (
            gold_text[:change.edit.start] + change.edit.new_text + gold_text[change.edit.end:])
    return out


def test_a_missing_value_takes_its_parent_object_when_nothing_was_extracted_there(
        tmp_path: Path) -> None:
    o = run(tmp_path, [{"id": "a", "vendor": {"city": "Paris"}}], [{"id": "a"}])
    assert accepted(o, "vendor.city") == {"omission": '{"id": "a"}\n'}


def test_a_missing_value_leaves_the_parent_the_extraction_has(tmp_path: Path) -> None:
    o = run(tmp_path, [{"id": "a", "vendor": {"city": "Paris"}}], [{"id": "a", "vendor": {}}])
    assert accepted(o, "vendor.city") == {"omission": '{"id": "a", "vendor": {}}\n'}


def test_a_missing_key_of_a_gold_only_element_removes_the_element(tmp_path: Path) -> None:
    o = run(tmp_path, [{"id": "a", "items": [{"sku": "x1", "qty": 1}, {"sku": "x2"}]}],
            [{"id": "a", "items": [{"sku": "x1", "qty": 1}]}])
    assert accepted(o, "items[1].sku") == {
        "omission": '{"id": "a", "items": [{"sku": "x1", "qty": 1}]}\n'}


def test_an_invented_value_under_a_parent_gold_lacks_creates_the_parent(tmp_path: Path) -> None:
    o = run(tmp_path, [{"id": "a", "items": []}],
            [{"id": "a", "vendor": {"name": "Acme"}, "items": []}])
    # After "id", where the extracted record has "vendor".
    assert accepted(o, "vendor.name") == {
        "hallucination": '{"id": "a", "vendor": {"name": "Acme"}, "items": []}\n'}


def test_an_invented_element_paired_with_no_gold_element_gets_no_edit(tmp_path: Path) -> None:
    o = run(tmp_path, [{"id": "a", "items": [{"sku": "x1", "qty": 1}]}],
            [{"id": "a", "items": [{"sku": "x1", "qty": 1}, {"sku": "x9", "qty": 2}]}])
    assert accepted(o, "items[1].qty") == {"hallucination": None}


def test_a_wrong_value_of_an_aligned_element_edits_the_gold_element_it_was_paired_with(
        tmp_path: Path) -> None:
    o = run(tmp_path, [{"id": "a", "items": [{"sku": "x1", "qty": 1}, {"sku": "x2", "qty": 2}]}],
            [{"id": "a", "items": [{"sku": "x2", "qty": 5}, {"sku": "x1", "qty": 1}]}])
    assert accepted(o, "items[1].qty") == {
        "mismatch": '{"id": "a", "items": [{"sku": "x1", "qty": 1}, {"sku": "x2", "qty": 5}]}\n'}


def test_stale_results_get_no_edit(tmp_path: Path) -> None:
    o = run(tmp_path, [{"id": "a", "vendor": {"city": "Paris"}}],
            [{"id": "a", "vendor": {"city": "Lyon"}}])
    assert accepted(o, "vendor.city")["mismatch"] == '{"id": "a", "vendor": {"city": "Lyon"}}\n'
    assert accepted(replace(o, stale="schema has errors"), "vendor.city") == {"mismatch": None}


def test_the_record_pair_is_pretty_printed_with_the_extracted_keys_in_gold_order(
        tmp_path: Path) -> None:
    o = run(tmp_path, [{"id": "a", "vendor": {"name": "A", "city": "P"},
                        "items": [{"sku": "x1", "qty": 1}]}],
            [{"items": [{"qty": 1, "note": "n", "sku": "x1"}], "extra": True,
              "vendor": {"city": "P", "name": "A"}, "id": "a"}])
    [run_] = o.runs
    pair = goldactions.record_pair(goldactions.Paired(o, run_, run_.scored[0]))
    assert (pair.gold_title, pair.extracted_title) == (
        "t.gold.jsonl · record a (gold)", "t.run.extracted.jsonl · record a (run)")
    assert pair.extracted_text == (
        '{\n  "id": "a",\n  "vendor": {\n    "name": "A",\n    "city": "P"\n  },\n'
        '  "items": [\n    {\n      "sku": "x1",\n      "qty": 1,\n      "note": "n"\n    }\n'
        '  ],\n  "extra": true\n}\n')
    assert json.loads(pair.gold_text) == {"id": "a", "vendor": {"name": "A", "city": "P"},
                                          "items": [{"sku": "x1", "qty": 1}]}


def test_suspect_gold_is_found_once_per_outcome_however_often_actions_are_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gold file's diagnostics and each code-action request there read the suite's
    suspects: one search per outcome, not one per request (each walks every record)."""
    calls: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return find_suspects(*args, **kwargs)

    monkeypatch.setattr(runner, "find_suspects", counted)
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "t.eval.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    gold = '{"id": "a", "vendor": {"name": "Acme Gmbh"}}\n'
    (folder / "t.gold.jsonl").write_text(gold, encoding="utf-8")
    for run_name in ("one", "two"):
        (folder / f"t.{run_name}.extracted.jsonl").write_text(
            '{"id": "a", "vendor": {"name": "Acme GmbH"}}\n', encoding="utf-8")
    [suite] = discover([folder.resolve()], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    [suspect] = outcome.suspects
    assert outcome.gold is not None
    rec = outcome.gold.records[suspect.gold_index]
    loc = RecordLocator()
    start, end = suspect_span(suspect, rec.text, loc)
    for _ in range(3):
        [change] = goldactions.accept_suspects([outcome], suite.config.gold, gold,
                                               rec.start + start, rec.start + end, loc)
        assert change.title == ('Accept extracted value as gold: vendor.name = "Acme GmbH" '
                                "(2 of 2 runs)")
    assert len(calls) == 1
