"""The calibration section of the reports (only when some field has confidences): one row
of figures per field (text, markdown and HTML share it) and the HTML reliability diagram.

Undefined figures show as "—" (``figures.figure``); the figures themselves are made in
``evalschema.calibration`` (docs/metrics.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from evalschema.calibration import ALL_FIELDS, Calibration, CalibrationRow, FieldCalibration
from evalschema.report.figures import figure
from evalschema.report.html_page import e, num
from evalschema.safetext import one_line

#: What the section says the figures are, once, above the table.
LEGEND = ("confidence against correctness (a match is correct; a mismatch or hallucination "
          "wrong): ECE over 10 equal-width bins, Brier score, AUROC (undefined with one "
          "class), and the share of all wrong values caught among the k% least confident")


def headings(cal: Calibration) -> list[str]:
    """The columns after the field's name."""
    return ["values", "ECE", "Brier", "AUROC",
            *(f"caught@{k:g}%" for k in cal.budgets), "missing", "invalid"]


def cells(f: FieldCalibration) -> list[str]:
    """One field's figures, as ``headings`` names them."""
    return [f"{f.values:,}", figure(f.ece), figure(f.brier), figure(f.auroc),
            *(figure(r.caught) for r in f.review), f"{f.missing:,}", f"{f.invalid:,}"]


def calibration_rows(cal: Calibration) -> list[tuple[str, list[str]]]:
    """(name, cells): every field pooled first (``ALL_FIELDS``), then each field."""
    return [(ALL_FIELDS, cells(cal.overall)),
            *((k, cells(f)) for k, f in cal.per_field.items())]


def problem_notes(cal: Calibration) -> list[str]:
    """Per field with missing or invalid confidences, how many and the first one, located:
    "total: 1 invalid; e.g. record b at /total_confidence: a confidence must be …"."""
    out = []
    for k, f in cal.per_field.items():
        if not f.missing and not f.invalid:
            continue
        counts = ", ".join(f"{n:,} {what}" for n, what in ((f.missing, "missing"),
                                                            (f.invalid, "invalid")) if n)
        first = f.problems[0] if f.problems else None
        example = "" if first is None else \
            f"; e.g. record {first.record} at {first.pointer}: {first.reason}"
        out.append(f"{k}: {counts}{example}")
    return out


def text_lines(cal: Calibration) -> list[str]:
    """The plain-text section: a heading, a table, the confidence problems."""
    table = [("field", headings(cal)),
             *((one_line(name), values) for name, values in calibration_rows(cal))]
    name_w = max(len(name) for name, _ in table)
    widths = [max(len(r[1][i]) for r in table) for i in range(len(table[0][1]))]
    lines = ["", "calibration: " + LEGEND]
    lines += ["  " + name.ljust(name_w) + "".join(f"  {c:>{w}}" for c, w in
                                                    zip(values, widths, strict=True))
              for name, values in table]
    lines += [f"  {one_line(note)}" for note in problem_notes(cal)]
    return lines


# -- HTML ----------------------------------------------------------------------------------


def reliability_svg(name: str, f: FieldCalibration, size: int = 220) -> str:
    """A reliability diagram: per bin, a bar up to its accuracy at its place on the
    confidence axis, a dot at (mean confidence, accuracy), the diagonal of perfect
    calibration, and the bin's share of values as a strip below. Empty bins draw
    nothing."""
    pad, strip = 30, 18
    plot = size - pad - 8
    height = pad + plot + strip + 22
    x0, y0 = pad, 8

    def x(v: float) -> float:
        return x0 + v * plot

    def y(v: float) -> float:
        return y0 + (1 - v) * plot

    out = [f'<svg class="chart reliability" viewBox="0 0 {size} {height}" role="img" '
           f'aria-label="reliability diagram of {e(name)}" '
           'xmlns="http://www.w3.org/2000/svg">',
           f"<title>{e(name)}: ECE {num(f.ece)}, Brier {num(f.brier)}, AUROC {num(f.auroc)}, "
           f"{f.values:,} values</title>", '<g class="axis">']
    for t in (0.0, 0.5, 1.0):
        out.append(f'<line class="grid" x1="{x0}" y1="{y(t):.1f}" x2="{x(1):.1f}" '
                   f'y2="{y(t):.1f}"/><text x="{x0 - 4}" y="{y(t) + 4:.1f}" '
                   f'text-anchor="end">{t:g}</text>'
                   f'<text x="{x(t):.1f}" y="{y0 + plot + strip + 16}" '
                   f'text-anchor="middle">{t:g}</text>')
    out.append(f'<line class="diagonal" x1="{x(0):.1f}" y1="{y(0):.1f}" x2="{x(1):.1f}" '
               f'y2="{y(1):.1f}"/></g>')
    most = max((b.count for b in f.bins), default=0) or 1
    for b in f.bins:
        if not b.count or b.accuracy is None or b.mean_confidence is None:
            continue
        left, width = x(b.low) + 1, (b.high - b.low) * plot - 2
        out.append(f'<g class="bin" data-low="{b.low:g}" data-count="{b.count}" '
                   f'data-accuracy="{b.accuracy:.6f}" data-confidence="{b.mean_confidence:.6f}">'
                   f"<title>confidence {b.low:g}–{b.high:g}: {b.count:,} values, "
                   f"accuracy {b.accuracy:.3f}, mean confidence {b.mean_confidence:.3f}</title>"
                   f'<rect class="acc" x="{left:.1f}" y="{y(b.accuracy):.1f}" '
                   f'width="{width:.1f}" height="{b.accuracy * plot:.1f}"/>'
                   f'<circle cx="{x(b.mean_confidence):.1f}" cy="{y(b.accuracy):.1f}" r="3"/>'
                   f'<rect class="share" x="{left:.1f}" y="{y0 + plot + 4}" '
                   f'width="{width:.1f}" height="{(strip - 6) * b.count / most:.1f}"/></g>')
    out.append("</svg>")
    return "".join(out)


def html_section(cal: Calibration) -> str:
    """The HTML section: the table of figures, then a reliability diagram per field."""
    head = "".join(f"<th class=num>{e(h)}</th>" for h in headings(cal))
    body = "".join(f"<tr><td><code>{e(name)}</code></td>"
                   + "".join(f"<td class=num>{e(c)}</td>" for c in values) + "</tr>"
                   for name, values in calibration_rows(cal))
    notes = problem_notes(cal)
    charts = "".join(f'<figure class="reliability"><figcaption><code>{e(k)}</code> '
                     f"ECE {e(num(f.ece))}</figcaption>{reliability_svg(k, f)}</figure>"
                     for k, f in cal.per_field.items() if f.values)
    return ("<h3>Calibration</h3>"
            f'<p class="muted">{e(LEGEND)}. Reliability: bars are each bin\'s accuracy, '
            "dots its mean confidence, the diagonal perfect calibration, the strip below "
            "how many values fall in the bin.</p>"
            f'<table class="calibration"><thead><tr><th>field</th>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>"
            + ("<ul>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>" if notes else "")
            + f'<div class="reliability-grid">{charts}</div>')



# -- compare -------------------------------------------------------------------------------

#: What the comparison's calibration table holds.
COMPARE_LEGEND = ("per run (confidence against correctness; lower ECE and Brier "
                  "are better, higher AUROC and caught@k% are better; missing counts missing "
                  "and invalid confidences); Δ is against the first run, without intervals")


def delta(value: float | None, metric: str) -> str:
    """A difference as the comparison shows it: "+0.012", counts as "+3", "—" undefined."""
    if value is None:
        return figure(None)
    return f"{value:+.0f}" if metric == "missing" else f"{value:+.3f}"


def value(v: float | None, metric: str) -> str:
    return f"{v:,.0f}" if metric == "missing" and v is not None else figure(v)


def comparison_table(rows: Sequence[CalibrationRow]) -> list[tuple[str, str, list[str]]]:
    """(field, metric, cells: each run's value then each later run's Δ) per row."""
    return [(r.field, r.metric, [*(value(v, r.metric) for v in r.values),
                                 *(delta(d, r.metric) for d in r.deltas)]) for r in rows]


def comparison_text(rows: Sequence[CalibrationRow], labels: Sequence[str]) -> list[str]:
    """The comparison's calibration table as text lines (empty without confidences)."""
    if not rows:
        return []
    table = comparison_table(rows)
    heads = [*(one_line(x) for x in labels), *(f"Δ {one_line(x)}" for x in labels[1:])]
    fw = max(len(one_line(f)) for f, _, _ in table)
    names = [f"{one_line(f):<{fw}}  {m}" for f, m, _ in table]
    w = max(len(n) for n in names)
    widths = [max(len(h), *(len(cs[i]) for _, _, cs in table)) for i, h in enumerate(heads)]
    out = ["", "calibration: " + COMPARE_LEGEND,
           " " * w + "".join(f"  {h:>{n}}" for h, n in zip(heads, widths, strict=True))]
    out += [name.ljust(w) + "".join(f"  {c:>{n}}" for c, n in zip(cs, widths, strict=True))
            for name, (_, _, cs) in zip(names, table, strict=True)]
    return out


def comparison_html(rows: Sequence[CalibrationRow], labels: Sequence[str]) -> str:
    """The comparison's calibration section ("" without confidences)."""
    if not rows:
        return ""
    head = ("<tr><th>field</th><th>figure</th>"
            + "".join(f"<th class=num>{e(x)}</th>" for x in labels)
            + "".join(f"<th class=num>Δ {e(x)}</th>" for x in labels[1:]) + "</tr>")
    body = "".join(f"<tr><td><code>{e(f)}</code></td><td>{e(m)}</td>"
                   + "".join(f"<td class=num>{e(c)}</td>" for c in cs) + "</tr>"
                   for f, m, cs in comparison_table(rows))
    return (f'<h2>Calibration</h2><p class="muted">{e(COMPARE_LEGEND)}.</p>'
            f'<table class="calibration"><thead>{head}</thead><tbody>{body}</tbody></table>')
