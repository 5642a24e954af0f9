// Format Document / Format Selection for the Eval Schema language (src/format.ts says why).
import * as vscode from "vscode";
import { EVAL_SCHEMA_LANGUAGE, formattingEdits } from "./format";

function edits(doc: vscode.TextDocument, opts: vscode.FormattingOptions, range?: vscode.Range): vscode.TextEdit[] {
  const start = range ? doc.offsetAt(range.start) : 0;
  const span = range ? { offset: start, length: doc.offsetAt(range.end) - start } : undefined;
  const options = {
    tabSize: opts.tabSize,
    insertSpaces: opts.insertSpaces,
    eol: doc.eol === vscode.EndOfLine.CRLF ? "\r\n" : "\n",
    // The settings a user has for JSON keep applying to eval schemas.
    keepLines: vscode.workspace.getConfiguration("json.format", doc).get<boolean>("keepLines", false),
    insertFinalNewline: vscode.workspace.getConfiguration("files", doc).get<boolean>("insertFinalNewline", false),
  };
  const result = formattingEdits(doc.getText(), options, span);
  if ("refused" in result) {
    void vscode.window.showWarningMessage(`evalschema: ${vscode.workspace.asRelativePath(doc.uri)} is not formatted: ${result.refused}.`);
    return [];
  }
  return result.edits.map((e) =>
    vscode.TextEdit.replace(new vscode.Range(doc.positionAt(e.offset), doc.positionAt(e.offset + e.length)), e.content));
}

export function registerSchemaFormatter(): vscode.Disposable {
  const selector: vscode.DocumentSelector = { language: EVAL_SCHEMA_LANGUAGE };
  return vscode.Disposable.from(
    vscode.languages.registerDocumentFormattingEditProvider(selector, { provideDocumentFormattingEdits: (doc, opts) => edits(doc, opts) }),
    vscode.languages.registerDocumentRangeFormattingEditProvider(selector, { provideDocumentRangeFormattingEdits: (doc, range, opts) => edits(doc, opts, range) }),
  );
}
