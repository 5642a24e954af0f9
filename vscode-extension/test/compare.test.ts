import assert from "node:assert/strict";
import { test } from "node:test";
import { fieldDelta, readComparison, renderComparison, sortByChange } from "../src/compare";
import { renderPage } from "../src/report";

const diff = (delta: number | null, low: number | null, high: number | null, significant: boolean) => ({ delta, low, high, significant });
const metric = (name: string, a: number | null, b: number | null, d: ReturnType<typeof diff>) => ({ metric: name, values: [a, b], differences: [d] });
const range = { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } };
const worst = (uri: string) => ({ uri, range, path: "vendor.vat_id", status: "mismatch", score: 0 });

/** A compareRuns answer as the server sends it (result: the engine's Comparison.to_dict()). */
const answer = {
  markdown: "| ignored |",
  result: {
    labels: ["model-a", "model-b"],
    records: 240,
    resamples: 2000,
    seed: 0,
    confidence: 0.95,
    overall: { macro_f1: metric("macro F1", 0.9151, 0.8059, diff(-0.1092, -0.125, -0.094, true)) },
    fields: [
      { field: "total", f1: metric("F1", 0.95, 0.96, diff(0.01, -0.02, 0.03, false)), regressed: [2], fixed: [4] },
      { field: "vendor.vat_id", f1: metric("F1", 0.98, 0.7, diff(-0.28, -0.33, -0.22, true)), regressed: [31], fixed: [0] },
      { field: "notes", f1: metric("F1", null, null, diff(null, null, null, false)), regressed: [0], fixed: [0] },
      { field: "vendor.name", f1: metric("F1", 0.9, 0.8, diff(-0.1, -0.2, 0.01, false)), regressed: [9], fixed: [1] },
    ],
    flips: [{ run: 1, record_id: "INV-1", label: "INV-1", gold_index: 0, regressed: ["vendor.vat_id"], fixed: ["total"] }],
  },
  records: [{ record: "INV-1", places: [{ run: "model-a", uri: "file:///w/a.jsonl", range }, { run: "model-b", uri: "file:///w/b%20c.jsonl", range }] }],
  fields: [{ field: "vendor.vat_id", worst: [null, worst("file:///w/b%20c.jsonl")] }],
};

test("the comparison is read from the server's answer; a malformed one is not", () => {
  const c = readComparison(answer);
  assert.ok(c);
  assert.deepEqual(c.labels, ["model-a", "model-b"]);
  assert.equal(c.records, 240);
  assert.equal(c.overall[0]?.name, "macro F1");
  assert.deepEqual(c.fields.find((f) => f.field === "vendor.vat_id")?.worst.map((w) => w?.uri ?? null), [null, "file:///w/b%20c.jsonl"]);
  assert.deepEqual(c.changes, [{ record: "INV-1", regressed: ["vendor.vat_id"], fixed: ["total"], places: answer.records[0]?.places }]);
  for (const bad of [undefined, null, "x", { markdown: "m" }, { result: 3 }]) assert.equal(readComparison(bad), undefined);
  const odd = readComparison({ result: { labels: [1, "b"], fields: [{ field: 3 }, { field: "x", f1: "no" }], flips: [7] }, records: [{ record: "r", places: [{ uri: 1 }] }] });
  assert.deepEqual(odd?.labels, ["b"]);
  assert.deepEqual(odd?.fields.map((f) => [f.field, f.f1.values, fieldDelta(f)]), [["x", [], null]]);
});

test("fields: largest regressions first, undefined changes last", () => {
  const c = readComparison(answer);
  assert.deepEqual(sortByChange(c?.fields ?? []).map((f) => f.field), ["vendor.vat_id", "vendor.name", "total", "notes"]);
});

test("the page: field names as code (never markdown), Δ with interval and significance, clickable figures and records", () => {
  const c = readComparison(answer);
  assert.ok(c);
  const html = renderComparison(c);
  assert.match(html, /<code>vendor\.vat_id<\/code>/, "the underscore stays");
  assert.doesNotMatch(html, /<em>|vat id/);
  const order = [...html.matchAll(/<tr data-field="([^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(order, ["vendor.vat_id", "vendor.name", "total", "notes"]);
  assert.match(html, /<td class="num delta down">−0\.280 \[−0\.330, −0\.220\] \*<\/td>/, "significant regression");
  assert.match(html, /<td class="num delta same">−0\.100 \[−0\.200, \+0\.010\]<\/td>/, "not significant: no colour, no star");
  assert.match(html, /<td class="num delta undefined">—<\/td>/);
  assert.match(html, /<td class="num" tabindex="0" title="Open the worst example of vendor\.vat_id in model-b" data-uri="file:\/\/\/w\/b%20c\.jsonl" data-range="[^"]+">0\.700<\/td>/);
  assert.match(html, /<td class="num">0\.980<\/td>/, "no worst example in model-a: not clickable");
  assert.match(html, /<td class="num">31 worse, 0 better<\/td>/);
  assert.match(html, /<td class="num delta down">−0\.109 \[−0\.125, −0\.094\] \*<\/td>/, "overall macro F1");
  assert.match(html, /<h2>Records whose fields changed \(1\)<\/h2>/);
  assert.match(html, /<td><code>INV-1<\/code><\/td><td class="down"><code>vendor\.vat_id<\/code><\/td><td class="up"><code>total<\/code><\/td>/);
  assert.match(html, /<a href="#" tabindex="0" title="Open INV-1 in model-b" data-uri="file:\/\/\/w\/b%20c\.jsonl"/);
  const none = renderComparison({ ...c, changes: [] });
  assert.match(none, /No field of any record changed/);
  const page = renderPage("evalschema: compare", html, { nonce: "n", cspSource: "vscode-resource:" });
  assert.match(page, /script-src 'nonce-n'/);
  assert.match(page, /closest\('\[data-uri\], \[data-worst\], tr\.has-findings'\)/, "its links open through the page's one script");
});

test("data from files is escaped in the comparison", () => {
  const c = readComparison({ ...answer, result: { ...answer.result, labels: ["<a>", "b"], fields: [{ field: "x<script>", f1: metric("F1", 1, 0, diff(-1, -1, -1, true)), regressed: [1], fixed: [0] }], flips: [] } });
  const html = renderComparison(c ?? assert.fail("no comparison"));
  assert.doesNotMatch(html, /<script>|<a>/);
  assert.match(html, /x&lt;script&gt;/);
});
