// What the extension knows between commands: the workspace's suites, their last figures, the
// suites being evaluated and the suite the status bar shows; how the server's notifications
// and the run commands' answers change it. Pure (no VS Code), so it is unit-tested;
// src/extension.ts owns one and shows it.
import type { Target } from "./commands";
import { readRunFinished, readRunStartedKey, type SuiteInfo, type SuiteSummary } from "./protocol";
import { activeSuiteKey, statusView, suiteOfUri, type StatusInput, type StatusView } from "./status";

/** What to do after a runFinished notification. */
export interface RunFinishedOutcome {
  /** The suite is not in the list: list the suites again (a new suite in evalschema.toml). */
  listSuites: boolean;
  /** The key of the suite whose report the results view shows and should fetch again. */
  refreshPanel: string | undefined;
}

export class Session {
  suites: SuiteInfo[] = [];
  /** By suite key. */
  readonly summaries = new Map<string, SuiteSummary>();
  /** Keys of the suites being evaluated. */
  readonly running = new Set<string>();
  /** The key of the suite shown last, kept while the active editor belongs to none. */
  lastSuite: string | undefined;
  /** The file of the last active editor: a webview taking focus (the results view) leaves none. */
  private lastUri: string | undefined;

  /**
   * The status bar for the active file; the suite it shows becomes the last suite. No active
   * editor (a webview has focus): the last editor's file, its suite and its run, still.
   */
  status(activeUri: string | undefined): StatusView {
    if (activeUri !== undefined) this.lastUri = activeUri;
    const input: StatusInput = { suites: this.suites, summaries: this.summaries, running: this.running, activeUri: activeUri ?? this.lastUri, lastSuite: this.lastSuite };
    const suite = activeSuiteKey(input);
    if (suite) this.lastSuite = suite;
    return statusView({ ...input, lastSuite: this.lastSuite });
  }

  /**
   * The server queued or started a run of a suite (by itself or for a command): its figures show
   * as updating from now on. False: not readable.
   */
  runStarted(params: unknown): boolean {
    const key = readRunStartedKey(params);
    if (key === undefined) return false;
    this.running.add(key);
    return true;
  }

  /**
   * The server finished evaluating a suite: its figures replace the old ones unless the run was
   * cancelled; they still show as updating while a newer run is pending. `shown`: the suites the
   * results view shows. Undefined: not readable.
   */
  runFinished(params: unknown, shown: readonly string[]): RunFinishedOutcome | undefined {
    const finished = readRunFinished(params);
    if (!finished) return undefined;
    const { suite, cancelled, pending } = finished;
    if (pending) this.running.add(suite.key);
    else this.running.delete(suite.key);
    if (!cancelled) this.summaries.set(suite.key, suite);
    return {
      listSuites: !this.suites.some((s) => s.key === suite.key),
      refreshPanel: !cancelled && shown.includes(suite.key) ? suite.key : undefined,
    };
  }

  /** Marks the suites a run command evaluates as running (all: every listed suite); returns them for endRun. */
  beginRun(target: Target, all: boolean): string[] {
    const keys = target.suite ? [target.suite] : all ? this.suites.map((s) => s.key) : [];
    for (const k of keys) this.running.add(k);
    return keys;
  }

  /** The command has answered or failed. */
  endRun(keys: readonly string[]): void {
    for (const k of keys) this.running.delete(k);
  }

  /** A run command's figures; outside any suite, the first suite evaluated becomes the one shown. */
  evaluated(suites: readonly SuiteSummary[], activeUri: string | undefined): void {
    for (const s of suites) {
      this.running.delete(s.key);
      this.summaries.set(s.key, s);
    }
    if (suites[0] && !suiteOfUri(activeUri, this.suites)) this.lastSuite = suites[0].key;
  }

  clearResults(): void {
    this.summaries.clear();
  }

  /** Show report from the palette (no argument) outside any suite: the suite shown last, if any. */
  lastSuiteTarget(arg: unknown, activeUri: string | undefined): Target | undefined {
    if (arg === undefined && !suiteOfUri(activeUri, this.suites) && this.lastSuite) return { suite: this.lastSuite };
    return undefined;
  }
}
