import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeReports, panelTitle, readPanelMessage } from "../src/panel";
import type { RunReport, SuiteReport } from "../src/protocol";
import { renderReport } from "../src/report";

const range = { start: { line: 3, character: 14 }, end: { line: 3, character: 22 } };
const uri = "file:///w/it's a \"run\"/a&b.jsonl";
const run: RunReport = {
  extracted: uri,
  label: "model-a",
  records: 2,
  precision: 0.5,
  recall: 0.5,
  f1: 0.5,
  micro_f1: 0.5,
  coverage: 1,
  off_schema: [],
  checks: [],
  passed: null,
  badge: "",
  fields: [{ field: "total", precision: 0.5, recall: 0.5, f1: 0.5, skipped: 0, matches: 1, mismatches: 1, omissions: 0, hallucinations: 0, errors: 0, invented: false, worst: { uri, range, path: "total", status: "mismatch", score: 0 } }],
  result: {},
};
const report = (key: string, name = key, runs: RunReport[] = [run]): SuiteReport => ({ name, key, schema: "", gold: "", runs, problems: [] });

function unescapeHtml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e] ?? "");
}

test("the messages the rendered view posts are the ones the panel reads", () => {
  const html = renderReport([report("w/<invoices>")], { nonce: "n", cspSource: "vscode-resource:" });
  const row = /data-uri="([^"]*)" data-range="([^"]*)"/.exec(html);
  assert.ok(row, "a row with a worst example carries its place");
  // What the view's script posts for a click on that row and on "Evaluate again".
  const open = { type: "open", uri: unescapeHtml(row[1] ?? ""), range: JSON.parse(unescapeHtml(row[2] ?? "")) as unknown };
  assert.deepEqual(readPanelMessage(open), { type: "open", uri, range });
  const button = /data-run="([^"]*)"/.exec(html);
  assert.ok(button);
  assert.deepEqual(readPanelMessage({ type: "run", suite: unescapeHtml(button[1] ?? "") }), { type: "run", suite: "w/<invoices>" });
  // A field of a run's table: its section names the suite and the run.
  const section = /<section class="run" data-suite="([^"]*)" data-extracted="([^"]*)">/.exec(html);
  const field = /<tr data-field="([^"]*)"[^>]* class="has-findings"/.exec(html);
  assert.ok(section && field);
  const list = { type: "findings", suite: unescapeHtml(section[1] ?? ""), field: unescapeHtml(field[1] ?? ""), run: unescapeHtml(section[2] ?? "") };
  assert.deepEqual(readPanelMessage(list), { type: "findings", suite: "w/<invoices>", field: list.field, run: run.extracted });
});

test("a malformed message from the view is ignored", () => {
  assert.deepEqual(readPanelMessage({ type: "open", uri: "file:///a" }), { type: "open", uri: "file:///a", range: undefined }, "no range: open at the top");
  assert.deepEqual(readPanelMessage({ type: "open", uri: "file:///a", range: null }), { type: "open", uri: "file:///a", range: undefined });
  for (const bad of [null, undefined, "open", 3, {}, { type: "open" }, { type: "open", uri: 3 }, { type: "run" }, { type: "run", suite: ["s"] }, { type: "delete", uri: "file:///a" }, { uri: "file:///a", suite: "s" }, { type: "findings", suite: "s", field: "f" }, { type: "findings", suite: "s", field: 1, run: "r" }]) {
    assert.equal(readPanelMessage(bad), undefined, JSON.stringify(bad));
  }
});

test("the view's title names its one suite", () => {
  assert.equal(panelTitle([report("w/invoices", "invoices")]), "evalschema: invoices");
  assert.equal(panelTitle([report("a"), report("b")]), "evalschema results");
  assert.equal(panelTitle([]), "evalschema results");
});

test("fresh reports replace the ones shown, in place; a suite not shown is not added", () => {
  const stale = [report("a", "A", []), report("b", "B", [])];
  const merged = mergeReports(stale, [report("c", "C"), report("b", "B2")]);
  assert.deepEqual(merged.map((r) => `${r.key}:${r.name}:${r.runs.length}`), ["a:A:0", "b:B2:1"]);
  assert.equal(merged[0], stale[0], "a suite without a fresh report keeps its own");
  assert.deepEqual(stale.map((r) => r.name), ["A", "B"], "input unchanged");
  assert.deepEqual(mergeReports([], [report("a")]), []);
});
