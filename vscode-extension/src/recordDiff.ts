// "Compare record with gold": the server's recordDiff answer (both records pretty-printed) as
// two read-only virtual documents for VS Code's diff editor. Pure (no VS Code), so it is
// unit-tested; src/recordDiffView.ts is the VS Code side.
import { type RecordDiff, type RecordText, isObject } from "./protocol";

/** The URI scheme of the records' virtual documents (read-only: no file behind them). */
export const RECORD_SCHEME = "evalschema-record";
/** Virtual documents kept at most (each diff adds two; older ones are forgotten). */
export const KEPT_DOCUMENTS = 20;

function readText(v: unknown): RecordText | undefined {
  if (!isObject(v) || typeof v.text !== "string") return undefined;
  return { title: typeof v.title === "string" ? v.title : "", text: v.text };
}

/** The recordDiff answer, read defensively (undefined when it is not one). */
export function readRecordDiff(answer: unknown): RecordDiff | undefined {
  if (!isObject(answer)) return undefined;
  const gold = readText(answer.gold);
  const extracted = readText(answer.extracted);
  return gold && extracted ? { gold, extracted } : undefined;
}

/** One side of the diff: the path of its virtual document (its tab shows the last segment) and its text. */
export interface RecordDocument {
  path: string;
  text: string;
}

export interface DiffDocuments {
  left: RecordDocument;
  right: RecordDocument;
  /** The diff editor's title. */
  title: string;
}

/** A title as one path segment: no slash (it would make folders) and never empty. */
function segment(title: string, fallback: string): string {
  const clean = title.replace(/[/\\]/g, "∕").replace(/\s+/g, " ").trim();
  return clean || fallback;
}

/**
 * The two documents of the `n`-th comparison: gold on the left, the extraction on the right;
 * `n` keeps each comparison's documents apart (two records may share a title).
 */
export function diffDocuments(diff: RecordDiff, n: number): DiffDocuments {
  const gold = segment(diff.gold.title, "gold");
  const extracted = segment(diff.extracted.title, "extracted");
  return {
    left: { path: `/${n}/gold/${gold}`, text: diff.gold.text },
    right: { path: `/${n}/extracted/${extracted}`, text: diff.extracted.text },
    title: `${gold} ↔ ${extracted}`,
  };
}

/** The texts of the virtual documents by path, the oldest forgotten past `limit`. */
export class RecordTexts {
  private readonly texts = new Map<string, string>();

  constructor(private readonly limit = KEPT_DOCUMENTS) {}

  add(doc: RecordDocument): void {
    this.texts.delete(doc.path);
    this.texts.set(doc.path, doc.text);
    while (this.texts.size > this.limit) {
      const oldest = this.texts.keys().next().value;
      if (oldest === undefined) break;
      this.texts.delete(oldest);
    }
  }

  /** A document's text; one forgotten (or never made) says so rather than show nothing. */
  text(path: string): string {
    return this.texts.get(path) ?? "// evalschema: this comparison is no longer kept; run Compare record with gold again.\n";
  }
}
