"""The HTML report of ``eval``: the run summary, a chart of per-field F1, the per-field
table (bars, sortable by any column, worst first), the worst records with gold and
extracted side by side and the differing fields highlighted, and the configuration that
produced it. The page itself and the pieces shared with ``compare``'s report
(``html_compare``) are in ``html_page``.

Every piece of user data (field names, values, ids, file names, reasons) is escaped;
none is placed inside a script. The report holds only the N worst records, so its size
does not grow with the run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from evalschema.report.calibration import html_section
from evalschema.report.figures import f1_figure, sort_key, undefined_note
from evalschema.report.html_page import (
    bar,
    config_html,
    e,
    f1_color,
    json_html,
    meta,
    num,
    page,
    short,
    th,
)
from evalschema.report.model import RunReport
from evalschema.results import FINDINGS, FieldAggregation, FieldResult, RunResult, Status
from evalschema.run.parallel import PROBLEMS

#: Differing fields listed in a worst record's table (all are highlighted in its JSON).
MAX_DIFF_ROWS = 25


# -- pieces ------------------------------------------------------------------------------


def _cards(items: Sequence[tuple[str, str, bool]]) -> str:
    return '<div class="cards">' + "".join(
        f'<div class="card{" main" if main else ""}"><div class="k">{e(k)}</div>'
        f'<div class="v">{e(v)}</div></div>' for k, v, main in items) + "</div>"


def _status_stack(counts: Mapping[str, int]) -> str:
    total = sum(counts.values()) or 1
    spans = "".join(f'<span class="s-{e(k)}" style="width:{100 * v / total:.3f}%" '
                    f'title="{e(k)}: {v}"></span>' for k, v in counts.items() if v)
    legend = "".join(f'<span><i class="s-{e(k)}"></i>{e(k)} {v:,}</span>'
                     for k, v in counts.items())
    return f'<div class="stack">{spans}</div><div class="legend">{legend}</div>'




def split_fields(per_field: Mapping[str, FieldAggregation]
                 ) -> tuple[dict[str, FieldAggregation], dict[str, FieldAggregation]]:
    """(the schema's fields, the fields the model invented: ``FieldAggregation.invented``)."""
    judged = {k: a for k, a in per_field.items() if not a.invented}
    extra = {k: a for k, a in per_field.items() if a.invented}
    return judged, extra


def f1_chart(per_field: Mapping[str, FieldAggregation],
             thresholds: Mapping[str, float] | None = None) -> str:
    """Horizontal bars of per-field F1, worst first; one ``rect.bar`` per field."""
    thresholds = thresholds or {}
    rows = sorted(per_field.values(), key=lambda a: (sort_key(a.f1), a.field))
    label_w, bar_w, val_w, row_h, top = 270, 700, 70, 22, 26
    width = label_w + bar_w + val_w
    height = top + row_h * len(rows) + 8
    out = [f'<svg class="chart f1-chart" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="F1 per field" xmlns="http://www.w3.org/2000/svg">']
    out.append('<g class="axis">')
    for t in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = label_w + t * bar_w
        out.append(f'<line class="grid" x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" '
                   f'y2="{height - 4}"/><text x="{x:.1f}" y="{top - 10}" '
                   f'text-anchor="middle">{t:g}</text>')
    out.append("</g>")
    for i, agg in enumerate(rows):
        y = top + i * row_h
        name = agg.field or "(record)"
        f1 = agg.f1
        w = 0.0 if f1 is None else max(0.0, min(1.0, f1)) * bar_w
        shown = f1_figure(agg.counts, f1)  # "—" or "skipped" when undefined, no bar
        out.append(f'<g class="row" data-field="{e(name)}" '
                   f'data-f1="{"" if f1 is None else f"{f1:.6f}"}">'
                   f"<title>{e(name)}: F1 {f1_figure(agg.counts, f1, 4)} (precision "
                   f"{num(agg.precision, 4)}, recall {num(agg.recall, 4)})</title>"
                   f'<text x="{label_w - 10}" y="{y + 15}" text-anchor="end">'
                   f"{e(short(name))}</text>"
                   f'<rect class="track" x="{label_w}" y="{y + 4}" width="{bar_w}" '
                   f'height="14" rx="3"/>'
                   f'<rect class="bar" x="{label_w}" y="{y + 4}" width="{w:.2f}" height="14" '
                   f'rx="3" fill="{f1_color(f1)}"/>')
        limit = thresholds.get(agg.field)
        if limit is not None:
            tx = label_w + limit * bar_w
            out.append(f'<line class="tick" x1="{tx:.1f}" y1="{y + 1}" x2="{tx:.1f}" '
                       f'y2="{y + 21}"><title>threshold {limit:g}</title></line>')
        out.append(f'<text x="{label_w + bar_w + 8}" y="{y + 15}">{e(shown)}</text></g>')
    out.append("</svg>")
    return "".join(out)


def _data(value: float | None) -> str:
    """A sort key attribute: empty for an undefined figure."""
    return "" if value is None else f"{value:.6f}"


def field_table(per_field: Mapping[str, FieldAggregation],
                thresholds: Mapping[str, float] | None = None) -> str:
    """The per-field table: sortable by every column, by F1 (worst first) on load.
    Skipped and error columns appear only when some field has them."""
    thresholds = thresholds or {}
    aggs = list(per_field.values())
    skipped = any(a.counts.skipped for a in aggs)
    errors = any(a.counts.errors for a in aggs)
    head = ("<thead><tr>" + th("field", "field", text=True) + th("F1", "f1")
            + th("precision", "precision") + th("recall", "recall") + th("match", "match")
            + th("mismatch", "mismatch") + th("omission", "omission")
            + th("halluc.", "hallucination") + (th("skipped", "skipped") if skipped else "")
            + (th("error", "error") if errors else "")
            + (th("threshold", "threshold") if thresholds else "") + "</tr></thead>")
    body = []
    for i, a in enumerate(aggs):
        c = a.counts
        limit = thresholds.get(a.field)
        below = limit is not None and (a.f1 is None or a.f1 + 1e-9 < limit)
        name = a.field or "(record)"
        attrs = (f'data-order="{i}" data-s-field="{e(name)}" data-s-f1="{_data(a.f1)}" '
                 f'data-s-precision="{_data(a.precision)}" data-s-recall="{_data(a.recall)}" '
                 f'data-s-match="{c.matches}" data-s-mismatch="{c.mismatches}" '
                 f'data-s-omission="{c.omissions}" data-s-hallucination="{c.hallucinations}" '
                 f'data-s-skipped="{c.skipped}" data-s-error="{c.errors}" '
                 f'data-s-threshold="{"" if limit is None else limit}"')
        th_cell = "" if limit is None else (f'<span class="{"low" if below else "pos"}">'
                                         f'{limit:g} {"✗" if below else "✓"}</span>')
        body.append(f"<tr {attrs}><td class=name><code>{e(name)}</code></td>"
                    f"<td class=num>{bar(a.f1, f1_figure(c, None))}</td>"
                    f"<td class=num>{num(a.precision)}</td><td class=num>{num(a.recall)}</td>"
                    f"<td class=num>{c.matches:,}</td><td class=num>{c.mismatches:,}</td>"
                    f"<td class=num>{c.omissions:,}</td><td class=num>{c.hallucinations:,}</td>"
                    + (f"<td class=num>{c.skipped:,}</td>" if skipped else "")
                    + (f"<td class=num>{c.errors:,}</td>" if errors else "")
                    + (f"<td class=num>{th_cell}</td>" if thresholds else "") + "</tr>")
    return (f'<div class="scroll"><table class="fields sortable" data-default-sort="f1:asc">'
            f'{head}<tbody>' + "".join(body) + "</tbody></table></div>")


def extra_fields(extra: Mapping[str, FieldAggregation]) -> str:
    """Fields only the extractor produced, most frequent first."""
    items = sorted(extra.values(), key=lambda a: (-a.counts.hallucinations, a.field))
    return ('<p class="muted">Keys the extractor produced that gold never has (each one a '
            "hallucination; they lower precision):</p><p>" + " ".join(
                f'<span class="chip"><code>{e(a.field)}</code> {a.counts.hallucinations:,}'
                "</span>" for a in items) + "</p>")


# -- records -----------------------------------------------------------------------------


def _compact(value: Any, limit: int = 160) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _marks(results: Sequence[FieldResult]) -> tuple[dict[str, tuple[str, str]],
                                                     dict[str, tuple[str, str]]]:
    gold: dict[str, tuple[str, str]] = {}
    ext: dict[str, tuple[str, str]] = {}
    for r in results:
        if r.status not in FINDINGS:
            continue
        why = r.explanation
        tip = f"{r.path}: {r.status}" + (f" ({why})" if why else "")
        if r.gold_pointer is not None and r.status is not Status.HALLUCINATION:
            gold.setdefault(r.gold_pointer, (str(r.status), tip))
        if r.extracted_pointer is not None and r.status is not Status.OMISSION:
            ext.setdefault(r.extracted_pointer, (str(r.status), tip))
    return gold, ext


def _record(rank: int, w: Any, open_: bool) -> str:
    rec = w.record
    c = rec.counts
    rid = rec.label
    wrong = [r for r in rec.field_results if r.status in FINDINGS]
    hidden = max(0, len(wrong) - MAX_DIFF_ROWS)
    wrong = wrong[:MAX_DIFF_ROWS]
    rows = "".join(
        f'<tr><td><code>{e(r.path)}</code></td><td><span class="pill s-{e(r.status)}">'
        f"{e(r.status)}</span></td><td class=val>"
        + (e(_compact(r.gold)) if r.status is not Status.HALLUCINATION else
           '<span class="none">—</span>')
        + "</td><td class=val>"
        + (e(_compact(r.extracted)) if r.status is not Status.OMISSION else
           '<span class="none">—</span>')
        + f"</td><td class=num>{r.score:.2f}</td><td>{e(r.explanation or '')}</td></tr>"
        for r in wrong)
    if hidden:
        rows += (f'<tr><td colspan="6" class="muted">… and {hidden} more (highlighted '
                 "below)</td></tr>")
    gmarks, emarks = _marks(rec.field_results)
    gold = json_html(w.gold, gmarks) if w.gold is not None else \
        '<span class="none">no gold record</span>'
    ext = json_html(w.extracted, emarks) if w.extracted is not None else \
        '<span class="none">no extracted record</span>'
    note = f' <span class="muted">{e(rec.problem)}</span>' if rec.problem else ""
    repaired = (f' <span class="muted">(repaired: {e(rec.repaired)})</span>'
                if type(rec.repaired) is str else
                ' <span class="muted">(repaired)</span>' if rec.repaired else "")
    return (f'<details class="record"{" open" if open_ else ""} data-record="{e(rid)}">'
            f'<summary><span class="muted">#{rank}</span><span class="rid">{e(rid)}</span>'
            f"<span>F1 <b>{num(rec.f1)}</b></span>"
            f'<span class="muted">{c.mismatches} mismatch · {c.omissions} omission · '
            f"{c.hallucinations} hallucination · {c.matches} match</span>{repaired}{note}"
            f'</summary><div class="recbody"><table class="diffs"><thead><tr><th>path</th>'
            "<th>status</th><th>gold</th><th>extracted</th><th class=num>score</th>"
            f"<th>reason</th></tr></thead><tbody>{rows}</tbody></table>"
            f'<div class="side"><div><h4>gold</h4><pre class="json gold">{gold}</pre></div>'
            f'<div><h4>extracted</h4><pre class="json extracted">{ext}</pre></div></div>'
            "</div></details>")


def _unreadable(w: Any, open_: bool) -> str:
    """An extracted record that could not be read: its error beside the gold it was
    paired with (if any)."""
    rec = w.record
    rid = rec.label
    gold = json_html(w.gold, {}) if w.gold is not None else \
        '<span class="none">no gold record</span>'
    return (f'<details class="record unreadable"{" open" if open_ else ""} '
            f'data-record="{e(rid)}"><summary><span class="pill s-error">unreadable</span>'
            f'<span class="rid">{e(rid)}</span><span class="muted">{e(rec.problem)}</span>'
            f'</summary><div class="recbody"><div class="side"><div><h4>gold</h4>'
            f'<pre class="json gold">{gold}</pre></div><div><h4>extracted (unreadable)</h4>'
            f'<pre class="json extracted unread">{e(rec.problem)}</pre></div></div></div>'
            "</details>")


# -- eval --------------------------------------------------------------------------------


def run_summary(run: RunResult) -> str:
    """The run's headline figures as cards, and its status counts as a stacked bar."""
    t = run.totals
    return _cards([
        ("F1 (macro)", num(run.mean_f1, 4), True), ("F1 (micro)", num(run.micro_f1, 4), True),
        ("precision", num(run.mean_precision, 4), False),
        ("recall", num(run.mean_recall, 4), False),
        ("weighted score", num(run.mean_weighted_score, 4), False),
        ("records", f"{run.total_records:,}", False),
        ("fields judged", f"{run.total_fields:,}", False)]) + _status_stack(
        {"match": t.matches, "mismatch": t.mismatches, "omission": t.omissions,
         "hallucination": t.hallucinations, "error": t.errors, "skipped": t.skipped})


def run_notes(run: RunResult) -> list[str]:
    """What the figures alone do not say: gold coverage, records left out of the means."""
    notes = [run.coverage.describe()]
    if (undefined := undefined_note(run)) is not None:
        notes.append(undefined)
    return notes


def _run_section(rep: RunReport, anchor: str, worst: int) -> str:
    run = rep.run
    parts = [f'<section class="run" id="{e(anchor)}"><h2>{e(rep.label)}</h2>']
    if rep.checks:
        failed = rep.failed_checks
        text = "all thresholds met" if not failed else \
            f"{len(failed)} of {len(rep.checks)} thresholds not met"
        parts.append(f'<div class="verdict {"pass" if not failed else "fail"}">{e(text)}</div>')
        if failed:
            parts.append("<ul>" + "".join(f"<li>{e(c.describe())}</li>" for c in failed)
                         + "</ul>")
    parts.append(run_summary(run))
    notes = run_notes(run)
    if rep.repaired_count:
        notes.append(rep.repaired_note)
    if rep.seconds is not None:
        notes.append(f"scored in {rep.seconds:.2f} s on {rep.workers} worker"
                     f"{'s' if rep.workers != 1 else ''}")
    if notes:
        parts.append(f'<p class="muted">{e(" · ".join(notes))}</p>')
    thresholds = rep.field_thresholds
    judged, extra = split_fields(run.per_field)
    legend = ('<p class="legend"><span>bar: F1 of the field (pooled over records)</span>'
              + ("<span>▏ threshold</span>" if thresholds else "") + "</p>")
    parts.append("<h3>F1 per field</h3><figure>" + f1_chart(judged, thresholds) + legend
                 + "</figure>")
    parts.append("<h3>Fields</h3>" + field_table(judged, thresholds))
    if extra:
        parts.append(f"<h3>Fields only in extracted output ({len(extra)})</h3>"
                     + extra_fields(extra))
    cal = run.calibration(rep.budgets)
    if cal is not None:
        parts.append(html_section(cal))
    if rep.worst or rep.unreadable:
        shown, unread = rep.worst[:worst], rep.unreadable[:worst]
        count = f"{len(shown)}" + (f", {len(unread)} unreadable" if unread else "")
        parts.append(f"<h3>Worst records ({count})</h3>"
                     '<p class="muted">Unreadable extracted records first, with why they '
                     "could not be read; then lowest F1 first. Differing fields are "
                     'highlighted: <span class="hl mismatch">mismatch</span> '
                     '<span class="hl omission">omission</span> '
                     '<span class="hl hallucination">hallucination</span>.</p>')
        parts.extend(_unreadable(w, i < 3) for i, w in enumerate(unread))
        parts.extend(_record(i + 1, w, i + len(unread) < 3) for i, w in enumerate(shown))
    problems = rep.first_problems(len(rep.problems) if rep.from_digest else PROBLEMS)
    if rep.problem_count:
        items = "".join(f"<li>record <code>{e(label)}"
                        f"</code>: {e(problem)}</li>" for label, problem in problems)
        more = rep.problem_count - len(problems)
        parts.append(f"<h3>Record problems ({rep.problem_count:,})</h3><ul>{items}"
                     + (f"<li class=muted>… and {more:,} more</li>" if more > 0 else "")
                     + "</ul>")
    parts.append("<h3>Configuration</h3>" + config_html(rep.settings, rep.schema))
    parts.append("</section>")
    return "".join(parts)


def runs_html(reports: Sequence[RunReport], *, title: str = "evalschema report",
              command: str | None = None, worst: int = 20) -> str:
    """The eval report for one or more runs."""
    body = []
    if len(reports) > 1:
        rows = "".join(
            f'<tr><td><a href="#run-{i + 1}">{e(r.label)}</a></td>'
            f"<td class=num>{r.run.total_records:,}</td><td class=num>{bar(r.run.mean_f1)}</td>"
            f"<td class=num>{num(r.run.micro_f1, 4)}</td>"
            f"<td class=num>{num(r.run.mean_precision, 4)}</td>"
            f"<td class=num>{num(r.run.mean_recall, 4)}</td><td>"
            + ("" if not r.checks else ('<span class="pos">passed</span>' if r.passed
                                        else '<span class="neg">failed</span>'))
            + "</td></tr>" for i, r in enumerate(reports))
        body.append('<nav class="toc"><table><thead><tr><th>run</th><th class=num>records</th>'
                    "<th class=num>F1 (macro)</th><th class=num>F1 (micro)</th>"
                    "<th class=num>precision</th><th class=num>recall</th><th>thresholds</th>"
                    f"</tr></thead><tbody>{rows}</tbody></table></nav>")
    body.extend(_run_section(r, f"run-{i + 1}", worst) for i, r in enumerate(reports))
    return page(title, "\n".join(body), meta(command))


