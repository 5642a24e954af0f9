"""Results in a REPL (``__repr__``) and a notebook (``_repr_html_``): report/notebook.py
through display.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from evalschema import Comparison, FieldAggregation, RunResult, compare_runs, display, evaluate
from evalschema.report import notebook
from evalschema.results import Counts

SCHEMA = {"type": "object", "properties": {
    "total": {"type": "number"}, "name<b>": {"type": "string"},
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}}}}}}
GOLD = [{"id": 7, "total": 10, "name<b>": "a", "items": [{"sku": "x"}]},
        {"id": 8, "total": 5, "name<b>": "b", "items": []}]
EXT = [{"id": 7, "total": 11, "items": [{"sku": "x"}]},
       {"id": 8, "total": 5, "name<b>": "b", "items": [{"sku": "y"}]}]
PERFECT = [{"id": 7, "total": 10, "name<b>": "a", "items": [{"sku": "x"}]},
           {"id": 8, "total": 5, "name<b>": "b", "items": []}]


@pytest.fixture(scope="module")
def run() -> RunResult:
    return evaluate(GOLD, EXT, SCHEMA, id_field="id")


def test_a_run_in_a_repl_is_a_few_lines_with_the_worst_fields(run: RunResult) -> None:
    # record 7: P 1/2, R 1/3, F1 0.4; record 8: P 2/3, R 1, F1 0.8; pooled 3/5 each
    assert repr(run) == (
        "RunResult: 2 records, 6 fields judged\n"
        "  F1 0.6000 (macro)  0.6000 (micro)  precision 0.5833  recall 0.6667\n"
        "  worst fields: total 0.500, items[].sku 0.667, name<b> 0.667")


def test_a_run_that_kept_no_records_says_so() -> None:
    streamed = evaluate(GOLD, EXT, SCHEMA, id_field="id", keep_records=False)
    assert repr(streamed).splitlines()[0] == (
        "RunResult: 2 records, 6 fields judged (per-record results not kept)")


def test_a_perfect_run_names_no_worst_field() -> None:
    perfect = evaluate(GOLD, PERFECT, SCHEMA, id_field="id")
    assert repr(perfect).splitlines()[2] == "  every field F1 1 or undefined (5 fields)"  # items: [] = []


def test_the_repl_lines_stay_few_and_short_on_a_run_of_many_long_fields() -> None:
    fields = {f"section_{i}.{'deeply_nested_' * 6}value_{i}": {"type": "string"}
              for i in range(300)}
    schema = {"type": "object", "properties": fields}
    gold = [{k: "a" for k in fields}]
    big = evaluate(gold, [{k: "b" for k in fields}], schema)
    lines = repr(big).splitlines()
    assert len(lines) == 3
    assert lines[2].endswith("(+297 more below 1)")
    assert max(len(line) for line in lines) < 160


def test_a_field_aggregation_shows_its_figures_and_counts(run: RunResult) -> None:
    assert repr(run.per_field["name<b>"]) == (
        "FieldAggregation name<b>: F1 0.6667  precision 1.0000  recall 0.5000  "
        "(1 match, 0 mismatch, 1 omission, 0 hallucination)")
    assert repr(run.per_field["id"]) == (
        "FieldAggregation id: F1 skipped  precision —  recall —  "
        "(0 match, 0 mismatch, 0 omission, 0 hallucination, 2 skipped)")


def test_a_comparison_in_a_repl(run: RunResult) -> None:
    perfect = evaluate(GOLD, PERFECT, SCHEMA, id_field="id")
    c = compare_runs([perfect, run], ["good", "worse"], resamples=200)
    lines = repr(c).splitlines()
    assert lines[0] == ("Comparison: good (baseline) vs worse; 2 records, paired bootstrap "
                        "95% intervals (* excludes zero)")
    assert re.fullmatch(r"  macro F1: 1\.0000 → 0\.6000   Δ -0\.4000 \[-0\.\d{4}, -0\.\d{4}\]"
                        r"( \*)?", lines[1]), lines[1]
    assert lines[2].startswith("  micro F1: 1.0000 → 0.6000   Δ -0.4000 [")
    assert lines[3].startswith("  F1 fell most: total -0.500 [")
    assert len(lines) == 4


def test_without_a_renderer_results_fall_back_to_one_line(run: RunResult,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(display, "_renderer", [])
    assert repr(run) == "<RunResult of 2 records>"
    assert repr(run.per_field["total"]) == "<FieldAggregation 'total'>"
    assert run._repr_html_() is None


class Tags(HTMLParser):
    """The tags, attributes and text (not the stylesheet) of an HTML fragment."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.last = ""
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self.last = tag

    def handle_data(self, data: str) -> None:
        if self.last != "style":
            self.text.append(data)


def fields_in_order(html: str) -> list[str | None]:
    return [attrs.get("data-s-field") for tag, attrs in Tags(html).tags
            if tag == "tr" and "data-s-field" in attrs]


def test_a_run_in_a_notebook_is_the_reports_summary_and_fields_worst_first(run: RunResult
                                                                          ) -> None:
    html = run._repr_html_()
    assert html is not None and html.startswith('<div class="evalschema-nb"><style>')
    parsed = Tags(html)
    cards = [t for t in parsed.text if t.strip()]
    assert cards[:4] == ["RunResult · 2 records", "F1 (macro)", "0.6000", "F1 (micro)"]
    # the report's field table, worst first: total 0.5, then the 0.667s by name, skipped last
    assert fields_in_order(html) == ["total", "items[].sku", "name<b>", "id"]
    assert "name&lt;b&gt;" in html and "name<b>" not in html  # escaped
    assert [tag for tag, _ in parsed.tags if tag in ("script", "link", "img", "iframe")] == []
    assert "http" not in html  # nothing loaded
    meters = [a["style"] for tag, a in parsed.tags if tag == "span" and a.get("style")
              and "background:hsl" in (a.get("style") or "")]
    assert meters[0].startswith("width:50.0%;")  # total's bar


def test_the_notebook_stylesheet_is_scoped_and_reads_on_light_and_dark_themes() -> None:
    css = notebook.CSS
    rules = [r.split("{")[0] for r in css.replace("\n", "").split("}") if r.strip()]
    assert all(all(s.strip().startswith(".evalschema-nb") for s in r.split(","))
               for r in rules), rules
    # no opaque page colour: text inherits the theme's, greys are translucent
    assert not re.search(r"#fff\b|#ffffff|:white\b|:black\b|#000\b", css, re.I)
    assert "color:inherit" in css and "rgba(127,127,127," in css


def test_the_notebook_lists_at_most_max_fields_and_counts_the_rest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notebook, "MAX_FIELDS", 2)
    run = evaluate(GOLD, EXT, SCHEMA, id_field="id")
    html = run._repr_html_() or ""
    assert fields_in_order(html) == ["total", "items[].sku"]
    assert "… and 2 more fields (run.per_field has them all)" in html


def test_a_field_and_a_comparison_in_a_notebook(run: RunResult) -> None:
    agg = FieldAggregation("a<script>", Counts(matches=1, mismatches=1, score_sum=1.0))
    html = agg._repr_html_() or ""
    assert fields_in_order(html) == ["a<script>"]  # attribute text, parsed back
    assert "<script" not in html
    perfect = evaluate(GOLD, PERFECT, SCHEMA, id_field="id")
    c = compare_runs([perfect, run], ["good", "<worse>"], resamples=200)
    html = c._repr_html_() or ""
    assert Tags(html).text[0] == "Comparison · good vs <worse>"
    assert "&lt;worse&gt;" in html and "<worse>" not in html
    # fields gold has, largest fall first: total (-0.5), items[].sku and name<b> (-1/3),
    # then the record id (skipped in both runs: undefined) and items (judged only in the
    # baseline: undefined)
    assert fields_in_order(html) == ["total", "items[].sku", "name<b>", "id", "items"]


@pytest.mark.parametrize("cls", [RunResult, FieldAggregation, Comparison])
def test_the_dataclasses_keep_their_own_repr(cls: type) -> None:
    assert cls.__repr__.__qualname__ == f"{cls.__name__}.__repr__"
    assert cls.__dataclass_params__.repr is False  # type: ignore[attr-defined]
