// The Compare two runs view: the server's paired-bootstrap comparison (compareRuns) as an
// interactive page. Overall figures with their intervals, then one row per field sorted by its
// F1 change, largest regressions first, then the records whose fields changed. Field names are
// text in <code>, never markdown (so `vendor.vat_id` keeps its underscore); a field opens its
// worst example in each run, a record its place in each run. Pure (data in, HTML out), so it is
// unit-tested; src/results.ts shows it.
import { type CompareField, type CompareRecord, type LspRange, type WorstExample, figure, isObject, readWorst } from "./protocol";
import { UNDEFINED, escapeHtml, formatDelta, formatScore, openAttrs } from "./report";

/** One metric of a run pair: its value in each run and the difference's interval. */
export interface Difference {
  delta: number | null;
  low: number | null;
  high: number | null;
  significant: boolean;
}

export interface MetricRow {
  name: string;
  values: (number | null)[];
  /** Against the baseline, one per other run. */
  differences: Difference[];
}

export interface FieldComparison {
  field: string;
  f1: MetricRow;
  regressed: number[];
  fixed: number[];
  worst: (WorstExample | null)[];
}

export interface RecordChange {
  record: string;
  regressed: string[];
  fixed: string[];
  places: { run: string; uri: string; range: LspRange }[];
}

export interface Comparison {
  labels: string[];
  records: number;
  resamples: number;
  confidence: number;
  overall: MetricRow[];
  fields: FieldComparison[];
  changes: RecordChange[];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function readMetric(v: unknown, name: string): MetricRow {
  const m = isObject(v) ? v : {};
  const diffs = Array.isArray(m.differences) ? m.differences : [];
  return {
    name: typeof m.metric === "string" ? m.metric : name,
    values: Array.isArray(m.values) ? m.values.map(figure) : [],
    differences: diffs.map((d) => {
      const x = isObject(d) ? d : {};
      return { delta: figure(x.delta), low: figure(x.low), high: figure(x.high), significant: x.significant === true };
    }),
  };
}

/** The compareRuns answer, read defensively (a malformed answer gives an empty comparison). */
export function readComparison(answer: unknown): Comparison | undefined {
  if (!isObject(answer) || !isObject(answer.result)) return undefined;
  const r = answer.result;
  const labels = strings(r.labels);
  const overall = isObject(r.overall) ? Object.entries(r.overall).map(([k, v]) => readMetric(v, k)) : [];
  const worstByField = new Map<string, (WorstExample | null)[]>();
  for (const f of Array.isArray(answer.fields) ? (answer.fields as CompareField[]) : []) {
    if (isObject(f) && typeof f.field === "string") worstByField.set(f.field, Array.isArray(f.worst) ? f.worst.map(readWorst) : []);
  }
  const fields: FieldComparison[] = [];
  for (const f of Array.isArray(r.fields) ? r.fields : []) {
    if (!isObject(f) || typeof f.field !== "string") continue;
    const counts = (v: unknown) => (Array.isArray(v) ? v.map((x) => figure(x) ?? 0) : []);
    fields.push({ field: f.field, f1: readMetric(f.f1, "F1"), regressed: counts(f.regressed), fixed: counts(f.fixed), worst: worstByField.get(f.field) ?? [] });
  }
  const places = new Map<string, RecordChange["places"]>();
  for (const rec of Array.isArray(answer.records) ? (answer.records as CompareRecord[]) : []) {
    if (!isObject(rec) || typeof rec.record !== "string" || !Array.isArray(rec.places)) continue;
    places.set(rec.record, rec.places.filter((p) => isObject(p) && typeof p.uri === "string" && isObject(p.range)));
  }
  const changes: RecordChange[] = [];
  for (const f of Array.isArray(r.flips) ? r.flips : []) {
    if (!isObject(f)) continue;
    const record = typeof f.label === "string" ? f.label : typeof f.record_id === "string" ? f.record_id : "";
    changes.push({ record, regressed: strings(f.regressed), fixed: strings(f.fixed), places: places.get(record) ?? [] });
  }
  return {
    labels,
    records: figure(r.records) ?? 0,
    resamples: figure(r.resamples) ?? 0,
    confidence: figure(r.confidence) ?? 0,
    overall,
    fields,
    changes,
  };
}

/** The field's F1 change of the last run against the baseline (null: undefined). */
export function fieldDelta(f: FieldComparison): number | null {
  return f.f1.differences[f.f1.differences.length - 1]?.delta ?? null;
}

/** Largest regressions first; undefined changes last; ties by field name. */
export function sortByChange(fields: readonly FieldComparison[]): FieldComparison[] {
  return [...fields].sort((a, b) => {
    const x = fieldDelta(a);
    const y = fieldDelta(b);
    if (x === null || y === null) return x === y ? a.field.localeCompare(b.field) : x === null ? 1 : -1;
    return x - y || a.field.localeCompare(b.field);
  });
}

function interval(d: Difference | undefined): string {
  if (!d || d.delta === null) return UNDEFINED;
  const ci = d.low !== null && d.high !== null ? ` [${formatDelta(d.low)}, ${formatDelta(d.high)}]` : "";
  return `${formatDelta(d.delta)}${ci}${d.significant ? " *" : ""}`;
}

function deltaClass(d: Difference | undefined): string {
  if (!d || d.delta === null) return "undefined";
  if (!d.significant) return "same";
  return d.delta > 0 ? "up" : "down";
}

export function renderComparison(c: Comparison): string {
  const others = c.labels.slice(1);
  const head = (first: string) =>
    `<tr><th scope="col">${first}</th>${c.labels.map((l) => `<th scope="col" class="num">${escapeHtml(l)}</th>`).join("")}` +
    `${others.map((l) => `<th scope="col" class="num">Δ ${escapeHtml(l)} [${Math.round(c.confidence * 100)}% CI]</th>`).join("")}</tr>`;
  const overall = c.overall
    .map(
      (m) =>
        `<tr><td>${escapeHtml(m.name)}</td>${m.values.map((v) => `<td class="num">${formatScore(v)}</td>`).join("")}` +
        `${m.differences.map((d) => `<td class="num delta ${deltaClass(d)}">${interval(d)}</td>`).join("")}</tr>`,
    )
    .join("\n");
  const fields = sortByChange(c.fields)
    .map((f) => {
      const cells = f.f1.values.map((v, i) => {
        const w = f.worst[i];
        const open = w ? openAttrs(w.uri, w.range, `Open the worst example of ${f.field} in ${c.labels[i] ?? ""}`) : "";
        return `<td class="num"${open}>${formatScore(v)}</td>`;
      });
      const flips = others.map((_, j) => `${f.regressed[j] ?? 0} worse, ${f.fixed[j] ?? 0} better`).join("; ");
      return (
        `<tr data-field="${escapeHtml(f.field)}"><td class="field"><code>${escapeHtml(f.field)}</code></td>${cells.join("")}` +
        f.f1.differences.map((d) => `<td class="num delta ${deltaClass(d)}">${interval(d)}</td>`).join("") +
        `<td class="num">${escapeHtml(flips)}</td></tr>`
      );
    })
    .join("\n");
  const changes = c.changes
    .map((r) => {
      const links = r.places.map((p) => `<a href="#"${openAttrs(p.uri, p.range, `Open ${r.record} in ${p.run}`)}>${escapeHtml(p.run)}</a>`).join(" · ");
      const list = (xs: string[]) => xs.map((x) => `<code>${escapeHtml(x)}</code>`).join(", ") || UNDEFINED;
      return `<tr><td><code>${escapeHtml(r.record)}</code></td><td class="down">${list(r.regressed)}</td><td class="up">${list(r.fixed)}</td><td>${links}</td></tr>`;
    })
    .join("\n");
  return (
    `<h1>Compare ${c.labels.map((l) => `<code>${escapeHtml(l)}</code>`).join(" → ")}</h1>\n` +
    `<p class="summary">${c.records} records paired by gold record · ${c.resamples} paired bootstrap resamples · * the interval excludes 0. ` +
    `Click a figure to open the field's worst example in that run, a run name to open the record there.</p>\n` +
    `<table class="overall">${head("Overall")}\n${overall}</table>\n` +
    `<h2>Fields, largest regressions first</h2>\n` +
    `<table class="fields compare">${head("Field").replace("</tr>", `<th scope="col" class="num">Records</th></tr>`)}\n${fields}</table>\n` +
    (c.changes.length
      ? `<h2>Records whose fields changed (${c.changes.length})</h2>\n<table class="changes"><tr><th scope="col">Record</th><th scope="col">Worse</th><th scope="col">Better</th><th scope="col">Open in</th></tr>\n${changes}</table>\n`
      : `<p class="empty">No field of any record changed.</p>\n`)
  );
}
