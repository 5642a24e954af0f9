// The evalschema VS Code extension: starts the language server with the right Python, adds the
// palette commands, the status-bar F1 and the results view.
import * as vscode from "vscode";
import {
  ServerCommands,
  readSuiteInfos,
  readSuiteReports,
  readSuiteSummaries,
  readSuiteSummary,
  type SuiteInfo,
  type SuiteReport,
  type SuiteSummary,
} from "./protocol";
import { ResultsPanel, showMarkdown } from "./results";
import { ServerManager, SilentError, UserError, currentSettings } from "./server";
import { activeSuiteKey, sameUri, statusView, suiteOfUri } from "./status";

/** A suite target for the server: a suite name, a file of a suite, or (empty) all of them. */
interface Target {
  suite?: string;
  uri?: string;
}

class Extension implements vscode.Disposable {
  private suites: SuiteInfo[] = [];
  private readonly summaries = new Map<string, SuiteSummary>();
  private readonly running = new Set<string>();
  private lastSuite: string | undefined;
  private readonly status: vscode.StatusBarItem;
  private readonly results: ResultsPanel;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    context: vscode.ExtensionContext,
    private readonly server: ServerManager,
  ) {
    this.status = vscode.window.createStatusBarItem("evalschema.f1", vscode.StatusBarAlignment.Left, 50);
    this.status.name = "evalschema F1";
    this.status.command = "evalschema.showReport";
    this.results = new ResultsPanel((suite) => void this.guard("Evaluate suite", () => this.evaluate({ suite })));
    const cmd = (id: string, title: string, fn: (...args: unknown[]) => Promise<unknown>): vscode.Disposable =>
      vscode.commands.registerCommand(id, (...args: unknown[]) => this.guard(title, () => fn(...args)));
    this.disposables.push(
      this.status,
      this.results,
      cmd("evalschema.evaluateSuite", "Evaluate suite", (arg) => this.evaluateSuite(arg)),
      cmd("evalschema.evaluateAll", "Evaluate all suites", () => this.evaluate({}, true)),
      cmd("evalschema.showReport", "Show report", (arg) => this.showReport(arg)),
      cmd("evalschema.inferSchema", "Infer schema", (arg) => this.inferSchema(arg)),
      cmd("evalschema.annotateSchema", "Annotate schema", (arg) => this.annotate(arg)),
      cmd("evalschema.compareRuns", "Compare two runs", (arg) => this.compareRuns(arg)),
      cmd("evalschema.clearResults", "Clear results", () => this.clearResults()),
      cmd("evalschema.restartServer", "Restart server", () => this.server.restart()),
      cmd("evalschema.showLog", "Show server log", () => {
        this.server.output.show();
        return Promise.resolve();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => {
        this.updateStatus();
      }),
      server.onDidStart(() => void this.refreshSuites()),
      server.onRunStarted((p) => {
        const key = typeof p?.key === "string" ? p.key : p?.suite;
        if (typeof key !== "string") return;
        this.running.add(key);
        this.updateStatus();
      }),
      server.onRunFinished((p) => {
        const summary = readSuiteSummary(p?.suite);
        if (!summary) return;
        this.running.delete(summary.key);
        if (!p.cancelled) this.summaries.set(summary.key, summary);
        if (!this.suites.some((s) => s.key === summary.key)) void this.refreshSuites();
        this.updateStatus();
        if (!p.cancelled && this.results.suites.includes(summary.key)) void this.refreshPanel(summary.key);
      }),
    );
    // The server's code lenses run its own commands; show their results like the palette's.
    server.interceptor = (command, args) => {
      const first: unknown = args[0];
      const target: Target = typeof first === "object" && first !== null ? (first as Target) : {};
      if (command === ServerCommands.showReport) return this.guard("Show report", () => this.openReports(target));
      if (command === ServerCommands.runSuite) return this.guard("Evaluate suite", () => this.evaluate(target));
      return undefined;
    };
    const toml = vscode.workspace.createFileSystemWatcher("**/evalschema.toml");
    this.disposables.push(toml, toml.onDidChange(() => void this.refreshSuites()), toml.onDidCreate(() => void this.refreshSuites()), toml.onDidDelete(() => void this.refreshSuites()));
    context.subscriptions.push(this);
  }

  /** Runs a command; a failure becomes one notification, never a raw stack trace. */
  private async guard(title: string, fn: () => Promise<unknown>): Promise<unknown> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof SilentError) {
        this.server.output.warn(`${title}: ${e.message}`);
      } else if (e instanceof UserError) {
        void vscode.window.showErrorMessage(e.message);
      } else {
        this.server.output.error(`${title}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        void vscode.window.showErrorMessage(`evalschema: ${title} failed: ${e instanceof Error ? e.message : String(e)}. See "evalschema: Show server log".`);
      }
      return undefined;
    }
  }

  private activeUri(): string | undefined {
    return vscode.window.activeTextEditor?.document.uri.toString();
  }

  updateStatus(): void {
    const activeUri = this.activeUri();
    const input = { suites: this.suites, summaries: this.summaries, running: this.running, activeUri, lastSuite: this.lastSuite };
    const suite = activeSuiteKey(input);
    if (suite) this.lastSuite = suite;
    const view = statusView({ ...input, lastSuite: this.lastSuite });
    if (!view.visible) {
      this.status.hide();
      return;
    }
    this.status.text = view.text;
    this.status.tooltip = view.tooltip;
    this.status.show();
  }

  async refreshSuites(): Promise<void> {
    if (!this.server.running) return;
    try {
      this.suites = readSuiteInfos(await this.server.execute(ServerCommands.listSuites, {}, "listing suites"));
    } catch (e) {
      this.server.output.warn(e instanceof Error ? e.message : String(e));
      this.suites = [];
    }
    this.updateStatus();
  }

  private async pickSuite(placeHolder: string): Promise<SuiteInfo | undefined> {
    if (!this.suites.length) await this.refreshSuites();
    if (!this.suites.length) {
      throw new UserError('evalschema: no suites found. Add an evalschema.toml with a [[suite]] (name, schema, gold, extracted) to the workspace.');
    }
    if (this.suites.length === 1) return this.suites[0];
    const pick = await vscode.window.showQuickPick(
      this.suites.map((s) => ({ label: s.name, description: vscode.workspace.asRelativePath(vscode.Uri.parse(s.schema)), detail: `${s.extracted.length} run(s)`, suite: s })),
      { placeHolder },
    );
    return pick?.suite;
  }

  /** The suite target of a command: its argument, else the active file's suite, else a pick. */
  private async target(arg: unknown, placeHolder: string): Promise<Target | undefined> {
    if (arg instanceof vscode.Uri) return { uri: arg.toString() };
    if (typeof arg === "object" && arg !== null && typeof (arg as Target).suite === "string") return { suite: (arg as Target).suite };
    if (typeof arg === "string") return { suite: arg };
    if (!this.suites.length) await this.refreshSuites();
    const own = suiteOfUri(this.activeUri(), this.suites);
    if (own) return { suite: own.key };
    const picked = await this.pickSuite(placeHolder);
    return picked ? { suite: picked.key } : undefined;
  }

  private async evaluateSuite(arg: unknown): Promise<void> {
    const target = await this.target(arg, "Suite to evaluate");
    if (target) await this.evaluate(target);
  }

  private async evaluate(target: Target, all = false): Promise<void> {
    const names = target.suite ? [target.suite] : all ? this.suites.map((s) => s.key) : [];
    for (const n of names) this.running.add(n);
    this.updateStatus();
    let suites: SuiteSummary[];
    try {
      const result = all
        ? await this.server.execute(ServerCommands.runAll, {}, "Evaluate all suites")
        : await this.server.execute(ServerCommands.runSuite, target, "Evaluate suite");
      suites = readSuiteSummaries(result);
    } finally {
      for (const n of names) this.running.delete(n);
      this.updateStatus();
    }
    for (const s of suites) {
      this.running.delete(s.key);
      this.summaries.set(s.key, s);
    }
    if (suites[0] && !suiteOfUri(this.activeUri(), this.suites)) this.lastSuite = suites[0].key;
    this.updateStatus();
    if (!suites.length) {
      void vscode.window.showWarningMessage("evalschema: no suite was evaluated.");
      return;
    }
    if (currentSettings().showResultsAfterRun) {
      await this.openReports(suites.length === 1 && suites[0] ? { suite: suites[0].key } : {});
    }
  }

  private async showReport(arg: unknown): Promise<void> {
    let target: Target | undefined;
    if (arg === undefined && !suiteOfUri(this.activeUri(), this.suites) && this.lastSuite) target = { suite: this.lastSuite };
    else target = await this.target(arg, "Suite to show");
    if (target) await this.openReports(target);
  }

  private async openReports(target: Target): Promise<void> {
    const reports: SuiteReport[] = readSuiteReports(await this.server.execute(ServerCommands.showReport, target, "Show report"));
    if (!reports.length) {
      void vscode.window.showWarningMessage("evalschema: there is no report to show.");
      return;
    }
    // The active editor's run first.
    const active = this.activeUri();
    for (const r of reports) {
      const i = active ? r.runs.findIndex((run) => sameUri(run.extracted, active)) : -1;
      if (i > 0) r.runs.unshift(...r.runs.splice(i, 1));
    }
    this.results.show(reports);
  }

  private async refreshPanel(suite: string): Promise<void> {
    try {
      this.results.update(readSuiteReports(await this.server.execute(ServerCommands.showReport, { suite }, "Show report")));
    } catch (e) {
      this.server.output.warn(e instanceof Error ? e.message : String(e));
    }
  }

  private async inferSchema(arg: unknown): Promise<void> {
    let uri = arg instanceof vscode.Uri ? arg : undefined;
    const doc = vscode.window.activeTextEditor?.document;
    if (!uri && doc && /\.(jsonl|json)$/i.test(doc.fileName) && !/\.eval\.jsonc?$/i.test(doc.fileName)) uri = doc.uri;
    if (!uri) {
      const own = suiteOfUri(doc?.uri.toString(), this.suites);
      if (own?.gold) uri = vscode.Uri.parse(own.gold);
    }
    if (!uri) {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: "Infer schema",
        filters: { "Gold records": ["jsonl", "json"] },
      });
      uri = picked?.[0];
    }
    if (!uri) return;
    const result = await this.server.execute(ServerCommands.inferSchema, { uri: uri.toString() }, "Infer schema");
    const text = typeof result === "object" && result !== null ? (result as { text?: unknown }).text : undefined;
    if (typeof text !== "string") throw new UserError("evalschema: the server returned no schema.");
    const untitled = await vscode.workspace.openTextDocument({ language: "json", content: text });
    await vscode.window.showTextDocument(untitled);
  }

  private async annotate(arg: unknown): Promise<void> {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!uri) throw new UserError("evalschema: open the eval schema to annotate first.");
    const result = await this.server.execute(ServerCommands.annotate, { uri: uri.toString() }, "Annotate schema");
    const applied = typeof result === "object" && result !== null && (result as { applied?: unknown }).applied === true;
    if (!applied) void vscode.window.showInformationMessage("evalschema: nothing to annotate: every field already has a comparator.");
  }

  private async compareRuns(arg: unknown): Promise<void> {
    const target = await this.target(arg, "Suite whose runs to compare");
    if (!target) return;
    if (!this.suites.length) await this.refreshSuites();
    const info = target.suite ? this.suites.find((s) => s.key === target.suite || s.name === target.suite) : suiteOfUri(target.uri, this.suites);
    if (!info) throw new UserError("evalschema: choose a suite from evalschema.toml to compare its runs.");
    if (info.extracted.length < 2) throw new UserError(`evalschema: suite ${info.name} has ${info.extracted.length} extracted file(s); comparing needs two.`);
    let runs = info.extracted.slice(0, 2);
    if (info.extracted.length > 2) {
      const picked = await vscode.window.showQuickPick(
        info.extracted.map((e) => ({ label: vscode.workspace.asRelativePath(vscode.Uri.parse(e)), uri: e })),
        { canPickMany: true, placeHolder: "Pick two runs: the first is the baseline" },
      );
      if (!picked) return;
      if (picked.length !== 2) throw new UserError("evalschema: pick exactly two runs to compare.");
      runs = picked.map((p) => p.uri);
    }
    const result = await this.server.execute(ServerCommands.compareRuns, { suite: info.key, runs }, "Compare two runs");
    const markdown = typeof result === "object" && result !== null ? (result as { markdown?: unknown }).markdown : undefined;
    if (typeof markdown !== "string") throw new UserError("evalschema: the server returned no comparison.");
    await showMarkdown(`evalschema: compare ${info.name}`, markdown);
  }

  private async clearResults(): Promise<void> {
    await this.server.execute(ServerCommands.clearResults, {}, "Clear results");
    this.summaries.clear();
    this.updateStatus();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

let manager: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("evalschema", { log: true });
  manager = new ServerManager(context, output);
  context.subscriptions.push(output, manager);
  new Extension(context, manager);
  void manager.start();
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
}
