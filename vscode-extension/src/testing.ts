// Records as tests in VS Code's Test Explorer: suites → runs (extracted files) → records, run
// from the explorer or the gutter; a failed record has one message per wrong field at the
// extracted value, whose expected/actual opens VS Code's diff. The server lists and scores them
// (listTests, runTests); what its answers become is src/testTree.ts's.
import * as vscode from "vscode";
import { messageOf } from "./errors";
import { toLocation, toRange } from "./places";
import { ServerCommands, type TestMessage, type TestSuite } from "./protocol";
import type { ServerManager } from "./server";
import {
  type ItemRef,
  type OpenDocumentState,
  askedRecords,
  itemId,
  parseItemId,
  planRuns,
  readTestResults,
  readTestTree,
  recordItem,
  recordOutcome,
  staleReason,
} from "./testTree";

export const TEST_CONTROLLER = "evalschema.records";
const RUN_TITLE = "evalschema: run records as tests";

function openDocument(uri: string): OpenDocumentState | undefined {
  const wanted = vscode.Uri.parse(uri).toString();
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === wanted);
  return doc ? { version: doc.version, dirty: doc.isDirty } : undefined;
}

function testMessage(m: TestMessage): vscode.TestMessage {
  const out = vscode.TestMessage.diff(m.message, m.expected, m.actual);
  out.location = toLocation(m.uri, m.range);
  return out;
}

export class RecordTests implements vscode.Disposable {
  private readonly controller: vscode.TestController;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly server: ServerManager) {
    this.controller = vscode.tests.createTestController(TEST_CONTROLLER, "evalschema records");
    this.controller.refreshHandler = () => this.refresh();
    this.controller.createRunProfile("Run", vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token), true);
  }

  /** List the tests again soon (several runs finishing in a row make one listing). */
  scheduleRefresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, 150);
  }

  async refresh(): Promise<void> {
    if (!this.server.running) return;
    try {
      this.show(readTestTree(await this.server.execute(ServerCommands.listTests, {}, "listing records as tests")));
    } catch (e) {
      this.server.output.warn(messageOf(e));
    }
  }

  private show(suites: readonly TestSuite[]): void {
    const items: vscode.TestItem[] = [];
    for (const s of suites) {
      const suite = this.controller.createTestItem(itemId({ suite: s.key }), s.name, s.uri ? vscode.Uri.parse(s.uri) : undefined);
      for (const r of s.runs) {
        const run = this.controller.createTestItem(itemId({ suite: s.key, run: r.uri }), r.label, vscode.Uri.parse(r.uri));
        run.children.replace(
          r.records.map((rec) => {
            const shown = recordItem(rec);
            const item = this.controller.createTestItem(itemId({ suite: s.key, run: r.uri, record: rec.id }), shown.label, vscode.Uri.parse(shown.uri));
            item.range = toRange(shown.range);
            item.description = shown.description;
            return item;
          }),
        );
        suite.children.add(run);
      }
      items.push(suite);
    }
    this.controller.items.replace(items);
  }

  private item(ref: ItemRef): vscode.TestItem | undefined {
    const suite = this.controller.items.get(itemId({ suite: ref.suite }));
    if (ref.run === undefined) return suite;
    const run = suite?.children.get(itemId({ suite: ref.suite, run: ref.run }));
    return ref.record === undefined ? run : run?.children.get(itemId(ref));
  }

  /** The records of the tree a plan asks for. */
  private records(suite: string, wants: (run: string, record: string) => boolean): vscode.TestItem[] {
    const listed = new Map<string, vscode.TestItem>();
    this.item({ suite })?.children.forEach((run) => {
      run.children.forEach((rec) => {
        listed.set(rec.id, rec);
      });
    });
    return askedRecords(listed.keys(), suite, wants).flatMap((id) => listed.get(id) ?? []);
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    if (this.controller.items.size === 0) await this.refresh();
    const run = this.controller.createTestRun(request);
    const suites: string[] = [];
    this.controller.items.forEach((s) => suites.push(parseItemId(s.id).suite));
    const plans = planRuns(request.include?.map((i) => parseItemId(i.id)), (request.exclude ?? []).map((i) => parseItemId(i.id)), suites);
    try {
      for (const plan of plans) {
        if (token.isCancellationRequested) break;
        const asked = this.records(plan.args.suite, plan.wants);
        for (const item of asked) run.started(item);
        let answer: unknown;
        try {
          answer = await this.server.execute(ServerCommands.runTests, plan.args, RUN_TITLE, token);
        } catch (e) {
          if (token.isCancellationRequested) break;
          for (const item of asked) run.errored(item, new vscode.TestMessage(messageOf(e)));
          continue;
        }
        for (const result of readTestResults(answer)) {
          const stale = staleReason(result, openDocument(result.uri));
          for (const rec of result.records) {
            if (!plan.wants(result.uri, rec.id)) continue;
            const item = this.item({ suite: plan.args.suite, run: result.uri, record: rec.id });
            if (!item) continue; // not listed yet: the refresh after this run lists it
            const outcome = recordOutcome(rec, stale);
            switch (outcome.state) {
              case "passed":
                run.passed(item);
                break;
              case "failed":
                run.failed(item, outcome.messages.map(testMessage));
                break;
              case "errored":
                run.errored(item, outcome.messages.map(testMessage));
                break;
              case "skipped":
                run.skipped(item);
                run.appendOutput(`${item.label}: ${outcome.reason}\r\n`, undefined, item);
            }
          }
        }
      }
    } finally {
      run.end();
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.controller.dispose();
  }
}
