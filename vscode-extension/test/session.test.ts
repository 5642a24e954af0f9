import assert from "node:assert/strict";
import { test } from "node:test";
import type { RunSummary, SuiteInfo, SuiteSummary } from "../src/protocol";
import { readRunFinished, readRunStartedKey } from "../src/protocol";
import { Session } from "../src/session";

const dir = "file:///w";
const info = (name: string, key = name): SuiteInfo => ({
  name,
  key,
  folder: dir,
  schema: `${dir}/${name}.eval.json`,
  gold: `${dir}/${name}.gold.jsonl`,
  extracted: [`${dir}/${name}.a.jsonl`, `${dir}/${name}.b.jsonl`],
  config: `${dir}/evalschema.toml`,
});
const run = (extracted: string, f1: number): RunSummary => ({ extracted, label: extracted.split("/").pop() ?? "", records: 4, precision: f1, recall: f1, f1, micro_f1: f1, coverage: 1, off_schema: [], checks: [], passed: null, badge: "" });
const summary = (name: string, f1: number, key = name): SuiteSummary => ({ name, key, runs: [run(`${dir}/${name}.a.jsonl`, f1)] });

function session(...suites: SuiteInfo[]): Session {
  const s = new Session();
  s.suites = suites;
  return s;
}

test("runStarted marks the suite by key (by name from a server that sends none); unreadable params change nothing", () => {
  assert.equal(readRunStartedKey({ suite: "invoices", key: "ws/invoices" }), "ws/invoices");
  assert.equal(readRunStartedKey({ suite: "invoices" }), "invoices");
  assert.equal(readRunStartedKey({ suite: "invoices", key: 3 }), "invoices", "a key of the wrong type falls back to the name");
  for (const bad of [undefined, null, "invoices", ["invoices"], { key: 3 }, {}]) assert.equal(readRunStartedKey(bad), undefined, JSON.stringify(bad));
  const s = session(info("invoices", "ws/invoices"));
  assert.equal(s.runStarted({ suite: "bad", key: 7, cancelled: false }), true, "the name when the key is unreadable");
  assert.equal(s.runStarted(null), false);
  assert.deepEqual([...s.running], ["bad"]);
  assert.equal(s.runStarted({ suite: "invoices", key: "ws/invoices" }), true);
  assert.equal(s.running.has("ws/invoices"), true);
  assert.equal(s.running.has("invoices"), false, "tracked by key, not by name");
});

test("a run the server finishes replaces the figures and stops the spinner; a cancelled one keeps the old figures", () => {
  const s = session(info("invoices"));
  s.runStarted({ suite: "invoices", key: "invoices" });
  assert.equal(s.status(`${dir}/invoices.a.jsonl`).text, "$(sync~spin) invoices");
  assert.deepEqual(s.runFinished({ suite: summary("invoices", 0.5), cancelled: false }, []), { listSuites: false, refreshPanel: undefined });
  assert.equal(s.running.size, 0);
  assert.equal(s.status(`${dir}/invoices.a.jsonl`).text, "$(graph) invoices · invoices.a.jsonl F1 0.500");
  s.runStarted({ suite: "invoices", key: "invoices" });
  s.runFinished({ suite: summary("invoices", 0.9), cancelled: true }, []);
  assert.equal(s.running.size, 0, "a cancelled run is no longer running");
  assert.equal(s.summaries.get("invoices")?.runs[0]?.f1, 0.5, "a cancelled run's partial figures are not shown");
  assert.equal(s.status(`${dir}/invoices.a.jsonl`).text, "$(graph) invoices · invoices.a.jsonl F1 0.500");
});

test("while a newer run is pending, figures that arrive (or a superseded run) still show as updating", () => {
  const s = session(info("invoices"));
  s.runStarted({ suite: "invoices", key: "invoices" }); // runQueued: the same params
  s.runFinished({ suite: summary("invoices", 0.5), cancelled: false, pending: true }, []);
  assert.equal(s.summaries.get("invoices")?.runs[0]?.f1, 0.5, "the figures are kept");
  assert.ok(s.running.has("invoices"), "but a run of a newer text is queued");
  assert.match(s.status(`${dir}/invoices.a.jsonl`).text, /^\$\(sync~spin\) invoices .*F1 0\.500 \(updating\)$/);
  s.runFinished({ suite: summary("invoices", 0), cancelled: true, pending: true }, []);
  assert.ok(s.running.has("invoices"), "superseded: the newer run is still pending");
  s.runFinished({ suite: summary("invoices", 0), cancelled: true, pending: false }, []);
  assert.equal(s.running.size, 0, "dropped: nothing pending any more");
});

test("after a run: the suite list is fetched again only for an unknown suite; the results view only when it shows that suite", () => {
  const s = session(info("invoices"), info("receipts"), info("notes", "a/notes"));
  assert.deepEqual(s.runFinished({ suite: summary("new", 1), cancelled: false }, ["invoices"]), { listSuites: true, refreshPanel: undefined });
  assert.equal(s.runFinished({ suite: summary("notes", 1, "a/notes"), cancelled: false }, [])?.listSuites, false, "known by key");
  assert.equal(s.runFinished({ suite: summary("notes", 1, "b/notes"), cancelled: false }, [])?.listSuites, true, "another folder's suite of the same name is new");
  assert.deepEqual(s.runFinished({ suite: summary("invoices", 1), cancelled: false }, ["receipts", "invoices"]), { listSuites: false, refreshPanel: "invoices" });
  assert.deepEqual(s.runFinished({ suite: summary("invoices", 1), cancelled: true }, ["invoices"]), { listSuites: false, refreshPanel: undefined }, "nothing new to show after a cancelled run");
  assert.deepEqual(s.runFinished({ suite: summary("receipts", 1), cancelled: false }, []), { listSuites: false, refreshPanel: undefined }, "the view is closed");
});

test("an unreadable runFinished changes nothing", () => {
  const s = session(info("invoices"));
  s.runStarted({ suite: "invoices", key: "invoices" });
  for (const bad of [undefined, null, {}, { suite: { runs: [] } }, { suite: "invoices", cancelled: false }]) {
    assert.equal(s.runFinished(bad, ["invoices"]), undefined, JSON.stringify(bad));
  }
  assert.deepEqual([...s.running], ["invoices"]);
  assert.equal(s.summaries.size, 0);
  assert.deepEqual(readRunFinished({ suite: { name: "x", runs: [] }, cancelled: 1 }), { suite: { name: "x", key: "x", runs: [] }, cancelled: true, pending: false });
  assert.deepEqual(readRunFinished({ suite: { name: "x", runs: [] } }), { suite: { name: "x", key: "x", runs: [] }, cancelled: false, pending: false });
  assert.equal(readRunFinished({ suite: { name: "x", runs: [] }, pending: "yes" })?.pending, false, "only true means pending");
});

test("a run command marks its suite (or every suite for Evaluate all) while it runs, and only those", () => {
  const s = session(info("invoices"), info("receipts", "ws/receipts"));
  s.runStarted({ suite: "other", key: "other" });
  const one = s.beginRun({ suite: "invoices" }, false);
  assert.deepEqual(one, ["invoices"]);
  assert.deepEqual([...s.running].sort(), ["invoices", "other"]);
  s.endRun(one);
  assert.deepEqual([...s.running], ["other"], "the end of a command clears its own suites, not the server's runs");
  const all = s.beginRun({}, true);
  assert.deepEqual(all, ["invoices", "ws/receipts"]);
  s.endRun(all);
  assert.deepEqual(s.beginRun({ uri: `${dir}/invoices.a.jsonl` }, false), [], "a file target: the server names the suites in its notifications");
  assert.deepEqual(s.beginRun({}, false), []);
  assert.deepEqual([...s.running], ["other"]);
});

test("a run command's answer: figures stored, its suites no longer running; outside any suite the first becomes the one shown", () => {
  const s = session(info("invoices"), info("receipts"));
  s.runStarted({ suite: "receipts", key: "receipts" });
  s.evaluated([summary("receipts", 0.25), summary("invoices", 0.75)], "file:///elsewhere/notes.md");
  assert.equal(s.running.size, 0, "a suite the server announced is done too");
  assert.equal(s.summaries.get("invoices")?.runs[0]?.f1, 0.75);
  assert.equal(s.lastSuite, "receipts");
  assert.equal(s.status("file:///elsewhere/notes.md").text, "$(graph) receipts · receipts.a.jsonl F1 0.250");
  s.evaluated([summary("receipts", 0.5)], `${dir}/invoices.eval.json`);
  assert.equal(s.lastSuite, "receipts", "unchanged while the active file belongs to a suite");
  s.lastSuite = undefined;
  s.evaluated([summary("invoices", 0.5)], `${dir}/receipts.gold.jsonl`);
  assert.equal(s.lastSuite, undefined);
  s.evaluated([], "file:///elsewhere/notes.md");
  assert.equal(s.lastSuite, undefined, "nothing evaluated: nothing to show");
});

test("the status bar remembers the suite it showed while the active editor belongs to none", () => {
  const s = session(info("invoices"), info("receipts"));
  s.evaluated([summary("invoices", 0.5), summary("receipts", 0.25)], `${dir}/receipts.eval.json`);
  assert.equal(s.status(`${dir}/invoices.b.jsonl`).text, "$(graph) invoices · invoices.a.jsonl F1 0.500");
  assert.equal(s.lastSuite, "invoices");
  assert.equal(s.status(undefined).text, "$(graph) invoices · invoices.a.jsonl F1 0.500", "a webview or the output is active");
  assert.equal(s.status(`${dir}/receipts.gold.jsonl`).text, "$(graph) receipts · receipts.a.jsonl F1 0.250");
  assert.equal(s.status("file:///x/y.md").text, "$(graph) receipts · receipts.a.jsonl F1 0.250");
});

test("a webview taking focus (no active editor) keeps the run of the data file focused last", () => {
  const s = session(info("invoices"));
  const both: SuiteSummary = { name: "invoices", key: "invoices", runs: [run(`${dir}/invoices.a.jsonl`, 0.5), run(`${dir}/invoices.b.jsonl`, 0.25)] };
  s.evaluated([both], `${dir}/invoices.b.jsonl`);
  assert.equal(s.status(`${dir}/invoices.b.jsonl`).text, "$(graph) invoices · invoices.b.jsonl F1 0.250");
  assert.equal(s.status(undefined).text, "$(graph) invoices · invoices.b.jsonl F1 0.250", "the results view has focus: still run b");
  assert.match(s.status(undefined).tooltip, /▶ invoices\.b\.jsonl: F1 0\.250/);
  assert.equal(s.status(`${dir}/invoices.eval.json`).text, "$(graph) invoices · invoices.a.jsonl F1 0.500", "an editor of the schema: the first run");
  assert.equal(s.status(undefined).text, "$(graph) invoices · invoices.a.jsonl F1 0.500", "that editor's choice, kept");
});

test("Clear results forgets the figures, not the suites", () => {
  const s = session(info("invoices"));
  s.evaluated([summary("invoices", 0.5)], undefined);
  s.clearResults();
  assert.equal(s.summaries.size, 0);
  assert.equal(s.status(`${dir}/invoices.eval.json`).text, "$(graph) invoices: not evaluated");
});

test("Show report from the palette outside any suite shows the suite shown last", () => {
  const s = session(info("invoices"), info("receipts"));
  assert.equal(s.lastSuiteTarget(undefined, "file:///x/y.md"), undefined, "none shown yet");
  s.lastSuite = "receipts";
  assert.deepEqual(s.lastSuiteTarget(undefined, "file:///x/y.md"), { suite: "receipts" });
  assert.deepEqual(s.lastSuiteTarget(undefined, undefined), { suite: "receipts" });
  assert.equal(s.lastSuiteTarget(undefined, `${dir}/invoices.eval.json`), undefined, "the active file's suite decides");
  assert.equal(s.lastSuiteTarget("invoices", "file:///x/y.md"), undefined, "an argument decides");
  assert.equal(s.lastSuiteTarget({ suite: "invoices" }, "file:///x/y.md"), undefined);
});
