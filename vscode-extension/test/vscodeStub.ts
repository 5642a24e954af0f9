// A stand-in for the `vscode` module, which only exists inside VS Code: the few value classes
// the modules under test build (Position, Range, Location, Uri) and a fake Testing API,
// registered so that `import * as vscode from "vscode"` resolves to it. Import it before the module under test.
import Module from "node:module";

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number) {
    this.start = new Position(startLine, startCharacter);
    this.end = new Position(endLine, endCharacter);
  }
}

export class Uri {
  private constructor(private readonly text: string) {}
  static parse(text: string): Uri {
    return new Uri(text);
  }
  toString(): string {
    return this.text;
  }
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

/** The Testing API, as far as a test controller of the extension uses it: each controller
 * made is kept (`controllers`), each run records what it was told (`FakeRun.events`). */
class TestItemCollection {
  private items = new Map<string, TestItem>();
  get size(): number {
    return this.items.size;
  }
  get(id: string): TestItem | undefined {
    return this.items.get(id);
  }
  add(item: TestItem): void {
    this.items.set(item.id, item);
  }
  replace(items: readonly TestItem[]): void {
    this.items = new Map(items.map((i) => [i.id, i]));
  }
  forEach(f: (item: TestItem) => void): void {
    this.items.forEach((i) => {
      f(i);
    });
  }
}

export class TestItem {
  readonly children = new TestItemCollection();
  range: Range | undefined;
  description: string | undefined;
  constructor(
    readonly id: string,
    public label: string,
    readonly uri?: Uri,
  ) {}
}

export class TestMessage {
  location: Location | undefined;
  expectedOutput: string | undefined;
  actualOutput: string | undefined;
  constructor(readonly message: string) {}
  static diff(message: string, expected: string, actual: string): TestMessage {
    const m = new TestMessage(message);
    m.expectedOutput = expected;
    m.actualOutput = actual;
    return m;
  }
}

export class FakeRun {
  readonly events: string[] = [];
  started(i: TestItem): void {
    this.events.push(`started ${i.label}`);
  }
  passed(i: TestItem): void {
    this.events.push(`passed ${i.label}`);
  }
  failed(i: TestItem): void {
    this.events.push(`failed ${i.label}`);
  }
  errored(i: TestItem, m: TestMessage | TestMessage[]): void {
    this.events.push(`errored ${i.label}: ${Array.isArray(m) ? m.map((x) => x.message).join("; ") : m.message}`);
  }
  skipped(i: TestItem): void {
    this.events.push(`skipped ${i.label}`);
  }
  appendOutput(): void {}
  end(): void {
    this.events.push("end");
  }
}

type RunHandler = (request: { include?: TestItem[]; exclude?: TestItem[] }, token: { isCancellationRequested: boolean }) => Promise<void>;

export class FakeController {
  readonly items = new TestItemCollection();
  readonly runs: FakeRun[] = [];
  refreshHandler: (() => Promise<void>) | undefined;
  runHandler: RunHandler | undefined;
  createRunProfile(_label: string, _kind: number, handler: RunHandler): void {
    this.runHandler = handler;
  }
  createTestItem(id: string, label: string, uri?: Uri): TestItem {
    return new TestItem(id, label, uri);
  }
  createTestRun(): FakeRun {
    const run = new FakeRun();
    this.runs.push(run);
    return run;
  }
  dispose(): void {}
}

export const controllers: FakeController[] = [];
const tests = {
  createTestController(): FakeController {
    const c = new FakeController();
    controllers.push(c);
    return c;
  },
};
const TestRunProfileKind = { Run: 1 };
const workspace = { textDocuments: [] as unknown[] };

const STUB = "vscode-stub:vscode";
type Resolve = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve; _cache: Record<string, unknown> };
const resolve = loader._resolveFilename;
loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  return request === "vscode" ? STUB : resolve.call(this, request, ...rest);
};
loader._cache[STUB] = { id: STUB, filename: STUB, loaded: true, exports: { Position, Range, Uri, Location, TestMessage, TestRunProfileKind, tests, workspace } };
