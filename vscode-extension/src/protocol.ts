// The server's evaluation commands and notifications (workspace/executeCommand with one
// optional argument object). Types only: no runtime dependency on VS Code.

export const ServerCommands = {
  runSuite: "evalschema.server.runSuite",
  runAll: "evalschema.server.runAll",
  listSuites: "evalschema.server.listSuites",
  showReport: "evalschema.server.showReport",
  inferSchema: "evalschema.server.inferSchema",
  annotate: "evalschema.server.annotate",
  compareRuns: "evalschema.server.compareRuns",
  clearResults: "evalschema.server.clearResults",
} as const;

export const Notifications = {
  runStarted: "evalschema/runStarted",
  runFinished: "evalschema/runFinished",
} as const;

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface RunSummary {
  extracted: string;
  label: string;
  records: number;
  precision: number;
  recall: number;
  f1: number;
  micro_f1: number;
}

export interface SuiteSummary {
  name: string;
  /** Unique in the workspace (names may repeat across folders); defaults to the name. */
  key: string;
  runs: RunSummary[];
}

export interface SuiteInfo {
  name: string;
  key: string;
  folder: string;
  schema: string;
  gold: string;
  extracted: string[];
}

export interface FieldRow {
  field: string;
  precision: number;
  recall: number;
  f1: number;
  matches: number;
  mismatches: number;
  omissions: number;
  hallucinations: number;
  /** A key the model produced that gold never has: listed apart from the schema's fields. */
  invented: boolean;
  worst: null | { uri: string; range: LspRange };
}

export interface RunReport extends RunSummary {
  fields: FieldRow[];
}

export interface SuiteProblem {
  uri: string;
  code: string;
  message: string;
}

export interface SuiteReport {
  name: string;
  key: string;
  schema: string;
  gold: string;
  runs: RunReport[];
  problems: SuiteProblem[];
}

export interface RunStartedParams {
  suite: string;
  key?: string;
}

export interface RunFinishedParams {
  suite: SuiteSummary;
  cancelled: boolean;
}

export interface InferResult {
  schema: unknown;
  text: string;
}

export interface CompareResult {
  markdown: string;
  result: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Tolerant readers: a server answer of an unexpected shape becomes empty data, never a crash. */
export function readRunSummary(v: unknown): RunSummary | undefined {
  if (!isObject(v) || typeof v.extracted !== "string") return undefined;
  return {
    extracted: v.extracted,
    label: str(v.label) || v.extracted.split("/").pop() || v.extracted,
    records: num(v.records),
    precision: num(v.precision),
    recall: num(v.recall),
    f1: num(v.f1),
    micro_f1: num(v.micro_f1),
  };
}

export function readSuiteSummary(v: unknown): SuiteSummary | undefined {
  if (!isObject(v) || typeof v.name !== "string") return undefined;
  const runs = Array.isArray(v.runs) ? v.runs.map(readRunSummary) : [];
  return { name: v.name, key: str(v.key) || v.name, runs: runs.filter((r): r is RunSummary => r !== undefined) };
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
    });
  }
  return out;
}

function readRange(v: unknown): LspRange | undefined {
  if (!isObject(v) || !isObject(v.start) || !isObject(v.end)) return undefined;
  return {
    start: { line: num(v.start.line), character: num(v.start.character) },
    end: { line: num(v.end.line), character: num(v.end.character) },
  };
}

function readFieldRow(v: unknown): FieldRow | undefined {
  if (!isObject(v) || typeof v.field !== "string") return undefined;
  let worst: FieldRow["worst"] = null;
  if (isObject(v.worst) && typeof v.worst.uri === "string") {
    const range = readRange(v.worst.range);
    if (range) worst = { uri: v.worst.uri, range };
  }
  return {
    field: v.field,
    precision: num(v.precision),
    recall: num(v.recall),
    f1: num(v.f1),
    matches: num(v.matches),
    mismatches: num(v.mismatches),
    omissions: num(v.omissions),
    hallucinations: num(v.hallucinations),
    invented: v.invented === true,
    worst,
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
    out.push({ name: s.name, key: str(s.key) || s.name, schema: str(s.schema), gold: str(s.gold), runs, problems });
  }
  return out;
}
