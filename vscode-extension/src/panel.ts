// The results view's pure part: the messages its webview posts (src/report.ts's script), its
// title, how fresh reports replace the ones it shows, and the page Compare two runs is shown in.
// No VS Code, so it is unit-tested; src/results.ts is the webview itself.
import type { LspRange, SuiteReport } from "./protocol";

export const RESULTS_VIEW_TYPE = "evalschema.results";
export const COMPARE_VIEW_TYPE = "evalschema.compare";

/** A click in the view: a field's worst example to open, or a suite to evaluate again. */
export type PanelMessage = { type: "open"; uri: string; range: LspRange | undefined } | { type: "run"; suite: string };

/** A message from the webview; anything else (the page is not trusted to be well-formed) is undefined. */
export function readPanelMessage(message: unknown): PanelMessage | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as { type?: unknown; uri?: unknown; range?: unknown; suite?: unknown };
  if (m.type === "open" && typeof m.uri === "string") return { type: "open", uri: m.uri, range: m.range ? (m.range as LspRange) : undefined };
  if (m.type === "run" && typeof m.suite === "string") return { type: "run", suite: m.suite };
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

/** The page for rendered markdown: no scripts, only its own nonce-tagged style. */
export function markdownPage(html: string, nonce: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; img-src data:">
<style nonce="${nonce}">body{color:var(--vscode-foreground);background:var(--vscode-editor-background);font-family:var(--vscode-font-family);padding:0 16px}
table{border-collapse:collapse}th,td{padding:2px 8px;border-bottom:1px solid var(--vscode-panel-border);text-align:left}
code,pre{font-family:var(--vscode-editor-font-family)}</style></head><body>${html}</body></html>`;
}
