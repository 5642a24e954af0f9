import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestMessage, TestRecordResult, TestRunResult } from "../src/protocol";
import { askedRecords, itemId, parseItemId, planRuns, readTestResults, readTestTree, recordItem, recordOutcome, staleReason } from "../src/testTree";

const A = "file:///w/shop.run1.extracted.jsonl";
const B = "file:///w/shop.run2.extracted.jsonl";
const range = (line: number, start: number, end: number) => ({ start: { line, character: start }, end: { line, character: end } });

test("item ids name a suite, a run and a record, and read back", () => {
  for (const ref of [{ suite: "shop" }, { suite: "shop", run: A }, { suite: "shop", run: A, record: "INV-1" }, { suite: "shop", run: A, record: "odd\u0000id" }]) {
    assert.deepEqual(parseItemId(itemId(ref)), ref);
  }
  assert.notEqual(itemId({ suite: "shop", run: A, record: "a" }), itemId({ suite: "shop", run: B, record: "a" }));
  // VS Code joins the ids of an item's parents with NUL: none may hold one.
  assert.equal(itemId({ suite: "shop", run: A, record: "odd\u0000id" }).includes("\u0000"), false);
});

test("a listTests answer: records of the wrong shape dropped, a missing status is not run", () => {
  const failed = { id: "a", label: "a", uri: A, range: range(0, 0, 133), gold: { uri: "file:///w/shop.gold.jsonl", range: range(0, 0, 133) }, status: "failed" };
  const tree = (records: unknown[], extra: unknown[]) => ({
    suites: [{ key: "shop", name: "shop", uri: "file:///w/shop.eval.json", runs: [{ uri: A, label: "run1", version: 3, records }, ...extra] }, ...extra],
  });
  const suites = readTestTree(
    tree(
      [failed, { id: "#4", uri: A, range: range(2, 0, 30), gold: null }, { id: 5, uri: A, range: range(3, 0, 1) }, { id: "no range", uri: A }],
      [{ label: "no uri", name: "no key" }],
    ),
  );
  assert.deepEqual(suites, tree([failed, { id: "#4", label: "#4", uri: A, range: range(2, 0, 30), gold: null, status: "not run" }], []).suites);
  assert.deepEqual(readTestTree(null), []);
  const [first, second] = suites[0]?.runs[0]?.records ?? [];
  assert.ok(first && second);
  assert.deepEqual(recordItem(first), { label: "a", uri: A, range: range(0, 0, 133), description: "last run: failed" });
  assert.equal(recordItem(second).description, undefined);
});

const priceMessage: TestMessage = { message: "price: 13.9 ≠ gold 12.5 (numeric, rel 1%)", field: "price", status: "mismatch", uri: A, range: range(0, 48, 52), expected: "12.5", actual: "13.9" };

test("a runTests answer keeps each message's expected and actual texts", () => {
  const runs = readTestResults({
    suite: "shop",
    runs: [
      {
        uri: A,
        label: "run1",
        version: null,
        stale: false,
        records: [{ id: "a", status: "failed", messages: [priceMessage, { message: "no range", uri: A }] }, { id: "c", status: "passed", messages: [] }, { status: "passed" }],
      },
    ],
  });
  assert.deepEqual(runs, [
    {
      uri: A,
      label: "run1",
      version: null,
      stale: false,
      records: [
        { id: "a", status: "failed", messages: [priceMessage] },
        { id: "c", status: "passed", messages: [] },
      ],
    },
  ]);
});

test("run all: one request per suite, every record wanted", () => {
  const plans = planRuns(undefined, [], ["shop", "invoices"]);
  assert.deepEqual(
    plans.map((p) => p.args),
    [{ suite: "shop" }, { suite: "invoices" }],
  );
  assert.equal(plans[0]?.wants(A, "a"), true);
});

test("one record: the request names its run and id; no other record is wanted", () => {
  const [plan, ...more] = planRuns([{ suite: "shop", run: A, record: "b" }], [], ["shop"]);
  assert.equal(more.length, 0);
  assert.deepEqual(plan?.args, { suite: "shop", run: A, records: ["b"] });
  assert.equal(plan?.wants(A, "b"), true);
  assert.equal(plan?.wants(A, "a"), false);
  assert.equal(plan?.wants(B, "b"), false);
});

test("a run without one record (re-run failed gives records; exclude takes some out)", () => {
  const [plan] = planRuns([{ suite: "shop", run: A }], [{ suite: "shop", run: A, record: "c" }], ["shop"]);
  assert.deepEqual(plan?.args, { suite: "shop", run: A });
  assert.equal(plan?.wants(A, "a"), true);
  assert.equal(plan?.wants(A, "c"), false);
  const [failed] = planRuns(
    [
      { suite: "shop", run: A, record: "a" },
      { suite: "shop", run: B, record: "b" },
    ],
    [],
    ["shop"],
  );
  assert.deepEqual(failed?.args, { suite: "shop" }, "two runs: the suite, filtered here");
  assert.deepEqual(
    [failed?.wants(A, "a"), failed?.wants(B, "b"), failed?.wants(A, "b")],
    [true, true, false],
  );
});

const run = (over: Partial<TestRunResult>): TestRunResult => ({ uri: A, label: "run1", version: 4, stale: false, records: [], ...over });

test("results of an older text are never current", () => {
  assert.equal(staleReason(run({}), { version: 4, dirty: true }), undefined, "the version scored");
  assert.equal(staleReason(run({}), { version: 5, dirty: true }), "scored version 4 of the file; it is now at version 5");
  assert.equal(staleReason(run({}), undefined), undefined, "not open: the disk's text");
  assert.equal(staleReason(run({ version: null }), { version: 1, dirty: false }), undefined);
  assert.equal(staleReason(run({ version: null }), { version: 2, dirty: true }), "the file has unsaved changes that were not scored");
  assert.equal(staleReason(run({ stale: true }), { version: 4, dirty: false }), "a file of the suite changed while it was scored");
});

test("a record's outcome: passed, failed with its messages, skipped when stale or not run", () => {
  const failed: TestRecordResult = { id: "a", status: "failed", messages: [priceMessage] };
  assert.deepEqual(recordOutcome(failed, undefined), { state: "failed", messages: [priceMessage] });
  assert.deepEqual(recordOutcome({ id: "#4", status: "errored", messages: [] }, undefined), { state: "errored", messages: [] });
  assert.deepEqual(recordOutcome({ id: "c", status: "passed", messages: [] }, undefined), { state: "passed" });
  assert.deepEqual(recordOutcome(failed, "scored version 4"), { state: "skipped", reason: "scored version 4" });
  assert.deepEqual(recordOutcome({ id: "c", status: "not run", messages: [] }, undefined), { state: "skipped", reason: "not run" });
  assert.deepEqual(recordOutcome({ id: "c", status: "", messages: [] }, undefined), { state: "skipped", reason: 'unknown status ""' });
});

test("the records a plan asks for: its suite's, those it wants, never a run or a suite item", () => {
  const ids = [itemId({ suite: "shop" }), itemId({ suite: "shop", run: A }), itemId({ suite: "shop", run: A, record: "a" }), itemId({ suite: "shop", run: B, record: "a" }), itemId({ suite: "other", run: A, record: "a" })];
  assert.deepEqual(askedRecords(ids, "shop", (run) => run === A), [itemId({ suite: "shop", run: A, record: "a" })]);
  assert.deepEqual(askedRecords(ids, "shop", () => true), [ids[2], ids[3]]);
});
