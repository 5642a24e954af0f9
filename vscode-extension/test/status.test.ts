import assert from "node:assert/strict";
import { test } from "node:test";
import type { SuiteInfo, SuiteSummary } from "../src/protocol";
import { readSuiteInfos, readSuiteSummaries } from "../src/protocol";
import { normalizeUri, sameUri, statusView, suiteOfUri } from "../src/status";

const dir = "file:///tmp/ws%20x";
const suites: SuiteInfo[] = [
  { name: "invoices", key: "invoices", folder: dir, schema: `${dir}/invoices.eval.json`, gold: `${dir}/invoices.gold.jsonl`, extracted: [`${dir}/a.extracted.jsonl`, `${dir}/b.extracted.jsonl`], config: `${dir}/evalschema.toml` },
  { name: "receipts", key: "ws/receipts", folder: dir, schema: `${dir}/receipts.eval.json`, gold: `${dir}/receipts.gold.jsonl`, extracted: [`${dir}/r.jsonl`], config: null },
];
const run = (extracted: string, label: string, f1: number) => ({ extracted, label, records: 10, precision: f1, recall: f1, f1, micro_f1: f1, coverage: 1, off_schema: [] });
const summaries = new Map<string, SuiteSummary>([
  ["invoices", { name: "invoices", key: "invoices", runs: [run(`${dir}/a.extracted.jsonl`, "a", 0.9151), run(`${dir}/b.extracted.jsonl`, "b", 0.8059)] }],
]);

test("URIs compare after decoding and drive-letter case", () => {
  assert.equal(sameUri("file:///tmp/ws%20x/a.json", "file:///tmp/ws x/a.json"), true);
  assert.equal(normalizeUri("file:///C%3A/x"), "file:///c:/x");
  assert.equal(sameUri("file:///a/b.json", "file:///a/c.json"), false);
  assert.equal(normalizeUri("file:///bad%zz"), "file:///bad%zz");
});

test("a file belongs to the suite that names it as schema, gold or extracted", () => {
  assert.equal(suiteOfUri("file:///tmp/ws x/b.extracted.jsonl", suites)?.name, "invoices");
  assert.equal(suiteOfUri(`${dir}/receipts.gold.jsonl`, suites)?.name, "receipts");
  assert.equal(suiteOfUri(`${dir}/other.json`, suites), undefined);
  assert.equal(suiteOfUri(undefined, suites), undefined);
});

test("the active extracted file shows its own run's F1; other files of the suite the first run's", () => {
  const base = { suites, summaries, running: new Set<string>() };
  const b = statusView({ ...base, activeUri: `${dir}/b.extracted.jsonl` });
  assert.equal(b.text, "$(graph) invoices F1 0.806");
  assert.match(b.tooltip, /▶ b: F1 0\.806 macro/);
  assert.match(b.tooltip, /Click to show the report/);
  const schema = statusView({ ...base, activeUri: `${dir}/invoices.eval.json` });
  assert.equal(schema.text, "$(graph) invoices F1 0.915");
  assert.equal(schema.suite, "invoices");
});

test("a spinner while the active suite runs, keeping the last F1", () => {
  const v = statusView({ suites, summaries, running: new Set(["invoices"]), activeUri: `${dir}/a.extracted.jsonl` });
  assert.equal(v.text, "$(sync~spin) invoices F1 0.915");
  const fresh = statusView({ suites, summaries: new Map(), running: new Set(["ws/receipts"]), activeUri: `${dir}/r.jsonl` });
  assert.equal(fresh.text, "$(sync~spin) receipts", "shows the name, tracks the key");
  assert.equal(fresh.suite, "ws/receipts");
});

test("outside any suite: the last suite shown stays; else hidden (or a bare spinner)", () => {
  const base = { suites, summaries, running: new Set<string>(), activeUri: "file:///elsewhere.py" };
  assert.equal(statusView({ ...base, lastSuite: "invoices" }).text, "$(graph) invoices F1 0.915");
  assert.equal(statusView(base).visible, false);
  const bare = statusView({ ...base, running: new Set(["ws/receipts"]) });
  assert.equal(bare.text, "$(sync~spin) evalschema");
  assert.equal(bare.tooltip, "Evaluating receipts…");
  assert.equal(statusView({ ...base, suites: [suites[1] as SuiteInfo] }).text, "$(graph) receipts: not evaluated");
});

test("list and run answers are read defensively", () => {
  assert.deepEqual(readSuiteInfos({ suites: [{ name: "s", key: "a/s", folder: "f", schema: "x", gold: "g", extracted: ["e", 3], config: 3 }, { bad: 1 }] }), [
    { name: "s", key: "a/s", folder: "f", schema: "x", gold: "g", extracted: ["e"], config: null },
  ]);
  assert.equal(readSuiteInfos({ suites: [{ name: "s", config: "file:///w/evalschema.toml" }] })[0]?.config, "file:///w/evalschema.toml");
  assert.deepEqual(readSuiteSummaries({ suites: [{ name: "s", runs: [{ extracted: "file:///x/e.jsonl", f1: 0.5 }, {}] }] }), [
    { name: "s", key: "s", runs: [{ extracted: "file:///x/e.jsonl", label: "e.jsonl", records: 0, precision: null, recall: null, f1: 0.5, micro_f1: null, coverage: null, off_schema: [] }] },
  ]);
  assert.equal(readSuiteSummaries({ suites: [{ name: "s", runs: [], problems: 2 }] })[0]?.problems, 2, "problems kept when sent");
  assert.deepEqual(readSuiteSummaries(undefined), []);
});

test("an undefined F1 (null: nothing was judged) shows as — in the status bar and its tooltip", () => {
  const undef = { extracted: `${dir}/a.extracted.jsonl`, label: "a", records: 0, precision: null, recall: null, f1: null, micro_f1: null, coverage: null, off_schema: [] };
  const v = statusView({ suites, summaries: new Map([["invoices", { name: "invoices", key: "invoices", runs: [undef] }]]), running: new Set<string>(), activeUri: `${dir}/a.extracted.jsonl` });
  assert.equal(v.text, "$(graph) invoices F1 —");
  assert.match(v.tooltip, /▶ a: F1 — macro, — micro \(P —, R —, 0 records\)/);
  assert.doesNotMatch(v.tooltip, /1\.000|0\.000/);
});
