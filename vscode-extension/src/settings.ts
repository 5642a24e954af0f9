// The `evalschema.*` settings, read defensively (a wrong type in settings.json falls back to
// the default instead of breaking the server). Pure: takes a getter, so it is unit-tested.

import {
  CLIENT_ONLY_SETTINGS,
  DEFAULTS,
  ENUMS,
  JUDGE_LIMIT_KEYS,
  JUDGE_PROFILE_KEYS,
  LIMITS,
  RESTRICTED_SETTINGS,
  SEVERITIES,
  type JudgeProfile,
  type JudgeSettings,
  type Settings,
  type Severity,
} from "./generated/settings";

// The settings' names, types, defaults, ranges and trust restrictions are generated from the
// server's table (server/evalschema_server/settings.py) into ./generated/settings.ts, as is
// package.json's contributes.configuration: `npm run contracts`.
export { DEFAULTS, RESTRICTED_SETTINGS, SEVERITIES };
export type { JudgeProfile, JudgeSettings, Settings, Severity };

/**
 * What the server reads (initializationOptions and workspace/configuration, section evalschema),
 * and whether the user trusts the workspace: only then does the server import custom code.
 */
export type ServerSettings = Omit<Settings, (typeof CLIENT_ONLY_SETTINGS)[number]> & { workspaceTrusted: boolean };

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

function stringList(v: unknown, fallback: readonly string[]): string[] {
  if (!Array.isArray(v)) return [...fallback];
  return v.filter((x): x is string => typeof x === "string" && x.trim() !== "").map((x) => x.trim());
}

function bool(v: unknown, fallback: boolean): boolean {
  return typeof v === "boolean" ? v : fallback;
}

function int(v: unknown, fallback: number, limits: { minimum: number; maximum: number }): number {
  return typeof v === "number" && Number.isFinite(v) ? Math.min(limits.maximum, Math.max(limits.minimum, Math.round(v))) : fallback;
}

function oneOf<T extends string>(v: unknown, values: readonly T[], fallback: T): T {
  return values.find((x) => x === v) ?? fallback;
}

function judgeProfile(v: unknown): JudgeProfile | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const raw = v as Record<string, unknown>;
  const out: JudgeProfile = {};
  for (const key of JUDGE_PROFILE_KEYS) {
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
  for (const key of JUDGE_LIMIT_KEYS) {
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
    debounceMs: int(get("debounceMs"), DEFAULTS.debounceMs, LIMITS.debounceMs),
    runOn: oneOf(get("runOn"), ENUMS.runOn, DEFAULTS.runOn),
    runOnStartup: bool(get("runOnStartup"), DEFAULTS.runOnStartup),
    watchFiles: bool(get("watchFiles"), DEFAULTS.watchFiles),
    helperProcess: bool(get("helperProcess"), DEFAULTS.helperProcess),
    goldDiagnostics: bool(get("goldDiagnostics"), DEFAULTS.goldDiagnostics),
    severity,
    fieldThreshold: typeof threshold === "number" && threshold >= LIMITS.fieldThreshold.minimum && threshold <= LIMITS.fieldThreshold.maximum ? threshold : DEFAULTS.fieldThreshold,
    evaluationDebounceMs: int(get("evaluationDebounceMs"), DEFAULTS.evaluationDebounceMs, LIMITS.evaluationDebounceMs),
    maxDocumentSize: int(get("maxDocumentSize"), DEFAULTS.maxDocumentSize, LIMITS.maxDocumentSize),
    maxDiagnosticsPerFile: int(get("maxDiagnosticsPerFile"), DEFAULTS.maxDiagnosticsPerFile, LIMITS.maxDiagnosticsPerFile),
    diagnosticsMode: oneOf(get("diagnosticsMode"), ENUMS.diagnosticsMode, DEFAULTS.diagnosticsMode),
    showResultsAfterRun: bool(get("showResultsAfterRun"), DEFAULTS.showResultsAfterRun),
    judge: readJudgeSettings(getGlobal("judge")),
  };
}

export function serverSettings(s: Settings, workspaceTrusted: boolean): ServerSettings {
  const out: Record<string, unknown> = { workspaceTrusted };
  const clientOnly: readonly string[] = CLIENT_ONLY_SETTINGS;
  for (const [key, value] of Object.entries(s)) if (!clientOnly.includes(key)) out[key] = value;
  return out as ServerSettings;
}

/**
 * The answer to the server's workspace/configuration request: the section `evalschema` is
 * answered with `current` (read as the client reads it: defensively, trust applied), the other
 * items with what VS Code answered for them.
 */
export function configurationAnswer(items: readonly { section?: string | undefined }[], answered: readonly unknown[], current: ServerSettings): unknown[] {
  return items.map((item, i): unknown => (item.section === "evalschema" ? current : answered[i]));
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
