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
const run = (extracted: string, label: string, f1: number) => ({ extracted, label, records: 10, precision: f1, recall: f1, f1, micro_f1: f1, coverage: 1, off_schema: [], checks: [], passed: null, badge: "" });
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
  assert.equal(b.text, "$(graph) invoices · b F1 0.806", "names the run it shows");
  assert.match(b.tooltip, /▶ b: F1 0\.806 macro/);
  assert.match(b.tooltip, /Click to show the report/);
  const schema = statusView({ ...base, activeUri: `${dir}/invoices.eval.json` });
  assert.equal(schema.text, "$(graph) invoices · a F1 0.915");
  assert.equal(schema.suite, "invoices");
});

test("a suite or run named like an icon shows as typed in the status bar", () => {
  const named: SuiteInfo[] = [{ ...(suites[0] ?? assert.fail()), name: "$(pass) ok", key: "k" }];
  const sums = new Map<string, SuiteSummary>([["k", { name: "$(pass) ok", key: "k", runs: [run(`${dir}/a.extracted.jsonl`, "$(check)", 0.5)] }]]);
  const v = statusView({ suites: named, summaries: sums, running: new Set<string>(), activeUri: `${dir}/a.extracted.jsonl` });
  assert.equal(v.text, "$(graph) \\$(pass) ok · \\$(check) F1 0.500", "only the status bar's own icon renders");
  assert.match(v.tooltip, /^evalschema suite \$\(pass\) ok \(\$\(check\)\)/, "the tooltip is plain text: as typed");
});

test("a spinner while the active suite runs, keeping the last F1", () => {
  const v = statusView({ suites, summaries, running: new Set(["invoices"]), activeUri: `${dir}/a.extracted.jsonl` });
  assert.equal(v.text, "$(sync~spin) invoices · a F1 0.915 (updating)", "the last figure, said to be updating");
  assert.match(v.tooltip, /the figures are the last run's until it ends/);
  const fresh = statusView({ suites, summaries: new Map(), running: new Set(["ws/receipts"]), activeUri: `${dir}/r.jsonl` });
  assert.equal(fresh.text, "$(sync~spin) receipts", "shows the name, tracks the key");
  assert.equal(fresh.suite, "ws/receipts");
});

test("outside any suite: the last suite shown stays; else hidden (or a bare spinner)", () => {
  const base = { suites, summaries, running: new Set<string>(), activeUri: "file:///elsewhere.py" };
  assert.equal(statusView({ ...base, lastSuite: "invoices" }).text, "$(graph) invoices · a F1 0.915");
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
    { name: "s", key: "s", runs: [{ extracted: "file:///x/e.jsonl", label: "e.jsonl", records: 0, precision: null, recall: null, f1: 0.5, micro_f1: null, coverage: null, off_schema: [], checks: [], passed: null, badge: "" }] },
  ]);
  assert.equal(readSuiteSummaries({ suites: [{ name: "s", runs: [], problems: 2 }] })[0]?.problems, 2, "problems kept when sent");
  assert.deepEqual(readSuiteSummaries(undefined), []);
});

test("an undefined F1 (null: nothing was judged) shows as — in the status bar and its tooltip", () => {
  const undef = { extracted: `${dir}/a.extracted.jsonl`, label: "a", records: 0, precision: null, recall: null, f1: null, micro_f1: null, coverage: null, off_schema: [], checks: [], passed: null, badge: "" };
  const v = statusView({ suites, summaries: new Map([["invoices", { name: "invoices", key: "invoices", runs: [undef] }]]), running: new Set<string>(), activeUri: `${dir}/a.extracted.jsonl` });
  assert.equal(v.text, "$(graph) invoices · a F1 —");
  assert.match(v.tooltip, /▶ a: F1 — macro, — micro \(P —, R —, 0 records\)/);
  assert.doesNotMatch(v.tooltip, /1\.000|0\.000/);
});

test("pass/fail against the configuration's thresholds, and stale figures, are in the text and the tooltip", () => {
  const check = (field: string | null, value: number, threshold: number, passed: boolean, text: string) => ({ field, metric: field ? "F1" : "macro F1", value, threshold, passed, text });
  const a = { ...run(`${dir}/a.extracted.jsonl`, "model-a", 0.9151), checks: [check(null, 0.9151, 0.85, true, "overall macro F1 0.9151 >= 0.8500")], passed: true, badge: "✓" };
  const b = {
    ...run(`${dir}/b.extracted.jsonl`, "model-b", 0.8059),
    checks: [check(null, 0.8059, 0.85, false, "overall macro F1 0.8059 < 0.8500"), check("total", 0.95, 0.9, true, "total: F1 0.9500 >= 0.9000")],
    passed: false,
    badge: "✗ < 0.85",
  };
  const gated = new Map<string, SuiteSummary>([["invoices", { name: "invoices", key: "invoices", runs: [a, b] }]]);
  const base = { suites, summaries: gated, running: new Set<string>() };
  const vb = statusView({ ...base, activeUri: `${dir}/b.extracted.jsonl` });
  assert.equal(vb.text, "$(graph) invoices · model-b F1 0.806 ✗ < 0.85");
  assert.match(vb.tooltip, /^✗ overall macro F1 0\.8059 < 0\.8500$/m, "the failed check, as the CLI says it");
  assert.doesNotMatch(vb.tooltip, /✗ total/, "a passed check is not listed as failed");
  assert.match(vb.tooltip, /model-a: F1 0\.915 macro.* ✓$/m);
  assert.equal(statusView({ ...base, activeUri: `${dir}/a.extracted.jsonl` }).text, "$(graph) invoices · model-a F1 0.915 ✓");
  const stale = new Map<string, SuiteSummary>([["invoices", { name: "invoices", key: "invoices", runs: [a, b], stale: "schema has errors" }]]);
  const vs = statusView({ ...base, summaries: stale, activeUri: `${dir}/invoices.eval.json` });
  assert.equal(vs.text, "$(graph) invoices · model-a F1 0.915 ✓ — stale: schema has errors");
  assert.match(vs.tooltip, /Stale: schema has errors\. These are the last good run's figures/);
});

test("checks, badges and staleness are read defensively", () => {
  const [s] = readSuiteSummaries({
    suites: [{
      name: "s",
      stale: "schema has errors",
      runs: [{
        extracted: "file:///x/e.jsonl",
        checks: [{ field: null, metric: "macro F1", value: 0.8, threshold: 0.85, passed: false, text: "overall macro F1 0.8000 < 0.8500" }, { field: "total", threshold: "high", passed: true }, { value: 1 }],
        passed: false,
        badge: "✗ < 0.85",
      }, { extracted: "file:///x/f.jsonl", passed: "yes", badge: 3 }],
    }],
  });
  assert.equal(s?.stale, "schema has errors");
  assert.deepEqual(s?.runs[0]?.checks, [{ field: null, metric: "macro F1", value: 0.8, threshold: 0.85, passed: false, text: "overall macro F1 0.8000 < 0.8500" }], "checks without a numeric threshold are dropped");
  assert.equal(s?.runs[0]?.passed, false);
  assert.equal(s?.runs[0]?.badge, "✗ < 0.85");
  assert.equal(s?.runs[1]?.passed, null, "not a boolean: unknown, never passed");
  assert.equal(s?.runs[1]?.badge, "");
  assert.equal(readSuiteSummaries({ suites: [{ name: "s", runs: [], stale: "" }] })[0]?.stale, undefined);
});

test("a suite whose schema cannot be scored says why in the status bar, and a click opens the problem", () => {
  const why = {
    message: "the schema is not valid JSON: Expecting ':' delimiter",
    code: "invalid-json",
    uri: `${dir}/invoices.eval.json`,
    range: { start: { line: 7, character: 15 }, end: { line: 7, character: 16 } },
  };
  const open = { uri: why.uri, range: why.range };
  const base = { suites, running: new Set<string>(), activeUri: `${dir}/invoices.eval.json` };
  const stopped = statusView({ ...base, summaries: new Map([["invoices", { name: "invoices", key: "invoices", runs: [], notEvaluated: why }]]) });
  assert.equal(stopped.text, "$(error) invoices: not evaluated — the schema is not valid JSON: Expecting ':' delimiter");
  assert.equal(stopped.tooltip, "evalschema suite invoices: the schema cannot be scored.\nNot evaluated: the schema is not valid JSON: Expecting ':' delimiter (invalid-json), invoices.eval.json line 8. Click to open it.");
  assert.deepEqual(stopped.open, open);

  // With the last good results (stale): their figures, why they are stale, and the same click.
  const stale = statusView({ ...base, summaries: new Map([["invoices", { ...(summaries.get("invoices") as SuiteSummary), stale: "schema has errors", notEvaluated: why }]]) });
  assert.equal(stale.text, "$(graph) invoices · a F1 0.915 — stale: schema has errors");
  assert.match(stale.tooltip, /^Not evaluated: the schema is not valid JSON: Expecting ':' delimiter \(invalid-json\), invoices\.eval\.json line 8\. Click to open it\.$/m);
  assert.doesNotMatch(stale.tooltip, /Click to show the report/);
  assert.deepEqual(stale.open, open);
  assert.equal(statusView({ ...base, summaries }).open, undefined, "evaluated: a click shows the report");

  // A long message is cut; an icon-like message stays text.
  const long = statusView({ ...base, summaries: new Map([["invoices", { name: "invoices", key: "invoices", runs: [], notEvaluated: { ...why, message: `$(bug) ${"x".repeat(80)}` } }]]) });
  assert.equal(long.text, `$(error) invoices: not evaluated — \\$(bug) ${"x".repeat(52)}…`);

  const [read] = readSuiteSummaries({ suites: [{ name: "s", runs: [], notEvaluated: why }, { name: "t", notEvaluated: "broken" }] });
  assert.deepEqual(read?.notEvaluated, why);
  assert.equal(readSuiteSummaries({ suites: [{ name: "t", notEvaluated: "broken" }] })[0]?.notEvaluated, undefined);
});
