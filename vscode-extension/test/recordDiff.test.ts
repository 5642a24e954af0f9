import assert from "node:assert/strict";
import { test } from "node:test";
import { routeServerCommand } from "../src/commands";
import { ServerCommands } from "../src/protocol";
import { KEPT_DOCUMENTS, RECORD_SCHEME, RecordTexts, diffDocuments, readRecordDiff } from "../src/recordDiff";

/** A recordDiff answer as the server sends it. */
const answer = {
  gold: { title: "shop.gold.jsonl · record a (gold)", text: '{\n  "id": "a",\n  "price": 12.5\n}\n' },
  extracted: { title: "shop.run1.extracted.jsonl · record a (run1)", text: '{\n  "id": "a",\n  "price": 13.9\n}\n' },
};

test("the recordDiff answer is read as it is, and anything else as nothing", () => {
  assert.deepEqual(readRecordDiff(answer), answer);
  assert.deepEqual(readRecordDiff({ gold: { text: "" }, extracted: { title: 3, text: "{}\n" } }), { gold: { title: "", text: "" }, extracted: { title: "", text: "{}\n" } });
  for (const bad of [undefined, null, "x", [], {}, { gold: answer.gold }, { gold: { title: "t" }, extracted: answer.extracted }]) assert.equal(readRecordDiff(bad), undefined, JSON.stringify(bad));
});

test("gold is on the left, the extraction on the right, each comparison in documents of its own", () => {
  const docs = diffDocuments(answer, 7);
  assert.deepEqual(docs, {
    left: { path: "/7/gold/shop.gold.jsonl · record a (gold)", text: answer.gold.text },
    right: { path: "/7/extracted/shop.run1.extracted.jsonl · record a (run1)", text: answer.extracted.text },
    title: "shop.gold.jsonl · record a (gold) ↔ shop.run1.extracted.jsonl · record a (run1)",
  });
  assert.notEqual(diffDocuments(answer, 8).left.path, docs.left.path);
  assert.equal(RECORD_SCHEME, "evalschema-record");
});

test("a title from the data never makes folders and is never empty", () => {
  const docs = diffDocuments({ gold: { title: "a/b\\c\n", text: "" }, extracted: { title: " ", text: "" } }, 1);
  assert.equal(docs.left.path, "/1/gold/a∕b∕c");
  assert.equal(docs.right.path, "/1/extracted/extracted");
});

test("the texts kept are the last ones; a forgotten one says so", () => {
  const texts = new RecordTexts(2);
  texts.add({ path: "/1/gold/a", text: "A" });
  texts.add({ path: "/1/extracted/a", text: "B" });
  texts.add({ path: "/2/gold/a", text: "C" });
  assert.equal(texts.text("/1/extracted/a"), "B");
  assert.equal(texts.text("/2/gold/a"), "C");
  assert.match(texts.text("/1/gold/a"), /no longer kept/);
  assert.ok(KEPT_DOCUMENTS >= 2);
});

test("the code action's recordDiff command is opened by the extension, with its argument", () => {
  const arg = { uri: "file:///w/shop.run1.extracted.jsonl", position: { line: 0, character: 48 }, suite: "shop" };
  assert.deepEqual(routeServerCommand(ServerCommands.recordDiff, [arg]), { action: "recordDiff", arg });
  assert.equal(routeServerCommand(ServerCommands.openGold, [arg]), undefined, "openGold: the server asks the editor to show the gold value");
});
