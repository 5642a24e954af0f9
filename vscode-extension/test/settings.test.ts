import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { JSON_VALIDATED_PATTERNS } from "../src/completion";
import { DEFAULTS, matchesPattern, readSettings, restartNeeded, serverSettings } from "../src/settings";

const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
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
  assert.equal(s.debounceMs, 5000);
  assert.equal(s.showResultsAfterRun, true);
  assert.deepEqual(s.serverArgs, []);
  assert.equal(s.runOn, "save");
  assert.deepEqual(s.severity, { omission: "information" });
  assert.equal(s.fieldThreshold, null);
  assert.equal(s.runOnStartup, true);
  assert.equal(readSettings(getter({ fieldThreshold: 0.8, runOn: "change" })).fieldThreshold, 0.8);
  assert.equal(readSettings(getter({ debounceMs: -3 })).debounceMs, 0);
  assert.equal(readSettings(getter({ debounceMs: Number.NaN })).debounceMs, 40);
});

test("the server gets only its own settings", () => {
  const s = readSettings(getter({ interpreter: "/py", serverArgs: ["-v"], comparatorModules: ["m"], debounceMs: 100, showResultsAfterRun: false }));
  const server = serverSettings(s);
  assert.deepEqual(server, {
    comparatorModules: ["m"],
    schemaPatterns: ["*.eval.json", "*.eval.jsonc"],
    debounceMs: 100,
    runOn: "save",
    runOnStartup: true,
    watchFiles: true,
    goldDiagnostics: false,
    severity: {},
    fieldThreshold: null,
    evaluationDebounceMs: 50,
    maxDocumentSize: 5000000,
  });
  // Every server setting is a documented evalschema.* setting.
  for (const key of Object.keys(server)) assert.ok(props[`evalschema.${key}`], key);
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
