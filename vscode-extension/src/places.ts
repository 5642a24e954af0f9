// Where a server answer points (a URI and an LSP range), as VS Code shows it: the one
// conversion of an LSP range to a vscode.Range, and opening a place in the first column.
import * as vscode from "vscode";
import { messageOf } from "./errors";
import type { LspRange } from "./protocol";

/** An LSP range as VS Code's (lines and UTF-16 characters alike, both zero-based). */
export function toRange(r: LspRange): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

export function toLocation(uri: string, r: LspRange): vscode.Location {
  return new vscode.Location(vscode.Uri.parse(uri), toRange(r));
}

/** Opens `uri` at `r` (its top without one) in the first column; a failure is one error message. */
export async function openPlace(uri: string, r: LspRange | undefined, preserveFocus = false): Promise<void> {
  try {
    const range = r ? toRange(r) : undefined;
    const editor = await vscode.window.showTextDocument(vscode.Uri.parse(uri), {
      viewColumn: vscode.ViewColumn.One,
      selection: range,
      preview: true,
      preserveFocus,
    });
    if (range) editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  } catch (e) {
    void vscode.window.showErrorMessage(`evalschema: cannot open ${uri}: ${messageOf(e)}`);
  }
}
