"""The HTML report of ``compare``: the runs side by side, a chart of each field's F1
difference with its confidence interval, the per-field table, and the records that
flipped (on the page of ``html_page``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evalschema.report.calibration import comparison_html
from evalschema.report.html_page import bar, config_html, e, meta, num, page, short, th
from evalschema.results import show_value
from evalschema.run.compare import Comparison, Difference, FieldComparison
from evalschema.run.suspects import SuspectGold

#: Records listed under "records that flipped".
MAX_FLIPS = 100
#: Values listed under "suspect gold".
MAX_SUSPECTS = 200


def _diff_class(d: Difference) -> str:
    if not d.significant or d.delta is None:
        return "ns"
    return "pos" if d.delta > 0 else "neg"


def _diff_text(d: Difference) -> str:
    if d.delta is None or d.low is None or d.high is None:
        return f'<span class="ns">{num(d.delta)}</span>'  # undefined on one side
    cls = _diff_class(d)
    badge = "" if cls == "ns" else f'<span class="sig {cls}">{"better" if cls == "pos" else "worse"}</span>'
    return (f'<span class="{cls}">{d.delta:+.3f}</span> <span class="ci">'
            f"[{d.low:+.3f}, {d.high:+.3f}]</span>{badge}")


def _nice(x: float) -> float:
    steps = (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0)
    return next((s for s in steps if s >= x), 1.0)


def diff_chart(c: Comparison) -> str:
    """Each field's F1 difference (and the overall F1s') against the baseline, with
    its confidence interval: one ``g.diff`` per field and compared run."""
    rows: list[tuple[str, int, float, float, float]] = []  # undefined differences left out
    for key in ("macro_f1", "micro_f1"):
        m = c.overall[key]
        rows.extend((f"overall {m.metric}", k, d.delta, d.low, d.high)
                    for k, d in enumerate(m.differences)
                    if d.delta is not None and d.low is not None and d.high is not None)
    for f in c.fields:
        if not f.only_extracted:
            rows.extend((f.field, k, d.delta, d.low, d.high) for k, d in enumerate(f.f1.differences)
                        if d.delta is not None and d.low is not None and d.high is not None)
    span = max([0.01, *(max(abs(lo), abs(hi), abs(dv)) for _, _, dv, lo, hi in rows)])
    half = _nice(span)
    label_w, plot_w, val_w, row_h, top = 270, 600, 170, 20, 26
    width = label_w + plot_w + val_w
    height = top + row_h * len(rows) + 8

    def x(v: float) -> float:
        return label_w + (v + half) / (2 * half) * plot_w

    out = [f'<svg class="chart diff-chart" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="F1 differences with confidence intervals" '
           f'xmlns="http://www.w3.org/2000/svg"><g class="axis">']
    for t in (-1.0, -0.5, 0.0, 0.5, 1.0):
        v = t * half
        out.append(f'<line class="{"zero" if t == 0 else "grid"}" x1="{x(v):.1f}" y1="{top - 6}" '
                   f'x2="{x(v):.1f}" y2="{height - 4}"/><text x="{x(v):.1f}" y="{top - 10}" '
                   f'text-anchor="middle">{v:+.2f}</text>')
    out.append("</g>")
    for i, (name, k, delta, low, high) in enumerate(rows):
        y = top + i * row_h + 10
        cls = _diff_class(Difference(delta, low, high))
        color = {"pos": "var(--good)", "neg": "var(--bad)"}.get(cls, "#868e96")
        label = name if len(c.labels) == 2 else f"{name} · {c.labels[k + 1]}"
        text = short(name) if len(c.labels) == 2 else \
            f"{short(name, 26)} · {short(c.labels[k + 1], 11)}"
        out.append(f'<g class="diff {cls}" data-field="{e(name)}" data-run="{k + 1}" '
                   f'data-delta="{delta:.6f}"><title>{e(label)}: {delta:+.4f} '
                   f"[{low:+.4f}, {high:+.4f}]</title>"
                   f'<text x="{label_w - 10}" y="{y + 4}" text-anchor="end">{e(text)}'
                   f'</text><line class="ci" x1="{x(low):.1f}" y1="{y}" x2="{x(high):.1f}" '
                   f'y2="{y}" stroke="{color}"/><line x1="{x(low):.1f}" y1="{y - 4}" '
                   f'x2="{x(low):.1f}" y2="{y + 4}" stroke="{color}"/><line '
                   f'x1="{x(high):.1f}" y1="{y - 4}" x2="{x(high):.1f}" y2="{y + 4}" '
                   f'stroke="{color}"/><circle cx="{x(delta):.1f}" cy="{y}" r="4.5" '
                   f'fill="{color}"/><text x="{label_w + plot_w + 10}" y="{y + 4}">'
                   f"{delta:+.3f} [{low:+.3f}, {high:+.3f}]</text></g>")
        if i == 1 and rows[2:]:
            out.append(f'<line class="grid" x1="0" y1="{y + row_h / 2:.1f}" x2="{width}" '
                       f'y2="{y + row_h / 2:.1f}"/>')
    out.append("</svg>")
    return "".join(out)


def overall_table(c: Comparison) -> str:
    """Micro and macro precision, recall and F1 of each run, and each difference with its
    interval."""
    head = "<tr><th>metric</th>" + "".join(f"<th class=num>{e(lab)}</th>" for lab in c.labels) \
        + "".join(f"<th class=num>Δ {e(lab)} [CI]</th>" for lab in c.labels[1:]) + "</tr>"
    rows = "".join(
        f"<tr><td>{e(m.metric)}</td>" + "".join(f"<td class=num>{num(v, 4)}</td>" for v in m.values)
        + "".join(f"<td class=num>{_diff_text(d)}</td>" for d in m.differences) + "</tr>"
        for m in c.overall.values())
    return f'<table class="overall"><thead>{head}</thead><tbody>{rows}</tbody></table>'


def compare_table(c: Comparison, fields: Sequence[FieldComparison] | None = None) -> str:
    """The per-field table of F1s and differences (``fields``: which, default all)."""
    head = "<thead><tr>" + th("field", "field", text=True)
    for i, lab in enumerate(c.labels):
        head += th(f"F1 {lab}", f"f1_{i}")
    for k, lab in enumerate(c.labels[1:], start=1):
        head += th(f"Δ {lab} [CI]", f"d_{k}") + th(f"match→wrong {lab}", f"reg_{k}") \
            + th(f"wrong→match {lab}", f"fix_{k}")
    head += "</tr></thead>"
    body = [_compare_row(n, f) for n, f in enumerate(c.fields if fields is None else fields)
            if not f.only_extracted]
    return (f'<div class="scroll"><table class="fields compare sortable" '
            f'data-default-sort="d_1:asc">{head}<tbody>' + "".join(body) + "</tbody></table></div>")


def _compare_row(n: int, f: FieldComparison) -> str:
    attrs = [f'data-order="{n}"', f'data-s-field="{e(f.field)}"']
    cells = [f"<td class=name><code>{e(f.field or '(record)')}</code></td>"]
    for i, v in enumerate(f.f1.values):
        attrs.append(f'data-s-f1_{i}="{"" if v is None else f"{v:.6f}"}"')
        cells.append(f"<td class=num>{bar(v)}</td>")
    for k, d in enumerate(f.f1.differences, start=1):
        delta = "" if d.delta is None else f"{d.delta:.6f}"
        attrs += [f'data-s-d_{k}="{delta}"', f'data-s-reg_{k}="{f.regressed[k - 1]}"',
                  f'data-s-fix_{k}="{f.fixed[k - 1]}"']
        cells += [f"<td class=num>{_diff_text(d)}</td>",
                  f"<td class=num>{f.regressed[k - 1]:,}</td>",
                  f"<td class=num>{f.fixed[k - 1]:,}</td>"]
    return f"<tr {' '.join(attrs)}>{''.join(cells)}</tr>"


def suspects_html(suspects: Sequence[SuspectGold]) -> str:
    """The "Suspect gold" section: gold values two or more runs agree against (values
    as JSON text, escaped: they come from the files)."""
    if not suspects:
        return ("<h2>Suspect gold (0)</h2><p class=\"muted\">No two runs agree on a value "
                "gold does not have.</p>")
    rows = []
    for s in suspects[:MAX_SUSPECTS]:
        gold = f"<code>{e(show_value(s.gold))}</code>" if s.kind == "mismatch" else \
            '<span class="none">no value</span>'
        rows.append(f'<tr class="suspect {s.kind}"><td class="rid"><code>{e(s.label)}</code>'
                    f"</td><td><code>{e(s.path)}</code></td><td>{gold}</td>"
                    f"<td><code>{e(show_value(s.agreed))}</code></td>"
                    f"<td class=num>{s.agreeing} of {s.scored}</td>"
                    f"<td>{e(', '.join(s.runs))}</td></tr>")
    more = len(suspects) - MAX_SUSPECTS
    return (f"<h2>Suspect gold ({len(suspects):,})</h2>"
            '<p class="muted">Gold values that two or more runs agree against: they agree '
            "with each other (after the field's transforms, with its comparator) on another "
            "value, or on one where gold has none. Worth a look before they count against "
            "every run.</p>"
            '<div class="scroll"><table class="suspects"><thead><tr><th>record</th>'
            "<th>field</th><th>gold</th><th>runs say</th><th class=num>agree</th>"
            f"<th>runs</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
            + (f'<p class="muted">… and {more:,} more (<code>evalschema gold-audit</code> lists '
               "all).</p>" if more > 0 else ""))


def compare_html(c: Comparison, *, settings: Mapping[str, Any] | None = None,
                 schema: Any = None, title: str = "evalschema comparison",
                 command: str | None = None,
                 suspects: Sequence[SuspectGold] | None = None) -> str:
    """The page; ``suspects`` (``run.suspects.find_suspects``) adds the "Suspect gold"
    section."""
    base = c.labels[0]
    body = [f'<p class="meta">{c.records:,} records · baseline <b>{e(base)}</b> · differences '
            f"against the baseline with paired bootstrap {c.confidence:.0%} intervals "
            f"({c.resamples:,} resamples, seed {c.seed}); "
            '<span class="pos">green</span>/<span class="neg">red</span> intervals exclude '
            "zero.</p>"]
    body.append("<h2>Overall</h2>" + overall_table(c))
    body.append("<h2>F1 difference per field</h2><figure>" + diff_chart(c) + "</figure>")
    body.append("<h2>Fields</h2>" + compare_table(c))
    extra = [f for f in c.fields if f.only_extracted]
    if extra:
        head = "".join(f"<th class=num>{e(lab)}</th>" for lab in c.labels)
        rows = "".join(f"<tr><td><code>{e(f.field)}</code></td>" + "".join(
            f"<td class=num>{h:,}</td>" for h in f.hallucinations) + "</tr>" for f in extra)
        body.append(f"<h2>Keys only in extracted output ({len(extra)})</h2>"
                    '<p class="muted">Fields gold never has, with how often each run '
                    "hallucinated them (they lower precision).</p>"
                    f'<table class="extra"><thead><tr><th>field</th>{head}</tr></thead>'
                    f"<tbody>{rows}</tbody></table>")
    if c.flips:
        many = len(c.labels) > 2
        items = []
        for fl in c.flips[:MAX_FLIPS]:
            reg = ", ".join(f"<code>{e(p)}</code>" for p in fl.regressed)
            fix = ", ".join(f"<code>{e(p)}</code>" for p in fl.fixed)
            who = f"<td>{e(c.labels[fl.run])}</td>" if many else ""
            items.append(f'<tr>{who}<td class="rid"><code>{e(fl.label)}</code></td>'
                         f'<td class="flip-neg">{reg}</td><td class="flip-pos">{fix}</td></tr>')
        more = len(c.flips) - MAX_FLIPS
        body.append(f"<h2>Records that flipped ({len(c.flips):,})</h2>"
                    '<p class="muted">Judged fields that were a match in '
                    f"<b>{e(c.labels[0])}</b> and are wrong in the other run, and the reverse."
                    '</p><table class="flips"><thead><tr>' + ("<th>run</th>" if many else "")
                    + "<th>record</th><th>match → mismatch/omission</th>"
                    "<th>mismatch/omission → match</th></tr>"
                    f"</thead><tbody>{''.join(items)}</tbody></table>"
                    + (f'<p class="muted">… and {more:,} more records (the JSON output lists '
                       "all).</p>" if more > 0 else ""))
    if c.calibration:
        body.append(comparison_html(c.calibration, c.labels))
    if suspects is not None:
        body.append(suspects_html(suspects))
    body.append("<h2>Configuration</h2>" + config_html(settings or {}, schema))
    return page(title, "\n".join(body), meta(command))
