import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { JSON_VALIDATED_PATTERNS, dropDuplicates, filterCompletions, labelsOfferedByJson } from "../src/completion";
import { EVAL_SCHEMA_LANGUAGE } from "../src/format";
import { describeCommandError } from "../src/errors";

// Built by `npm run metaschema` (scripts/gen_metaschema.py) from the engine's registry.
const root = join(__dirname, "..", "..");
const metaschema = JSON.parse(readFileSync(join(root, "dist", "eval-schema.schema.json"), "utf8")) as {
  definitions: { node: { properties: Record<string, { doNotSuggest?: boolean; properties?: Record<string, { enum?: string[] }> }> } };
};
const nodeProps = metaschema.definitions.node.properties;
const VALUE = 11;
const ENUM_MEMBER = 19;
const FUNCTION = 2;
const PROPERTY = 9;
const kinds = new Set([VALUE, ENUM_MEMBER]);

test("the meta-schema holds exactly the engine's keys, none suggested by JSON (the server does)", () => {
  const reference = readFileSync(join(root, "..", "docs", "reference.md"), "utf8");
  const keysSection = reference.split("\n## ")[1] ?? "";
  const documented = [...keysSection.matchAll(/^### `(x-eval-[a-z-]+)`/gm)].map((m) => m[1]);
  const generated = Object.keys(nodeProps).filter((k) => k.startsWith("x-eval-"));
  assert.ok(documented.length >= 8);
  assert.deepEqual(generated.sort(), [...documented].sort());
  for (const k of generated) assert.equal(nodeProps[k]?.doNotSuggest, true, k);
});

test("alignment strategies come from the registry", () => {
  const reference = readFileSync(join(root, "..", "docs", "reference.md"), "utf8");
  const strategies = nodeProps["x-eval-align"]?.properties?.match_by?.enum ?? [];
  assert.ok(strategies.length >= 4);
  for (const s of strategies) assert.ok(reference.includes(`\`${s}\``), s);
});

test("JSON's own value suggestions are the meta-schema's enums and booleans", () => {
  const offered = labelsOfferedByJson(metaschema);
  for (const label of ['"value"', '"absent"', '"hungarian"', "true", "false"]) assert.ok(offered.has(label), label);
  assert.ok(!offered.has('"exact"'), "comparator names are left to the server");
});

test("the server's duplicates of those are dropped, everything else is kept", () => {
  const offered = labelsOfferedByJson(metaschema);
  const items = [
    { label: '"value"', kind: VALUE },
    { label: "true", kind: VALUE },
    { label: "hungarian", kind: ENUM_MEMBER },
    { label: { label: '"absent"' }, kind: VALUE },
    { label: "exact", kind: FUNCTION },
    { label: "x-eval-compare", kind: PROPERTY },
    { label: "regex {…}", kind: 14 },
    { label: "invoice_id" },
  ];
  assert.deepEqual(dropDuplicates(items, offered, kinds).map((i) => (typeof i.label === "string" ? i.label : i.label.label)), [
    "exact",
    "x-eval-compare",
    "regex {…}",
    "invoice_id",
  ]);
});

test("a cyclic schema does not hang the label walk", () => {
  const a: Record<string, unknown> = { enum: ["x"] };
  a.self = a;
  assert.deepEqual([...labelsOfferedByJson(a)], ['"x"']);
});

test("failed server commands become one sentence, never a stack", () => {
  assert.match(describeCommandError("Evaluate suite", { code: -32601, message: "Unhandled method" }), /not supported by this language server/);
  assert.match(describeCommandError("Show report", new Error("Client is not running")), /not running/);
  const m = describeCommandError("Evaluate suite", new Error("suite 'x' not in evalschema.toml\n  at Foo (bar.js:1:2)"));
  assert.equal(m, "evalschema: Evaluate suite failed: suite 'x' not in evalschema.toml");
});

test("the completion answer is filtered only in the JSON documents the meta-schema covers, a list in place", () => {
  const json = (fileName: string) => ({ fileName, languageId: fileName.endsWith("c") ? "jsonc" : "json" });
  const offered = new Set(['"value"']);
  const items = () => [{ label: '"value"', kind: VALUE }, { label: '"other"', kind: VALUE }];
  const labels = (r: ReturnType<typeof items> | { items: ReturnType<typeof items> } | null | undefined) => (Array.isArray(r) ? r : (r?.items ?? [])).map((i) => i.label);
  assert.deepEqual(labels(filterCompletions(items(), json("/w/a.eval.json"), offered, kinds)), ['"other"']);
  assert.deepEqual(labels(filterCompletions(items(), json("C:\\w\\a.eval.jsonc"), offered, kinds)), ['"other"']);
  assert.deepEqual(labels(filterCompletions(items(), json("/w/records.json"), offered, kinds)), ['"value"', '"other"'], "JSON does not complete there: keep the server's");
  const list = { isIncomplete: true, items: items() };
  const out = filterCompletions(list, json("/w/a.eval.json"), offered, kinds);
  assert.equal(out, list, "the same list, its flags kept");
  assert.deepEqual(labels(list), ['"other"']);
  assert.equal(filterCompletions(null, json("/w/a.eval.json"), offered, kinds), null);
  assert.equal(filterCompletions(undefined, json("/w/a.eval.json"), offered, kinds), undefined);
  const evalSchema = { fileName: "/w/a.eval.json", languageId: "evalschema" };
  assert.deepEqual(labels(filterCompletions(items(), evalSchema, offered, kinds)), ['"value"', '"other"'], "the Eval Schema language: JSON does not run, nothing is dropped");
  const KEYWORD = 13;
  const withKeyword = () => [...items(), { label: "format", kind: KEYWORD }];
  assert.deepEqual(labels(filterCompletions(withKeyword(), json("/w/a.eval.json"), offered, kinds, new Set([KEYWORD]))), ['"other"'], "JSON offers the standard keywords itself");
  assert.deepEqual(labels(filterCompletions(withKeyword(), evalSchema, offered, kinds, new Set([KEYWORD]))), ['"value"', '"other"', "format"]);
});

test("the Eval Schema language, the meta-schema's files and the server's default schema patterns are the same files", () => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    contributes: { languages: { id: string; filenamePatterns?: string[] }[]; jsonValidation: { fileMatch: string[] }[]; configuration: { properties: Record<string, { default?: unknown }> } };
    activationEvents: string[];
  };
  const language = manifest.contributes.languages.find((l) => l.id === EVAL_SCHEMA_LANGUAGE);
  assert.deepEqual(language?.filenamePatterns, [...JSON_VALIDATED_PATTERNS]);
  assert.deepEqual(manifest.contributes.jsonValidation[0]?.fileMatch, [...JSON_VALIDATED_PATTERNS]);
  assert.deepEqual(manifest.contributes.configuration.properties["evalschema.schemaPatterns"]?.default, [...JSON_VALIDATED_PATTERNS]);
  assert.ok(manifest.activationEvents.includes(`onLanguage:${EVAL_SCHEMA_LANGUAGE}`));
});
