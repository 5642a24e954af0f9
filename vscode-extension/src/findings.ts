// The findings of a suite (listFindings) as the Findings view and the field list show them:
// grouped by field, then record; filtered by status and run. Pure (no VS Code), so it is
// unit-tested; src/findingsView.ts is the tree view, src/extension.ts the list of a field. The
// statuses a finding can have are the engine's (FINDING_STATUSES, generated into protocol.ts).
import { type FieldExample, type Finding, type LspRange, isObject, readRange } from "./protocol";
import { escapeIcons } from "./icons";

export interface FindingsAnswer {
  findings: Finding[];
  total: number;
}

/** A listFindings answer; findings of the wrong shape are dropped. */
export function readFindings(v: unknown): FindingsAnswer {
  const list = isObject(v) && Array.isArray(v.findings) ? v.findings : [];
  const findings: Finding[] = [];
  for (const f of list) {
    const range = isObject(f) ? readRange(f.range) : undefined;
    if (range && isObject(f) && ["suite", "run", "field", "path", "record", "status", "message", "uri"].every((k) => typeof f[k] === "string")) {
      findings.push({ ...(f as unknown as Finding), range });
    }
  }
  const total = isObject(v) && typeof v.total === "number" && Number.isFinite(v.total) ? v.total : findings.length;
  return { findings, total };
}

export interface FindingsFilter {
  /** Only these statuses (undefined: all). */
  statuses?: ReadonlySet<string> | undefined;
  /** Only this run's label (undefined: all). */
  run?: string | undefined;
}

export interface RecordGroup {
  record: string;
  run: string;
  findings: Finding[];
}

export interface FieldGroup {
  field: string;
  findings: Finding[];
  records: RecordGroup[];
}

export function matches(f: Finding, filter: FindingsFilter): boolean {
  return (!filter.statuses || filter.statuses.has(f.status)) && (filter.run === undefined || f.run === filter.run);
}

/** Field → record (per run) → findings; fields with the most findings first, then by name. */
export function groupFindings(findings: readonly Finding[], filter: FindingsFilter = {}): FieldGroup[] {
  const fields = new Map<string, FieldGroup>();
  for (const f of findings) {
    if (!matches(f, filter)) continue;
    let g = fields.get(f.field);
    if (!g) fields.set(f.field, (g = { field: f.field, findings: [], records: [] }));
    g.findings.push(f);
    let r = g.records.find((x) => x.record === f.record && x.run === f.run);
    if (!r) g.records.push((r = { record: f.record, run: f.run, findings: [] }));
    r.findings.push(f);
  }
  return [...fields.values()].sort((a, b) => b.findings.length - a.findings.length || a.field.localeCompare(b.field));
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}

export function fieldDescription(g: FieldGroup): string {
  const statuses = new Map<string, number>();
  for (const f of g.findings) statuses.set(f.status, (statuses.get(f.status) ?? 0) + 1);
  const parts = [...statuses]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([s, n]) => `${n} ${s}`)
    .join(", ");
  return `${plural(g.records.length, "record")} · ${parts}`;
}

/** A record's label in the tree; the run is named when several runs are shown. */
export function recordLabel(r: RecordGroup, runs: number): string {
  return runs > 1 ? `${r.record} · ${r.run}` : r.record;
}

/** A line of a list of places (a quick pick), and where it leads. */
export interface PlaceLine {
  label: string;
  description: string;
  detail: string;
  uri: string;
  range: LspRange;
}

/** One line of the list of a field's findings (a quick pick): record, run, path, then why. */
export function findingLine(f: Finding): { label: string; description: string; detail: string } {
  return { label: escapeIcons(`${f.record} · ${f.path}`), description: escapeIcons(`${f.status} · ${f.run}`), detail: escapeIcons(f.message) };
}

/** One line of the list of a field's worst values: record, path, status and score, both values. */
export function exampleLine(e: FieldExample): PlaceLine {
  const value = (v: string | null) => v ?? "(none)";
  return {
    label: escapeIcons(`${e.record} · ${e.path}`),
    description: `${e.status} · score ${e.score.toFixed(2)}`,
    detail: escapeIcons(`extracted ${value(e.extracted)} · gold ${value(e.gold)}`),
    uri: e.uri,
    range: e.range,
  };
}

/** The view's message: what is filtered, and what the limit left out. */
export function findingsMessage(answer: FindingsAnswer, filter: FindingsFilter, suite: string | undefined): string | undefined {
  if (!suite) return "No suite yet: open a file of a suite or run “evalschema: Evaluate suite”.";
  const parts: string[] = [];
  if (answer.findings.length < answer.total) parts.push(`${answer.findings.length.toLocaleString("en-US")} of ${plural(answer.total, "finding")} listed`);
  if (filter.statuses) parts.push(`only ${[...filter.statuses].join(", ")}`);
  if (filter.run !== undefined) parts.push(`only ${filter.run}`);
  if (!answer.total) parts.push(`no findings in suite ${suite}`);
  return parts.length ? parts.join(" · ") : undefined;
}
