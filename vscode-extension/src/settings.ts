// The `evalschema.*` settings, read defensively (a wrong type in settings.json falls back to
// the default instead of breaking the server). Pure: takes a getter, so it is unit-tested.

export const SEVERITIES = ["error", "warning", "information", "hint", "off"] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * `evalschema.judge`: where the LLM judge (the `semantic` comparator) sends data and which
 * key it sends. Read only at user level (`inspect(...).globalValue`; the setting is
 * application-scoped), so a workspace's .vscode/settings.json cannot redirect the key.
 */
export interface JudgeProfile {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
}

export interface JudgeSettings extends JudgeProfile {
  profiles?: Record<string, JudgeProfile>;
  concurrency?: number;
  timeout?: number;
  retries?: number;
  breakerFailures?: number;
}

export interface Settings {
  interpreter: string;
  serverArgs: string[];
  comparatorModules: string[];
  schemaPatterns: string[];
  debounceMs: number;
  runOn: "save" | "change";
  runOnStartup: boolean;
  watchFiles: boolean;
  goldDiagnostics: boolean;
  severity: Record<string, Severity>;
  fieldThreshold: number | null;
  evaluationDebounceMs: number;
  maxDocumentSize: number;
  showResultsAfterRun: boolean;
  judge: JudgeSettings;
}

/**
 * What the server reads (initializationOptions and workspace/configuration, section evalschema),
 * and whether the user trusts the workspace: only then does the server import custom code.
 */
export type ServerSettings = Omit<Settings, "interpreter" | "serverArgs" | "showResultsAfterRun"> & { workspaceTrusted: boolean };

/**
 * Settings that choose what code runs: in an untrusted workspace only the user's own value counts
 * (package.json declares them as capabilities.untrustedWorkspaces.restrictedConfigurations).
 */
export const RESTRICTED_SETTINGS: readonly string[] = ["interpreter", "serverArgs", "comparatorModules"];

/** The values of one setting by scope, as `WorkspaceConfiguration.inspect` gives them. */
export interface InspectedSetting {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * A getter for readSettings. VS Code already ignores workspace values of restricted settings in
 * an untrusted workspace; this does not rely on it: there, a restricted setting is read from the
 * user's settings (or its default) and never from the workspace or its folders.
 */
export function trustedGetter(
  get: (key: string) => unknown,
  inspect: (key: string) => InspectedSetting | undefined,
  trusted: boolean,
): (key: string) => unknown {
  return (key) => {
    if (trusted || !RESTRICTED_SETTINGS.includes(key)) return get(key);
    const values = inspect(key);
    return values?.globalValue ?? values?.defaultValue;
  };
}

export const DEFAULTS: Readonly<Settings> = Object.freeze({
  interpreter: "",
  serverArgs: [],
  comparatorModules: [],
  schemaPatterns: ["*.eval.json", "*.eval.jsonc"],
  debounceMs: 40,
  runOn: "save",
  runOnStartup: true,
  watchFiles: true,
  goldDiagnostics: false,
  severity: {},
  fieldThreshold: null,
  evaluationDebounceMs: 50,
  maxDocumentSize: 5000000,
  showResultsAfterRun: true,
  judge: {},
});

function stringList(v: unknown, fallback: readonly string[]): string[] {
  if (!Array.isArray(v)) return [...fallback];
  return v.filter((x): x is string => typeof x === "string" && x.trim() !== "").map((x) => x.trim());
}

function bool(v: unknown, fallback: boolean): boolean {
  return typeof v === "boolean" ? v : fallback;
}

function int(v: unknown, fallback: number, max: number): number {
  return typeof v === "number" && Number.isFinite(v) ? Math.min(max, Math.max(0, Math.round(v))) : fallback;
}

function judgeProfile(v: unknown): JudgeProfile | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const raw = v as Record<string, unknown>;
  const out: JudgeProfile = {};
  for (const key of ["baseUrl", "model", "apiKeyEnv"] as const) {
    const value = raw[key];
    if (typeof value === "string" && value.trim() !== "") out[key] = value.trim();
  }
  return out;
}

/** The user-level `evalschema.judge` value, keeping only known keys of the right type. */
export function readJudgeSettings(v: unknown): JudgeSettings {
  const base = judgeProfile(v);
  if (!base) return {};
  const raw = v as Record<string, unknown>;
  const out: JudgeSettings = { ...base };
  const profiles = raw.profiles;
  if (typeof profiles === "object" && profiles !== null && !Array.isArray(profiles)) {
    const table: Record<string, JudgeProfile> = {};
    for (const [name, spec] of Object.entries(profiles as Record<string, unknown>)) {
      const p = judgeProfile(spec);
      if (p && name) table[name] = p;
    }
    out.profiles = table;
  }
  for (const key of ["concurrency", "timeout", "retries", "breakerFailures"] as const) {
    const value = raw[key];
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return out;
}

/**
 * `get(key)` returns the value of `evalschema.<key>` (undefined when unset); `getGlobal(key)`
 * its user-level value only, for the settings a workspace must not set (the judge's).
 */
export function readSettings(get: (key: string) => unknown, getGlobal: (key: string) => unknown = () => undefined): Settings {
  const interpreter = get("interpreter");
  const patterns = stringList(get("schemaPatterns"), DEFAULTS.schemaPatterns);
  const runOn = get("runOn");
  const threshold = get("fieldThreshold");
  const rawSeverity = get("severity");
  const severity: Record<string, Severity> = {};
  if (typeof rawSeverity === "object" && rawSeverity !== null && !Array.isArray(rawSeverity)) {
    for (const [k, v] of Object.entries(rawSeverity as Record<string, unknown>)) {
      if (typeof v === "string" && (SEVERITIES as readonly string[]).includes(v)) severity[k] = v as Severity;
    }
  }
  return {
    interpreter: typeof interpreter === "string" ? interpreter.trim() : "",
    serverArgs: stringList(get("serverArgs"), DEFAULTS.serverArgs),
    comparatorModules: stringList(get("comparatorModules"), DEFAULTS.comparatorModules),
    schemaPatterns: patterns.length ? patterns : [...DEFAULTS.schemaPatterns],
    debounceMs: int(get("debounceMs"), DEFAULTS.debounceMs, 5000),
    runOn: runOn === "change" ? "change" : "save",
    runOnStartup: bool(get("runOnStartup"), DEFAULTS.runOnStartup),
    watchFiles: bool(get("watchFiles"), DEFAULTS.watchFiles),
    goldDiagnostics: bool(get("goldDiagnostics"), DEFAULTS.goldDiagnostics),
    severity,
    fieldThreshold: typeof threshold === "number" && threshold >= 0 && threshold <= 1 ? threshold : null,
    evaluationDebounceMs: int(get("evaluationDebounceMs"), DEFAULTS.evaluationDebounceMs, 10000),
    maxDocumentSize: int(get("maxDocumentSize"), DEFAULTS.maxDocumentSize, 67108864),
    showResultsAfterRun: bool(get("showResultsAfterRun"), DEFAULTS.showResultsAfterRun),
    judge: readJudgeSettings(getGlobal("judge")),
  };
}

export function serverSettings(s: Settings, workspaceTrusted: boolean): ServerSettings {
  return {
    workspaceTrusted,
    comparatorModules: s.comparatorModules,
    schemaPatterns: s.schemaPatterns,
    debounceMs: s.debounceMs,
    runOn: s.runOn,
    runOnStartup: s.runOnStartup,
    watchFiles: s.watchFiles,
    goldDiagnostics: s.goldDiagnostics,
    severity: s.severity,
    fieldThreshold: s.fieldThreshold,
    evaluationDebounceMs: s.evaluationDebounceMs,
    judge: s.judge,
    maxDocumentSize: s.maxDocumentSize,
  };
}

/** Settings that change how the server process is started need a restart; the rest are sent live. */
export function restartNeeded(before: Settings, after: Settings): boolean {
  return before.interpreter !== after.interpreter || before.serverArgs.join("\0") !== after.serverArgs.join("\0");
}

/** Whether a file name matches one of the schema patterns (`*` and `?`, on the base name). */
export function matchesPattern(fileName: string, patterns: readonly string[]): boolean {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return patterns.some((p) => {
    const glob = (p.split(/[\\/]/).pop() ?? p).replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
    return new RegExp(`^${glob}$`).test(base);
  });
}
