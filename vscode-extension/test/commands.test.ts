import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { COMMANDS, NO_SUITES, STATUS_ITEM, annotateTarget, argumentTarget, compareSuite, defaultRuns, inferSource, onlySuite, pickedRuns, reportTargetAfterRun, routeServerCommand } from "../src/commands";
import { SilentError, UserError } from "../src/errors";
import type { SuiteInfo } from "../src/protocol";
import { ServerCommands, readAnnotateApplied, readInferredText } from "../src/protocol";

const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
  activationEvents: string[];
  contributes: { commands: Array<{ command: string; title: string }>; menus: Record<string, Array<{ command: string }>> };
};

const dir = "file:///w/ws%20x";
const invoices: SuiteInfo = { name: "invoices", key: "a/invoices", folder: dir, schema: `${dir}/inv.eval.json`, gold: `${dir}/inv.gold.jsonl`, extracted: [`${dir}/inv.a.jsonl`, `${dir}/inv.b.jsonl`, `${dir}/inv.c.jsonl`], config: null };
const receipts: SuiteInfo = { name: "receipts", key: "b/receipts", folder: dir, schema: `${dir}/rec.eval.jsonc`, gold: "", extracted: [`${dir}/rec.a.jsonl`], config: null };
const pair: SuiteInfo = { name: "pair", key: "pair", folder: dir, schema: `${dir}/pair.eval.json`, gold: `${dir}/pair.gold.json`, extracted: [`${dir}/pair.b.jsonl`, `${dir}/pair.a.jsonl`], config: null };
const suites = [invoices, receipts, pair];

/** A UserError (shown as it is), not a SilentError (only logged), with this message. */
function userError(message: RegExp | string): (e: unknown) => boolean {
  return (e) => e instanceof UserError && !(e instanceof SilentError) && (typeof message === "string" ? e.message === message : message.test(e.message));
}

test("the commands registered are exactly those package.json contributes, under the titles it shows", () => {
  const contributed = new Map(manifest.contributes.commands.map((c) => [c.command, c.title]));
  assert.deepEqual(Object.values(COMMANDS).map((c) => c.id).sort(), [...contributed.keys()].sort());
  for (const c of Object.values(COMMANDS)) assert.ok(contributed.get(c.id)?.startsWith(c.title), `${c.id}: "${c.title}" names "${contributed.get(c.id) ?? ""}" in errors`);
  for (const [menu, items] of Object.entries(manifest.contributes.menus)) for (const item of items) assert.ok(contributed.has(item.command), `${menu}: ${item.command}`);
  assert.equal(STATUS_ITEM.command, "evalschema.showReport", "a click on the F1 shows the report");
  assert.ok(contributed.has(STATUS_ITEM.command));
});

test("a command's argument names its target: a file, a {suite} object or a suite name", () => {
  assert.deepEqual(argumentTarget({ fsPath: "/x" }, "file:///x/a.jsonl"), { uri: "file:///x/a.jsonl" }, "a Uri, given as its string");
  assert.deepEqual(argumentTarget({ suite: "a/invoices", uri: "file:///ignored" }, undefined), { suite: "a/invoices" });
  assert.deepEqual(argumentTarget("receipts", undefined), { suite: "receipts" });
  for (const none of [undefined, null, {}, { suite: 3 }, 7, ["invoices"]]) assert.equal(argumentTarget(none, undefined), undefined, JSON.stringify(none));
});

test("the server's Show report and Run suite lenses are handled by the extension, with their argument as the target", () => {
  assert.deepEqual(routeServerCommand(ServerCommands.showReport, [{ suite: "a/invoices" }]), { action: "showReport", target: { suite: "a/invoices" } });
  assert.deepEqual(routeServerCommand(ServerCommands.runSuite, [{ uri: `${dir}/inv.a.jsonl` }, "extra"]), { action: "evaluate", target: { uri: `${dir}/inv.a.jsonl` } });
  assert.deepEqual(routeServerCommand(ServerCommands.runSuite, []), { action: "evaluate", target: {} }, "no argument: every suite");
  assert.deepEqual(routeServerCommand(ServerCommands.showReport, ["a/invoices"]), { action: "showReport", target: {} });
  for (const other of [ServerCommands.runAll, ServerCommands.annotate, ServerCommands.listSuites, "evalschema.server.applyFix"]) assert.equal(routeServerCommand(other, [{ suite: "x" }]), undefined, other);
});

test("a pick is needed only among several suites; none is an error the user is shown", () => {
  assert.throws(() => onlySuite([]), userError(NO_SUITES));
  assert.equal(onlySuite([receipts]), receipts);
  assert.equal(onlySuite(suites), undefined);
});

test("after a run the report of its one suite opens, else every suite's", () => {
  const s = (key: string) => ({ name: key, key, runs: [] });
  assert.deepEqual(reportTargetAfterRun([s("a/invoices")]), { suite: "a/invoices" });
  assert.deepEqual(reportTargetAfterRun([s("a"), s("b")]), {});
  assert.deepEqual(reportTargetAfterRun([]), {});
});

test("Infer schema reads the argument, else the active JSON(L) file unless it is a schema, else its suite's gold", () => {
  const active = (fileName: string, uri: string) => ({ fileName, uri });
  assert.deepEqual(inferSource("file:///arg.jsonl", active("/w/x.jsonl", "file:///w/x.jsonl"), suites), { uri: "file:///arg.jsonl", gold: false });
  assert.deepEqual(inferSource(undefined, active("/w/records.JSONL", "file:///w/records.JSONL"), suites), { uri: "file:///w/records.JSONL", gold: false });
  assert.deepEqual(inferSource(undefined, active("/w/ws x/inv.a.jsonl", `${dir}/inv.a.jsonl`), suites), { uri: `${dir}/inv.a.jsonl`, gold: false }, "an extracted file is records too");
  assert.deepEqual(inferSource(undefined, active("/w/ws x/inv.eval.json", `${dir}/inv.eval.json`), suites), { uri: `${dir}/inv.gold.jsonl`, gold: true });
  assert.deepEqual(inferSource(undefined, active("/w/ws x/pair.EVAL.JSON", `${dir}/pair.eval.json`), suites), { uri: `${dir}/pair.gold.json`, gold: true });
  assert.equal(inferSource(undefined, active("/w/ws x/rec.eval.jsonc", `${dir}/rec.eval.jsonc`), suites), undefined, "a suite without a gold file: ask");
  assert.equal(inferSource(undefined, active("/w/evalschema.toml", "file:///w/evalschema.toml"), suites), undefined);
  assert.equal(inferSource(undefined, active("/w/notes.json.md", "file:///w/notes.json.md"), suites), undefined);
  assert.equal(inferSource(undefined, undefined, suites), undefined);
});

test("Annotate schema edits the argument, else the active file; with neither the user is told", () => {
  assert.equal(annotateTarget("file:///a.eval.json", "file:///b.eval.json"), "file:///a.eval.json");
  assert.equal(annotateTarget(undefined, "file:///b.eval.json"), "file:///b.eval.json");
  assert.throws(() => annotateTarget(undefined, undefined), userError("evalschema: open the eval schema to annotate first."));
});

test("Compare two runs: the suite by key, name or file; it needs two runs; with more the user picks exactly two", () => {
  assert.equal(compareSuite({ suite: "a/invoices" }, suites), invoices);
  assert.equal(compareSuite({ suite: "invoices" }, suites), invoices, "by name");
  assert.equal(compareSuite({ uri: "file:///w/ws x/pair.a.jsonl" }, suites), pair, "by one of its files");
  assert.throws(() => compareSuite({ suite: "nope" }, suites), userError(/choose a suite from evalschema\.toml/));
  assert.throws(() => compareSuite({ uri: "file:///elsewhere.jsonl" }, suites), userError(/choose a suite/));
  assert.throws(() => compareSuite({}, suites), userError(/choose a suite/));
  assert.throws(() => compareSuite({ suite: "receipts" }, suites), userError("evalschema: suite receipts has 1 extracted file(s); comparing needs two."));
  assert.deepEqual(defaultRuns(pair), [`${dir}/pair.b.jsonl`, `${dir}/pair.a.jsonl`], "two runs: both, in the suite's order");
  assert.equal(defaultRuns(invoices), undefined, "three runs: the user picks");
  assert.deepEqual(pickedRuns(["file:///2", "file:///1"]), ["file:///2", "file:///1"], "the first picked is the baseline");
  assert.throws(() => pickedRuns(["file:///1"]), userError("evalschema: pick exactly two runs to compare."));
  assert.throws(() => pickedRuns(["file:///1", "file:///2", "file:///3"]), userError(/exactly two/));
});

test("the answers of infer, annotate and compare are read defensively", () => {
  assert.equal(readInferredText({ schema: {}, text: "{\n}" }), "{\n}");
  assert.equal(readInferredText({ text: "" }), "", "an empty schema text is still a schema");
  for (const bad of [null, undefined, "{}", [{ text: "x" }], { text: 3 }]) assert.equal(readInferredText(bad), undefined, JSON.stringify(bad));
  assert.equal(readAnnotateApplied({ applied: true, edits: 2 }), true);
  for (const no of [{ applied: "true" }, { applied: false }, null, [true]]) assert.equal(readAnnotateApplied(no), false, JSON.stringify(no));
});
