import assert from "node:assert/strict";
import { test } from "node:test";
import { Location, Range, Uri } from "./vscodeStub";
import { toLocation, toRange } from "../src/places";

test("an LSP range becomes VS Code's, position for position (one conversion for every view)", () => {
  const r = { start: { line: 41, character: 20 }, end: { line: 42, character: 3 } };
  const range = toRange(r);
  assert.ok(range instanceof Range);
  assert.deepEqual([range.start.line, range.start.character, range.end.line, range.end.character], [41, 20, 42, 3]);
  const loc = toLocation("file:///w/a%20b.jsonl", r);
  assert.ok(loc instanceof Location && loc.uri instanceof Uri);
  assert.equal(loc.uri.toString(), "file:///w/a%20b.jsonl");
  assert.deepEqual(loc.range, range);
});
