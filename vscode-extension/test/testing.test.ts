import assert from "node:assert/strict";
import { test } from "node:test";
import { controllers } from "./vscodeStub";
import { ServerCommands } from "../src/protocol";
import { RecordTests } from "../src/testing";

const RUN = "file:///w/shop.run1.extracted.jsonl";
const at = { start: { line: 0, character: 0 }, end: { line: 0, character: 9 } };
const record = (id: string) => ({ id, label: id, uri: RUN, range: at, gold: { uri: "file:///w/shop.gold.jsonl", range: at }, status: "failed" });
const TREE = { suites: [{ key: "shop", name: "shop", uri: "file:///w/shop.eval.json", runs: [{ uri: RUN, label: "run1", version: null, records: [record("a"), record("b")] }] }] };

/** A server that lists the tree and fails every run of the records. */
function failingServer() {
  return {
    running: true,
    output: { warn(): void {} },
    execute(command: string): Promise<unknown> {
      return command === ServerCommands.listTests ? Promise.resolve(TREE) : Promise.reject(new Error("the server stopped"));
    },
  };
}

test("a run marks the records it asks for started, and errored when the server fails", async () => {
  const tests = new RecordTests(failingServer() as never);
  await tests.refresh();
  const controller = controllers.at(-1);
  assert.ok(controller?.runHandler);
  await controller.runHandler({}, { isCancellationRequested: false });
  assert.deepEqual(controller.runs.at(-1)?.events, ["started a", "started b", "errored a: the server stopped", "errored b: the server stopped", "end"]);
  tests.dispose();
});
