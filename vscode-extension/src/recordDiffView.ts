// "Compare record with gold" in VS Code: the records as read-only virtual documents (scheme
// evalschema-record), opened side by side in the diff editor. What it shows is decided in
// src/recordDiff.ts; this is the VS Code side.
import * as vscode from "vscode";
import { RECORD_SCHEME, RecordTexts, diffDocuments } from "./recordDiff";
import type { RecordDiff } from "./protocol";

export class RecordDiffView implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new RecordTexts();
  private readonly registration: vscode.Disposable;
  private count = 0;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(RECORD_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.text(uri.path);
  }

  async show(diff: RecordDiff): Promise<void> {
    const docs = diffDocuments(diff, ++this.count);
    this.texts.add(docs.left);
    this.texts.add(docs.right);
    const uri = (path: string) => vscode.Uri.from({ scheme: RECORD_SCHEME, path });
    await vscode.commands.executeCommand("vscode.diff", uri(docs.left.path), uri(docs.right.path), docs.title, { preview: true });
  }

  dispose(): void {
    this.registration.dispose();
  }
}
