"""Results in a notebook and a REPL: ``RunResult``, ``FieldAggregation`` and
``Comparison`` render themselves with ``render`` (handed to ``display.use`` by
``evalschema/__init__``).

The HTML is a fragment of the HTML report's own pieces (``html.run_summary``,
``html.field_table``, ``html_compare.overall_table``/``compare_table``) under a
stylesheet scoped to ``.evalschema-nb``: no script, nothing loaded, text colour inherited
and greys translucent, so it reads on a light or a dark notebook theme. Every piece of
user data is escaped by those pieces (and ``e`` here).

The text is a few lines that fit a screen, whatever the size of the run: it reads the
aggregates only, never the records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalschema.display import Kind
from evalschema.report.figures import difference, f1_figure, figure, sort_key
from evalschema.report.html import extra_fields, field_table, run_notes, run_summary, split_fields
from evalschema.report.html_compare import compare_table, overall_table
from evalschema.report.html_page import e
from evalschema.report.layout import shorten
from evalschema.results import FieldAggregation, RunResult
from evalschema.run.compare import Comparison, FieldComparison
from evalschema.safetext import one_line

#: Fields in a notebook's table (worst first); the rest are counted.
MAX_FIELDS = 40
#: Fields a REPL line names (worst first).
WORST_FIELDS = 3
#: A field name in a REPL line, cut in the middle beyond this many cells.
NAME_CELLS = 32

#: The notebook stylesheet: scoped, inheriting the theme's text colour, translucent
#: greys; the status and F1 colours are mid-tones that read on white and on black.
CSS = """
.evalschema-nb{--line:rgba(127,127,127,.35);--soft:rgba(127,127,127,.14);--match:#2f9e44;
--mismatch:#f76707;--omission:#e03131;--hallucination:#7950f2;--error:#868e96;color:inherit;
font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;max-width:1000px}
.evalschema-nb .nb-title{font-weight:650;font-size:14px}
.evalschema-nb .muted,.evalschema-nb .ns,.evalschema-nb .ci{opacity:.75}
.evalschema-nb .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(108px,1fr));
gap:8px;margin:8px 0}
.evalschema-nb .card{border:1px solid var(--line);border-radius:8px;padding:4px 10px}
.evalschema-nb .card.main{background:var(--soft)}
.evalschema-nb .card .k{font-size:11px;opacity:.75;text-transform:uppercase;
letter-spacing:.05em}
.evalschema-nb .card .v{font-size:19px;font-weight:650;font-variant-numeric:tabular-nums}
.evalschema-nb .stack{display:flex;height:10px;border-radius:5px;overflow:hidden;
background:var(--soft);margin:6px 0}
.evalschema-nb .stack span{display:block;height:100%}
.evalschema-nb .legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px}
.evalschema-nb .legend i{display:inline-block;width:9px;height:9px;border-radius:2px;
margin-right:5px}
.evalschema-nb .s-match{background:var(--match)}
.evalschema-nb .s-mismatch{background:var(--mismatch)}
.evalschema-nb .s-omission{background:var(--omission)}
.evalschema-nb .s-hallucination{background:var(--hallucination)}
.evalschema-nb .s-error,.evalschema-nb .s-skipped{background:var(--error)}
.evalschema-nb table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:6px 0;
font-size:inherit}
.evalschema-nb table th,.evalschema-nb table td{padding:3px 8px;text-align:left;
border-bottom:1px solid var(--line);background:transparent;color:inherit}
.evalschema-nb table th{font-size:11px;text-transform:uppercase;letter-spacing:.04em;
opacity:.8}
.evalschema-nb table .num{text-align:right;white-space:nowrap}
.evalschema-nb code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;
background:transparent;color:inherit}
.evalschema-nb .barcell{display:flex;align-items:center;gap:8px;justify-content:flex-end}
.evalschema-nb .meter{width:80px;height:8px;border-radius:4px;background:var(--soft);
overflow:hidden;flex:none}
.evalschema-nb .meter span{display:block;height:100%;border-radius:4px}
.evalschema-nb .pos{color:var(--match);font-weight:600}
.evalschema-nb .neg,.evalschema-nb .low{color:var(--omission);font-weight:600}
.evalschema-nb .sig{font-size:11px;padding:0 5px;border:1px solid currentColor;
border-radius:4px;margin-left:4px}
.evalschema-nb .chip{display:inline-block;margin:0 6px 6px 0;padding:1px 7px;
border:1px solid var(--line);border-radius:6px}
"""


def _frame(title: str, body: str) -> str:
    return (f'<div class="evalschema-nb"><style>{CSS}</style>'
            f'<div class="nb-title">{e(title)}</div>{body}</div>')


def _more(shown: int, total: int, what: str) -> str:
    hidden = total - shown
    return f'<p class="muted">… and {hidden:,} more {what}</p>' if hidden > 0 else ""


def _worst_first(per_field: dict[str, FieldAggregation]) -> list[FieldAggregation]:
    return sorted(per_field.values(), key=lambda a: (sort_key(a.f1), a.field))


# -- HTML ---------------------------------------------------------------------------------


def run_html(run: RunResult) -> str:
    """The report's summary and per-field table (worst first, ``MAX_FIELDS`` of them)."""
    judged, extra = split_fields(run.per_field)
    rows = _worst_first(judged)[:MAX_FIELDS]
    body = [run_summary(run), f'<p class="muted">{e(" · ".join(run_notes(run)))}</p>']
    if rows:
        body.append(field_table({a.field: a for a in rows})
                    + _more(len(rows), len(judged), "fields (run.per_field has them all)"))
    if extra:
        body.append(extra_fields(extra))
    return _frame(f"RunResult · {run.total_records:,} records", "".join(body))


def field_html(agg: FieldAggregation) -> str:
    return _frame(f"FieldAggregation · {agg.field or '(record)'}",
                  field_table({agg.field: agg}))


def comparison_html(c: Comparison) -> str:
    """The overall figures with their differences, and the fields whose F1 fell most."""
    fields = _most_changed(c.fields)
    body = (f'<p class="muted">{c.records:,} records · differences against '
            f"{e(c.labels[0])} with paired bootstrap {c.confidence:.0%} intervals "
            f"({c.resamples:,} resamples, seed {c.seed})</p>" + overall_table(c))
    if fields:
        shown = fields[:MAX_FIELDS]
        body += compare_table(c, shown) + _more(len(shown), len(fields), "fields")
    return _frame("Comparison · " + " vs ".join(c.labels), body)


def _most_changed(fields: Sequence[FieldComparison]) -> list[FieldComparison]:
    """The fields gold has, the first run's largest F1 fall first (undefined last)."""
    return sorted((f for f in fields if not f.only_extracted),
                  key=lambda f: (sort_key(f.f1.differences[0].delta), f.field))


# -- text ---------------------------------------------------------------------------------


def _name(field: str) -> str:
    return shorten(one_line(field or "(record)"), NAME_CELLS)


def run_text(run: RunResult) -> str:
    lines = [f"RunResult: {run.total_records:,} records, {run.total_fields:,} fields judged"
             + ("" if run.kept_records else " (per-record results not kept)"),
             f"  F1 {figure(run.mean_f1, 4)} (macro)  {figure(run.micro_f1, 4)} (micro)  "
             f"precision {figure(run.mean_precision, 4)}  recall {figure(run.mean_recall, 4)}"]
    judged, _ = split_fields(run.per_field)
    wrong = [a for a in _worst_first(judged) if a.f1 is not None and a.f1 < 1.0]
    if wrong:
        shown = ", ".join(f"{_name(a.field)} {figure(a.f1)}" for a in wrong[:WORST_FIELDS])
        more = len(wrong) - WORST_FIELDS
        lines.append(f"  worst fields: {shown}" + (f" (+{more} more below 1)" if more > 0
                                                   else ""))
    elif judged:
        lines.append(f"  every field F1 1 or undefined ({len(judged)} fields)")
    return "\n".join(lines)


def field_text(agg: FieldAggregation) -> str:
    c = agg.counts
    counts = [f"{c.matches} match", f"{c.mismatches} mismatch", f"{c.omissions} omission",
              f"{c.hallucinations} hallucination"]
    counts += [f"{n} {what}" for n, what in ((c.skipped, "skipped"), (c.errors, "error"))
               if n]
    return (f"FieldAggregation {_name(agg.field)}: F1 {f1_figure(c, agg.f1, 4)}  "
            f"precision {figure(agg.precision, 4)}  recall {figure(agg.recall, 4)}  "
            f"({', '.join(counts)})")


def comparison_text(c: Comparison) -> str:
    names = [one_line(x) for x in c.labels]
    lines = [f"Comparison: {names[0]} (baseline) vs {', '.join(names[1:])}; {c.records:,} "
             f"records, paired bootstrap {c.confidence:.0%} intervals (* excludes zero)"]
    for key in ("macro_f1", "micro_f1"):
        m = c.overall[key]
        lines.append(f"  {m.metric}: " + " → ".join(figure(v, 4) for v in m.values)
                     + "   Δ " + ", ".join(difference(d).rstrip() for d in m.differences))
    fields = [f for f in _most_changed(c.fields)
              if f.f1.differences[0].delta is not None and f.f1.differences[0].delta < 0]
    if fields:
        lines.append("  F1 fell most: " + ", ".join(
            f"{_name(f.field)} {difference(f.f1.differences[0], 3).rstrip()}"
            for f in fields[:WORST_FIELDS]))
    return "\n".join(lines)


def render(kind: Kind, result: Any) -> str | None:
    """``result`` as ``kind`` (``display.Renderer``); None for a type it does not show."""
    html = kind == "html"
    if isinstance(result, RunResult):
        return run_html(result) if html else run_text(result)
    if isinstance(result, FieldAggregation):
        return field_html(result) if html else field_text(result)
    if isinstance(result, Comparison):
        return comparison_html(result) if html else comparison_text(result)
    return None
