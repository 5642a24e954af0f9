// No duplicate completions: where VS Code's JSON support handles an eval schema (a user who maps
// *.eval.json back to the JSON language), it completes what the contributed meta-schema
// (dist/eval-schema.schema.json) enumerates; the server's items with the same label at a value
// position are dropped. In the Eval Schema language (the default) JSON does not run: the server's
// items are all there is. Pure, so it is unit-tested.
import { matchesPattern } from "./settings";

/** The files the meta-schema applies to (package.json contributes.jsonValidation fileMatch). */
export const JSON_VALIDATED_PATTERNS: readonly string[] = ["*.eval.json", "*.eval.jsonc"];
/** The languages VS Code's JSON support serves. */
export const JSON_LANGUAGES: readonly string[] = ["json", "jsonc"];

/** Labels VS Code's JSON support proposes from a schema's enums and boolean types (as JSON text). */
export function labelsOfferedByJson(schema: unknown): Set<string> {
  const out = new Set<string>();
  const seen = new Set<unknown>();
  const walk = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    const obj = node as Record<string, unknown>;
    if (Array.isArray(obj.enum)) for (const v of obj.enum) out.add(JSON.stringify(v));
    if ("const" in obj) out.add(JSON.stringify(obj.const));
    const t = obj.type;
    if (t === "boolean" || (Array.isArray(t) && t.includes("boolean"))) {
      out.add("true");
      out.add("false");
    }
    for (const [k, v] of Object.entries(obj)) if (k !== "enum" && k !== "const") walk(v);
  };
  walk(schema);
  return out;
}

export interface LabelledItem {
  label: string | { label: string };
  kind?: number | undefined;
}

/** Drops the items of the given kinds (value-like) whose label, or its JSON quoting, JSON offers. */
export function dropDuplicates<T extends LabelledItem>(items: readonly T[], offered: ReadonlySet<string>, valueKinds: ReadonlySet<number>): T[] {
  return items.filter((item) => {
    if (item.kind === undefined || !valueKinds.has(item.kind)) return true;
    const label = typeof item.label === "string" ? item.label : item.label.label;
    return !(offered.has(label) || offered.has(JSON.stringify(label)));
  });
}

/**
 * The server's completion answer for a document: in the JSON documents the meta-schema covers,
 * without the items JSON offers too: the values it enumerates, and the JSON Schema keywords (the
 * server's items of `keywordKinds`), which JSON offers from the meta-schema. A list's items are
 * replaced in place, as the middleware returns it.
 */
export function filterCompletions<T extends LabelledItem, L extends { items: T[] }>(
  result: T[] | L | null | undefined,
  document: { fileName: string; languageId: string },
  offered: ReadonlySet<string>,
  valueKinds: ReadonlySet<number>,
  keywordKinds: ReadonlySet<number> = new Set(),
): T[] | L | null | undefined {
  if (!result || !JSON_LANGUAGES.includes(document.languageId) || !matchesPattern(document.fileName, JSON_VALIDATED_PATTERNS)) return result;
  const keep = (items: readonly T[]) => dropDuplicates(items, offered, valueKinds).filter((i) => i.kind === undefined || !keywordKinds.has(i.kind));
  if (Array.isArray(result)) return keep(result);
  result.items = keep(result.items);
  return result;
}
