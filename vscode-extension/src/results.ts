// The results view: a webview panel with the per-field table of each run (src/report.ts renders
// it); a click on a figure lists the worst values of that field in that run, on a field of a
// run's table its findings. What it shows and the messages it reads are src/panel.ts's; this is
// the VS Code side.
import * as crypto from "node:crypto";
import * as vscode from "vscode";
import { type Comparison, renderComparison } from "./compare";
import { COMPARE_VIEW_TYPE, RESULTS_VIEW_TYPE, mergeReports, panelTitle, readPanelMessage } from "./panel";
import { openPlace } from "./places";
import type { SuiteReport } from "./protocol";
import { renderPage, renderReport } from "./report";

export class ResultsPanel implements vscode.Disposable {
  static readonly viewType = RESULTS_VIEW_TYPE;
  private panel: vscode.WebviewPanel | undefined;
  private reports: SuiteReport[] = [];
  private notice: string | undefined;

  /** `running`: the keys of the suites being evaluated (their figures show as updating);
   * `onFindings`: a field of a run was clicked (list its findings); `onExamples`: a field's
   * figure in a run (list its worst values). */
  constructor(
    private readonly onRun: (suite: string) => void,
    private readonly running: () => ReadonlySet<string>,
    private readonly onFindings: (suite: string, field: string, run: string) => void,
    private readonly onExamples: (suite: string, field: string, run: string) => void,
  ) {}

  /** The keys of the suites the panel shows (to refresh it when one of them is run again). */
  get suites(): string[] {
    return this.panel ? this.reports.map((r) => r.key) : [];
  }

  get visible(): boolean {
    return this.panel !== undefined;
  }

  show(reports: SuiteReport[], reveal = true): void {
    this.reports = reports;
    this.notice = undefined;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        ResultsPanel.viewType,
        "evalschema results",
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: false },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
      });
      this.panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m));
    } else if (reveal) {
      this.panel.reveal(undefined, true);
    }
    this.panel.title = panelTitle(reports);
    this.render();
  }

  /** Replaces the reports of the suites it shows with fresh ones, without stealing focus. */
  update(fresh: SuiteReport[]): void {
    if (!this.panel) return;
    this.reports = mergeReports(this.reports, fresh);
    this.render();
  }

  /** Draws the view again (a suite it shows started or stopped being evaluated). */
  render(): void {
    if (!this.panel) return;
    const nonce = crypto.randomBytes(16).toString("base64");
    this.panel.webview.html = renderReport(this.reports, { nonce, cspSource: this.panel.webview.cspSource, notice: this.notice, updating: this.running() });
  }

  private async onMessage(message: unknown): Promise<void> {
    const m = readPanelMessage(message);
    if (m?.type === "open") await openPlace(m.uri, m.range);
    else if (m?.type === "run") this.onRun(m.suite);
    else if (m?.type === "findings") this.onFindings(m.suite, m.field, m.run);
    else if (m?.type === "examples") this.onExamples(m.suite, m.field, m.run);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

/** Compare two runs: the comparison's page (src/compare.ts), its fields and records clickable. */
export function showComparison(title: string, comparison: Comparison): void {
  const panel = vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, title, vscode.ViewColumn.Beside, {
    enableScripts: true,
    localResourceRoots: [],
  });
  panel.webview.onDidReceiveMessage(async (message: unknown) => {
    const m = readPanelMessage(message);
    if (m?.type === "open") await openPlace(m.uri, m.range);
  });
  const nonce = crypto.randomBytes(16).toString("base64");
  panel.webview.html = renderPage(title, renderComparison(comparison), { nonce, cspSource: panel.webview.cspSource });
}
