import assert from "node:assert/strict";
import { test } from "node:test";
import { applyEdits } from "jsonc-parser";
import { formattingEdits, type FormatOptions } from "../src/format";

const options: FormatOptions = { tabSize: 2, insertSpaces: true, eol: "\n", keepLines: false, insertFinalNewline: true };
const apply = (text: string, edits: ReturnType<typeof formattingEdits>) => applyEdits(text, edits);

test("Format Document indents an eval schema and changes nothing but whitespace", () => {
  const text = '{"type":"object", // the record\n"properties":{"total":{"type":"number","x-eval-compare":{"numeric":{"rel_tol":1e-2}}}}}';
  const out = apply(text, formattingEdits(text, options));
  assert.equal(out, '{\n  "type": "object", // the record\n  "properties": {\n    "total": {\n      "type": "number",\n      "x-eval-compare": {\n        "numeric": {\n          "rel_tol": 1e-2\n        }\n      }\n    }\n  }\n}\n');
  assert.equal(out.replace(/\s+/g, ""), text.replace(/\s+/g, ""), "only whitespace changed (1e-2 stays 1e-2)");
});

test("the editor's tab size, tabs, line ends and final newline are used", () => {
  const text = '{"a":[1,2]}';
  assert.equal(apply(text, formattingEdits(text, { ...options, insertSpaces: false, eol: "\r\n", insertFinalNewline: false })), '{\r\n\t"a": [\r\n\t\t1,\r\n\t\t2\r\n\t]\r\n}');
  const kept = '{"a": 1,\n\n"b": 2}';
  assert.equal(apply(kept, formattingEdits(kept, { ...options, keepLines: true })), '{ "a": 1,\n\n  "b": 2 }\n', "the blank line is kept");
});

test("a selection formats only that part; broken text is formatted as far as it goes, never cut", () => {
  const text = '{"a":{"b":1},\n"c":{"d":2}}';
  const start = text.indexOf('{"d"');
  const out = apply(text, formattingEdits(text, options, { offset: start, length: text.length - 1 - start }));
  assert.ok(out.startsWith('{"a":{"b":1},'), out);
  const broken = '{"a": {"b": 1, "c": }';
  const fixed = apply(broken, formattingEdits(broken, options));
  assert.equal(fixed.replace(/\s+/g, ""), broken.replace(/\s+/g, ""));
});
