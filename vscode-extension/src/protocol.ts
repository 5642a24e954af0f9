// The server's evaluation commands and notifications (workspace/executeCommand with one
// optional argument object). Types only, and tolerant readers: no runtime dependency on VS Code.
//
// The types, command and notification names are generated from the server's TypedDicts
// (server/evalschema_server/protocol.py) into ./generated/protocol.ts: `npm run contracts`.

import type {
  CheckRow,
  FieldExample,
  FieldExamples,
  FieldRow,
  LspRange,
  NotEvaluated,
  RunReport,
  RunSummary,
  SuiteInfo,
  SuiteProblem,
  SuiteReport,
  SuiteSummary,
  WorstExample,
} from "./generated/protocol";

export * from "./generated/protocol";

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** A figure that may be undefined (null: nothing was judged for it), shown as "—". */
export function figure(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Tolerant readers: a server answer of an unexpected shape becomes empty data, never a crash. */
export function readRunSummary(v: unknown): RunSummary | undefined {
  if (!isObject(v) || typeof v.extracted !== "string") return undefined;
  return {
    extracted: v.extracted,
    label: str(v.label) || v.extracted.split("/").pop() || v.extracted,
    records: num(v.records),
    precision: figure(v.precision),
    recall: figure(v.recall),
    f1: figure(v.f1),
    micro_f1: figure(v.micro_f1),
    coverage: figure(v.coverage),
    off_schema: Array.isArray(v.off_schema) ? v.off_schema.filter(isObject).filter((k) => typeof k.pointer === "string").map((k) => ({ pointer: str(k.pointer), values: num(k.values) })) : [],
    checks: Array.isArray(v.checks) ? v.checks.map(readCheck).filter((c): c is CheckRow => c !== undefined) : [],
    passed: typeof v.passed === "boolean" ? v.passed : null,
    badge: str(v.badge),
  };
}

function readCheck(v: unknown): CheckRow | undefined {
  if (!isObject(v) || typeof v.threshold !== "number" || typeof v.passed !== "boolean") return undefined;
  return { field: typeof v.field === "string" ? v.field : null, metric: str(v.metric), value: figure(v.value), threshold: v.threshold, passed: v.passed, text: str(v.text) };
}

export function readSuiteSummary(v: unknown): SuiteSummary | undefined {
  if (!isObject(v) || typeof v.name !== "string") return undefined;
  const runs = Array.isArray(v.runs) ? v.runs.map(readRunSummary) : [];
  const summary: SuiteSummary = { name: v.name, key: str(v.key) || v.name, runs: runs.filter((r): r is RunSummary => r !== undefined) };
  if (typeof v.problems === "number") summary.problems = num(v.problems);
  if (typeof v.stale === "string" && v.stale) summary.stale = v.stale;
  const why = readNotEvaluated(v.notEvaluated);
  if (why) summary.notEvaluated = why;
  return summary;
}

/** Why a suite's schema could not be scored, and where; undefined when it was (or unreadable). */
export function readNotEvaluated(v: unknown): NotEvaluated | undefined {
  if (!isObject(v) || typeof v.message !== "string" || typeof v.uri !== "string") return undefined;
  const range = readRange(v.range) ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return { message: v.message, code: str(v.code), uri: v.uri, range };
}

export function readSuiteSummaries(v: unknown): SuiteSummary[] {
  const suites = isObject(v) && Array.isArray(v.suites) ? v.suites : [];
  return suites.map(readSuiteSummary).filter((s): s is SuiteSummary => s !== undefined);
}

export function readSuiteInfos(v: unknown): SuiteInfo[] {
  const suites = isObject(v) && Array.isArray(v.suites) ? v.suites : [];
  const out: SuiteInfo[] = [];
  for (const s of suites) {
    if (!isObject(s) || typeof s.name !== "string") continue;
    out.push({
      name: s.name,
      key: str(s.key) || s.name,
      folder: str(s.folder),
      schema: str(s.schema),
      gold: str(s.gold),
      extracted: Array.isArray(s.extracted) ? s.extracted.filter((e): e is string => typeof e === "string") : [],
      config: typeof s.config === "string" ? s.config : null,
    });
  }
  return out;
}

export function readRange(v: unknown): LspRange | undefined {
  if (!isObject(v) || !isObject(v.start) || !isObject(v.end)) return undefined;
  return {
    start: { line: num(v.start.line), character: num(v.start.character) },
    end: { line: num(v.end.line), character: num(v.end.character) },
  };
}

export function readWorst(v: unknown): WorstExample | null {
  if (!isObject(v) || typeof v.uri !== "string") return null;
  const range = readRange(v.range);
  return range ? { uri: v.uri, range, path: str(v.path), status: str(v.status), score: num(v.score) } : null;
}

/** A fieldExamples answer; examples of the wrong shape are dropped. */
export function readFieldExamples(v: unknown): FieldExamples {
  const list = isObject(v) && Array.isArray(v.examples) ? v.examples : [];
  const examples: FieldExample[] = [];
  for (const e of list) {
    const place = readWorst(e);
    if (!place || !isObject(e)) continue;
    const preview = (x: unknown): string | null => (typeof x === "string" ? x : null);
    examples.push({ ...place, record: str(e.record), gold: preview(e.gold), extracted: preview(e.extracted) });
  }
  const total = isObject(v) && typeof v.total === "number" && Number.isFinite(v.total) ? v.total : examples.length;
  return { examples, total };
}

function readFieldRow(v: unknown): FieldRow | undefined {
  if (!isObject(v) || typeof v.field !== "string") return undefined;
  return {
    field: v.field,
    precision: figure(v.precision),
    recall: figure(v.recall),
    f1: figure(v.f1),
    skipped: num(v.skipped),
    matches: num(v.matches),
    mismatches: num(v.mismatches),
    omissions: num(v.omissions),
    hallucinations: num(v.hallucinations),
    errors: num(v.errors),
    invented: v.invented === true,
  };
}

export function readSuiteReports(v: unknown): SuiteReport[] {
  const suites = isObject(v) && Array.isArray(v.suites) ? v.suites : [];
  const out: SuiteReport[] = [];
  for (const s of suites) {
    if (!isObject(s) || typeof s.name !== "string") continue;
    const runs: RunReport[] = [];
    for (const r of Array.isArray(s.runs) ? s.runs : []) {
      const summary = readRunSummary(r);
      if (!summary || !isObject(r)) continue;
      const fields = Array.isArray(r.fields) ? r.fields.map(readFieldRow) : [];
      runs.push({ ...summary, fields: fields.filter((f): f is FieldRow => f !== undefined) });
    }
    const problems: SuiteProblem[] = [];
    for (const p of Array.isArray(s.problems) ? s.problems : []) {
      if (isObject(p) && typeof p.message === "string") problems.push({ uri: str(p.uri), code: str(p.code), message: p.message });
    }
    const report: SuiteReport = { name: s.name, key: str(s.key) || s.name, schema: str(s.schema), gold: str(s.gold), runs, problems };
    if (typeof s.stale === "string" && s.stale) report.stale = s.stale;
    const why = readNotEvaluated(s.notEvaluated);
    if (why) report.notEvaluated = why;
    out.push(report);
  }
  return out;
}

/** The key of the suite a runQueued or runStarted notification is about (its name from an older server). */
export function readRunStartedKey(v: unknown): string | undefined {
  if (!isObject(v)) return undefined;
  const key = typeof v.key === "string" ? v.key : v.suite;
  return typeof key === "string" ? key : undefined;
}

/** A runFinished notification; undefined when its summary cannot be read. */
export function readRunFinished(v: unknown): { suite: SuiteSummary; cancelled: boolean; pending: boolean } | undefined {
  const suite = isObject(v) ? readSuiteSummary(v.suite) : undefined;
  return suite && isObject(v) ? { suite, cancelled: Boolean(v.cancelled), pending: v.pending === true } : undefined;
}

/** The schema text of an inferSchema answer. */
export function readInferredText(v: unknown): string | undefined {
  return isObject(v) && typeof v.text === "string" ? v.text : undefined;
}

/** Whether an annotate answer says edits were applied. */
export function readAnnotateApplied(v: unknown): boolean {
  return isObject(v) && v.applied === true;
}
