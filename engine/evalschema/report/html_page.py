"""The page every HTML report is: one self-contained file (inline CSS and JS, no network),
and the pieces the eval and compare reports share (escaping, the F1 colour scale, sortable
table headers, bars, pretty-printed JSON, the configuration section).

Every piece of user data is escaped with ``e``; none is placed inside a script. About
half of this module is the stylesheet and the script, kept in Python strings so the
report needs no package data.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Mapping
from html import escape
from typing import Any

from evalschema.pointer import join
from evalschema.report.figures import UNDEFINED, figure
from evalschema.report.layout import shorten

#: Longest string value shown in a record before it is cut.
MAX_STRING = 300
#: Array elements shown per array in a record.
MAX_ITEMS = 60


def e(value: object) -> str:
    """Escape text for HTML content and attribute values."""
    return escape(str(value), quote=True)


def num(x: float | None, digits: int = 3) -> str:
    """A figure; "—" when it is undefined (docs/metrics.md)."""
    return figure(x, digits)


def f1_color(f1: float | None) -> str:
    """Red (F1 0.5 and below) through amber to green (F1 1); grey when undefined."""
    if f1 is None:
        return "#adb5bd"
    t = max(0.0, min(1.0, (f1 - 0.5) / 0.5))
    hue = round(4 + t * 128)
    light = 44 if t > 0.5 else 48
    return f"hsl({hue} 62% {light}%)"


CSS = """
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
.reliability-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));
gap:12px}
figure.reliability{margin:0}
svg.reliability .diagonal{stroke:#868e96;stroke-dasharray:4 3}
svg.reliability .acc{fill:#a5d8ff}
svg.reliability circle{fill:var(--accent)}
svg.reliability .share{fill:#ced4da}
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
.diffs td{font-size:13px;overflow-wrap:anywhere}
.diffs td.val{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;
word-break:break-word;max-width:300px}
.side{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px;margin-top:12px}
.side h4{margin:0 0 4px;font-size:12px;color:var(--muted);text-transform:uppercase;
letter-spacing:.05em}
pre.json{margin:0;padding:10px 12px;background:var(--soft);border-radius:8px;overflow:auto;
max-height:520px;line-height:1.45;white-space:pre-wrap;overflow-wrap:anywhere}
pre.unread{color:var(--bad)}
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

JS = """
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


def page(title: str, body: str, header: str) -> str:
    """The whole HTML document: ``header`` (``meta``) under the title, then ``body``."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
            f"<title>{e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
            f"<header><h1>{e(title)}</h1>{header}</header>\n{body}\n"
            "<footer>Generated by evalschema. This file is self-contained: it loads "
            "nothing from the network.</footer>\n</main>\n"
            f"<script>{JS}</script>\n</body>\n</html>\n")


def meta(command: str | None) -> str:
    """When and by which evalschema (and command) the report was made."""
    from evalschema.version import __version__

    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    cmd = f" · <code>{e(command)}</code>" if command else ""
    return f'<p class="meta">{e(now)} · evalschema {e(__version__)}{cmd}</p>'


def short(text: str, n: int = 38) -> str:
    """A chart label: a field path cut in the middle, keeping its distinguishing end
    (``…segment_name`` vs ``…segment_type``); the full path is the element's title."""
    return shorten(text, n)


def bar(value: float | None, empty: str = UNDEFINED) -> str:
    """A figure with its meter; an undefined one is ``empty`` ("—", or "skipped")."""
    if value is None:
        return f'<span class="barcell"><span class="meter"></span>{e(empty)}</span>'
    v = max(0.0, min(1.0, value))
    return (f'<span class="barcell"><span class="meter"><span style="width:{100 * v:.1f}%;'
            f'background:{f1_color(value)}"></span></span>{value:.3f}</span>')


def th(label: str, key: str | None = None, *, num: bool = True, text: bool = False) -> str:
    attrs = f' data-key="{key}"' if key else ""
    if text:
        attrs += ' data-type="text"'
    return f'<th{attrs}{" class=num" if num and not text else ""}>{e(label)}</th>'


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


def config_html(settings: Mapping[str, Any], schema: Any) -> str:
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
