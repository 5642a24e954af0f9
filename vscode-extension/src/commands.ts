// The palette commands' ids and titles, and how a command's argument (a file from the explorer,
// a suite from a code lens, nothing from the palette) becomes what the server is asked. Pure (no
// VS Code: a Uri argument comes in as its string), so it is unit-tested; src/extension.ts runs it.
import { ServerCommands, type SuiteInfo, type SuiteSummary } from "./protocol";
import { UserError } from "./errors";
import { suiteOfUri } from "./status";

/** The commands package.json contributes; the title names the command in error messages. */
export const COMMANDS = {
  evaluateSuite: { id: "evalschema.evaluateSuite", title: "Evaluate suite" },
  evaluateAll: { id: "evalschema.evaluateAll", title: "Evaluate all suites" },
  showReport: { id: "evalschema.showReport", title: "Show report" },
  inferSchema: { id: "evalschema.inferSchema", title: "Infer schema" },
  annotateSchema: { id: "evalschema.annotateSchema", title: "Annotate schema" },
  compareRuns: { id: "evalschema.compareRuns", title: "Compare two runs" },
  clearResults: { id: "evalschema.clearResults", title: "Clear results" },
  filterFindings: { id: "evalschema.filterFindings", title: "Filter findings" },
  refreshFindings: { id: "evalschema.refreshFindings", title: "Refresh findings" },
  restartServer: { id: "evalschema.restartServer", title: "Restart server" },
  showLog: { id: "evalschema.showLog", title: "Show server log" },
} as const;

/** The status-bar item (its click shows the report). */
export const STATUS_ITEM = { id: "evalschema.f1", name: "evalschema F1", command: COMMANDS.showReport.id } as const;

/** A suite target for the server: a suite name, a file of a suite, or (empty) all of them. */
export interface Target {
  suite?: string;
  uri?: string;
}

/**
 * The target a command's argument names: a file (`uri`, the argument when it is a Uri), a
 * `{suite}` object or a suite name; undefined when it names none (then the active file decides).
 */
export function argumentTarget(arg: unknown, uri: string | undefined): Target | undefined {
  if (uri !== undefined) return { uri };
  if (typeof arg === "object" && arg !== null && typeof (arg as Target).suite === "string") return { suite: (arg as Target).suite };
  if (typeof arg === "string") return { suite: arg };
  return undefined;
}

export type ServerCommandRoute = { action: "showReport" | "evaluate"; target: Target } | { action: "recordDiff"; arg: object };

/**
 * The server's code lenses and code actions run its own commands; Show report and Run suite are
 * handled by the extension instead, so that their results show like the palette's, and Compare
 * record with gold (recordDiff) opens its answer in the diff editor. Undefined: sent as is.
 */
export function routeServerCommand(command: string, args: readonly unknown[]): ServerCommandRoute | undefined {
  const first: unknown = args[0];
  const target: Target = typeof first === "object" && first !== null ? (first as Target) : {};
  if (command === ServerCommands.showReport) return { action: "showReport", target };
  if (command === ServerCommands.runSuite) return { action: "evaluate", target };
  if (command === ServerCommands.recordDiff) return { action: "recordDiff", arg: target };
  return undefined;
}

export const NO_SUITES = "evalschema: no suites found. Add an evalschema.toml with a [[suite]] (name, schema, gold, extracted) to the workspace.";

/** The suite to use without asking (the only one); undefined when the user must pick. */
export function onlySuite(suites: readonly SuiteInfo[]): SuiteInfo | undefined {
  if (!suites.length) throw new UserError(NO_SUITES);
  return suites.length === 1 ? suites[0] : undefined;
}

/** What a run command opens afterwards: the one suite it evaluated, else all of them. */
export function reportTargetAfterRun(suites: readonly SuiteSummary[]): Target {
  return suites.length === 1 && suites[0] ? { suite: suites[0].key } : {};
}

/** The active editor's file, as far as the commands read it. */
export interface ActiveFile {
  fileName: string;
  uri: string;
}

/**
 * Where Infer schema reads gold records from without asking: the argument, else the active
 * JSON or JSON Lines file unless it is an eval schema, else the gold file of the active file's
 * suite (`gold`: a URI from the server). Undefined: ask with a file dialog.
 */
export function inferSource(argUri: string | undefined, active: ActiveFile | undefined, suites: readonly SuiteInfo[]): { uri: string; gold: boolean } | undefined {
  if (argUri !== undefined) return { uri: argUri, gold: false };
  if (active && /\.(jsonl|json)$/i.test(active.fileName) && !/\.eval\.jsonc?$/i.test(active.fileName)) return { uri: active.uri, gold: false };
  const own = suiteOfUri(active?.uri, suites);
  if (own?.gold) return { uri: own.gold, gold: true };
  return undefined;
}

/** The schema Annotate schema edits: the argument, else the active file. */
export function annotateTarget(argUri: string | undefined, activeUri: string | undefined): string {
  const uri = argUri ?? activeUri;
  if (!uri) throw new UserError("evalschema: open the eval schema to annotate first.");
  return uri;
}

/** The suite whose runs Compare two runs compares: it must be known and have two runs at least. */
export function compareSuite(target: Target, suites: readonly SuiteInfo[]): SuiteInfo {
  const info = target.suite ? suites.find((s) => s.key === target.suite || s.name === target.suite) : suiteOfUri(target.uri, suites);
  if (!info) throw new UserError("evalschema: choose a suite from evalschema.toml to compare its runs.");
  if (info.extracted.length < 2) throw new UserError(`evalschema: suite ${info.name} has ${info.extracted.length} extracted file(s); comparing needs two.`);
  return info;
}

/** The runs to compare without asking (a suite with two); undefined: the user picks two of more. */
export function defaultRuns(info: SuiteInfo): string[] | undefined {
  return info.extracted.length > 2 ? undefined : info.extracted.slice(0, 2);
}

/** The runs the user picked: exactly two, the first the baseline. */
export function pickedRuns(picked: readonly string[]): string[] {
  if (picked.length !== 2) throw new UserError("evalschema: pick exactly two runs to compare.");
  return [...picked];
}
