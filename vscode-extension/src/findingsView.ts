// The Findings view (Explorer): the active suite's findings by field, then record, each one a
// click away; filterable by status and run. A navigation alternative to the Problems panel,
// which lists findings by file and line. What it shows is src/findings.ts's.
import * as vscode from "vscode";
import {
  type FieldGroup,
  type FindingsAnswer,
  type FindingsFilter,
  type PlaceLine,
  type RecordGroup,
  fieldDescription,
  findingLine,
  findingsMessage,
  groupFindings,
  recordLabel,
} from "./findings";
import { openPlace, toLocation } from "./places";
import { FINDING_STATUSES, type Finding } from "./protocol";

export const FINDINGS_VIEW = "evalschema.findings";

type Node = { kind: "field"; group: FieldGroup } | { kind: "record"; group: RecordGroup } | { kind: "finding"; finding: Finding };

export class FindingsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private answer: FindingsAnswer = { findings: [], total: 0 };
  private suite: string | undefined;
  filter: FindingsFilter = {};

  /** `onShown`: the view became visible (fetch the findings it shows). */
  constructor(onShown: () => void) {
    this.view = vscode.window.createTreeView(FINDINGS_VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.view.onDidChangeVisibility((e) => {
      if (e.visible) onShown();
    });
  }

  get visible(): boolean {
    return this.view.visible;
  }

  /** The suite shown, to fetch again when it is evaluated. */
  get shownSuite(): string | undefined {
    return this.suite;
  }

  show(suite: string | undefined, answer: FindingsAnswer): void {
    this.suite = suite;
    this.answer = answer;
    this.refresh();
  }

  refresh(): void {
    this.view.message = findingsMessage(this.answer, this.filter, this.suite);
    this.changed.fire(undefined);
  }

  /** Asks which statuses and which run to show. */
  async pickFilter(): Promise<void> {
    const statuses = await vscode.window.showQuickPick(
      FINDING_STATUSES.map((s) => ({ label: s, picked: !this.filter.statuses || this.filter.statuses.has(s) })),
      { canPickMany: true, title: "evalschema findings: statuses to show" },
    );
    if (!statuses) return;
    const runs = [...new Set(this.answer.findings.map((f) => f.run))];
    let run = this.filter.run;
    if (runs.length > 1) {
      const all = "all runs";
      const picked = await vscode.window.showQuickPick([all, ...runs], { title: "evalschema findings: run to show" });
      if (picked === undefined) return;
      run = picked === all ? undefined : picked;
    }
    this.filter = { statuses: statuses.length === FINDING_STATUSES.length ? undefined : new Set(statuses.map((s) => s.label)), run };
    this.refresh();
  }

  getChildren(node?: Node): Node[] {
    if (!node) return groupFindings(this.answer.findings, this.filter).map((group) => ({ kind: "field", group }));
    if (node.kind === "field") return node.group.records.map((group) => ({ kind: "record", group }));
    if (node.kind === "record") return node.group.findings.map((finding) => ({ kind: "finding", finding }));
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "field") {
      const item = new vscode.TreeItem(node.group.field, vscode.TreeItemCollapsibleState.Collapsed);
      item.description = fieldDescription(node.group);
      item.iconPath = new vscode.ThemeIcon("symbol-field");
      return item;
    }
    if (node.kind === "record") {
      const runs = new Set(this.answer.findings.map((f) => f.run)).size;
      const item = new vscode.TreeItem(recordLabel(node.group, runs), vscode.TreeItemCollapsibleState.Collapsed);
      item.description = `${node.group.findings.length}`;
      item.iconPath = new vscode.ThemeIcon("note");
      if (node.group.findings.length === 1) item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
      return item;
    }
    const f = node.finding;
    const line = findingLine(f);
    const item = new vscode.TreeItem(f.path, vscode.TreeItemCollapsibleState.None);
    item.description = `${f.status}: ${f.message}`;
    item.tooltip = `${line.label}\n${line.description}\n${line.detail}`;
    item.iconPath = new vscode.ThemeIcon(f.status === "mismatch" ? "diff-modified" : f.status === "omission" ? "diff-removed" : f.status === "hallucination" ? "diff-added" : "error");
    const loc = toLocation(f.uri, f.range);
    item.command = { command: "vscode.open", title: "Open", arguments: [loc.uri, { selection: loc.range, preview: true }] };
    return item;
  }

  dispose(): void {
    this.view.dispose();
    this.changed.dispose();
  }
}

/** A field's findings as a list: record, path, why (pickPlace). */
export function pickFinding(title: string, answer: FindingsAnswer): void {
  pickPlace(title, answer.findings.map((f) => ({ ...findingLine(f), uri: f.uri, range: f.range })), answer.total, "no findings");
}

/**
 * Places as a list; moving through it shows each in the editor (the first at once; next and
 * previous with the arrow keys), Enter keeps the one chosen. `total`: how many there are in all
 * (the list may hold the first only); `none`: what an empty list says.
 */
export function pickPlace(title: string, lines: readonly PlaceLine[], total: number, none: string): void {
  if (!lines.length) {
    void vscode.window.showInformationMessage(`evalschema: ${title}: ${none}.`);
    return;
  }
  type Item = vscode.QuickPickItem & { place: PlaceLine };
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = lines.length < total ? `${title} (first ${lines.length} of ${total})` : `${title} (${total})`;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.items = lines.map((place) => ({ label: place.label, description: place.description, detail: place.detail, place }));
  qp.onDidChangeActive((items) => {
    const p = items[0]?.place;
    if (p) void openPlace(p.uri, p.range, true);
  });
  qp.onDidAccept(() => {
    const p = qp.selectedItems[0]?.place ?? qp.activeItems[0]?.place;
    qp.hide();
    if (p) void openPlace(p.uri, p.range);
  });
  qp.onDidHide(() => {
    qp.dispose();
  });
  qp.show();
}
