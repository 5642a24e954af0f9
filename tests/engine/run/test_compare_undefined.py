"""compare_runs with undefined figures: None values, None differences (never a made-up
1.0 minus something), and intervals over the resamples where a difference is defined."""

from __future__ import annotations

from evalschema import evaluate
from evalschema.run.compare import compare_runs

SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string", "x-eval-skip": True}, "a": {"type": "string"},
    "extra": {"type": "string"}}}
GOLD = [{"id": f"r{i}", "a": "x"} for i in range(8)]


def test_a_field_only_one_run_judges_has_an_undefined_difference() -> None:
    base = evaluate(GOLD, [dict(g) for g in GOLD], SCHEMA)
    other = [dict(g) for g in GOLD]
    other[0]["extra"] = "invented"  # only hallucinations: precision 0, recall undefined
    other[1]["a"] = "wrong"
    cmp = compare_runs([base, evaluate(GOLD, other, SCHEMA)], resamples=100)
    extra = cmp.field("extra")
    assert extra.precision.values == (None, 0.0)
    assert extra.recall.values == (None, None)
    assert extra.f1.values == (None, 0.0)
    for m in (extra.precision, extra.recall, extra.f1):
        [d] = m.differences
        assert (d.delta, d.low, d.high, d.significant) == (None, None, None, False)
    a = cmp.field("a").f1.differences[0]
    assert a.delta is not None and a.delta < 0 and a.low is not None and a.high is not None
    assert cmp.to_dict()["fields"][-1]["recall"]["values"] == [None, None]


def test_macro_means_leave_undefined_records_out_as_the_run_does() -> None:
    gold = [*GOLD, {"id": "empty"}]
    runs = [evaluate(gold, [dict(g) for g in gold], SCHEMA),
            evaluate(gold, [dict(g) for g in gold[:-1]] + [{"id": "empty", "a": "new"}], SCHEMA)]
    cmp = compare_runs(runs, resamples=100)
    assert cmp.overall["macro_f1"].values == (runs[0].mean_f1, runs[1].mean_f1)
    assert cmp.overall["macro_recall"].values == (runs[0].mean_recall, runs[1].mean_recall)
    assert runs[0].undefined.f1 == 1 and runs[1].undefined.f1 == 0
    assert runs[1].mean_f1 == 8 / 9  # the invented value: F1 0, counted


def test_compare_reports_show_undefined_figures_as_dashes() -> None:
    from evalschema.report.html_compare import compare_html
    from evalschema.report.markdown import compare_markdown

    gold = [{"id": "r1"}, {"id": "r2"}]  # only a skipped field: nothing is ever judged
    runs = [evaluate(gold, gold, SCHEMA), evaluate(gold, [{"id": "r1"}], SCHEMA)]
    cmp = compare_runs(runs, resamples=50)
    md = compare_markdown(cmp)
    assert "| macro F1 | — | — | — |" in md
    html = compare_html(cmp)
    assert "<tr><td>macro F1</td><td class=num>—</td><td class=num>—</td>" in html
    assert '<span class="ns">—</span>' in html
    assert "None" not in html and 'data-delta="nan"' not in html


def test_a_skipped_field_is_not_a_key_only_in_extracted_output() -> None:
    """Gold has ``id`` in every record, skipped: nothing judged, so no gold position is
    counted; it is a field with undefined figures, not a key the runs invented."""
    from evalschema.report.html_compare import compare_html
    from evalschema.report.markdown import compare_markdown

    other = [dict(g) for g in GOLD]
    other[0]["extra"] = "invented"
    cmp = compare_runs([evaluate(GOLD, [dict(g) for g in GOLD], SCHEMA),
                        evaluate(GOLD, other, SCHEMA)], resamples=50)
    assert [(f.field, f.only_extracted) for f in cmp.fields if f.field in ("id", "extra")] \
        == [("id", False), ("extra", True)]
    md = compare_markdown(cmp)
    keys_only = md[md.index("## Keys only in extracted output"):]
    assert "`extra`" in keys_only and "`id`" not in keys_only
    assert "| `id` | — | — | — |" in md
    html = compare_html(cmp)
    assert "<h2>Keys only in extracted output (1)</h2>" in html
