import assert from "node:assert/strict";
import { test } from "node:test";
import { applyEdits } from "jsonc-parser";
import { MAX_INDENTATION, formattingEdits, indentationOf, type FormatOptions, type Formatting } from "../src/format";

const options: FormatOptions = { tabSize: 2, insertSpaces: true, eol: "\n", keepLines: false, insertFinalNewline: true };
const edits = (f: Formatting) => ("edits" in f ? f.edits : assert.fail(f.refused));
const apply = (text: string, f: Formatting) => applyEdits(text, edits(f));

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

test("a hostile nesting is refused, not formatted into gigabytes", () => {
  const deep = "[".repeat(20000) + "]".repeat(20000); // 40 kB: 400 million spaces formatted
  const refused = formattingEdits(deep, options);
  assert.ok("refused" in refused && /nested too deeply to format/.test(refused.refused), JSON.stringify(refused).slice(0, 200));
  const ok = "[".repeat(500) + "]".repeat(500);
  assert.ok("edits" in formattingEdits(ok, options), "a deep but reasonable nesting is formatted");
  assert.ok(indentationOf(ok, options) < MAX_INDENTATION);
  assert.equal(indentationOf('{"a": [1]}', options), 0 + 2 + 2 + 2 + 4 + 2 + 0, 'each token at its depth: { "a" : [ 1 ] }');
});

test("100 levels deep (200 spaces), where jsonc-parser 3.3.1 returns no text for a line break, still formats right", () => {
  for (const opts of [options, { ...options, insertSpaces: false, eol: "\r\n" }]) {
    const depth = opts.insertSpaces ? 101 : 201;
    const text = "[".repeat(depth) + "]".repeat(depth);
    const out = apply(text, formattingEdits(text, opts));
    const unit = opts.insertSpaces ? "  " : "\t";
    const levels = [...Array(depth - 1).keys()];
    const want = [...levels.map((i) => unit.repeat(i) + "["), unit.repeat(depth - 1) + "[]", ...levels.reverse().map((i) => unit.repeat(i) + "]")]
      .join(opts.eol) + opts.eol; // the innermost, empty, stays "[]" on its line
    assert.equal(out, want);
    assert.ok(!out.includes("undefined"));
  }
});
