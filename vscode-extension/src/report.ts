// The results view's HTML: per suite, the runs side by side (one row per field, an F1 column per
// run in the configuration's order, a Δ column per run against the first, the better F1
// highlighted, pass/fail badges), then one table per run (field, precision, recall, F1 with a
// bar, matches, mismatches, omissions, hallucinations). Every table sorts by any column; a click
// on a figure lists the field's worst values in that run (fetched then: fieldExamples), on a
// field of a run's table the list of its findings. Pure (strings in, string out), so it is
// unit-tested; colours come from the editor theme's CSS variables.
import type { FieldRow, LspRange, RunReport, RunSummary, SuiteReport } from "./protocol";

export type SortKey = "field" | "precision" | "recall" | "f1" | "matches" | "mismatches" | "omissions" | "hallucinations";
export type SortDir = "asc" | "desc";

export const COLUMNS: ReadonlyArray<{ key: SortKey; title: string; numeric: boolean }> = [
  { key: "field", title: "Field", numeric: false },
  { key: "f1", title: "F1", numeric: true },
  { key: "precision", title: "Precision", numeric: true },
  { key: "recall", title: "Recall", numeric: true },
  { key: "matches", title: "Matches", numeric: true },
  { key: "mismatches", title: "Mismatches", numeric: true },
  { key: "omissions", title: "Omissions", numeric: true },
  { key: "hallucinations", title: "Hallucinations", numeric: true },
];

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/** The text for an undefined figure (null: nothing was judged for it; never 1.0). */
export const UNDEFINED = "—";

export function formatScore(x: number | null): string {
  return x !== null && Number.isFinite(x) ? x.toFixed(3) : UNDEFINED;
}

/** How much of the gold the schema judges, and the gold keys it never scores. */
export function formatCoverage(run: RunSummary): string {
  if (run.coverage === null) return "gold coverage —";
  const text = `gold coverage ${(run.coverage * 100).toFixed(1)}%`;
  if (!run.off_schema.length) return text;
  return `${text} · not in the schema: ${run.off_schema.slice(0, 5).map((k) => `${k.pointer} (${k.values})`).join(", ")}`;
}

/** A field's F1 cell: "error" when nothing was judged for errors (its schema has one),
 * "skipped" when every result was skipped, "—" when otherwise undefined; never a number then. */
export function formatF1(row: FieldRow | undefined): string {
  if (!row) return UNDEFINED;
  const judged = row.matches + row.mismatches + row.omissions + row.hallucinations;
  if (row.f1 === null && judged === 0 && row.errors > 0) return "error";
  return row.f1 === null && row.skipped > 0 && judged === 0 ? "skipped" : formatScore(row.f1);
}

/** The field's values that are not right: wrong, missing, invented or not judged (an error). */
export function wrongValues(row: FieldRow): number {
  return row.mismatches + row.omissions + row.hallucinations + row.errors;
}

/** Compare two figures, an undefined one after every defined one (whatever the direction). */
function compareFigures(a: number | null, b: number | null, sign: number): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return sign * (a - b);
}

/** Stable sort; ties broken by field name so the order never depends on the server's. */
export function sortRows(rows: readonly FieldRow[], key: SortKey, dir: SortDir): FieldRow[] {
  const sign = dir === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const c = key === "field" ? sign * a.field.localeCompare(b.field) : compareFigures(a[key], b[key], sign);
    return c !== 0 ? c : a.field.localeCompare(b.field);
  });
}

/** Theme colour class of an F1: good, fair or poor; "undefined" when nothing was judged. */
export function grade(f1: number | null): "good" | "fair" | "poor" | "undefined" {
  if (f1 === null) return "undefined";
  return f1 >= 0.9 ? "good" : f1 >= 0.7 ? "fair" : "poor";
}

function renderRow(row: FieldRow): string {
  const pct = row.f1 === null ? 0 : Math.max(0, Math.min(100, row.f1 * 100));
  const data = COLUMNS.map((c) => `data-${c.key}="${escapeHtml(String(row[c.key] ?? ""))}"`).join(" ");
  return (
    `<tr ${data}${listRow(row)}>` +
    `<td class="field"><code>${escapeHtml(row.field)}</code></td>` +
    `<td class="num f1"><span class="bar ${grade(row.f1)}"><span class="fill" data-w="${pct.toFixed(1)}"></span></span>${formatF1(row)}</td>` +
    `<td class="num">${formatScore(row.precision)}</td>` +
    `<td class="num">${formatScore(row.recall)}</td>` +
    `<td class="num">${row.matches}</td>` +
    `<td class="num">${row.mismatches}</td>` +
    `<td class="num">${row.omissions}</td>` +
    `<td class="num">${row.hallucinations}</td>` +
    `</tr>`
  );
}

export function renderRun(run: RunReport, suite: string, sort: { key: SortKey; dir: SortDir } = { key: "f1", dir: "asc" }): string {
  const head = COLUMNS.map((c) => {
    const aria = c.key === sort.key ? (sort.dir === "asc" ? "ascending" : "descending") : "none";
    return `<th scope="col" class="${c.numeric ? "num" : ""}" aria-sort="${aria}"><button type="button" data-sort="${c.key}">${c.title}</button></th>`;
  }).join("");
  const judged = run.fields.filter((f) => !f.invented);
  const rows = sortRows(judged, sort.key, sort.dir).map(renderRow).join("\n");
  const body = judged.length ? rows : `<tr><td colspan="${COLUMNS.length}" class="empty">No fields were judged.</td></tr>`;
  return (
    `<section class="run" data-suite="${escapeHtml(suite)}" data-extracted="${escapeHtml(run.extracted)}">\n` +
    `<h2>${escapeHtml(run.label)}</h2>\n` +
    `<p class="summary"><span class="big ${grade(run.f1)}">F1 ${formatScore(run.f1)}</span> macro · ${formatScore(run.micro_f1)} micro · ` +
    `precision ${formatScore(run.precision)} · recall ${formatScore(run.recall)} · ${run.records} records</p>\n` +
    `<p class="coverage${run.off_schema.length ? " partial" : ""}">${escapeHtml(formatCoverage(run))}</p>\n` +
    `<table class="fields"><thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table>\n` +
    renderInvented(run.fields.filter((f) => f.invented)) +
    `</section>`
  );
}

/** Keys the model invented (gold never has them), apart: F1 0 says nothing about a field. */
function renderInvented(rows: readonly FieldRow[]): string {
  if (!rows.length) return "";
  const items = sortRows(rows, "hallucinations", "desc").map((row) => {
    return `<tr data-field="${escapeHtml(row.field)}"${listRow(row)}><td class="field"><code>${escapeHtml(row.field)}</code></td><td class="num">${row.hallucinations}</td></tr>`;
  });
  const n = rows.length;
  return (
    `<details class="invented"><summary>${n} key${n === 1 ? "" : "s"} the model invented (never in gold)</summary>\n` +
    `<table class="invented"><thead><tr><th scope="col">Key</th><th scope="col" class="num">Records</th></tr></thead>\n` +
    `<tbody>\n${items.join("\n")}\n</tbody></table></details>\n`
  );
}

/** One field across the runs: its F1 in each (null: undefined, or absent from that run). */
export interface SideRow {
  field: string;
  f1: (number | null)[];
  /** F1 of run i minus the first run's (index 0 is always null); null when either is undefined. */
  delta: (number | null)[];
  /** The field's row in each run (undefined: absent from that run). */
  rows: (FieldRow | undefined)[];
}

/** The fields the schema judges (not invented keys), by name, with each run's F1. */
export function sideRows(runs: readonly RunReport[]): SideRow[] {
  const names = [...new Set(runs.flatMap((r) => r.fields.filter((f) => !f.invented).map((f) => f.field)))].sort((a, b) => a.localeCompare(b));
  const byRun = runs.map((r) => new Map(r.fields.filter((f) => !f.invented).map((f) => [f.field, f])));
  return names.map((field) => {
    const rows = byRun.map((m) => m.get(field));
    const f1 = rows.map((r) => r?.f1 ?? null);
    const base = f1[0] ?? null;
    return {
      field,
      f1,
      delta: f1.map((x, i) => (i === 0 || x === null || base === null ? null : x - base)),
      rows,
    };
  });
}

/** "+0.012", "−0.100" (a real minus), "0.000"; "—" when undefined. */
export function formatDelta(d: number | null): string {
  if (d === null || !Number.isFinite(d)) return UNDEFINED;
  const r = Math.round(d * 1000) / 1000;
  if (r === 0) return "0.000";
  return `${r > 0 ? "+" : "−"}${Math.abs(r).toFixed(3)}`;
}

/** A run's badge: its F1 and, with thresholds, whether it passes ("model-b 0.806 ✗ < 0.85"). */
export function runBadge(run: RunSummary): string {
  return `${run.label} ${formatScore(run.f1)}${run.badge ? ` ${run.badge}` : ""}`;
}

function badgeClass(run: RunSummary): string {
  return run.passed === null ? "badge" : run.passed ? "badge pass" : "badge fail";
}

/** What makes an element open a place when clicked (this page's script reads it). */
export function openAttrs(uri: string, range: LspRange, title: string): string {
  return ` tabindex="0" title="${escapeHtml(title)}" data-uri="${escapeHtml(uri)}" data-range="${escapeHtml(JSON.stringify(range))}"`;
}

/** A figure of a field with wrong values lists its worst ones in that run when clicked. */
export function worstAttrs(run: RunSummary, field: string): string {
  return ` tabindex="0" title="${escapeHtml(`List the worst values of ${field} in ${run.label}`)}" data-worst="${escapeHtml(run.extracted)}"`;
}

/** A field row with findings lists them when clicked (the extension's list of a field). */
function listRow(row: FieldRow): string {
  const n = wrongValues(row);
  return n ? ` class="has-findings" tabindex="0" title="List the ${n} finding${n === 1 ? "" : "s"} of ${escapeHtml(row.field)} in this run"` : "";
}

/** The runs side by side; sorted by the last run's Δ, regressions first (by F1 with one run). */
export function renderSideBySide(s: SuiteReport): string {
  const runs = s.runs;
  if (!runs.length) return "";
  const rows = sideRows(runs);
  const last = runs.length - 1;
  const sortKey = last > 0 ? `d${last}` : "r0";
  const value = (r: SideRow, key: string): number | null => (key.startsWith("d") ? r.delta : r.f1)[Number(key.slice(1))] ?? null;
  const sorted = [...rows].sort((a, b) => compareFigures(value(a, sortKey), value(b, sortKey), 1) || a.field.localeCompare(b.field));
  const head = [
    `<th scope="col" aria-sort="none"><button type="button" data-sort="field">Field</button></th>`,
    ...runs.map((r, i) => `<th scope="col" class="num" aria-sort="${sortKey === `r${i}` ? "ascending" : "none"}"><button type="button" data-sort="r${i}">${escapeHtml(r.label)}</button></th>`),
    ...runs.slice(1).map((r, j) => `<th scope="col" class="num" aria-sort="${sortKey === `d${j + 1}` ? "ascending" : "none"}" title="F1 of ${escapeHtml(r.label)} minus F1 of ${escapeHtml(runs[0]?.label ?? "")}"><button type="button" data-sort="d${j + 1}">Δ ${escapeHtml(r.label)}</button></th>`),
  ].join("");
  const body = sorted.map((row) => {
    const defined = row.f1.filter((x): x is number => x !== null);
    const best = runs.length > 1 && defined.length > 1 && new Set(defined).size > 1 ? Math.max(...defined) : null;
    const data = [`data-field="${escapeHtml(row.field)}"`, ...row.f1.map((x, i) => `data-r${i}="${x ?? ""}"`), ...row.delta.slice(1).map((d, j) => `data-d${j + 1}="${d ?? ""}"`)].join(" ");
    const cells = row.f1.map((x, i) => {
      const cls = `num ${grade(x)}${best !== null && x === best ? " best" : ""}`;
      const field = row.rows[i];
      const run = runs[i];
      return `<td class="${cls}"${field && run && wrongValues(field) ? worstAttrs(run, row.field) : ""}>${formatF1(field)}</td>`;
    });
    const deltas = row.delta.slice(1).map((d) => `<td class="num delta ${d === null ? "undefined" : d > 0.0005 ? "up" : d < -0.0005 ? "down" : "same"}">${formatDelta(d)}</td>`);
    return `<tr ${data}><td class="field"><code>${escapeHtml(row.field)}</code></td>${cells.join("")}${deltas.join("")}</tr>`;
  });
  const badges = runs.map((r) => `<span class="${badgeClass(r)}" title="${escapeHtml(r.checks.map((c) => c.text).join("\n") || "no thresholds configured")}">${escapeHtml(runBadge(r))}</span>`).join(" ");
  return (
    `<section class="side" data-suite="${escapeHtml(s.key)}">\n` +
    `<p class="badges">${badges}</p>\n` +
    `<table class="fields side-by-side"><thead><tr>${head}</tr></thead>\n<tbody>\n${body.join("\n")}\n</tbody></table>\n` +
    `</section>`
  );
}

function renderProblems(s: SuiteReport): string {
  if (!s.problems.length) return "";
  const items = s.problems.map((p) => {
    const file = p.uri ? ` <span class="file">${escapeHtml(decodeURIComponent(p.uri.split("/").pop() ?? p.uri))}</span>` : "";
    return `<li>${p.code ? `<code>${escapeHtml(p.code)}</code> ` : ""}${escapeHtml(p.message)}${file}</li>`;
  });
  return `<ul class="problems">${items.join("")}</ul>\n`;
}

export interface RenderOptions {
  nonce: string;
  cspSource: string;
  /** Shown when there is nothing to show. */
  emptyMessage?: string;
  /** Shown above the results (for example that the server could not be reached). */
  notice?: string;
  /** Keys of the suites being evaluated: their figures are marked as being updated. */
  updating?: ReadonlySet<string>;
}

/** Why a suite's figures are not current: being evaluated again, or stale; and why its
 * schema could not be scored, with a link that opens the problem. */
function renderFreshness(s: SuiteReport, updating: boolean): string {
  return renderUpdating(s, updating) + renderNotEvaluated(s);
}

function renderUpdating(s: SuiteReport, updating: boolean): string {
  if (updating) return `<p class="notice updating" role="status">Updating… the figures below are the last run's.</p>\n`;
  if (s.stale) return `<p class="notice stale" role="status">Stale: ${escapeHtml(s.stale)}. The figures below are the last good run's; the suite is evaluated again once that is fixed.</p>\n`;
  return "";
}

/** The schema's problem that stopped the suite: what, and a link to it in the schema. */
export function renderNotEvaluated(s: SuiteReport): string {
  const why = s.notEvaluated;
  if (!why) return "";
  const code = why.code ? ` <code>${escapeHtml(why.code)}</code>` : "";
  const link = `<a class="open"${openAttrs(why.uri, why.range, "Open the problem in the schema")}>line ${why.range.start.line + 1} of the schema</a>`;
  return `<p class="notice not-evaluated" role="alert">Not evaluated:${code} ${escapeHtml(why.message)} (${link}).</p>\n`;
}

const STYLE = `
body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px 24px; }
h1 { font-size: 1.4em; font-weight: 600; margin: 16px 0 4px; }
h2 { font-size: 1.1em; font-weight: 600; margin: 20px 0 2px; }
.toolbar { display: flex; gap: 8px; align-items: center; margin: 4px 0 8px; color: var(--vscode-descriptionForeground); }
.toolbar button { color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; padding: 4px 10px; cursor: pointer; border-radius: 2px; }
.toolbar button:hover { background: var(--vscode-button-hoverBackground); }
.summary { color: var(--vscode-descriptionForeground); margin: 2px 0 8px; }
.summary .big { font-weight: 600; font-size: 1.1em; }
.coverage { color: var(--vscode-descriptionForeground); margin: 0 0 8px; }
.coverage.partial { color: var(--vscode-editorWarning-foreground); }
.good { color: var(--vscode-charts-green, var(--vscode-testing-iconPassed)); }
.fair { color: var(--vscode-charts-yellow, var(--vscode-editorWarning-foreground)); }
.poor { color: var(--vscode-charts-red, var(--vscode-errorForeground)); }
.undefined { color: var(--vscode-descriptionForeground); }
table.fields { border-collapse: collapse; width: 100%; }
th, td { padding: 3px 8px; text-align: left; border-bottom: 1px solid var(--vscode-editorWidget-border, var(--vscode-panel-border)); white-space: nowrap; }
th button { all: unset; cursor: pointer; font-weight: 600; }
th button:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
th[aria-sort="ascending"] button::after { content: " ▲"; }
th[aria-sort="descending"] button::after { content: " ▼"; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.has-findings { cursor: pointer; }
tr.has-findings:hover, tr.has-findings:focus { background: var(--vscode-list-hoverBackground); outline: none; }
tr.has-findings td.field code { text-decoration: underline dotted; }
code { font-family: var(--vscode-editor-font-family); color: var(--vscode-textPreformat-foreground); background: none; }
.bar { display: inline-block; width: 80px; height: 8px; margin-right: 8px; vertical-align: middle; background: var(--vscode-editorWidget-background, rgba(128,128,128,.15)); border: 1px solid var(--vscode-editorWidget-border, transparent); }
.bar .fill { display: block; height: 100%; width: 0; background: currentColor; }
.problems { color: var(--vscode-editorWarning-foreground); margin: 4px 0; padding-left: 18px; }
.problems .file { color: var(--vscode-descriptionForeground); }
details.invented { margin: 8px 0; color: var(--vscode-descriptionForeground); }
details.invented summary { cursor: pointer; }
table.invented { border-collapse: collapse; margin-top: 4px; }
.empty, .notice { color: var(--vscode-descriptionForeground); padding: 8px 0; }
.badges { margin: 4px 0 8px; }
.badge { display: inline-block; padding: 1px 8px; margin-right: 6px; border-radius: 10px; border: 1px solid var(--vscode-editorWidget-border, var(--vscode-panel-border)); font-variant-numeric: tabular-nums; }
.badge.pass { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); border-color: currentColor; }
.badge.fail { color: var(--vscode-testing-iconFailed, var(--vscode-errorForeground)); border-color: currentColor; font-weight: 600; }
table.side-by-side { margin-bottom: 12px; }
td.best { font-weight: 700; text-decoration: underline; }
td[data-uri], td[data-worst] { cursor: pointer; }
td[data-uri]:hover, td[data-uri]:focus, td[data-worst]:hover, td[data-worst]:focus { background: var(--vscode-list-hoverBackground); outline: none; }
a[data-uri] { color: var(--vscode-textLink-foreground); }
table.overall, table.compare, table.changes { border-collapse: collapse; margin-bottom: 12px; }
td.up { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
td.down { color: var(--vscode-testing-iconFailed, var(--vscode-errorForeground)); }
.notice { color: var(--vscode-editorWarning-foreground); }
.notice.not-evaluated { color: var(--vscode-errorForeground); }
.notice a.open { cursor: pointer; text-decoration: underline; }
`;

const SCRIPT = `
const vscode = acquireVsCodeApi();
for (const fill of document.querySelectorAll('.fill')) fill.style.width = fill.dataset.w + '%';
for (const table of document.querySelectorAll('table.fields')) {
  for (const button of table.querySelectorAll('th button')) {
    button.addEventListener('click', () => {
      const key = button.dataset.sort;
      const th = button.parentElement;
      const dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
      for (const other of table.querySelectorAll('th')) other.setAttribute('aria-sort', 'none');
      th.setAttribute('aria-sort', dir);
      const tbody = table.tBodies[0];
      const rows = [...tbody.querySelectorAll('tr[data-field]')];
      const sign = dir === 'ascending' ? 1 : -1;
      rows.sort((a, b) => {
        const x = a.dataset[key], y = b.dataset[key];
        // An undefined figure (empty) sorts after every defined one, either way.
        const c = key === 'field' ? sign * x.localeCompare(y)
          : x === '' || y === '' ? (x === y ? 0 : x === '' ? 1 : -1) : sign * (Number(x) - Number(y));
        return c !== 0 ? c : a.dataset.field.localeCompare(b.dataset.field);
      });
      for (const row of rows) tbody.appendChild(row);
    });
  }
}
function open(el) {
  if (el.dataset.uri) {
    vscode.postMessage({ type: 'open', uri: el.dataset.uri, range: JSON.parse(el.dataset.range) });
    return;
  }
  if (el.dataset.worst) {
    const side = el.closest('section.side');
    vscode.postMessage({ type: 'examples', suite: side.dataset.suite, field: el.closest('tr').dataset.field, run: el.dataset.worst });
    return;
  }
  const run = el.closest('section.run');
  vscode.postMessage({ type: 'findings', suite: run.dataset.suite, field: el.dataset.field, run: run.dataset.extracted });
}
document.addEventListener('click', (e) => {
  const row = e.target.closest('[data-uri], [data-worst], tr.has-findings');
  if (row) { e.preventDefault(); open(row); }
  const run = e.target.closest('button[data-run]');
  if (run) vscode.postMessage({ type: 'run', suite: run.dataset.run });
});
document.addEventListener('keydown', (e) => {
  const row = e.target.closest && e.target.closest('[data-uri], [data-worst], tr.has-findings');
  if (row && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); open(row); }
});
`;

export function renderReport(suites: readonly SuiteReport[], opts: RenderOptions): string {
  const body = suites.length
    ? suites
        .map(
          (s) =>
            `<h1>Suite <code>${escapeHtml(s.name)}</code></h1>\n` +
            `<div class="toolbar"><button type="button" data-run="${escapeHtml(s.key)}">Evaluate again</button>` +
            `<span>${s.runs.length} run${s.runs.length === 1 ? "" : "s"} · click a figure to list its worst values · click a column to sort</span></div>\n` +
            renderFreshness(s, opts.updating?.has(s.key) ?? false) +
            renderProblems(s) +
            (s.runs.length ? renderSideBySide(s) + "\n" + s.runs.map((r) => renderRun(r, s.key)).join("\n") : s.notEvaluated ? "" : `<p class="empty">This suite has no extracted files.</p>`),
        )
        .join("\n")
    : `<p class="empty">${escapeHtml(opts.emptyMessage ?? "No results yet: run “evalschema: Evaluate suite”.")}</p>`;
  return renderPage("evalschema results", body, opts);
}

/** A page of the extension's webviews: strict CSP, the theme's colours, the click script. */
export function renderPage(title: string, body: string, opts: Pick<RenderOptions, "nonce" | "cspSource" | "notice">): string {
  const csp = [
    "default-src 'none'",
    `style-src ${opts.cspSource} 'nonce-${opts.nonce}'`,
    `script-src 'nonce-${opts.nonce}'`,
  ].join("; ");
  const notice = opts.notice ? `<p class="notice">${escapeHtml(opts.notice)}</p>` : "";
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${opts.nonce}">${STYLE}</style>
</head><body>
${notice}
${body}
<script nonce="${opts.nonce}">${SCRIPT}</script>
</body></html>`;
}
