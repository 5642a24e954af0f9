// Formatting of eval schemas. They open in the Eval Schema language (not JSON) so that VS Code's
// JSON support, which would apply the meta-schema a schema's "$schema" names, does not title every
// hover "(Flattened static) Core and Validation specifications meta-schema". Formatting is what
// JSON did that the language server does not: the same formatter VS Code's JSON support uses
// (jsonc-parser), so Format Document gives the same text it gave before. Pure, so it is unit-tested.
import { format, type Range as JsonRange } from "jsonc-parser";

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

/** The edits that format `text` (only `range` of it when given); whitespace only, so nothing a user wrote is lost. */
export function formattingEdits(text: string, options: FormatOptions, range?: JsonRange): TextEdit[] {
  return format(text, range, options).map((e) => ({ offset: e.offset, length: e.length, content: e.content }));
}
