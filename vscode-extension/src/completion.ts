// No duplicate completions: VS Code's JSON support completes what the contributed meta-schema
// (dist/eval-schema.schema.json) enumerates; the server's items with the same label at a value
// position are dropped. Pure, so it is unit-tested.
import { matchesPattern } from "./settings";

/** The files the meta-schema applies to (package.json contributes.jsonValidation fileMatch). */
export const JSON_VALIDATED_PATTERNS: readonly string[] = ["*.eval.json", "*.eval.jsonc"];

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
 * The server's completion answer for a file: in the files the meta-schema covers, without the
 * items JSON offers too (a list's items are replaced in place, as the middleware returns it).
 */
export function filterCompletions<T extends LabelledItem, L extends { items: T[] }>(
  result: T[] | L | null | undefined,
  fileName: string,
  offered: ReadonlySet<string>,
  valueKinds: ReadonlySet<number>,
): T[] | L | null | undefined {
  if (!result || !matchesPattern(fileName, JSON_VALIDATED_PATTERNS)) return result;
  if (Array.isArray(result)) return dropDuplicates(result, offered, valueKinds);
  result.items = dropDuplicates(result.items, offered, valueKinds);
  return result;
}
