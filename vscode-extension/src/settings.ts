// The `evalschema.*` settings, read defensively (a wrong type in settings.json falls back to
// the default instead of breaking the server). Pure: takes a getter, so it is unit-tested.

export const SEVERITIES = ["error", "warning", "information", "hint", "off"] as const;
export type Severity = (typeof SEVERITIES)[number];

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
}

/** What the server reads (initializationOptions and workspace/configuration, section evalschema). */
export type ServerSettings = Omit<Settings, "interpreter" | "serverArgs" | "showResultsAfterRun">;

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

/** `get(key)` returns the value of `evalschema.<key>` (undefined when unset). */
export function readSettings(get: (key: string) => unknown): Settings {
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
  };
}

export function serverSettings(s: Settings): ServerSettings {
  return {
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
