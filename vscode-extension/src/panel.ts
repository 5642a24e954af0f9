// The results view's pure part: the messages its webview posts (src/report.ts's script), its
// title and how fresh reports replace the ones it shows.
// No VS Code, so it is unit-tested; src/results.ts is the webview itself.
import type { LspRange, SuiteReport } from "./protocol";

export const RESULTS_VIEW_TYPE = "evalschema.results";
export const COMPARE_VIEW_TYPE = "evalschema.compare";

/**
 * A click in the view: a place to open, a suite to evaluate again, a field of a run whose
 * findings to list, or whose worst values to list (a figure; `run`: the run's extracted file).
 */
export type PanelMessage =
  | { type: "open"; uri: string; range: LspRange | undefined }
  | { type: "run"; suite: string }
  | { type: "findings" | "examples"; suite: string; field: string; run: string };

/** A message from the webview; anything else (the page is not trusted to be well-formed) is undefined. */
export function readPanelMessage(message: unknown): PanelMessage | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as { type?: unknown; uri?: unknown; range?: unknown; suite?: unknown; field?: unknown; run?: unknown };
  if (m.type === "open" && typeof m.uri === "string") return { type: "open", uri: m.uri, range: m.range ? (m.range as LspRange) : undefined };
  if (m.type === "run" && typeof m.suite === "string") return { type: "run", suite: m.suite };
  if ((m.type === "findings" || m.type === "examples") && typeof m.suite === "string" && typeof m.field === "string" && typeof m.run === "string") {
    return { type: m.type, suite: m.suite, field: m.field, run: m.run };
  }
  return undefined;
}

export function panelTitle(reports: readonly SuiteReport[]): string {
  return reports.length === 1 && reports[0] ? `evalschema: ${reports[0].name}` : "evalschema results";
}

/** The reports shown, each replaced by its fresh one when there is one (same order, none added). */
export function mergeReports(shown: readonly SuiteReport[], fresh: readonly SuiteReport[]): SuiteReport[] {
  const byKey = new Map(fresh.map((r) => [r.key, r]));
  return shown.map((r) => byKey.get(r.key) ?? r);
}
