// Records as tests: the server's listTests and runTests answers as the Test Explorer's items and
// results (suites → runs → records; one message per wrong field, with expected and actual for the
// diff). Pure (no VS Code), so it is unit-tested; src/testing.ts is the VS Code side. Every status
// comes from the server's scoring: nothing here judges a record.
import {
  type LspRange,
  type TestMessage,
  type TestRecord,
  type TestRecordResult,
  type TestRun,
  type TestRunResult,
  type TestSuite,
  isObject,
  readRange,
  str,
} from "./protocol";

/** Where an item is in the tree: a suite, one of its runs, one record of a run. */
export interface ItemRef {
  suite: string;
  /** The run's extracted file URI. */
  run?: string;
  /** The record's id in its run. */
  record?: string;
}

/**
 * An item's id: the parts of its ref as a JSON array (VS Code joins the ids of an item's parents
 * with NUL, so no part of an id may hold one; JSON writes control characters escaped).
 */
export function itemId(ref: ItemRef): string {
  const parts = ref.run === undefined ? [ref.suite] : ref.record === undefined ? [ref.suite, ref.run] : [ref.suite, ref.run, ref.record];
  return JSON.stringify(parts);
}

/** Of the ids of the listed record items, those a plan asks for: the records of `suite` that
 * `wants` takes. */
export function askedRecords(ids: Iterable<string>, suite: string, wants: (run: string, record: string) => boolean): string[] {
  const out: string[] = [];
  for (const id of ids) {
    const ref = parseItemId(id);
    if (ref.suite === suite && ref.run !== undefined && ref.record !== undefined && wants(ref.run, ref.record)) out.push(id);
  }
  return out;
}

export function parseItemId(id: string): ItemRef {
  let parts: unknown;
  try {
    parts = JSON.parse(id);
  } catch {
    return { suite: id };
  }
  const [suite, run, record] = Array.isArray(parts) ? parts.map((x) => (typeof x === "string" ? x : "")) : [id];
  if (run === undefined) return { suite: suite ?? "" };
  return record === undefined ? { suite: suite ?? "", run } : { suite: suite ?? "", run, record };
}

function version(v: unknown): number | null {
  return typeof v === "number" && Number.isInteger(v) ? v : null;
}

function readRecord(v: unknown): TestRecord | undefined {
  const range = isObject(v) ? readRange(v.range) : undefined;
  if (!range || !isObject(v) || typeof v.id !== "string" || typeof v.uri !== "string") return undefined;
  const goldRange = isObject(v.gold) ? readRange(v.gold.range) : undefined;
  const gold = goldRange && isObject(v.gold) && typeof v.gold.uri === "string" ? { uri: v.gold.uri, range: goldRange } : null;
  return { id: v.id, label: str(v.label) || v.id, uri: v.uri, range, gold, status: str(v.status) || "not run" };
}

function readRun(v: unknown): TestRun | undefined {
  if (!isObject(v) || typeof v.uri !== "string") return undefined;
  const records = Array.isArray(v.records) ? v.records.map(readRecord).filter((r): r is TestRecord => r !== undefined) : [];
  return { uri: v.uri, label: str(v.label) || v.uri, version: version(v.version), records };
}

/** A listTests answer; items of the wrong shape are dropped. */
export function readTestTree(v: unknown): TestSuite[] {
  const out: TestSuite[] = [];
  for (const s of isObject(v) && Array.isArray(v.suites) ? v.suites : []) {
    if (!isObject(s) || typeof s.key !== "string") continue;
    const runs = Array.isArray(s.runs) ? s.runs.map(readRun).filter((r): r is TestRun => r !== undefined) : [];
    out.push({ key: s.key, name: str(s.name) || s.key, uri: str(s.uri), runs });
  }
  return out;
}

function readMessage(v: unknown): TestMessage | undefined {
  const range = isObject(v) ? readRange(v.range) : undefined;
  if (!range || !isObject(v) || typeof v.message !== "string" || typeof v.uri !== "string") return undefined;
  return { message: v.message, field: typeof v.field === "string" ? v.field : null, status: str(v.status), uri: v.uri, range, expected: str(v.expected), actual: str(v.actual) };
}

function readRecordResult(v: unknown): TestRecordResult | undefined {
  if (!isObject(v) || typeof v.id !== "string") return undefined;
  const messages = Array.isArray(v.messages) ? v.messages.map(readMessage).filter((m): m is TestMessage => m !== undefined) : [];
  return { id: v.id, status: str(v.status), messages };
}

/** A runTests answer's runs. */
export function readTestResults(v: unknown): TestRunResult[] {
  const out: TestRunResult[] = [];
  for (const r of isObject(v) && Array.isArray(v.runs) ? v.runs : []) {
    if (!isObject(r) || typeof r.uri !== "string") continue;
    const records = Array.isArray(r.records) ? r.records.map(readRecordResult).filter((x): x is TestRecordResult => x !== undefined) : [];
    out.push({ uri: r.uri, label: str(r.label), version: version(r.version), stale: r.stale === true, records });
  }
  return out;
}

/** One runTests request, and which of its records the user asked for. */
export interface RunPlan {
  args: { suite: string; run?: string; records?: string[] };
  /** Whether the result of this record is wanted (included, not excluded). */
  wants: (run: string, record: string) => boolean;
}

/**
 * The requests for a test run: one per suite (the server scores a suite as a whole, unchanged
 * records from its cache), narrowed to a run or to records when only those were asked for.
 * `include` undefined: every suite of `suites`.
 */
export function planRuns(include: readonly ItemRef[] | undefined, exclude: readonly ItemRef[], suites: readonly string[]): RunPlan[] {
  const asked = include ?? suites.map((suite) => ({ suite }));
  const bySuite = new Map<string, ItemRef[]>();
  for (const ref of asked) bySuite.set(ref.suite, [...(bySuite.get(ref.suite) ?? []), ref]);
  const excluded = (run: string, record: string, suite: string) =>
    exclude.some((x) => x.suite === suite && (x.run === undefined || (x.run === run && (x.record === undefined || x.record === record))));
  const plans: RunPlan[] = [];
  for (const [suite, refs] of bySuite) {
    const whole = refs.some((r) => r.run === undefined);
    const runs = new Set(refs.map((r) => r.run));
    const onlyRun = !whole && runs.size === 1 ? refs[0]?.run : undefined;
    const args: RunPlan["args"] = { suite };
    if (onlyRun !== undefined) {
      args.run = onlyRun;
      if (refs.every((r) => r.record !== undefined)) args.records = refs.map((r) => r.record as string);
    }
    const wants = (run: string, record: string) =>
      !excluded(run, record, suite) && (whole || refs.some((r) => r.run === run && (r.record === undefined || r.record === record)));
    plans.push({ args, wants });
  }
  return plans;
}

/** What the Test Explorer shows for one record. */
export type RecordOutcome =
  | { state: "passed" }
  | { state: "failed" | "errored"; messages: TestMessage[] }
  | { state: "skipped"; reason: string };

/** The editor's document of a run file: its version and whether it has unsaved changes (undefined: not open). */
export interface OpenDocumentState {
  version: number;
  dirty: boolean;
}

/**
 * Why results are not for the text the editor has now (undefined: they are): the server says a
 * file changed during the run, or the document's version is not the one the results are for.
 */
export function staleReason(run: TestRunResult | TestRun, doc: OpenDocumentState | undefined): string | undefined {
  if ("stale" in run && run.stale) return "a file of the suite changed while it was scored";
  if (!doc) return undefined;
  if (run.version === null) return doc.dirty ? "the file has unsaved changes that were not scored" : undefined;
  return doc.version === run.version ? undefined : `scored version ${run.version} of the file; it is now at version ${doc.version}`;
}

export function recordOutcome(result: TestRecordResult, stale: string | undefined): RecordOutcome {
  if (stale !== undefined) return { state: "skipped", reason: stale };
  if (result.status === "passed") return { state: "passed" };
  if (result.status === "failed" || result.status === "errored") return { state: result.status, messages: result.messages };
  return { state: "skipped", reason: result.status === "not run" ? "not run" : `unknown status "${result.status}"` };
}

/** An item's label and where it is: runs by label, records by id (else file and line). */
export function recordItem(r: TestRecord): { label: string; uri: string; range: LspRange; description: string | undefined } {
  return { label: r.label, uri: r.uri, range: r.range, description: r.status === "failed" || r.status === "errored" ? `last run: ${r.status}` : undefined };
}
