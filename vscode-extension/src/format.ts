// Formatting of eval schemas. They open in the Eval Schema language (not JSON) so that VS Code's
// JSON support, which would apply the meta-schema a schema's "$schema" names, does not title every
// hover "(Flattened static) Core and Validation specifications meta-schema". Formatting is what
// JSON did that the language server does not: the same formatter VS Code's JSON support uses
// (jsonc-parser), so Format Document gives the same text it gave before. Pure, so it is unit-tested.
import { SyntaxKind, applyEdits, createScanner, format, type Range as JsonRange } from "jsonc-parser";

/** The language id of eval schemas (package.json contributes.languages). */
export const EVAL_SCHEMA_LANGUAGE = "evalschema";

export interface FormatOptions {
  tabSize: number;
  insertSpaces: boolean;
  eol: string;
  /** As VS Code's json.format.keepLines: keep the user's line breaks between values. */
  keepLines: boolean;
  insertFinalNewline: boolean;
}

export interface TextEdit {
  offset: number;
  length: number;
  content: string;
}

/**
 * Indentation the formatter may write in all. It grows with the square of the nesting depth: a
 * schema of 20,000 nested `[` (40 kB) would take gigabytes and end the editor's extension host.
 */
export const MAX_INDENTATION = 20_000_000;

/**
 * jsonc-parser 3.3.1 caches line breaks with up to 199 indentation characters and, off by one,
 * returns `undefined` for exactly 200 (a schema nested 100 deep at 2 spaces): that edit's text is
 * a line break and 200 of the indentation character.
 */
const CACHED_BREAKS = 200;

/** The formatter's edits, or why the text is left as it is. */
export type Formatting = { edits: TextEdit[] } | { refused: string };

/** An upper bound of the indentation formatting `text` writes: each token at its depth. */
export function indentationOf(text: string, options: FormatOptions): number {
  const unit = options.insertSpaces ? options.tabSize : 1;
  const scanner = createScanner(text, true);
  let depth = 0;
  let total = 0;
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    if (token === SyntaxKind.CloseBraceToken || token === SyntaxKind.CloseBracketToken) depth = Math.max(0, depth - 1);
    total += depth * unit;
    if (token === SyntaxKind.OpenBraceToken || token === SyntaxKind.OpenBracketToken) depth++;
  }
  return total;
}

/**
 * The edits that format `text` (only `range` of it when given); whitespace only, so nothing a user
 * wrote is lost. Refused when the result would be too large, or when the formatter fails on the text.
 */
export function formattingEdits(text: string, options: FormatOptions, range?: JsonRange): Formatting {
  const indentation = indentationOf(text, options);
  if (indentation > MAX_INDENTATION) {
    return { refused: `nested too deeply to format: it would add about ${indentation.toLocaleString("en-US")} characters of indentation (at most ${MAX_INDENTATION.toLocaleString("en-US")})` };
  }
  let edits: TextEdit[];
  try {
    const indent = options.insertSpaces ? " " : "\t";
    edits = format(text, range, options).map((e) => ({
      offset: e.offset,
      length: e.length,
      content: typeof e.content === "string" ? e.content : options.eol + indent.repeat(CACHED_BREAKS),
    }));
  } catch (e) {
    return { refused: `the formatter failed on this text (${e instanceof Error ? e.message : String(e)})` };
  }
  // Never lose a character: formatting may only change whitespace.
  const bare = (t: string) => t.replace(/\s+/g, "");
  if (bare(applyEdits(text, edits)) !== bare(text)) return { refused: "the formatter would have changed more than whitespace" };
  return { edits };
}
