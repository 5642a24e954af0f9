// A stand-in for the `vscode` module, which only exists inside VS Code: the few value classes
// the modules under test build (Position, Range, Location, Uri), registered so that
// `import * as vscode from "vscode"` resolves to it. Import it before the module under test.
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

const STUB = "vscode-stub:vscode";
type Resolve = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve; _cache: Record<string, unknown> };
const resolve = loader._resolveFilename;
loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  return request === "vscode" ? STUB : resolve.call(this, request, ...rest);
};
loader._cache[STUB] = { id: STUB, filename: STUB, loaded: true, exports: { Position, Range, Uri, Location } };
