// What the status-bar item says: the F1 of the active suite (the suite of the active editor's
// file; the run of that file when it is an extracted file, else the first run), a spinner while
// that suite runs. Pure, so it is unit-tested.
import type { LspRange, NotEvaluated, RunSummary, SuiteInfo, SuiteSummary } from "./protocol";
import { formatScore } from "./report";
import { escapeIcons } from "./icons";

/** Normalises a file URI for comparison (percent-encoding, Windows drive-letter case). */
export function normalizeUri(uri: string): string {
  let out = uri;
  try {
    out = decodeURIComponent(uri);
  } catch {
    // keep as is
  }
  return out.replace(/^file:\/\/\/([A-Za-z]):/, (_m, d: string) => `file:///${d.toLowerCase()}:`);
}

export function sameUri(a: string, b: string): boolean {
  return normalizeUri(a) === normalizeUri(b);
}

/** The suite the file belongs to (as its schema, gold or one of its extracted files). */
export function suiteOfUri(uri: string | undefined, suites: readonly SuiteInfo[]): SuiteInfo | undefined {
  if (!uri) return undefined;
  return suites.find((s) => sameUri(s.schema, uri) || sameUri(s.gold, uri) || s.extracted.some((e) => sameUri(e, uri)));
}

/** Suites are identified by key (unique in the workspace); names are for display. */
export interface StatusInput {
  suites: readonly SuiteInfo[];
  /** By suite key. */
  summaries: ReadonlyMap<string, SuiteSummary>;
  /** Keys of the suites being evaluated. */
  running: ReadonlySet<string>;
  activeUri?: string | undefined;
  /** The key of the suite shown last, kept while the active editor belongs to none (a webview, the output). */
  lastSuite?: string | undefined;
}

export interface StatusView {
  visible: boolean;
  text: string;
  tooltip: string;
  /** The key of the suite shown. */
  suite?: string | undefined;
  /** Where a click goes instead of the report: the schema's problem that stopped the suite. */
  open?: { uri: string; range: LspRange } | undefined;
}

/** The status bar's words for why a suite was not evaluated (its message, cut to fit). */
export function notEvaluatedText(why: NotEvaluated, limit = 60): string {
  return why.message.length <= limit ? why.message : `${why.message.slice(0, limit - 1)}…`;
}

/** The tooltip's line for it: the whole message, its code and where it is (1-based line). */
function notEvaluatedLine(why: NotEvaluated): string {
  const file = decodeURIComponent(why.uri.split("/").pop() ?? why.uri);
  return `Not evaluated: ${why.message}${why.code ? ` (${why.code})` : ""}, ${file} line ${why.range.start.line + 1}. Click to open it.`;
}

function pickRun(summary: SuiteSummary, activeUri: string | undefined): RunSummary | undefined {
  return (activeUri && summary.runs.find((r) => sameUri(r.extracted, activeUri))) || summary.runs[0];
}

/** The key of the active suite. */
export function activeSuiteKey(input: StatusInput): string | undefined {
  const own = suiteOfUri(input.activeUri, input.suites)?.key;
  if (own) return own;
  if (input.lastSuite && (input.summaries.has(input.lastSuite) || input.running.has(input.lastSuite))) return input.lastSuite;
  if (input.suites.length === 1) return input.suites[0]?.key;
  return undefined;
}

function displayName(input: StatusInput, key: string): string {
  return input.suites.find((s) => s.key === key)?.name ?? input.summaries.get(key)?.name ?? key;
}

export function statusView(input: StatusInput): StatusView {
  const key = activeSuiteKey(input);
  if (!key) {
    if (input.running.size) {
      return { visible: true, text: "$(sync~spin) evalschema", tooltip: `Evaluating ${[...input.running].map((k) => displayName(input, k)).join(", ")}…` };
    }
    return { visible: false, text: "", tooltip: "" };
  }
  const name = displayName(input, key);
  const suite = escapeIcons(name); // in the text, where `$(…)` would be an icon
  const summary = input.summaries.get(key);
  const run = summary ? pickRun(summary, input.activeUri) : undefined;
  const lines = (summary?.runs ?? []).map(
    (r) =>
      `${r === run ? "▶ " : ""}${r.label}: F1 ${formatScore(r.f1)} macro, ${formatScore(r.micro_f1)} micro (P ${formatScore(r.precision)}, R ${formatScore(r.recall)}, ${r.records} records)` +
      (r.badge ? ` ${r.badge}` : ""),
  );
  // The run shown is named, with its pass/fail against the configuration's thresholds.
  const figure = run ? ` · ${escapeIcons(run.label)} F1 ${formatScore(run.f1)}${run.badge ? ` ${run.badge}` : ""}` : "";
  const failed = (run?.checks ?? []).filter((c) => !c.passed).map((c) => `✗ ${c.text}`);
  if (input.running.has(key)) {
    return {
      visible: true,
      suite: key,
      text: `$(sync~spin) ${suite}${figure}${run ? " (updating)" : ""}`,
      tooltip: [`evalschema: evaluating suite ${name}… (the figures are the last run's until it ends)`, ...lines].join("\n"),
    };
  }
  const why = summary?.notEvaluated;
  const open = why ? { uri: why.uri, range: why.range } : undefined;
  if (!run) {
    if (why) {
      return {
        visible: true,
        suite: key,
        text: `$(error) ${suite}: not evaluated — ${escapeIcons(notEvaluatedText(why))}`,
        tooltip: `evalschema suite ${name}: the schema cannot be scored.\n${notEvaluatedLine(why)}`,
        open,
      };
    }
    return {
      visible: true,
      suite: key,
      text: `$(graph) ${suite}: not evaluated`,
      tooltip: `evalschema suite ${name}: no results yet. Click to evaluate it and show the report.`,
    };
  }
  const stale = summary?.stale;
  return {
    visible: true,
    suite: key,
    text: `$(graph) ${suite}${figure}${stale ? ` — stale: ${escapeIcons(stale)}` : ""}`,
    tooltip: [
      `evalschema suite ${name} (${run.label})`,
      ...(stale ? [`Stale: ${stale}. These are the last good run's figures; they are evaluated again once it is fixed.`] : []),
      ...(why ? [notEvaluatedLine(why)] : []),
      ...lines,
      ...failed,
      ...(why ? [] : ["Click to show the report."]),
    ].join("\n"),
    open,
  };
}
