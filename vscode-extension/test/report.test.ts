import assert from "node:assert/strict";
import { test } from "node:test";
import type { FieldRow, RunReport, SuiteReport } from "../src/protocol";
import { readSuiteReports } from "../src/protocol";
import { COLUMNS, escapeHtml, formatCoverage, formatDelta, formatF1, formatScore, grade, renderNotEvaluated, renderReport, renderRun, renderSideBySide, sideRows, sortRows } from "../src/report";

function row(field: string, f1: number, extra: Partial<FieldRow> = {}): FieldRow {
  return { field, precision: f1, recall: f1, f1, skipped: 0, matches: Math.round(f1 * 100), mismatches: 3, omissions: 2, hallucinations: 1, errors: 0, invented: false, ...extra };
}

const right = { mismatches: 0, omissions: 0, hallucinations: 0 };
const run: RunReport = {
  extracted: "file:///w/invoices.model-a.extracted.jsonl",
  label: "model-a",
  records: 240,
  precision: 0.9162,
  recall: 0.914,
  f1: 0.9151,
  micro_f1: 0.9138,
  coverage: 1,
  off_schema: [],
  checks: [],
  passed: null,
  badge: "",
  fields: [
    row("vendor.name", 0.941),
    row("total", 0.759),
    row("line_items[].unit_price", 0.882, right),
    row("notes<script>", 0.5),
  ],
};
const suite: SuiteReport = { name: "invoices", key: "w/invoices", schema: "file:///w/invoices.eval.json", gold: "file:///w/invoices.gold.jsonl", runs: [run], problems: [] };

/** The fields of a run's table, in order (not the invented keys listed after it). */
function fieldOrder(html: string): string[] {
  const table = html.split('<details class="invented">')[0] ?? "";
  return [...table.matchAll(/<tr data-field="([^"]*)"/g)].map((m) => m[1] ?? "");
}

test("rows sort by any column, stable with the field name as tie-break", () => {
  assert.deepEqual(sortRows(run.fields, "f1", "asc").map((r) => r.field), ["notes<script>", "total", "line_items[].unit_price", "vendor.name"]);
  assert.deepEqual(sortRows(run.fields, "f1", "desc").map((r) => r.field), ["vendor.name", "line_items[].unit_price", "total", "notes<script>"]);
  assert.deepEqual(sortRows(run.fields, "field", "asc").map((r) => r.field), ["line_items[].unit_price", "notes<script>", "total", "vendor.name"]);
  const tied = [row("b", 0.5), row("a", 0.5)];
  assert.deepEqual(sortRows(tied, "mismatches", "desc").map((r) => r.field), ["a", "b"]);
});

test("a run renders every column, worst F1 first, with a bar as wide as its F1", () => {
  const html = renderRun(run, "invoices");
  assert.deepEqual(fieldOrder(html), ["notes&lt;script&gt;", "total", "line_items[].unit_price", "vendor.name"]);
  for (const c of COLUMNS) assert.ok(html.includes(`data-sort="${c.key}">${c.title}<`), c.key);
  assert.match(html, /aria-sort="ascending"><button type="button" data-sort="f1">/);
  assert.match(html, /data-field="total"[^>]*><td class="field"><code>total<\/code><\/td><td class="num f1"><span class="bar fair"><span class="fill" data-w="75.9"><\/span><\/span>0\.759<\/td>/);
  assert.match(html, /F1 0\.915<\/span> macro · 0\.914 micro · precision 0\.916 · recall 0\.914 · 240 records/);
  assert.match(html, /<h2>model-a<\/h2>/);
});

test("keys the model invented are listed apart, most frequent first, still clickable", () => {
  const invented = (field: string, n: number, extra: Partial<FieldRow> = {}): FieldRow =>
    row(field, 0, { precision: 0, recall: 1, matches: 0, mismatches: 0, omissions: 0, hallucinations: n, invented: true, ...extra });
  const html = renderRun({ ...run, fields: [...run.fields, invented("discount", 3), invented("vat<b>", 9)] }, "invoices");
  assert.deepEqual(fieldOrder(html), ["notes&lt;script&gt;", "total", "line_items[].unit_price", "vendor.name"]);
  assert.match(html, /<details class="invented"><summary>2 keys the model invented \(never in gold\)<\/summary>/);
  const extra = html.slice(html.indexOf('<details class="invented">'));
  assert.ok(extra.indexOf("vat&lt;b&gt;") < extra.indexOf("discount"), "most frequent first");
  assert.match(extra, /<tr data-field="vat&lt;b&gt;" class="has-findings" tabindex="0" title="List the 9 findings of vat&lt;b&gt; in this run"><td class="field"><code>vat&lt;b&gt;<\/code><\/td><td class="num">9<\/td>/);
  assert.doesNotMatch(renderRun(run, "invoices"), /class="invented"/);
  const [read] = readSuiteReports({ suites: [{ ...suite, runs: [{ ...run, fields: [{ ...invented("x", 1) }] }] }] });
  assert.equal(read?.runs[0]?.fields[0]?.invented, true);
});

test("a field with findings lists them when clicked; one without is plain", () => {
  const html = renderRun({ ...run, fields: [...run.fields, row("perfect", 1, { mismatches: 0, omissions: 0, hallucinations: 0 })] }, "invoices");
  const tr = /<tr data-field="vendor\.name"[^>]*>/.exec(html)?.[0] ?? "";
  assert.match(tr, /class="has-findings" tabindex="0" title="List the 6 findings of vendor\.name in this run"/);
  assert.doesNotMatch(tr, /data-uri/, "the list comes from the server, for this run");
  assert.match(html, /<section class="run" data-suite="invoices" data-extracted="file:\/\/\/w\/invoices\.model-a\.extracted\.jsonl">/);
  const plain = /<tr data-field="perfect"[^>]*>/.exec(html)?.[0] ?? "";
  assert.doesNotMatch(plain, /has-findings|tabindex/);
});

test("data from files is escaped: no markup from a field name reaches the page", () => {
  const html = renderReport([suite], { nonce: "N0nce", cspSource: "vscode-resource:" });
  assert.ok(!html.includes("<script>\""), "raw field name");
  assert.ok(html.includes("<code>notes&lt;script&gt;</code>"));
  assert.equal(escapeHtml(`<a href="x" onclick='y'>&`), "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;");
});

test("the page has a strict content security policy and nonce'd style and script only", () => {
  const html = renderReport([suite], { nonce: "N0nce", cspSource: "vscode-resource:" });
  assert.match(html, /default-src 'none'; style-src vscode-resource: 'nonce-N0nce'; script-src 'nonce-N0nce'/);
  assert.equal([...html.matchAll(/<script/g)].length, 1);
  assert.match(html, /<script nonce="N0nce">/);
  assert.doesNotMatch(html, / style="/, "no inline style attributes (the CSP forbids them)");
  assert.match(html, /var\(--vscode-editor-background\)/, "follows the theme");
  assert.match(html, /<h1>Suite <code>invoices<\/code><\/h1>/);
  assert.match(html, /data-run="w\/invoices">Evaluate again</, "re-runs by key");
});

test("empty states say what to do", () => {
  assert.match(renderReport([], { nonce: "n", cspSource: "c" }), /No results yet: run “evalschema: Evaluate suite”/);
  assert.match(renderReport([{ ...suite, runs: [] }], { nonce: "n", cspSource: "c" }), /no extracted files/);
  assert.match(renderRun({ ...run, fields: [] }, "s"), /No fields were judged/);
  assert.match(renderReport([], { nonce: "n", cspSource: "c", notice: "server <down>" }), /class="notice">server &lt;down&gt;/);
});

test("the suite's problems (unreadable records, schema errors) are listed, escaped", () => {
  const html = renderReport([{ ...suite, problems: [{ uri: "file:///w/invoices.model%20b.jsonl", code: "bad-record", message: "line 3: <not json>" }] }], { nonce: "n", cspSource: "c" });
  assert.match(html, /<ul class="problems"><li><code>bad-record<\/code> line 3: &lt;not json&gt; <span class="file">invoices.model b.jsonl<\/span><\/li><\/ul>/);
  assert.doesNotMatch(renderReport([suite], { nonce: "n", cspSource: "c" }), /class="problems"/);
});

test("F1 grades for the theme colours", () => {
  assert.deepEqual([grade(0.95), grade(0.9), grade(0.75), grade(0.2)], ["good", "good", "fair", "poor"]);
});

test("a well-formed report is read back unchanged", () => {
  assert.deepEqual(readSuiteReports({ suites: [suite] }), [suite]);
  const older = { ...suite, runs: [{ ...run, result: { total_records: 240 }, fields: run.fields.map((f) => ({ ...f, worst: null })) }] };
  assert.deepEqual(readSuiteReports({ suites: [older] }), [suite], "what an older server added is left out");
});

test("server answers of the wrong shape become empty data, not a crash", () => {
  assert.deepEqual(readSuiteReports(null), []);
  assert.deepEqual(readSuiteReports({ suites: [{ name: 3 }, "x"] }), []);
  const [s] = readSuiteReports({ suites: [{ name: "s", runs: [{ extracted: "file:///e.jsonl", f1: "bad", fields: [{ field: "a", f1: 0.5, errors: "2" }, { nofield: 1 }] }] }] });
  assert.equal(s?.runs[0]?.f1, null, "not a number: undefined, never a made-up figure");
  assert.equal(s?.runs[0]?.label, "e.jsonl");
  assert.deepEqual(s?.runs[0]?.fields.map((f) => [f.field, f.f1, f.errors]), [["a", 0.5, 0]]);
  assert.equal(s?.key, "s", "the key defaults to the name");
  assert.deepEqual(s?.problems, []);
});

test("undefined figures (null) render as — and a field only skipped as skipped, never 1.000", () => {
  assert.equal(formatScore(null), "—");
  assert.equal(grade(null), "undefined");
  const skipped = row("notes", 0, { precision: null, recall: null, f1: null, skipped: 4, matches: 0, mismatches: 0, omissions: 0, hallucinations: 0 });
  const invented = row("extra", 0, { precision: 0, recall: null, f1: 0, matches: 0, mismatches: 0, omissions: 0, hallucinations: 2 });
  const nothing = row("gone", 0, { precision: null, recall: 0, f1: 0, matches: 0, mismatches: 0, omissions: 3, hallucinations: 0 });
  const undef: RunReport = { ...run, precision: null, recall: 0.5, f1: null, micro_f1: null, fields: [...run.fields, skipped, invented, nothing] };
  const html = renderRun(undef, "invoices");
  assert.match(html, /<span class="big undefined">F1 —<\/span> macro · — micro · precision — · recall 0\.500/);
  assert.match(html, /data-field="notes"[^>]*><td class="field"><code>notes<\/code><\/td><td class="num f1"><span class="bar undefined"><span class="fill" data-w="0\.0"><\/span><\/span>skipped<\/td><td class="num">—<\/td><td class="num">—<\/td>/);
  assert.match(html, /data-field="extra"[^>]*>.*?<\/span><\/span>0\.000<\/td><td class="num">0\.000<\/td><td class="num">—<\/td>/);
  assert.match(html, /data-field="gone"[^>]*>.*?<\/span><\/span>0\.000<\/td><td class="num">—<\/td><td class="num">0\.000<\/td>/);
  assert.doesNotMatch(html, /1\.000/);
  // undefined figures sort after every defined one, in either direction
  for (const dir of ["asc", "desc"] as const) {
    assert.equal(sortRows(undef.fields, "f1", dir).at(-1)?.field, "notes", dir);
    assert.equal(sortRows(undef.fields, "recall", dir).slice(-2).map((r) => r.field).sort().join(), "extra,notes", dir);
  }
  const [read] = readSuiteReports({ suites: [{ ...suite, runs: [{ ...undef }] }] });
  assert.deepEqual(read?.runs[0], undef, "null survives the tolerant reader");
});

test("the run's gold coverage is shown, with the gold keys no schema node covers", () => {
  assert.match(renderRun(run, "s"), /<p class="coverage">gold coverage 100\.0%<\/p>/);
  const partial: RunReport = { ...run, coverage: 0.015, off_schema: [{ pointer: "/events<x>", values: 66 }] };
  assert.match(renderRun(partial, "s"), /<p class="coverage partial">gold coverage 1\.5% · not in the schema: \/events&lt;x&gt; \(66\)<\/p>/);
  assert.equal(formatCoverage({ ...run, coverage: null }), "gold coverage —");
  const [read] = readSuiteReports({ suites: [{ ...suite, runs: [{ ...partial, off_schema: [{ pointer: "/a", values: 2 }, { nopointer: 1 }, "x"] }] }] });
  assert.deepEqual(read?.runs[0]?.off_schema, [{ pointer: "/a", values: 2 }]);
});

// -- runs side by side ----------------------------------------------------------------------

const gate = (passed: boolean | null, badge: string, text = "") => ({
  checks: passed === null ? [] : [{ field: null, metric: "macro F1", value: 0.8, threshold: 0.85, passed, text }],
  passed,
  badge,
});
const runB: RunReport = {
  ...run,
  extracted: "file:///w/invoices.model-b.extracted.jsonl",
  label: "model-b",
  f1: 0.8059,
  ...gate(false, "✗ < 0.85", "overall macro F1 0.8059 < 0.8500"),
  fields: [
    row("vendor.name", 0.95),
    row("total", 0.659),
    row("line_items[].unit_price", 0.882, right),
    row("vendor.vat_id", 0.5),
  ],
};
const runA: RunReport = { ...run, ...gate(true, "✓", "overall macro F1 0.9151 >= 0.8500") };

function sideOrder(html: string): string[] {
  const side = html.split('<table class="fields side-by-side">')[1]?.split("</table>")[0] ?? "";
  return [...side.matchAll(/<tr data-field="([^"]*)"/g)].map((m) => m[1] ?? "");
}

test("side by side: one row per field, a column per run in the given order, Δ against the first", () => {
  const rows = sideRows([runA, runB]);
  assert.deepEqual(rows.map((r) => r.field), ["line_items[].unit_price", "notes<script>", "total", "vendor.name", "vendor.vat_id"]);
  const total = rows.find((r) => r.field === "total");
  assert.deepEqual(total?.f1, [0.759, 0.659]);
  assert.equal(total?.delta[0], null, "the baseline has no Δ");
  assert.ok(Math.abs((total?.delta[1] ?? 0) + 0.1) < 1e-12);
  const onlyB = rows.find((r) => r.field === "vendor.vat_id");
  assert.deepEqual(onlyB?.f1, [null, 0.5], "a field one run lacks is undefined there");
  assert.deepEqual(onlyB?.delta, [null, null], "no Δ against an undefined figure");
  assert.deepEqual(rows.find((r) => r.field === "notes<script>")?.f1, [0.5, null]);
});

test("Δ is signed with a real minus, rounded to 3 places; undefined is —", () => {
  assert.equal(formatDelta(0.0123), "+0.012");
  assert.equal(formatDelta(-0.1), "−0.100");
  assert.equal(formatDelta(0.0002), "0.000");
  assert.equal(formatDelta(-0.0002), "0.000", "never −0.000");
  assert.equal(formatDelta(null), "—");
  assert.equal(formatDelta(Number.NaN), "—");
});

test("the side-by-side table: regressions first, the better F1 marked, Δ coloured, badges with pass/fail", () => {
  const html = renderSideBySide({ ...suite, runs: [runA, runB] });
  assert.deepEqual(sideOrder(html), ["total", "line_items[].unit_price", "vendor.name", "notes&lt;script&gt;", "vendor.vat_id"], "by Δ ascending, undefined last");
  assert.match(html, /aria-sort="ascending"[^>]*><button type="button" data-sort="d1">Δ model-b<\/button>/);
  assert.match(html, /<th scope="col" class="num" aria-sort="none"><button type="button" data-sort="r0">model-a<\/button><\/th><th scope="col" class="num" aria-sort="none"><button type="button" data-sort="r1">model-b<\/button>/, "the runs in the given (configuration's) order");
  const worst = (run: string, field: string) => ` tabindex="0" title="List the worst values of ${field} in model-${run}" data-worst="file:\\/\\/\\/w\\/invoices\\.model-${run}\\.extracted\\.jsonl"`;
  assert.match(html, new RegExp(`<tr data-field="total" data-r0="0.759" data-r1="0.659" data-d1="-0\\.0?9[0-9]*"><td class="field"><code>total</code></td><td class="num fair best"${worst("a", "total")}>0\\.759</td><td class="num poor"${worst("b", "total")}>0\\.659</td><td class="num delta down">−0\\.100</td></tr>`));
  assert.match(html, /<tr data-field="vendor.name"[^>]*><td class="field"><code>vendor\.name<\/code><\/td><td class="num good"[^>]*model-a[^>]*>0\.941<\/td><td class="num good best"[^>]*data-worst="file:\/\/\/w\/invoices\.model-b\.extracted\.jsonl"[^>]*>0\.950<\/td><td class="num delta up">\+0\.009<\/td>/);
  assert.match(html, /<tr data-field="line_items\[\]\.unit_price"[^>]*>.*<td class="num fair">0\.882<\/td><td class="num fair">0\.882<\/td><td class="num delta same">0\.000<\/td>/, "a tie marks neither; nothing wrong: not clickable");
  assert.match(html, /<span class="badge pass" title="overall macro F1 0\.9151 &gt;= 0\.8500">model-a 0\.915 ✓<\/span>/);
  assert.match(html, /<span class="badge fail" title="overall macro F1 0\.8059 &lt; 0\.8500">model-b 0\.806 ✗ &lt; 0\.85<\/span>/);
  const one = renderSideBySide({ ...suite, runs: [{ ...run, ...gate(null, "") }] });
  assert.doesNotMatch(one, /Δ|best/, "one run: no Δ column, nothing to be better than");
  assert.match(one, /<span class="badge" title="no thresholds configured">model-a 0\.915<\/span>/);
  assert.equal(renderSideBySide({ ...suite, runs: [] }), "");
});

test("the page shows the runs side by side above each run's table, and says when figures are not current", () => {
  const opts = { nonce: "n", cspSource: "vscode-resource:" };
  const page = renderReport([{ ...suite, runs: [runA, runB] }], opts);
  assert.ok(page.indexOf("side-by-side") < page.indexOf("<h2>model-a</h2>"));
  assert.doesNotMatch(page, /Updating|Stale/);
  assert.match(renderReport([{ ...suite, runs: [runA, runB] }], { ...opts, updating: new Set(["w/invoices"]) }), /<p class="notice updating" role="status">Updating… the figures below are the last run's\.<\/p>/);
  assert.doesNotMatch(renderReport([suite], { ...opts, updating: new Set(["other"]) }), /Updating/, "only the suite being evaluated");
  assert.match(renderReport([{ ...suite, stale: "schema has errors" }], opts), /<p class="notice stale" role="status">Stale: schema has errors\. The figures below are the last good run's/);
});

test("an x-eval-skip field reads skipped in every table, never a figure, and is not clickable", () => {
  const skipped = (extra: Partial<FieldRow> = {}): FieldRow => row("notes", 0, { precision: null, recall: null, f1: null, skipped: 240, matches: 0, ...right, ...extra });
  assert.equal(formatF1(skipped()), "skipped");
  assert.equal(formatF1(skipped({ errors: 1 })), "error", "a result not judged for an error is not a skip");
  assert.equal(formatF1(skipped({ skipped: 0 })), "—");
  assert.equal(formatF1(undefined), "—", "a field the run lacks");
  const html = renderSideBySide({ ...suite, runs: [{ ...runA, fields: [skipped()] }, { ...runB, fields: [skipped()] }] });
  assert.match(html, /<tr data-field="notes" data-r0="" data-r1="" data-d1=""><td class="field"><code>notes<\/code><\/td><td class="num undefined">skipped<\/td><td class="num undefined">skipped<\/td><td class="num delta undefined">—<\/td><\/tr>/);
  assert.doesNotMatch(html, /1\.000|data-worst/);
});

test("a field whose schema has an error shows error, never a figure, and lists its errors when clicked", () => {
  const broken = row("currency", 0, { precision: null, recall: null, f1: null, matches: 0, mismatches: 0, omissions: 0, hallucinations: 0, errors: 3 });
  assert.equal(formatF1(broken), "error");
  assert.equal(formatF1({ ...broken, errors: 0, skipped: 2 }), "skipped");
  const html = renderRun({ ...run, fields: [broken] }, "invoices");
  assert.match(html, /<tr data-field="currency"[^>]* class="has-findings" tabindex="0" title="List the 3 findings of currency in this run"><td class="field"><code>currency<\/code><\/td><td class="num f1"><span class="bar undefined"><span class="fill" data-w="0\.0"><\/span><\/span>error<\/td><td class="num">—<\/td><td class="num">—<\/td>/);
  assert.doesNotMatch(html.split("<tbody>")[1] ?? "", /1\.000/);
});

const notEvaluated = {
  message: "the schema is not valid JSON: Expecting ':' delimiter <b>",
  code: "invalid-json",
  uri: "file:///w/invoices.eval.json",
  range: { start: { line: 7, character: 15 }, end: { line: 7, character: 16 } },
};

test("a suite whose schema cannot be scored says why, with a link that opens the problem", () => {
  const stopped: SuiteReport = { ...suite, runs: [], notEvaluated };
  const html = renderReport([stopped], { nonce: "n", cspSource: "c" });
  assert.ok(
    html.includes(
      '<p class="notice not-evaluated" role="alert">Not evaluated: <code>invalid-json</code> the schema is not valid JSON: Expecting &#39;:&#39; delimiter &lt;b&gt; ' +
        '(<a class="open" tabindex="0" title="Open the problem in the schema" data-uri="file:///w/invoices.eval.json" data-range="{&quot;start&quot;:{&quot;line&quot;:7,&quot;character&quot;:15},&quot;end&quot;:{&quot;line&quot;:7,&quot;character&quot;:16}}">line 8 of the schema</a>).</p>',
    ),
    html,
  );
  assert.doesNotMatch(html, /no extracted files/, "the notice says why there is nothing");
  // Stale runs are still shown, under both notices.
  const stale = renderReport([{ ...suite, stale: "schema has errors", notEvaluated }], { nonce: "n", cspSource: "c" });
  assert.ok(stale.indexOf("Stale: schema has errors") < stale.indexOf("Not evaluated:"));
  assert.ok(stale.indexOf("Not evaluated:") < stale.indexOf('<section class="run"'));
  assert.equal(renderNotEvaluated(suite), "");
  const [read] = readSuiteReports({ suites: [stopped] });
  assert.deepEqual(read?.notEvaluated, notEvaluated);
  const [odd] = readSuiteReports({ suites: [{ ...suite, notEvaluated: { code: "x" } }] });
  assert.equal(odd?.notEvaluated, undefined, "no message or uri: not shown");
});
