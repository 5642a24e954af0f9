import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { JSON_VALIDATED_PATTERNS } from "../src/completion";
import { CLIENT_ONLY_SETTINGS, LIMITS } from "../src/generated/settings";
import { DEFAULTS, RESTRICTED_SETTINGS, configurationAnswer, matchesPattern, readJudgeSettings, readSettings, restartNeeded, serverSettings, trustedGetter, type InspectedSetting, type Settings } from "../src/settings";

const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
  capabilities: { untrustedWorkspaces: { supported: string | boolean; restrictedConfigurations: string[]; description: string } };
  contributes: { configuration: { properties: Record<string, { default: unknown; markdownDescription?: string }> }; jsonValidation: Array<{ fileMatch: string[] }> };
};
const props = manifest.contributes.configuration.properties;

function getter(values: Record<string, unknown>): (key: string) => unknown {
  return (key) => values[key];
}

test("unset settings give the defaults, which agree with package.json", () => {
  const s = readSettings(getter({}));
  assert.deepEqual(s, { ...DEFAULTS });
  for (const [key, value] of Object.entries(DEFAULTS)) {
    assert.deepEqual(props[`evalschema.${key}`]?.default, value, `default of evalschema.${key}`);
  }
});

test("numbers are clamped to the ranges package.json declares", () => {
  for (const [key, limits] of Object.entries(LIMITS)) {
    const spec = props[`evalschema.${key}`] as { minimum?: number; maximum?: number };
    assert.equal(spec.minimum, limits.minimum, key);
    assert.equal(spec.maximum ?? Infinity, limits.maximum, key);
  }
  assert.equal(readSettings(getter({ maxDocumentSize: 1e12 })).maxDocumentSize, 1e12, "no maximum");
  assert.equal(readSettings(getter({ evaluationDebounceMs: 1e6 })).evaluationDebounceMs, 10000);
});

test("every setting in package.json is documented", () => {
  for (const [key, spec] of Object.entries(props)) assert.ok((spec.markdownDescription ?? "").length > 20, key);
});

test("wrong types fall back to defaults; lists drop non-strings; debounce is clamped", () => {
  const s = readSettings(
    getter({
      interpreter: 3,
      comparatorModules: ["my_cmp", 4, "", " other "],
      schemaPatterns: [],
      debounceMs: 1e9,
      showResultsAfterRun: "no",
      serverArgs: "x",
      runOn: "always",
      severity: { omission: "information", mismatch: "loud", record: 3 },
      fieldThreshold: 2,
      runOnStartup: "yes",
    }),
  );
  assert.equal(s.interpreter, "");
  assert.deepEqual(s.comparatorModules, ["my_cmp", "other"]);
  assert.deepEqual(s.schemaPatterns, ["*.eval.json", "*.eval.jsonc"]);
  assert.equal(s.debounceMs, 10000, "clamped to package.json's maximum, the range the server takes");
  assert.equal(s.showResultsAfterRun, true);
  assert.deepEqual(s.serverArgs, []);
  assert.equal(s.runOn, "save");
  assert.deepEqual(s.severity, { omission: "information" });
  assert.equal(s.fieldThreshold, null);
  assert.equal(s.runOnStartup, true);
  assert.equal(readSettings(getter({ fieldThreshold: 0.8, runOn: "change" })).fieldThreshold, 0.8);
  assert.equal(readSettings(getter({ debounceMs: -3 })).debounceMs, 0);
  assert.equal(readSettings(getter({ debounceMs: Number.NaN })).debounceMs, 40);
  assert.equal(s.maxDiagnosticsPerFile, 900, "under VS Code's 1,000 problems per file");
  assert.equal(readSettings(getter({ maxDiagnosticsPerFile: 0 })).maxDiagnosticsPerFile, 0, "0: no limit");
  assert.equal(readSettings(getter({ maxDiagnosticsPerFile: "many" })).maxDiagnosticsPerFile, 900);
  assert.equal(readSettings(getter({ diagnosticsMode: "record" })).diagnosticsMode, "record");
  assert.equal(readSettings(getter({ diagnosticsMode: "line" })).diagnosticsMode, "finding");
});

test("the server gets only its own settings", () => {
  const s = readSettings(getter({ interpreter: "/py", serverArgs: ["-v"], comparatorModules: ["m"], debounceMs: 100, showResultsAfterRun: false }));
  const server = serverSettings(s, true);
  assert.deepEqual(server, {
    workspaceTrusted: true,
    comparatorModules: ["m"],
    schemaPatterns: ["*.eval.json", "*.eval.jsonc"],
    debounceMs: 100,
    runOn: "save",
    runOnStartup: true,
    watchFiles: true,
    helperProcess: true,
    goldDiagnostics: false,
    severity: {},
    fieldThreshold: null,
    evaluationDebounceMs: 50,
    judge: {},
    maxDocumentSize: 5000000,
    maxDiagnosticsPerFile: 900,
    diagnosticsMode: "finding",
  });
  // Every server setting is a documented evalschema.* setting (trust is the workspace's state).
  for (const key of Object.keys(server)) if (key !== "workspaceTrusted") assert.ok(props[`evalschema.${key}`], key);
  assert.equal(serverSettings(s, false).workspaceTrusted, false);
});

test("every setting is read from the configuration and, unless the extension's own, sent to the server", () => {
  // A value other than the default for each setting: a new setting fails here until it has one.
  const changed: Record<string, unknown> = {
    interpreter: "/py",
    serverArgs: ["-v"],
    comparatorModules: ["m"],
    schemaPatterns: ["*.x.json"],
    debounceMs: 41,
    runOn: "change",
    runOnStartup: false,
    watchFiles: false,
    helperProcess: false,
    goldDiagnostics: true,
    severity: { mismatch: "off" },
    fieldThreshold: 0.5,
    evaluationDebounceMs: 51,
    maxDocumentSize: 7,
    maxDiagnosticsPerFile: 12,
    diagnosticsMode: "record",
    showResultsAfterRun: false,
    judge: { model: "m" },
  };
  assert.deepEqual(Object.keys(changed).sort(), Object.keys(DEFAULTS).sort(), "a value for every setting");
  const clientOnly: readonly string[] = CLIENT_ONLY_SETTINGS;
  for (const [key, value] of Object.entries(changed)) {
    assert.notDeepEqual(value, (DEFAULTS as Record<string, unknown>)[key], key);
    const read = readSettings(getter({ [key]: value }), getter({ [key]: value })) as unknown as Record<string, unknown>;
    assert.deepEqual(read[key], value, `evalschema.${key} is read`);
    const sent = serverSettings(read as unknown as Settings, true) as unknown as Record<string, unknown>;
    if (clientOnly.includes(key)) assert.ok(!(key in sent), `evalschema.${key} stays in the extension`);
    else assert.deepEqual(sent[key], value, `evalschema.${key} reaches the server`);
  }
});

// -- workspace trust ------------------------------------------------------------------------

/** A configuration with values at each scope, read as server.ts reads it. */
function scoped(values: Record<string, InspectedSetting>, trusted: boolean): (key: string) => unknown {
  const effective = (key: string): unknown => {
    const v = values[key];
    return v?.workspaceFolderValue ?? v?.workspaceValue ?? v?.globalValue ?? v?.defaultValue;
  };
  return trustedGetter(effective, (key) => values[key], trusted);
}

const HOSTILE: Record<string, InspectedSetting> = {
  interpreter: { defaultValue: "", globalValue: "/usr/bin/python3.12", workspaceValue: "${workspaceFolder}/evil/python" },
  serverArgs: { defaultValue: [], workspaceFolderValue: ["--evil"] },
  comparatorModules: { defaultValue: [], workspaceValue: ["evil.py"] },
  debounceMs: { defaultValue: 40, workspaceValue: 100 },
  runOn: { defaultValue: "save", workspaceValue: "change" },
};

test("untrusted: the workspace cannot choose the interpreter, server arguments or comparator modules", () => {
  const s = readSettings(scoped(HOSTILE, false));
  assert.equal(s.interpreter, "/usr/bin/python3.12", "the user's own interpreter");
  assert.deepEqual(s.serverArgs, []);
  assert.deepEqual(s.comparatorModules, []);
  // Settings that run no code still follow the workspace.
  assert.equal(s.debounceMs, 100);
  assert.equal(s.runOn, "change");
  assert.equal(serverSettings(s, false).workspaceTrusted, false);
});

test("untrusted: the user's own comparator modules are still read (the server imports them only when trusted)", () => {
  const s = readSettings(scoped({ comparatorModules: { defaultValue: [], globalValue: ["mine.cmp"], workspaceValue: ["evil.py"] } }, false));
  assert.deepEqual(s.comparatorModules, ["mine.cmp"]);
});

test("trusted: the workspace's values apply", () => {
  const s = readSettings(scoped(HOSTILE, true));
  assert.equal(s.interpreter, "${workspaceFolder}/evil/python");
  assert.deepEqual(s.serverArgs, ["--evil"]);
  assert.deepEqual(s.comparatorModules, ["evil.py"]);
  assert.equal(serverSettings(s, true).workspaceTrusted, true);
});

test("package.json declares limited support in untrusted workspaces, restricting exactly those settings", () => {
  const caps = manifest.capabilities.untrustedWorkspaces;
  assert.equal(caps.supported, "limited");
  assert.deepEqual(caps.restrictedConfigurations, RESTRICTED_SETTINGS.map((k) => `evalschema.${k}`));
  for (const key of caps.restrictedConfigurations) assert.ok(props[key], key);
  assert.ok(caps.description.length > 40);
});

test("the judge settings are read at user level only, never from the workspace", () => {
  const profile = { baseUrl: "http://127.0.0.1:8000/v1", model: "llama-3", apiKeyEnv: "LOCAL_KEY" };
  const workspace = getter({ judge: { baseUrl: "http://attacker.example/v1", apiKeyEnv: "OPENAI_API_KEY" } });
  // A workspace value (what get() merges in) is ignored: only the global value counts.
  assert.deepEqual(readSettings(workspace).judge, {});
  const s = readSettings(workspace, getter({ judge: { profiles: { local: profile }, concurrency: 2 } }));
  assert.deepEqual(serverSettings(s, false).judge, { profiles: { local: profile }, concurrency: 2 });
  assert.equal((props["evalschema.judge"] as { scope?: string }).scope, "application");
  // Unknown keys and wrong types are dropped.
  assert.deepEqual(readJudgeSettings({ baseUrl: 3, headers: { a: "b" }, profiles: { x: "y", ok: { model: "m", url: "u" } }, retries: -1 }), {
    profiles: { ok: { model: "m" } },
  });
  assert.deepEqual(readJudgeSettings("x"), {});
});

test("only interpreter and server arguments need a restart", () => {
  const a = readSettings(getter({}));
  assert.equal(restartNeeded(a, readSettings(getter({ interpreter: "/py" }))), true);
  assert.equal(restartNeeded(a, readSettings(getter({ serverArgs: ["-v"] }))), true);
  assert.equal(restartNeeded(a, readSettings(getter({ comparatorModules: ["m"], debounceMs: 9 }))), false);
});

test("schema patterns match base names", () => {
  assert.equal(matchesPattern("/w/a/invoices.eval.json", ["*.eval.json"]), true);
  assert.equal(matchesPattern("C:\\w\\x.eval.jsonc", JSON_VALIDATED_PATTERNS), true);
  assert.equal(matchesPattern("/w/invoices.json", JSON_VALIDATED_PATTERNS), false);
  assert.equal(matchesPattern("/w/aevalxjson", ["*.eval.json"]), false);
  assert.equal(matchesPattern("/w/s1.json", ["s?.json"]), true);
});

test("the completion filter applies to exactly the files jsonValidation covers", () => {
  assert.deepEqual(manifest.contributes.jsonValidation.flatMap((v) => v.fileMatch), [...JSON_VALIDATED_PATTERNS]);
});

test("the server's configuration request gets the client's reading of evalschema, VS Code's answer for other sections", () => {
  const current = serverSettings(readSettings(getter({ debounceMs: 5 })), false);
  const answer = configurationAnswer([{ section: "evalschema" }, { section: "files.exclude" }, {}, { section: "evalschema.debounceMs" }], [{ debounceMs: "raw" }, { "**/.git": true }, null, 7], current);
  assert.deepEqual(answer, [current, { "**/.git": true }, null, 7]);
  assert.equal(answer[0], current);
});
