// The evalschema VS Code extension: starts the language server with the right Python, adds the
// palette commands, the status-bar F1 and the results view. What the commands decide is in
// src/commands.ts, the state they share (and how the server's notifications change it) in
// src/session.ts, how a failure is told in src/errors.ts; this is the VS Code side.
import * as vscode from "vscode";
import {
  COMMANDS,
  STATUS_ITEM,
  annotateTarget,
  argumentTarget,
  compareSuite,
  defaultRuns,
  inferSource,
  onlySuite,
  pickedRuns,
  reportTargetAfterRun,
  routeServerCommand,
  type Target,
} from "./commands";
import { UserError, messageOf, reportFailure } from "./errors";
import {
  ServerCommands,
  readAnnotateApplied,
  readFieldExamples,
  readInferredText,
  readSuiteInfos,
  readSuiteReports,
  readSuiteSummaries,
  type SuiteInfo,
  type SuiteSummary,
} from "./protocol";
import { readComparison } from "./compare";
import { readRecordDiff } from "./recordDiff";
import { RecordDiffView } from "./recordDiffView";
import { EVAL_SCHEMA_LANGUAGE } from "./format";
import { exampleLine, readFindings } from "./findings";
import { FindingsView, pickFinding, pickPlace } from "./findingsView";
import { ResultsPanel, showComparison } from "./results";
import { toRange } from "./places";
import { registerSchemaFormatter } from "./schemaFormatter";
import { ServerManager, currentSettings } from "./server";
import { Session } from "./session";
import { suiteOfUri } from "./status";
import { RecordTests } from "./testing";

/** How many of a field's worst values a click on its figure lists. */
const WORST_LISTED = 20;
const RECORD_DIFF_TITLE = "Compare record with gold";

/** A command's argument as a file URI, when it is one (a file from the explorer or an editor title). */
function uriOf(arg: unknown): string | undefined {
  return arg instanceof vscode.Uri ? arg.toString() : undefined;
}

class Extension implements vscode.Disposable {
  private readonly session = new Session();
  private readonly status: vscode.StatusBarItem;
  private readonly results: ResultsPanel;
  private readonly findings: FindingsView;
  private readonly records = new RecordDiffView();
  private readonly tests: RecordTests;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    context: vscode.ExtensionContext,
    private readonly server: ServerManager,
  ) {
    this.status = vscode.window.createStatusBarItem(STATUS_ITEM.id, vscode.StatusBarAlignment.Left, 50);
    this.status.name = STATUS_ITEM.name;
    this.status.command = STATUS_ITEM.command;
    this.results = new ResultsPanel(
      (suite) => void this.guard(COMMANDS.evaluateSuite.title, () => this.evaluate({ suite })),
      () => this.session.running,
      (suite, field, run) => void this.guard(COMMANDS.showReport.title, () => this.fieldFindings(suite, field, run)),
      (suite, field, run) => void this.guard(COMMANDS.showReport.title, () => this.fieldExamples(suite, field, run)),
    );
    this.findings = new FindingsView(() => void this.refreshFindings());
    this.tests = new RecordTests(server);
    // One handler for each of COMMANDS (the type says so; test/commands.test.ts checks COMMANDS
    // against package.json).
    const handlers: Record<keyof typeof COMMANDS, (arg: unknown) => Promise<unknown>> = {
      evaluateSuite: (arg) => this.evaluateSuite(arg),
      evaluateAll: () => this.evaluate({}, true),
      showReport: (arg) => this.showReport(arg),
      inferSchema: (arg) => this.inferSchema(arg),
      annotateSchema: (arg) => this.annotate(arg),
      compareRuns: (arg) => this.compareRuns(arg),
      clearResults: () => this.clearResults(),
      filterFindings: () => this.findings.pickFilter(),
      refreshFindings: () => this.refreshFindings(),
      restartServer: () => this.server.restart(),
      showLog: () => {
        this.server.output.show();
        return Promise.resolve();
      },
    };
    for (const name of Object.keys(handlers) as (keyof typeof COMMANDS)[]) {
      const { id, title } = COMMANDS[name];
      this.disposables.push(vscode.commands.registerCommand(id, (arg: unknown) => this.guard(title, () => handlers[name](arg))));
    }
    this.disposables.push(
      registerSchemaFormatter(),
      this.status,
      this.findings,
      this.tests,
      this.results,
      this.records,
      vscode.window.onDidChangeActiveTextEditor(() => {
        this.updateStatus();
      }),
      server.onDidStart(() => {
        void this.refreshSuites();
        this.tests.scheduleRefresh();
      }),
      server.onSuitesChanged(() => {
        this.tests.scheduleRefresh();
      }),
      server.onRunStarted((p) => {
        if (!this.session.runStarted(p)) return;
        this.updateStatus();
        this.results.render(); // "Updating…" over the last figures
      }),
      server.onRunFinished((p) => {
        const outcome = this.session.runFinished(p, this.results.suites);
        if (!outcome) return;
        if (!p.cancelled) this.tests.scheduleRefresh(); // new statuses, or new texts' records
        if (outcome.listSuites) void this.refreshSuites();
        this.updateStatus();
        if (outcome.refreshPanel !== undefined) void this.refreshPanel(outcome.refreshPanel);
        else this.results.render();
        if (this.findings.visible) void this.refreshFindings();
      }),
    );
    // The server's code lenses and code actions run its own commands; show their results like
    // the palette's, and a record compared with gold in the diff editor.
    server.interceptor = (command, args) => {
      const route = routeServerCommand(command, args);
      if (route?.action === "showReport") return this.guard(COMMANDS.showReport.title, () => this.openReports(route.target));
      if (route?.action === "evaluate") return this.guard(COMMANDS.evaluateSuite.title, () => this.evaluate(route.target));
      if (route?.action === "recordDiff") return this.guard(RECORD_DIFF_TITLE, () => this.compareRecord(route.arg));
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
      const report = reportFailure(title, e);
      if (report.log) this.server.output[report.log.level](report.log.text);
      if (report.notify !== undefined) void vscode.window.showErrorMessage(report.notify);
      return undefined;
    }
  }

  private activeUri(): string | undefined {
    return vscode.window.activeTextEditor?.document.uri.toString();
  }

  updateStatus(): void {
    const view = this.session.status(this.activeUri());
    if (!view.visible) {
      this.status.hide();
      return;
    }
    this.status.text = view.text;
    this.status.tooltip = view.tooltip;
    // A schema that stopped the suite: a click opens its problem (the report is a command away).
    const at = view.open;
    this.status.command = at
      ? {
          title: "Open the schema's problem",
          command: "vscode.open",
          arguments: [vscode.Uri.parse(at.uri), { selection: toRange(at.range), preview: true }],
        }
      : STATUS_ITEM.command;
    this.status.show();
  }

  async refreshSuites(): Promise<void> {
    if (!this.server.running) return;
    try {
      this.session.suites = readSuiteInfos(await this.server.execute(ServerCommands.listSuites, {}, "listing suites"));
    } catch (e) {
      this.server.output.warn(messageOf(e));
      this.session.suites = [];
    }
    this.updateStatus();
  }

  private async pickSuite(placeHolder: string): Promise<SuiteInfo | undefined> {
    if (!this.session.suites.length) await this.refreshSuites();
    const only = onlySuite(this.session.suites);
    if (only) return only;
    const pick = await vscode.window.showQuickPick(
      this.session.suites.map((s) => ({ label: s.name, description: vscode.workspace.asRelativePath(vscode.Uri.parse(s.schema)), detail: `${s.extracted.length} run(s)`, suite: s })),
      { placeHolder },
    );
    return pick?.suite;
  }

  /** The suite target of a command: its argument, else the active file's suite, else a pick. */
  private async target(arg: unknown, placeHolder: string): Promise<Target | undefined> {
    const given = argumentTarget(arg, uriOf(arg));
    if (given) return given;
    if (!this.session.suites.length) await this.refreshSuites();
    const own = suiteOfUri(this.activeUri(), this.session.suites);
    if (own) return { suite: own.key };
    const picked = await this.pickSuite(placeHolder);
    return picked ? { suite: picked.key } : undefined;
  }

  private async evaluateSuite(arg: unknown): Promise<void> {
    const target = await this.target(arg, "Suite to evaluate");
    if (target) await this.evaluate(target);
  }

  private async evaluate(target: Target, all = false): Promise<void> {
    const keys = this.session.beginRun(target, all);
    this.updateStatus();
    let suites: SuiteSummary[];
    try {
      const result = all
        ? await this.server.execute(ServerCommands.runAll, {}, COMMANDS.evaluateAll.title)
        : await this.server.execute(ServerCommands.runSuite, target, COMMANDS.evaluateSuite.title);
      suites = readSuiteSummaries(result);
    } finally {
      this.session.endRun(keys);
      this.updateStatus();
    }
    this.session.evaluated(suites, this.activeUri());
    this.updateStatus();
    if (!suites.length) {
      void vscode.window.showWarningMessage("evalschema: no suite was evaluated.");
      return;
    }
    if (currentSettings().showResultsAfterRun) await this.openReports(reportTargetAfterRun(suites));
  }

  private async showReport(arg: unknown): Promise<void> {
    const target = this.session.lastSuiteTarget(arg, this.activeUri()) ?? (await this.target(arg, "Suite to show"));
    if (target) await this.openReports(target);
  }

  private async openReports(target: Target): Promise<void> {
    const reports = readSuiteReports(await this.server.execute(ServerCommands.showReport, target, COMMANDS.showReport.title));
    if (!reports.length) {
      void vscode.window.showWarningMessage("evalschema: there is no report to show.");
      return;
    }
    this.results.show(reports); // runs in the configuration's order: the first is the baseline
  }

  /** The Findings view: the findings of the suite the status bar shows. */
  private async refreshFindings(): Promise<void> {
    const suite = this.session.status(this.activeUri()).suite;
    if (!suite || !this.server.running) {
      this.findings.show(suite, { findings: [], total: 0 });
      return;
    }
    try {
      this.findings.show(suite, readFindings(await this.server.execute(ServerCommands.listFindings, { suite }, COMMANDS.refreshFindings.title)));
    } catch (e) {
      this.server.output.warn(messageOf(e));
    }
  }

  /** A field of the results view: its findings in one run, as a list to step through. */
  private async fieldFindings(suite: string, field: string, run: string): Promise<void> {
    const answer = readFindings(await this.server.execute(ServerCommands.listFindings, { suite, field, run }, COMMANDS.showReport.title));
    pickFinding(`evalschema: ${field}`, answer);
  }

  /** A figure of the results view: the field's worst values in that run, the worst shown first. */
  private async fieldExamples(suite: string, field: string, run: string): Promise<void> {
    const answer = readFieldExamples(await this.server.execute(ServerCommands.fieldExamples, { suite, run, field, limit: WORST_LISTED }, COMMANDS.showReport.title));
    pickPlace(`evalschema: worst values of ${field}`, answer.examples.map(exampleLine), answer.total, "no wrong value in this run's file");
  }

  private async refreshPanel(suite: string): Promise<void> {
    try {
      this.results.update(readSuiteReports(await this.server.execute(ServerCommands.showReport, { suite }, COMMANDS.showReport.title)));
    } catch (e) {
      this.server.output.warn(messageOf(e));
    }
  }

  private async inferSchema(arg: unknown): Promise<void> {
    const doc = vscode.window.activeTextEditor?.document;
    const source = inferSource(uriOf(arg), doc ? { fileName: doc.fileName, uri: doc.uri.toString() } : undefined, this.session.suites);
    let uri: string | undefined;
    if (source) {
      // A gold URI comes from the server: sent back in VS Code's spelling, like the others.
      uri = source.gold ? vscode.Uri.parse(source.uri).toString() : source.uri;
    } else {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: "Infer schema",
        filters: { "Gold records": ["jsonl", "json"] },
      });
      uri = picked?.[0]?.toString();
    }
    if (!uri) return;
    const text = readInferredText(await this.server.execute(ServerCommands.inferSchema, { uri }, COMMANDS.inferSchema.title));
    if (text === undefined) throw new UserError("evalschema: the server returned no schema.");
    const untitled = await vscode.workspace.openTextDocument({ language: EVAL_SCHEMA_LANGUAGE, content: text });
    await vscode.window.showTextDocument(untitled);
  }

  private async annotate(arg: unknown): Promise<void> {
    const uri = annotateTarget(uriOf(arg), this.activeUri());
    const result = await this.server.execute(ServerCommands.annotate, { uri }, COMMANDS.annotateSchema.title);
    if (!readAnnotateApplied(result)) void vscode.window.showInformationMessage("evalschema: nothing to annotate: every field already has a comparator.");
  }

  private async compareRuns(arg: unknown): Promise<void> {
    const target = await this.target(arg, "Suite whose runs to compare");
    if (!target) return;
    if (!this.session.suites.length) await this.refreshSuites();
    const info = compareSuite(target, this.session.suites);
    let runs = defaultRuns(info);
    if (!runs) {
      const picked = await vscode.window.showQuickPick(
        info.extracted.map((e) => ({ label: vscode.workspace.asRelativePath(vscode.Uri.parse(e)), uri: e })),
        { canPickMany: true, placeHolder: "Pick two runs: the first is the baseline" },
      );
      if (!picked) return;
      runs = pickedRuns(picked.map((p) => p.uri));
    }
    const comparison = readComparison(await this.server.execute(ServerCommands.compareRuns, { suite: info.key, runs }, COMMANDS.compareRuns.title));
    if (comparison === undefined) throw new UserError("evalschema: the server returned no comparison.");
    showComparison(`evalschema: compare ${info.name}`, comparison);
  }

  /** Compare record with gold (a code action on a finding): both records in the diff editor. */
  private async compareRecord(arg: object): Promise<void> {
    const diff = readRecordDiff(await this.server.execute(ServerCommands.recordDiff, arg, RECORD_DIFF_TITLE));
    if (diff === undefined) throw new UserError("evalschema: the server returned no records to compare.");
    await this.records.show(diff);
  }

  private async clearResults(): Promise<void> {
    await this.server.execute(ServerCommands.clearResults, {}, COMMANDS.clearResults.title);
    this.session.clearResults();
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
