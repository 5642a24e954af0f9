import assert from "node:assert/strict";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exampleLine, fieldDescription, findingLine, findingsMessage, groupFindings, matches, readFindings, recordLabel } from "../src/findings";
import { FINDING_STATUSES, readFieldExamples, type Finding } from "../src/protocol";

const range = (line: number) => ({ start: { line, character: 2 }, end: { line, character: 6 } });
const finding = (field: string, record: string, status: string, run = "model-a", line = 0): Finding => ({
  suite: "invoices",
  run,
  field,
  path: field.replace("[]", "[0]"),
  record,
  status,
  score: 0,
  message: `${status} here`,
  uri: `file:///w/${run}.jsonl`,
  range: range(line),
});

const all = [
  finding("total", "INV-1", "mismatch"),
  finding("vendor.vat_id", "INV-1", "omission"),
  finding("vendor.vat_id", "INV-2", "mismatch", "model-a", 1),
  finding("vendor.vat_id", "INV-2", "mismatch", "model-b", 1),
  finding("line_items[].amount", "INV-2", "hallucination", "model-a", 1),
  finding("line_items[].amount", "INV-2", "mismatch", "model-a", 1),
];

test("grouped by field (most findings first), then record and run, in the order they came", () => {
  const groups = groupFindings(all);
  assert.deepEqual(groups.map((g) => [g.field, g.findings.length]), [["vendor.vat_id", 3], ["line_items[].amount", 2], ["total", 1]]);
  const vat = groups[0];
  assert.deepEqual(vat?.records.map((r) => `${r.record}/${r.run}/${r.findings.length}`), ["INV-1/model-a/1", "INV-2/model-a/1", "INV-2/model-b/1"]);
  assert.equal(fieldDescription(vat ?? assert.fail()), "3 records · 2 mismatch, 1 omission");
  assert.equal(recordLabel(vat.records[2] ?? assert.fail(), 2), "INV-2 · model-b");
  assert.equal(recordLabel(vat.records[2] ?? assert.fail(), 1), "INV-2", "one run: no need to name it");
  assert.deepEqual(groupFindings([]), []);
});

test("filtered by status and run", () => {
  const onlyB = groupFindings(all, { run: "model-b" });
  assert.deepEqual(onlyB.map((g) => g.field), ["vendor.vat_id"]);
  const mismatches = groupFindings(all, { statuses: new Set(["mismatch"]) });
  assert.deepEqual(mismatches.map((g) => [g.field, g.findings.length]), [["vendor.vat_id", 2], ["line_items[].amount", 1], ["total", 1]]);
  assert.equal(matches(all[1] ?? assert.fail(), { statuses: new Set(["mismatch"]) }), false);
  assert.equal(matches(all[1] ?? assert.fail(), {}), true);
});

test("the answer is read defensively; the view's message says what is left out", () => {
  const answer = readFindings({ findings: [all[0], { ...all[1], range: null }, { field: 1 }, 3], total: 9 });
  assert.deepEqual(answer.findings, [all[0]]);
  assert.equal(answer.total, 9);
  assert.deepEqual(readFindings(undefined), { findings: [], total: 0 });
  assert.deepEqual(readFindings({ findings: [all[0]] }).total, 1, "no total: the findings sent");
  assert.equal(findingsMessage(answer, {}, "invoices"), "1 of 9 findings listed");
  assert.equal(findingsMessage({ findings: all, total: 6 }, { statuses: new Set(["mismatch", "omission"]), run: "model-b" }, "invoices"), "only mismatch, omission · only model-b");
  assert.equal(findingsMessage({ findings: [], total: 0 }, {}, "invoices"), "no findings in suite invoices");
  assert.equal(findingsMessage({ findings: all, total: 6 }, {}, "invoices"), undefined);
  assert.match(findingsMessage({ findings: [], total: 0 }, {}, undefined) ?? "", /No suite yet/);
});

test("a line of a field's list names the record, the path, the status, the run and why", () => {
  assert.deepEqual(findingLine(all[2] ?? assert.fail()), { label: "INV-2 · vendor.vat_id", description: "mismatch · model-a", detail: "mismatch here" });
});

test("a record id, run or value spelling an icon shows as typed in the list, not as an icon", () => {
  const hostile = { ...finding("total", "$(pass-filled) INV-9", "mismatch", "$(check)run"), message: 'total: "$(error)" ≠ gold "\\$(x)"' };
  assert.deepEqual(findingLine(hostile), {
    label: "\\$(pass-filled) INV-9 · total",
    description: "mismatch · \\$(check)run",
    detail: 'total: "\\$(error)" ≠ gold "\\$(x)"', // one already escaped stays as it is
  });
});

test("the status filter offers the engine's finding statuses (generated from results.FINDINGS)", () => {
  const generated = readFileSync(join(__dirname, "..", "..", "src", "generated", "protocol.ts"), "utf8");
  assert.match(generated, /^export const FINDING_STATUSES = \["mismatch", "omission", "hallucination", "error", "batch_error"\] as const;$/m);
  assert.deepEqual([...FINDING_STATUSES], ["mismatch", "omission", "hallucination", "error", "batch_error"]);
  const findingsSource = readFileSync(join(__dirname, "..", "..", "src", "findings.ts"), "utf8");
  assert.doesNotMatch(findingsSource, /"batch_error"/, "no copy of the list of its own");
});

test("a field's worst values: read tolerantly, listed with both values, names as typed", () => {
  const range = { start: { line: 2, character: 7 }, end: { line: 2, character: 11 } };
  const good = { uri: "file:///w/r.jsonl", range, path: "items[1].qty", status: "mismatch", score: 0, record: "$(alert)a", gold: "2", extracted: "9" };
  const answer = readFieldExamples({ examples: [good, { ...good, record: 3, gold: 4, extracted: null }, { uri: 1 }, "x"], total: 7 });
  assert.deepEqual(answer, { examples: [good, { ...good, record: "", gold: null, extracted: null }], total: 7 });
  assert.deepEqual(readFieldExamples(null), { examples: [], total: 0 });
  assert.deepEqual(exampleLine(good), {
    label: "\\$(alert)a · items[1].qty",
    description: "mismatch · score 0.00",
    detail: "extracted 9 · gold 2",
    uri: "file:///w/r.jsonl",
    range,
  });
  assert.equal(exampleLine({ ...good, status: "omission", extracted: null }).detail, "extracted (none) · gold 2");
});
