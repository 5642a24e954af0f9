"""What the editor shows of results besides diagnostics (evaluation/views.py): the results at
an offset, their hover, the way to gold and the schema rule, summaries and reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_workspace import EXTRACTED_LINES, scored_suite

from evalschema_server.evaluation import views
from evalschema_server.evaluation.locate import RecordLocator, key_span
from evalschema_server.evaluation.runner import SuiteOutcome


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], SuiteOutcome]:
    files, _, outcome = scored_suite(tmp_path_factory.mktemp("views") / "p")
    return files, outcome


def text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_the_result_at_a_wrong_value_and_its_hover(shop: tuple[dict[str, Path], SuiteOutcome]
                                                   ) -> None:
    files, outcome = shop
    text = text_of(files["extracted"])
    at = text.index("13.9")
    [hit] = views.hits([outcome], files["extracted"], text, at + 1, RecordLocator())
    assert (hit.side, hit.pointer, hit.span) == ("extracted", "/price", (at, at + 4))
    assert [(r.path, str(r.status)) for r in hit.results] == [("price", "mismatch")]
    assert views.hover_markdown(hit, outcome.labels) == "\n".join([
        "**evalschema** · suite `shop` · run `run1` · record `a`", "",
        "`price`: **mismatch** · score 0.00 · numeric, rel 1%", "",
        "| | value (after transforms) |", "|---|---|",
        "| gold | `12.5` |", "| extracted | `13.9` |", "",
        "13.9 ≠ gold 12.5 (numeric, rel 1%)"])


def test_an_array_item_says_which_gold_element_it_was_aligned_with(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = shop
    text = text_of(files["extracted"])
    [hit] = views.hits([outcome], files["extracted"], text, text.index('{"sku": "x2"'),
                       RecordLocator())
    assert hit.pointer == "/items/0"
    assert views.hover_markdown(hit, outcome.labels) == "\n".join([
        "**evalschema** · suite `shop` · run `run1` · record `a`", "",
        "`/items/0`: 2 fields: 2 match", "", "aligned with gold element `/items/1`"])


def test_results_of_another_text_are_never_shown(shop: tuple[dict[str, Path], SuiteOutcome]
                                                 ) -> None:
    files, outcome = shop
    text = text_of(files["extracted"])
    edited = "\n" + text  # every record one line down
    assert views.hits([outcome], files["extracted"], edited, text.index("13.9") + 2,
                      RecordLocator()) == []


def test_the_gold_side_and_the_way_to_gold_and_the_rule(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = shop
    locator = RecordLocator()
    gold = text_of(files["gold"])
    [on_gold] = views.hits([outcome], files["gold"], gold, gold.index("12.5"), locator)
    assert (on_gold.side, on_gold.pointer) == ("gold", "/price")
    text = text_of(files["extracted"])
    [hit] = views.hits([outcome], files["extracted"], text, text.index("13.9"), locator)
    schema = locator.doc(outcome.schema_text or "")
    schema_text = text_of(files["schema"])
    assert views.definitions(hit, locator, lambda p: key_span(schema, p)) == [
        (files["gold"], (gold.index("12.5"), gold.index("12.5") + 4)),
        (files["schema"], (schema_text.index('"price"'), schema_text.index('"price"') + 7))]


def test_field_figures(shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    _, outcome = shop
    [run] = outcome.runs
    counts = run.result.per_field["price"].counts
    assert views.field_line(counts) == "P 0.67 · R 0.67 · F1 0.67 · ✓2 ≠1 ∅0 +0"
    assert [(o.suite.name, r.label) for o, r, _ in views.field_runs([outcome], "price")] == [
        ("shop", "run1")]
    assert views.field_runs([outcome], "nope") == []
    assert views.field_hover([outcome], "price") == "\n".join([
        "**`price`** in the last runs", "",
        "| run | P | R | F1 | ✓ | ≠ | ∅ | + |", "|---|---|---|---|---|---|---|---|",
        "| shop · run1 | 0.667 | 0.667 | 0.667 | 2 | 1 | 0 | 0 |", "",
        "✓ matched · ≠ wrong · ∅ missing · + invented"]), "with a legend of its symbols"
    assert views.field_hover([outcome], "nope") is None


def test_the_worst_example_is_the_lowest_scoring_wrong_result(
        shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    _, outcome = shop
    [run] = outcome.runs
    found = views.worst_example(outcome, run, "price")
    assert found is not None
    scored, result = found
    assert (result.record_id, result.gold, result.extracted, result.score) == (
        "a", 12.5, 13.9, 0.0)
    assert scored.extracted is not None and scored.extracted.text == EXTRACTED_LINES[0]
    assert views.worst_example(outcome, run, "id") is None  # all right
    assert views.worst_examples(outcome, run, "price", 0) == ([], 1), "none listed, one counted"


def test_summary_and_report(shop: tuple[dict[str, Path], SuiteOutcome]) -> None:
    _, outcome = shop
    summary = views.summary(outcome, lambda p: p.name)
    assert (summary["name"], summary["key"], summary["problems"]) == ("shop", "shop", 1)
    [run] = summary["runs"]
    assert (run["extracted"], run["label"], run["records"]) == (
        "shop.run1.extracted.jsonl", "run1", 3)
    assert run["f1"] == pytest.approx(61 / 72) and run["micro_f1"] == pytest.approx(16 / 19)
    report = views.report(outcome, lambda p: p.name)
    assert [p["code"] for p in report["problems"]] == ["unreadable-record"]
    rows = {r["field"]: r for r in report["runs"][0]["fields"]}
    assert rows["color"]["invented"] is True and rows["color"]["hallucinations"] == 1
    assert rows["price"] == {
        "field": "price", "precision": pytest.approx(2 / 3), "recall": pytest.approx(2 / 3),
        "f1": pytest.approx(2 / 3), "skipped": 0, "matches": 2, "mismatches": 1,
        "omissions": 0, "hallucinations": 0, "errors": 0, "invented": False}
    assert "result" not in report["runs"][0], "the view reads no results: none are sent"
    json.dumps(report, allow_nan=False)  # finite: every message is valid JSON


def test_undefined_field_figures_read_as_dashes_and_skipped() -> None:
    from evalschema.results import Counts

    skipped = Counts(skipped=3)
    assert views.field_line(skipped) == "P — · R — · F1 skipped · ✓0 ≠0 ∅0 +0"
    invented = Counts(hallucinations=2, weight_sum=2.0)
    assert views.field_line(invented) == "P 0.00 · R — · F1 0.00 · ✓0 ≠0 ∅0 +2"
