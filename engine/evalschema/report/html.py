"""The HTML report: one self-contained file (inline CSS and JS, an inline SVG chart, no
network), readable without JavaScript and sortable with it.

For ``eval``: the run summary, a chart of per-field F1, the per-field table (bars,
sortable by any column, worst first), the worst records with gold and extracted side
by side and the differing fields highlighted, and the configuration that produced it.
For ``compare``: the runs side by side, a chart of each field's F1 difference with its
confidence interval, the per-field table, and the records that flipped.

Every piece of user data (field names, values, ids, file names, reasons) is escaped;
none is placed inside a script. The report holds only the N worst records, so its size
does not grow with the run.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from evalschema.pointer import join
from evalschema.report.model import RunReport
from evalschema.results import FieldAggregation, FieldResult, Status
from evalschema.run.compare import Comparison, Difference, FieldComparison

#: Longest string value shown in a record before it is cut.
MAX_STRING = 300
#: Array elements shown per array in a record.
MAX_ITEMS = 60
#: Differing fields listed in a worst record's table (all are highlighted in its JSON).
MAX_DIFF_ROWS = 25
#: Records listed under "records that flipped".
MAX_FLIPS = 100

_WRONG = (Status.MISMATCH, Status.OMISSION, Status.HALLUCINATION, Status.ERROR,
          Status.BATCH_ERROR)


def e(value: object) -> str:
    """Escape text for HTML content and attribute values."""
    return escape(str(value), quote=True)


def _num(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"


def f1_color(f1: float) -> str:
    """Red (F1 0.5 and below) through amber to green (F1 1)."""
    t = max(0.0, min(1.0, (f1 - 0.5) / 0.5))
    hue = round(4 + t * 128)
    light = 44 if t > 0.5 else 48
    return f"hsl({hue} 62% {light}%)"


_CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d8dee4;--soft:#f6f8fa;--accent:#0b5cad;
--match:#2b8a3e;--mismatch:#e8590c;--omission:#c92a2a;--hallucination:#7048e8;--error:#868e96;
--good:#2b8a3e;--bad:#c92a2a}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,
sans-serif;color:var(--fg);background:#fff}
main{max-width:1180px;margin:0 auto;padding:28px 32px 64px}
h1{font-size:26px;margin:0 0 4px;letter-spacing:-.01em}
h2{font-size:20px;margin:40px 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:28px 0 10px;text-transform:uppercase;letter-spacing:.06em;
color:var(--muted)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,
"Liberation Mono",monospace;font-size:12.5px}
.meta{color:var(--muted);margin:0}
.meta code{background:var(--soft);padding:1px 5px;border-radius:4px}
.verdict{display:inline-block;margin:8px 0 4px;padding:4px 12px;border-radius:999px;
font-weight:600;font-size:13px}
.verdict.pass{background:#ebfbee;color:var(--good);border:1px solid #b2f2bb}
.verdict.fail{background:#fff5f5;color:var(--bad);border:1px solid #ffc9c9}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(132px,1fr));gap:12px;
margin:16px 0}
.card{border:1px solid var(--line);border-radius:10px;padding:10px 14px;background:#fff}
.card .k{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}
.card .v{font-size:24px;font-weight:650;font-variant-numeric:tabular-nums}
.card.main{background:var(--soft)}
.stack{display:flex;height:12px;border-radius:6px;overflow:hidden;background:var(--soft);
margin:6px 0}
.stack span{display:block;height:100%}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;color:var(--muted);font-size:13px}
.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;
vertical-align:-1px}
.s-match{background:var(--match)}.s-mismatch{background:var(--mismatch)}
.s-omission{background:var(--omission)}.s-hallucination{background:var(--hallucination)}
.s-error,.s-batch_error{background:var(--error)}.s-skipped,.s-pending{background:#ced4da}
figure{margin:8px 0 0}
svg.chart{width:100%;height:auto;display:block}
svg.chart text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;
fill:var(--fg)}
svg.chart .axis text{fill:var(--muted);font-size:11px}
svg.chart .grid{stroke:#eceff1}
svg.chart .zero{stroke:#868e96;stroke-width:1.2}
svg.chart .track{fill:#f1f3f5}
svg.chart .tick{stroke:#1f2328;stroke-width:2}
svg.chart .ci{stroke-width:2}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{position:sticky;top:0;background:#fff;font-size:12px;color:var(--muted);
text-transform:uppercase;letter-spacing:.04em;border-bottom:2px solid var(--line);
white-space:nowrap}
th[data-key]{cursor:pointer;user-select:none}
th[data-key]:hover{color:var(--fg)}
th[aria-sort=ascending]::after{content:" ▲";font-size:9px}
th[aria-sort=descending]::after{content:" ▼";font-size:9px}
td.num,th.num{text-align:right}
tbody tr:hover{background:#f8f9fa}
.fields td.name code{font-size:13px;color:var(--fg)}
.barcell{display:flex;align-items:center;gap:8px;justify-content:flex-end}
.meter{width:84px;height:8px;border-radius:4px;background:#eef1f4;overflow:hidden;flex:none}
.meter span{display:block;height:100%;border-radius:4px}
.scroll{overflow-x:auto}
table.fields th,table.fields td{padding:5px 8px}
.low{color:var(--bad);font-weight:600}
.pill{display:inline-block;padding:0 8px;border-radius:999px;font-size:12px;color:#fff;
white-space:nowrap}
.pos{color:var(--good);font-weight:600}.neg{color:var(--bad);font-weight:600}
.ns{color:var(--muted)}
td.rid,table.compare td.num{white-space:nowrap}
.flip-neg code{color:#a61e1e}.flip-pos code{color:#1e6b30}
.ci{color:var(--muted);font-size:12px;white-space:nowrap}
.chip{display:inline-block;margin:0 6px 6px 0;padding:2px 8px;border-radius:6px;
background:#f3f0ff;border:1px solid #e5dbff;font-size:12.5px}
.sig{display:inline-block;font-size:11px;padding:0 6px;border-radius:4px;margin-left:4px}
.sig.pos{background:#ebfbee}.sig.neg{background:#fff5f5}
details.record{border:1px solid var(--line);border-radius:10px;margin:12px 0;background:#fff}
details.record>summary{cursor:pointer;padding:10px 14px;display:flex;gap:14px;
align-items:baseline;flex-wrap:wrap}
details.record>summary .rid{font-weight:650}
details.record[open]>summary{border-bottom:1px solid var(--line)}
.recbody{padding:12px 14px}
.diffs td{font-size:13px}
.diffs td.val{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;
word-break:break-word;max-width:300px}
.side{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin-top:12px}
.side h4{margin:0 0 4px;font-size:12px;color:var(--muted);text-transform:uppercase;
letter-spacing:.05em}
pre.json{margin:0;padding:10px 12px;background:var(--soft);border-radius:8px;overflow:auto;
max-height:520px;line-height:1.45;white-space:pre}
.hl{border-radius:3px;padding:0 2px;margin:0 -2px}
.hl.mismatch{background:#ffe8cc;box-shadow:inset 2px 0 var(--mismatch)}
.hl.omission{background:#ffe3e3;box-shadow:inset 2px 0 var(--omission)}
.hl.hallucination{background:#e5dbff;box-shadow:inset 2px 0 var(--hallucination)}
.hl.error,.hl.batch_error{background:#e9ecef;box-shadow:inset 2px 0 var(--error)}
.j-k{color:#0550ae}.j-s{color:#0a3069}.j-n{color:#953800}.j-l{color:#8250df}
.none{color:var(--muted);font-style:italic}
dl.config{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:0}
dl.config dt{color:var(--muted)}
dl.config dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
font-size:12.5px;word-break:break-all}
details.schema{margin-top:12px}
details.schema summary{cursor:pointer;color:var(--accent)}
nav.toc{margin:16px 0}
nav.toc table td a{color:var(--accent);text-decoration:none}
.muted{color:var(--muted)}
footer{margin-top:48px;color:var(--muted);font-size:12px}
@media (max-width:760px){.side{grid-template-columns:1fr}main{padding:16px}}
@media print{thead th{position:static}details.record{break-inside:avoid}}
"""

_JS = """
(function () {
  "use strict";
  function value(row, key, type) {
    var v = row.getAttribute("data-s-" + key);
    if (type === "text") { return v || ""; }
    var n = parseFloat(v);
    return isNaN(n) ? -Infinity : n;
  }
  function sortTable(table, key, dir) {
    var th = table.querySelector('th[data-key="' + key + '"]');
    if (!th) { return; }
    var type = th.getAttribute("data-type") || "num";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, key, type), y = value(b, key, type);
      var c = type === "text" ? x.localeCompare(y) : (x < y ? -1 : x > y ? 1 : 0);
      if (c !== 0) { return c * dir; }
      return (+a.getAttribute("data-order")) - (+b.getAttribute("data-order"));
    });
    rows.forEach(function (r) { body.appendChild(r); });
    table.setAttribute("data-sorted", key + ":" + (dir > 0 ? "asc" : "desc"));
    Array.prototype.forEach.call(table.querySelectorAll("th[data-key]"), function (c) {
      c.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
  }
  var wanted = /sort=([A-Za-z0-9_]+)-(asc|desc)/.exec(window.location.hash);
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (t) {
    Array.prototype.forEach.call(t.querySelectorAll("th[data-key]"), function (th) {
      th.tabIndex = 0;
      th.title = "sort";
      function go() {
        var key = th.getAttribute("data-key");
        var cur = t.getAttribute("data-sorted");
        sortTable(t, key, cur === key + ":asc" ? -1 : 1);
      }
      th.addEventListener("click", go);
      th.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); go(); }
      });
    });
    var d = (t.getAttribute("data-default-sort") || "").split(":");
    if (wanted && t.querySelector('th[data-key="' + wanted[1] + '"]')) {
      sortTable(t, wanted[1], wanted[2] === "asc" ? 1 : -1);
    } else if (d[0]) {
      sortTable(t, d[0], d[1] === "desc" ? -1 : 1);
    }
  });
  document.documentElement.setAttribute("data-render-ms", performance.now().toFixed(1));
})();
"""


def _page(title: str, body: str, meta: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
            f"<title>{e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
            f"<header><h1>{e(title)}</h1>{meta}</header>\n{body}\n"
            "<footer>Generated by evalschema. This file is self-contained: it loads "
            "nothing from the network.</footer>\n</main>\n"
            f"<script>{_JS}</script>\n</body>\n</html>\n")


def _meta(command: str | None) -> str:
    from evalschema import __version__

    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    cmd = f" · <code>{e(command)}</code>" if command else ""
    return f'<p class="meta">{e(now)} · evalschema {e(__version__)}{cmd}</p>'


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


def only_hallucinated(agg: FieldAggregation) -> bool:
    """A field the extractor produced but gold never has (all its results are
    hallucinations): keys the model invented, listed apart from the schema's fields."""
    c = agg.counts
    return c.hallucinations > 0 and c.matches + c.mismatches + c.omissions == 0


def split_fields(per_field: Mapping[str, FieldAggregation]
                 ) -> tuple[dict[str, FieldAggregation], dict[str, FieldAggregation]]:
    judged = {k: a for k, a in per_field.items() if not only_hallucinated(a)}
    extra = {k: a for k, a in per_field.items() if only_hallucinated(a)}
    return judged, extra


def _short(text: str, n: int = 38) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def f1_chart(per_field: Mapping[str, FieldAggregation],
             thresholds: Mapping[str, float] | None = None) -> str:
    """Horizontal bars of per-field F1, worst first; one ``rect.bar`` per field."""
    thresholds = thresholds or {}
    rows = sorted(per_field.values(), key=lambda a: (a.f1, a.field))
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
        w = max(0.0, min(1.0, agg.f1)) * bar_w
        out.append(f'<g class="row" data-field="{e(name)}" data-f1="{agg.f1:.6f}">'
                   f"<title>{e(name)}: F1 {agg.f1:.4f} (precision {agg.precision:.4f}, "
                   f"recall {agg.recall:.4f})</title>"
                   f'<text x="{label_w - 10}" y="{y + 15}" text-anchor="end">'
                   f"{e(_short(name))}</text>"
                   f'<rect class="track" x="{label_w}" y="{y + 4}" width="{bar_w}" '
                   f'height="14" rx="3"/>'
                   f'<rect class="bar" x="{label_w}" y="{y + 4}" width="{w:.2f}" height="14" '
                   f'rx="3" fill="{f1_color(agg.f1)}"/>')
        th = thresholds.get(agg.field)
        if th is not None:
            tx = label_w + th * bar_w
            out.append(f'<line class="tick" x1="{tx:.1f}" y1="{y + 1}" x2="{tx:.1f}" '
                       f'y2="{y + 21}"><title>threshold {th:g}</title></line>')
        out.append(f'<text x="{label_w + bar_w + 8}" y="{y + 15}">{agg.f1:.3f}</text></g>')
    out.append("</svg>")
    return "".join(out)


def _bar(value: float) -> str:
    v = max(0.0, min(1.0, value))
    return (f'<span class="barcell"><span class="meter"><span style="width:{100 * v:.1f}%;'
            f'background:{f1_color(value)}"></span></span>{value:.3f}</span>')


def _th(label: str, key: str | None = None, *, num: bool = True, text: bool = False) -> str:
    attrs = f' data-key="{key}"' if key else ""
    if text:
        attrs += ' data-type="text"'
    return f'<th{attrs}{" class=num" if num and not text else ""}>{e(label)}</th>'


def field_table(per_field: Mapping[str, FieldAggregation],
                thresholds: Mapping[str, float] | None = None) -> str:
    """The per-field table: sortable by every column, by F1 (worst first) on load.
    Skipped and error columns appear only when some field has them."""
    thresholds = thresholds or {}
    aggs = list(per_field.values())
    skipped = any(a.counts.skipped for a in aggs)
    errors = any(a.counts.errors for a in aggs)
    head = ("<thead><tr>" + _th("field", "field", text=True) + _th("F1", "f1")
            + _th("precision", "precision") + _th("recall", "recall") + _th("match", "match")
            + _th("mismatch", "mismatch") + _th("omission", "omission")
            + _th("halluc.", "hallucination") + (_th("skipped", "skipped") if skipped else "")
            + (_th("error", "error") if errors else "")
            + (_th("threshold", "threshold") if thresholds else "") + "</tr></thead>")
    body = []
    for i, a in enumerate(aggs):
        c = a.counts
        th = thresholds.get(a.field)
        below = th is not None and a.f1 + 1e-9 < th
        name = a.field or "(record)"
        attrs = (f'data-order="{i}" data-s-field="{e(name)}" data-s-f1="{a.f1:.6f}" '
                 f'data-s-precision="{a.precision:.6f}" data-s-recall="{a.recall:.6f}" '
                 f'data-s-match="{c.matches}" data-s-mismatch="{c.mismatches}" '
                 f'data-s-omission="{c.omissions}" data-s-hallucination="{c.hallucinations}" '
                 f'data-s-skipped="{c.skipped}" data-s-error="{c.errors}" '
                 f'data-s-threshold="{"" if th is None else th}"')
        th_cell = "" if th is None else (f'<span class="{"low" if below else "pos"}">'
                                         f'{th:g} {"✗" if below else "✓"}</span>')
        body.append(f"<tr {attrs}><td class=name><code>{e(name)}</code></td>"
                    f"<td class=num>{_bar(a.f1)}</td>"
                    f"<td class=num>{a.precision:.3f}</td><td class=num>{a.recall:.3f}</td>"
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


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        text = value if len(value) <= MAX_STRING else value[:MAX_STRING] + "…"
        return f'<span class="j-s">{e(json.dumps(text, ensure_ascii=False))}</span>'
    if isinstance(value, bool) or value is None:
        return f'<span class="j-l">{e(json.dumps(value))}</span>'
    if isinstance(value, int | float):
        text = json.dumps(value) if not (isinstance(value, float) and not math.isfinite(value)) \
            else str(value)
        return f'<span class="j-n">{e(text)}</span>'
    return f'<span class="j-s">{e(json.dumps(str(value), ensure_ascii=False))}</span>'


def json_html(value: Any, marks: Mapping[str, tuple[str, str]], pointer: str = "",
              indent: int = 0, depth: int = 0) -> str:
    """Pretty-printed JSON as HTML; the member at each pointer in ``marks`` is wrapped
    in a highlight (``marks[pointer] = (css class, tooltip)``)."""
    pad = "  " * (indent + 1)
    end = "  " * indent
    if depth > 40:
        return '<span class="none">…</span>'
    if isinstance(value, dict):
        if not value:
            return "{}"
        parts = []
        for k, v in value.items():
            p = join(pointer, str(k))
            member = (f'<span class="j-k">{e(json.dumps(str(k), ensure_ascii=False))}</span>: '
                      + json_html(v, marks, p, indent + 1, depth + 1))
            parts.append(pad + _mark(member, marks.get(p)))
        return "{\n" + ",\n".join(parts) + "\n" + end + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        parts = []
        for i, v in enumerate(value[:MAX_ITEMS]):
            p = join(pointer, i)
            parts.append(pad + _mark(json_html(v, marks, p, indent + 1, depth + 1),
                                     marks.get(p)))
        if len(value) > MAX_ITEMS:
            parts.append(pad + f'<span class="none">… {len(value) - MAX_ITEMS} more</span>')
        return "[\n" + ",\n".join(parts) + "\n" + end + "]"
    return _scalar(value)


def _mark(html: str, mark: tuple[str, str] | None) -> str:
    if mark is None:
        return html
    return f'<span class="hl {e(mark[0])}" title="{e(mark[1])}">{html}</span>'


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
        if r.status not in _WRONG:
            continue
        tip = f"{r.path}: {r.status}" + (f" ({r.reason})" if r.reason else "")
        if r.gold_pointer is not None and r.status is not Status.HALLUCINATION:
            gold.setdefault(r.gold_pointer, (str(r.status), tip))
        if r.extracted_pointer is not None and r.status is not Status.OMISSION:
            ext.setdefault(r.extracted_pointer, (str(r.status), tip))
    return gold, ext


def _record(rank: int, w: Any, open_: bool) -> str:
    rec = w.record
    c = rec.counts
    rid = rec.record_id if rec.record_id is not None else f"#{rec.index}"
    wrong = [r for r in rec.field_results if r.status in _WRONG]
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
        + f"</td><td class=num>{r.score:.2f}</td><td>{e(r.reason or '')}</td></tr>"
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
    repaired = ' <span class="muted">(repaired)</span>' if rec.repaired else ""
    return (f'<details class="record"{" open" if open_ else ""} data-record="{e(rid)}">'
            f'<summary><span class="muted">#{rank}</span><span class="rid">{e(rid)}</span>'
            f"<span>F1 <b>{rec.f1:.3f}</b></span>"
            f'<span class="muted">{c.mismatches} mismatch · {c.omissions} omission · '
            f"{c.hallucinations} hallucination · {c.matches} match</span>{repaired}{note}"
            f'</summary><div class="recbody"><table class="diffs"><thead><tr><th>path</th>'
            "<th>status</th><th>gold</th><th>extracted</th><th class=num>score</th>"
            f"<th>reason</th></tr></thead><tbody>{rows}</tbody></table>"
            f'<div class="side"><div><h4>gold</h4><pre class="json gold">{gold}</pre></div>'
            f'<div><h4>extracted</h4><pre class="json extracted">{ext}</pre></div></div>'
            "</div></details>")


def _config(settings: Mapping[str, Any], schema: Any) -> str:
    rows = "".join(f"<dt>{e(k)}</dt><dd>{e(_setting(v))}</dd>" for k, v in settings.items()
                   if v not in (None, "", [], {}, ()))
    out = f'<dl class="config">{rows}</dl>'
    if schema is not None:
        out += ('<details class="schema"><summary>eval schema</summary><pre class="json">'
                + json_html(schema, {}) + "</pre></details>")
    return out


def _setting(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, list | tuple) and all(isinstance(x, str) for x in v):
        return ", ".join(v)
    return json.dumps(v, ensure_ascii=False, default=str)


# -- eval --------------------------------------------------------------------------------


def _run_section(rep: RunReport, anchor: str, worst: int) -> str:
    run, t = rep.run, rep.run.totals
    parts = [f'<section class="run" id="{e(anchor)}"><h2>{e(rep.label)}</h2>']
    if rep.checks:
        failed = rep.failed_checks
        text = "all thresholds met" if not failed else \
            f"{len(failed)} of {len(rep.checks)} thresholds not met"
        parts.append(f'<div class="verdict {"pass" if not failed else "fail"}">{e(text)}</div>')
        if failed:
            parts.append("<ul>" + "".join(f"<li>{e(c.describe())}</li>" for c in failed)
                         + "</ul>")
    parts.append(_cards([
        ("F1 (macro)", _num(run.mean_f1, 4), True), ("F1 (micro)", _num(run.micro_f1, 4), True),
        ("precision", _num(run.mean_precision, 4), False),
        ("recall", _num(run.mean_recall, 4), False),
        ("weighted score", _num(run.mean_weighted_score, 4), False),
        ("records", f"{run.total_records:,}", False),
        ("fields judged", f"{run.total_fields:,}", False)]))
    parts.append(_status_stack({"match": t.matches, "mismatch": t.mismatches,
                                "omission": t.omissions, "hallucination": t.hallucinations,
                                "error": t.errors, "skipped": t.skipped}))
    notes = []
    if rep.repaired_count:
        notes.append(f"{rep.repaired_count:,} extracted record(s) needed lenient parsing")
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
    if rep.worst:
        shown = rep.worst[:worst]
        parts.append(f"<h3>Worst records ({len(shown)})</h3>"
                     '<p class="muted">Lowest F1 first. Differing fields are highlighted: '
                     '<span class="hl mismatch">mismatch</span> '
                     '<span class="hl omission">omission</span> '
                     '<span class="hl hallucination">hallucination</span>.</p>')
        parts.extend(_record(i + 1, w, i < 3) for i, w in enumerate(shown))
    problems = rep.problems if rep.from_digest else ()
    if rep.problem_count:
        items = "".join(f"<li>record <code>{e(p.record_id if p.record_id is not None else p.index)}"
                        f"</code>: {e(p.problem)}</li>" for p in problems)
        more = rep.problem_count - len(problems)
        parts.append(f"<h3>Record problems ({rep.problem_count:,})</h3><ul>{items}"
                     + (f"<li class=muted>… and {more:,} more</li>" if more > 0 else "")
                     + "</ul>")
    parts.append("<h3>Configuration</h3>" + _config(rep.settings, rep.schema))
    parts.append("</section>")
    return "".join(parts)


def runs_html(reports: Sequence[RunReport], *, title: str = "evalschema report",
              command: str | None = None, worst: int = 20) -> str:
    """The eval report for one or more runs."""
    body = []
    if len(reports) > 1:
        rows = "".join(
            f'<tr><td><a href="#run-{i + 1}">{e(r.label)}</a></td>'
            f"<td class=num>{r.run.total_records:,}</td><td class=num>{_bar(r.run.mean_f1)}</td>"
            f"<td class=num>{r.run.micro_f1:.4f}</td><td class=num>{r.run.mean_precision:.4f}</td>"
            f"<td class=num>{r.run.mean_recall:.4f}</td><td>"
            + ("" if not r.checks else ('<span class="pos">passed</span>' if r.passed
                                        else '<span class="neg">failed</span>'))
            + "</td></tr>" for i, r in enumerate(reports))
        body.append('<nav class="toc"><table><thead><tr><th>run</th><th class=num>records</th>'
                    "<th class=num>F1 (macro)</th><th class=num>F1 (micro)</th>"
                    "<th class=num>precision</th><th class=num>recall</th><th>thresholds</th>"
                    f"</tr></thead><tbody>{rows}</tbody></table></nav>")
    body.extend(_run_section(r, f"run-{i + 1}", worst) for i, r in enumerate(reports))
    return _page(title, "\n".join(body), _meta(command))


# -- compare -----------------------------------------------------------------------------

_RUN_COLORS = ("#1c7ed6", "#f08c00", "#0ca678", "#ae3ec9", "#e64980")


def _diff_class(d: Difference) -> str:
    if not d.significant:
        return "ns"
    return "pos" if d.delta > 0 else "neg"


def _diff_text(d: Difference) -> str:
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
    rows: list[tuple[str, int, Difference]] = []
    for key in ("macro_f1", "micro_f1"):
        m = c.overall[key]
        rows.extend((f"overall {m.metric}", k, d) for k, d in enumerate(m.differences))
    for f in c.fields:
        if not f.only_extracted:
            rows.extend((f.field, k, d) for k, d in enumerate(f.f1.differences))
    span = max([0.01, *(max(abs(d.low), abs(d.high), abs(d.delta)) for _, _, d in rows)])
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
    for i, (name, k, d) in enumerate(rows):
        y = top + i * row_h + 10
        cls = _diff_class(d)
        color = {"pos": "var(--good)", "neg": "var(--bad)"}.get(cls, "#868e96")
        label = name if len(c.labels) == 2 else f"{name} · {c.labels[k + 1]}"
        out.append(f'<g class="diff {cls}" data-field="{e(name)}" data-run="{k + 1}" '
                   f'data-delta="{d.delta:.6f}"><title>{e(label)}: {d.delta:+.4f} '
                   f"[{d.low:+.4f}, {d.high:+.4f}]</title>"
                   f'<text x="{label_w - 10}" y="{y + 4}" text-anchor="end">{e(_short(label))}'
                   f'</text><line class="ci" x1="{x(d.low):.1f}" y1="{y}" x2="{x(d.high):.1f}" '
                   f'y2="{y}" stroke="{color}"/><line x1="{x(d.low):.1f}" y1="{y - 4}" '
                   f'x2="{x(d.low):.1f}" y2="{y + 4}" stroke="{color}"/><line '
                   f'x1="{x(d.high):.1f}" y1="{y - 4}" x2="{x(d.high):.1f}" y2="{y + 4}" '
                   f'stroke="{color}"/><circle cx="{x(d.delta):.1f}" cy="{y}" r="4.5" '
                   f'fill="{color}"/><text x="{label_w + plot_w + 10}" y="{y + 4}">'
                   f"{d.delta:+.3f} [{d.low:+.3f}, {d.high:+.3f}]</text></g>")
        if i == 1 and rows[2:]:
            out.append(f'<line class="grid" x1="0" y1="{y + row_h / 2:.1f}" x2="{width}" '
                       f'y2="{y + row_h / 2:.1f}"/>')
    out.append("</svg>")
    return "".join(out)


def _compare_table(c: Comparison) -> str:
    head = "<thead><tr>" + _th("field", "field", text=True)
    for i, lab in enumerate(c.labels):
        head += _th(f"F1 {lab}", f"f1_{i}")
    for k, lab in enumerate(c.labels[1:], start=1):
        head += _th(f"Δ {lab} [CI]", f"d_{k}") + _th(f"match→wrong {lab}", f"reg_{k}") \
            + _th(f"wrong→match {lab}", f"fix_{k}")
    head += "</tr></thead>"
    body = [_compare_row(n, f) for n, f in enumerate(c.fields) if not f.only_extracted]
    return (f'<div class="scroll"><table class="fields compare sortable" '
            f'data-default-sort="d_1:asc">{head}<tbody>' + "".join(body) + "</tbody></table></div>")


def _compare_row(n: int, f: FieldComparison) -> str:
    attrs = [f'data-order="{n}"', f'data-s-field="{e(f.field)}"']
    cells = [f"<td class=name><code>{e(f.field or '(record)')}</code></td>"]
    for i, v in enumerate(f.f1.values):
        attrs.append(f'data-s-f1_{i}="{v:.6f}"')
        cells.append(f"<td class=num>{_bar(v)}</td>")
    for k, d in enumerate(f.f1.differences, start=1):
        attrs += [f'data-s-d_{k}="{d.delta:.6f}"', f'data-s-reg_{k}="{f.regressed[k - 1]}"',
                  f'data-s-fix_{k}="{f.fixed[k - 1]}"']
        cells += [f"<td class=num>{_diff_text(d)}</td>",
                  f"<td class=num>{f.regressed[k - 1]:,}</td>",
                  f"<td class=num>{f.fixed[k - 1]:,}</td>"]
    return f"<tr {' '.join(attrs)}>{''.join(cells)}</tr>"


def compare_html(c: Comparison, *, settings: Mapping[str, Any] | None = None,
                 schema: Any = None, title: str = "evalschema comparison",
                 command: str | None = None) -> str:
    base = c.labels[0]
    body = [f'<p class="meta">{c.records:,} records · baseline <b>{e(base)}</b> · differences '
            f"against the baseline with paired bootstrap {c.confidence:.0%} intervals "
            f"({c.resamples:,} resamples, seed {c.seed}); "
            '<span class="pos">green</span>/<span class="neg">red</span> intervals exclude '
            "zero.</p>"]
    head = "<tr><th>metric</th>" + "".join(f"<th class=num>{e(lab)}</th>" for lab in c.labels) \
        + "".join(f"<th class=num>Δ {e(lab)} [CI]</th>" for lab in c.labels[1:]) + "</tr>"
    rows = "".join(
        f"<tr><td>{e(m.metric)}</td>" + "".join(f"<td class=num>{v:.4f}</td>" for v in m.values)
        + "".join(f"<td class=num>{_diff_text(d)}</td>" for d in m.differences) + "</tr>"
        for m in c.overall.values())
    body.append(f'<h2>Overall</h2><table class="overall"><thead>{head}</thead><tbody>{rows}'
                "</tbody></table>")
    body.append("<h2>F1 difference per field</h2><figure>" + diff_chart(c) + "</figure>")
    body.append("<h2>Fields</h2>" + _compare_table(c))
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
            items.append(f'<tr>{who}<td class="rid"><code>{e(fl.record_id)}</code></td>'
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
    body.append("<h2>Configuration</h2>" + _config(settings or {}, schema))
    return _page(title, "\n".join(body), _meta(command))
