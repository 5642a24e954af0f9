"""A suite's results as diagnostics, where they happen.

Each scored record yields *marks*: offsets relative to its record's text (the wrong
value, the invented key, the parent of a missing field), with the message and the
related gold value. Marks depend only on the record pair's texts, so they are cached
with the scores and an incremental run only locates what changed; converting them to
editor positions is one table lookup per mark.

Diagnostics are built as plain JSON (dicts), not lsprotocol objects: a 10,000-record
file can carry tens of thousands, and converting each through cattrs would take longer
than the whole re-score.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from operator import attrgetter, is_
from pathlib import Path
from typing import Any

from evalschema.project.gate import meets
from evalschema.results import FieldResult, RecordResult, Status, show_value

from ..diagnostic_store import DIAGNOSTIC_SOURCE
from ..document import LineIndex
from ..protocol import LspRange
from ..ranges import range_json
from .locate import RecordLocator, Span, key_span, problem_span
from .runner import RunOutcome, ScoredRecord, SuiteOutcome
from .suspects import CODE, suspect_data, suspect_message, suspect_span

SEVERITIES = {"error": 1, "warning": 2, "information": 3, "info": 3, "hint": 4}
#: Finding kind -> default severity name ("off" hides the kind).
DEFAULT_SEVERITY: dict[str, str] = {
    "mismatch": "warning", "omission": "warning", "hallucination": "warning",
    "error": "error", "record": "warning", "input": "error", "threshold": "warning",
    "limit": "information", "suspect": "information",
}
#: Records the summary of findings not shown names in its message, and in its data.
SUMMARY_RECORDS = 5
MAX_LISTED_RECORDS = 100
#: A record's label in a message: ids come from the data, and a 100 kB id would be
#: repeated in every finding of its record.
LABEL_CHARS = 60


def short_label(label: str) -> str:
    """A record's label as messages show it, cut to ``LABEL_CHARS``."""
    return label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…"


@dataclass(frozen=True, slots=True)
class Mark:
    """One finding of a record pair, relative to its record texts."""

    #: "extracted" or "gold": whose text ``span`` is in.
    side: str
    span: Span
    kind: str
    code: str
    message: str
    field: str = ""
    schema_pointer: str = ""
    #: The gold value's span in the gold record's text (related information).
    gold_span: Span | None = None
    #: Where else the same finding is, in the same text (a key invented in every item of
    #: an array is one finding of its record, not one per item).
    more: tuple[Span, ...] = ()


@dataclass(frozen=True)
class FindingOptions:
    encoding: str = "utf-16"
    severity: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SEVERITY))
    gold_diagnostics: bool = False
    field_threshold: float | None = None
    #: Diagnostics per file, in file order, then one summary; 0 means no limit. Under
    #: VS Code's 1,000 per file, past which it drops the rest with a note of its own.
    max_per_file: int = 900
    #: "finding": one diagnostic per finding; "record": one per record, listing them.
    mode: str = "finding"


@dataclass
class _Count:
    """Findings not shown and the records they are in (a label each), on the run file
    and on the gold file."""

    findings: int = 0
    records: list[str] = field(default_factory=list)
    gold_findings: int = 0
    gold_records: list[str] = field(default_factory=list)

    def add(self, other: _Count) -> None:
        self.findings += other.findings
        self.records.extend(other.records)
        self.gold_findings += other.gold_findings
        self.gold_records.extend(other.gold_records)


#: A record's findings with their values and pointers (``SuiteOutcome.findings_of``).
Whole = Callable[[ScoredRecord], Iterable[FieldResult]]
#: Records past the files' limits (their results), and their count.
HiddenChunk = tuple[list[RecordResult], _Count]
#: Records a ``HiddenChunk`` holds.
HIDDEN_CHUNK = 256
_record_of = attrgetter("record")

#: A record's marks, and the diagnostics they gave on the run file and on the gold file.
KeptDiagnostics = tuple[tuple["Mark", ...], list[dict[str, Any]], list[dict[str, Any]]]


@dataclass
class MarkCache:
    """What one suite's next diagnostics can reuse: marks by record pair texts (for the
    records of the last run only), and each file's line table while its text stays."""

    marks: dict[tuple[Any, ...], tuple[Mark, ...]] = field(default_factory=dict)
    fingerprint: Any = None
    line_tables: dict[Path, tuple[str, LineIndex]] = field(default_factory=dict)
    #: (run file, run label, gold diagnostics on, place in the file's order) -> a chunk
    #: of records past the files' limits and their counts (``DiagnosticBuilder._hide_rest``).
    hidden: dict[tuple[Any, ...], HiddenChunk] = field(default_factory=dict)
    #: A record shown whole in the last build -> its marks and its diagnostics on the run
    #: file and the gold file (``DiagnosticBuilder._findings``), under ``options``.
    diagnostics: dict[tuple[Any, ...], KeptDiagnostics] = field(default_factory=dict)
    options: Any = None

    def line_table(self, path: Path, text: str, starts: list[int] | None = None
                   ) -> LineIndex:
        """``path``'s line table for ``text`` (``starts``: its line starts, if known)."""
        got = self.line_tables.get(path)
        if got is None or got[0] != text:
            got = self.line_tables[path] = (text, LineIndex(text, starts))
        return got[1]


def record_marks(s: ScoredRecord, whole: Whole, locator: RecordLocator,
                 labels: Mapping[str, str]) -> tuple[Mark, ...]:
    """The marks of ``s``'s findings; ``whole`` gives them with their values and pointers
    (``SuiteOutcome.findings_of``: the record scored again, asked only when there are
    findings to show). Matches, skipped and pending fields are none."""
    g, e = s.gold, s.extracted
    if e is None and g is None:
        return ()
    if e is None or g is None:
        return _unpaired(s, locator)
    if not s.findings:
        return ()
    out: list[Mark] = []
    for r in whole(s):
        st = r.status
        if st is Status.MATCH or st is Status.SKIPPED or st is Status.PENDING:
            continue
        label = labels.get(r.schema_pointer) or r.comparator
        how = f" ({label})" if label else ""  # no empty "()" for a node without a comparator
        gold_span = locator.value(g.text, r.gold_pointer)
        span = extracted_span(r, e.text, locator)
        message = finding_message(r, labels)
        if st is Status.HALLUCINATION and _in_items(r.field) and merge_item_keys(out, r, span):
            continue
        kind = "error" if st is Status.ERROR or st is Status.BATCH_ERROR else str(st)
        out.append(Mark("extracted", span, kind, str(st), message, r.field, r.schema_pointer,
                        None if st is Status.HALLUCINATION else gold_span))
        if st is Status.MISMATCH and gold_span is not None:
            out.append(Mark("gold", gold_span, "mismatch", "mismatch",
                            f"{r.path}: {r.explanation}", r.field, r.schema_pointer, gold_span))
        elif st is Status.OMISSION and gold_span is not None:
            out.append(Mark("gold", gold_span, "omission", "omission",
                            f"{r.path}: gold {show_value(r.gold)}, extracted nothing{how}",
                            r.field, r.schema_pointer, gold_span))
    return tuple(out)


def finding_message(r: FieldResult, labels: Mapping[str, str]) -> str:
    """A finding's text at the extracted value: the engine's reason, the one text the
    reports show too (diagnostics and the records' test messages)."""
    st = r.status
    if st is Status.MISMATCH:
        return f"{r.path}: {r.explanation}"
    if st is Status.HALLUCINATION:
        return f"{r.path}: invented {show_value(r.extracted)} (gold has no value here)"
    if st is Status.OMISSION:
        return f"{r.path}: missing (gold {show_value(r.gold)})"
    label = labels.get(r.schema_pointer) or r.comparator
    how = f" ({label})" if label else ""  # no empty "()" for a node without a comparator
    return f"{r.path}: {r.explanation or st}{how}"  # error, batch_error


def extracted_span(r: FieldResult, text: str, locator: RecordLocator) -> Span:
    """Where a finding goes in its extracted record's text: the value (an invented key:
    the key; a missing value: its nearest parent present). A value that cannot be
    pointed at (a record read out of a JSON string or prose) goes on its nearest parent
    present: never nowhere, or it would look like a match."""
    ep, where = r.extracted_pointer, r.extracted_pointer or r.gold_pointer
    if r.status is Status.OMISSION:
        return locator.near(text, where)
    if r.status is Status.HALLUCINATION:
        return locator.key(text, ep) or locator.near(text, where)
    return locator.value(text, ep) or locator.near(text, where)


def _in_items(field: str) -> bool:
    """A key inside array items (``line_items[].discount``), not an item itself."""
    return "[]" in field and not field.endswith("[]")


def merge_item_keys(out: list[Mark], r: FieldResult, span: Span) -> bool:
    """Folds an invented key into the mark of the same key invented in an earlier item of
    the record (its other places become ``more``); False when it is the first."""
    for i, m in enumerate(out):
        if m.kind == "hallucination" and m.field == r.field and m.side == "extracted":
            more = (*m.more, span)
            out[i] = replace(m, more=more, message=f"{r.field}: invented in {len(more) + 1} "
                             "items (gold has no value there)")
            return True
    return False


def _unpaired(s: ScoredRecord, locator: RecordLocator) -> tuple[Mark, ...]:
    rec = s.record
    n = sum(1 for r in s.findings if r.status is Status.OMISSION
            or r.status is Status.HALLUCINATION)
    rid = f" {short_label(rec.label)}"
    if s.extracted is not None:
        e = s.extracted
        root = locator.doc(e.text).root
        span = (root.offset, root.offset + 1) if root is not None else (0, len(e.text))
        return (Mark("extracted", span, "record", "record-hallucinated",
                     f"record{rid}: {rec.problem or 'no gold record'}; its {n} fields count "
                     "as hallucinations"),)
    g = s.gold
    assert g is not None
    return (Mark("gold", (0, min(1, len(g.text))), "record", "record-omitted",
                 f"record{rid}: {rec.problem or 'missing from this run'}; its {n} fields "
                 "count as omissions"),)


def _file_order(run: RunOutcome) -> list[ScoredRecord]:
    """Scored records in the extracted file's order (pairing follows the gold's);
    records missing from the run last."""
    scored = run.scored
    if run.file_order is not None:
        return [scored[i] for i in run.file_order]
    by_ext = run.by_extracted
    ordered = [scored[by_ext[i]] for i in sorted(by_ext)]
    ordered.extend(s for s in scored if s.extracted is None)
    return ordered


def _finding_count(s: ScoredRecord) -> int:
    if s.extracted is None or s.gold is None:
        return 1 if s.extracted is not None or s.gold is not None else 0
    c = s.record.counts
    n = c.mismatches + c.omissions + c.hallucinations + c.errors + c.batch_errors
    if c.hallucinations:  # as ``record_marks`` shows them: a key invented in items once
        keys: set[str] = set()
        for r in s.findings:
            if r.status is Status.HALLUCINATION and _in_items(r.field):
                if r.field in keys:
                    n -= 1
                keys.add(r.field)
    return n


@dataclass
class _Hidden:
    """The findings a file does not show: how many, and the records they are in."""

    count: int = 0
    #: Record labels, repeats allowed (one per record skipped or cut short).
    records: list[str] = field(default_factory=list)


@dataclass
class _Doc:
    """A file's URI and its line table."""

    uri: str
    lines: LineIndex


class DiagnosticBuilder:
    """Turns one suite outcome into ``{uri: [diagnostic dicts]}``."""

    def __init__(self, outcome: SuiteOutcome, options: FindingOptions, cache: MarkCache,
                 locator: RecordLocator, to_uri: Callable[[Path], str],
                 schema_open: bool) -> None:
        self.o = outcome
        self.opt = options
        self.cache = cache
        self.locator = locator
        self.to_uri = to_uri
        self.schema_open = schema_open
        self.out: dict[str, list[dict[str, Any]]] = {}
        self.docs: dict[Path, _Doc] = {}
        self.labels = outcome.labels
        self.hidden: dict[Path, _Hidden] = {}
        self.hidden_kept: dict[tuple[Any, ...], HiddenChunk] = {}
        self.diagnostics_kept: dict[tuple[Any, ...], KeptDiagnostics] = {}
        #: What, of the options, a record's diagnostics depend on.
        self.options_key = (options.encoding, tuple(sorted(options.severity.items())),
                            options.gold_diagnostics)

    # -- helpers ------------------------------------------------------------

    def doc(self, path: Path) -> _Doc:
        got = self.docs.get(path)
        if got is None:
            text = self.o.texts.get(path, "")
            got = self.docs[path] = _Doc(self.to_uri(path), self.cache.line_table(
                path, text, self.o.line_starts(path, text)))
        return got

    def rng(self, d: _Doc, start: int, end: int) -> LspRange:
        return range_json(d.lines, start, end, self.opt.encoding)

    def severity(self, kind: str) -> int | None:
        name = self.opt.severity.get(kind, DEFAULT_SEVERITY[kind])
        return SEVERITIES.get(name)

    def room(self, path: Path) -> bool:
        """Whether ``path`` can take one more diagnostic under the per-file limit."""
        cap = self.opt.max_per_file
        return not cap or len(self.out[self.doc(path).uri]) < cap

    def hide(self, path: Path, count: int, record: str | None = None) -> None:
        """Counts ``count`` findings (of ``record``, if one) that ``path`` does not show."""
        self.hide_many(path, count, [] if record is None else [record])

    def hide_many(self, path: Path, count: int, records: list[str]) -> None:
        """``hide`` of ``count`` findings in ``records`` (a label each, repeats allowed)."""
        if count:
            got = self.hidden.setdefault(path, _Hidden())
            got.count += count
            got.records.extend(records)

    def add(self, path: Path, start: int, end: int, kind: str, code: str, message: str,
            related: list[dict[str, Any]] | None = None, data: Any = None,
            force: bool = False) -> None:
        """Adds a diagnostic, within the per-file limit unless ``force`` (the summary)."""
        sev = self.severity(kind)
        if sev is None:
            return
        if not force and not self.room(path):
            self.hide(path, 1)
            return
        d = self.doc(path)
        diag: dict[str, Any] = {"range": self.rng(d, start, end), "severity": sev,
                                "code": code, "source": DIAGNOSTIC_SOURCE, "message": message}
        if related:
            diag["relatedInformation"] = related
        if data is not None:
            diag["data"] = data
        self.out[d.uri].append(diag)  # build() made a list for every file of the suite

    def schema_key_span(self, pointer: str) -> Span | None:
        text = self.o.schema_text
        assert text is not None  # asked only with runs or schema problems: it was read
        return key_span(self.locator.doc(text), pointer)

    def related(self, s: ScoredRecord, path: Path, m: Mark) -> list[dict[str, Any]]:
        """The gold value, the schema rule that judged it, the finding's other places
        (``path``: the file ``m`` is shown in); only what adds something."""
        out = []
        cfg = self.o.suite.config
        if m.gold_span is not None and s.gold is not None:
            d = self.doc(cfg.gold)
            out.append({"location": {"uri": d.uri, "range": self.rng(
                d, s.gold.start + m.gold_span[0], s.gold.start + m.gold_span[1])},
                "message": "gold value"})
        label = self.labels.get(m.schema_pointer)  # "" for an object, an array
        # An invented key has no rule of its own: its parent's node says nothing more.
        if m.schema_pointer and (label or m.kind != "hallucination"):
            span = self.schema_key_span(m.schema_pointer)
            if span is not None:
                d = self.doc(cfg.schema)
                out.append({"location": {"uri": d.uri, "range": self.rng(d, *span)},
                            "message": f"schema rule: {label}" if label else "schema rule"})
        if m.more and s.extracted is not None:
            d = self.doc(path)
            base = s.extracted.start
            out.extend({"location": {"uri": d.uri, "range": self.rng(
                d, base + a, base + b)}, "message": "also invented here"} for a, b in m.more)
        return out

    # -- building -----------------------------------------------------------

    def build(self) -> dict[str, list[dict[str, Any]]]:
        o = self.o
        for path in o.suite.files:
            self.out.setdefault(self.to_uri(path), [])
        for issue in o.issues:
            self.add(issue.path, issue.start, issue.end,
                     "input" if issue.severity == "error" else "record", issue.code,
                     issue.message)
        if o.schema_problems and not self.schema_open:
            self._schema_problems()
        self._suspects()  # before the runs' gold marks, which the per-file limit cuts first
        marks: dict[tuple[Any, ...], tuple[Mark, ...]] = {}
        old = self.cache.marks if self.cache.fingerprint == o.schema_text else {}
        if self.cache.options != self.options_key:
            self.cache.diagnostics = {}
        for run in o.runs:
            self._run(run, old, marks)
        self.cache.marks, self.cache.fingerprint = marks, o.schema_text
        self.cache.hidden = self.hidden_kept
        self.cache.diagnostics = self.diagnostics_kept
        self.cache.options = self.options_key
        self._thresholds()
        self._summaries()
        return self.out

    def _schema_problems(self) -> None:
        text = self.o.schema_text
        assert text is not None  # it has problems: it was read
        doc = self.locator.doc(text)
        for p in self.o.schema_problems:
            start, end = problem_span(doc, text, p)
            self.add(self.o.suite.config.schema, start, end, "input", p.code,
                     p.message + (f" ({p.suggestion})" if p.suggestion else ""))

    def _run(self, run: RunOutcome, old: dict[tuple[Any, ...], tuple[Mark, ...]],
             marks: dict[tuple[Any, ...], tuple[Mark, ...]]) -> None:
        """The run's findings in file order, up to the per-file limit: past it only
        the count and the records are kept (computing marks is what costs, so it stops)."""
        cfg = self.o.suite.config
        by_record = self.opt.mode == "record"
        ordered = _file_order(run)
        for at, s in enumerate(ordered):
            room_ext = self.room(run.path)
            room_gold = self.opt.gold_diagnostics and self.room(cfg.gold)
            if not room_ext and not room_gold:  # nor will there be: files only fill up
                self._hide_rest(run, ordered, at)
                return
            key = (s.gold.text if s.gold else None, s.extracted.text if s.extracted else None,
                   s.record.problem)
            got = old.get(key) or marks.get(key)
            if got is None:
                got = record_marks(s, self.o.findings_of, self.locator, self.labels)
            marks[key] = got
            if s.extracted is None:  # a gold record missing from the run: on the run file
                if s.gold is not None:
                    if not room_ext:
                        self.hide(run.path, 1, short_label(s.record.label))
                    else:
                        [m] = got
                        gold = self.doc(cfg.gold)
                        self.add(run.path, 0, 0, m.kind, m.code, m.message, [
                            {"location": {"uri": gold.uri, "range": self.rng(
                                gold, s.gold.start, s.gold.end)}, "message": "gold record"}])
                continue
            if by_record:
                self._record_rollup(run, s, got)
                continue
            self._findings(run, s, got)

    def _findings(self, run: RunOutcome, s: ScoredRecord, got: tuple[Mark, ...]) -> None:
        """A paired record's findings, on the run file and (``goldDiagnostics``) on the
        gold file. The diagnostics of a record shown whole are kept for the next build:
        the same marks at the same places give the same diagnostics, so a save re-uses
        those of every record but the edited one (locating them is what costs)."""
        assert s.extracted is not None
        cfg = self.o.suite.config
        ext, gold = self.doc(run.path), self.doc(cfg.gold)
        out_ext, out_gold = self.out[ext.uri], self.out[gold.uri]  # build() made them
        where = (id(got), s.record.index, s.record.label, run.label, ext.uri, gold.uri,
                 self.doc(cfg.schema).uri, ext.lines.position(s.extracted.start, self.opt.encoding),
                 None if s.gold is None else gold.lines.position(s.gold.start, self.opt.encoding))
        kept = self.cache.diagnostics.get(where)
        cap = self.opt.max_per_file
        if kept is not None and kept[0] is got and (not cap or (
                len(out_ext) + len(kept[1]) <= cap and len(out_gold) + len(kept[2]) <= cap)):
            out_ext.extend(kept[1])
            out_gold.extend(kept[2])
            self.diagnostics_kept[where] = kept
            return
        n_ext, n_gold, hidden = len(out_ext), len(out_gold), self.hidden_total()
        self._locate(run, s, got)
        if self.hidden_total() == hidden:  # shown whole
            self.diagnostics_kept[where] = (got, out_ext[n_ext:], out_gold[n_gold:])

    def hidden_total(self) -> int:
        return sum(h.count for h in self.hidden.values())

    def _locate(self, run: RunOutcome, s: ScoredRecord, got: tuple[Mark, ...]) -> None:
        assert s.extracted is not None
        cfg = self.o.suite.config
        for m in got:
            if m.side == "extracted":
                if not self.room(run.path):
                    self.hide(run.path, 1, short_label(s.record.label))
                    continue
                base = s.extracted.start
                path = run.path
            else:  # the gold value of a mismatch or an omission
                assert s.gold is not None
                if not self.opt.gold_diagnostics:
                    continue
                if not self.room(cfg.gold):
                    self.hide(cfg.gold, 1, f"{run.label} {short_label(s.record.label)}")
                    continue
                base = s.gold.start
                path = cfg.gold
            # The record first (the Problems panel lists by line, not record), unless
            # the message is about the record itself.
            named = m.message if m.kind == "record" \
                else f"{short_label(s.record.label)} · {m.message}"
            self.add(path, base + m.span[0], base + m.span[1], m.kind, m.code,
                     named if m.side == "extracted" else f"[{run.label}] {named}",
                     self.related(s, path, m), {"field": m.field, "record": s.record.index})

    def _hide_rest(self, run: RunOutcome, ordered: list[ScoredRecord], at: int) -> None:
        """Records from ``at`` on, past both files' limits: their findings counted, not
        located (most of a large file's records: a label is made only for a record with
        findings). Counted by chunks of ``HIDDEN_CHUNK`` records at fixed places of the
        file's order, each kept for the next build while its records' results are the
        same objects (a save re-uses most records' results): a save counts one chunk."""
        gold_on = self.opt.gold_diagnostics
        old, kept = self.cache.hidden, self.hidden_kept
        total = _Count()
        edge = min(len(ordered), -(-at // HIDDEN_CHUNK) * HIDDEN_CHUNK)
        self._count_hidden(run, ordered[at:edge], total)
        for lo in range(edge, len(ordered), HIDDEN_CHUNK):
            chunk = ordered[lo:lo + HIDDEN_CHUNK]
            recs = list(map(_record_of, chunk))
            key = (run.path, run.label, gold_on, lo)
            got = old.get(key)
            if got is None or len(got[0]) != len(recs) or not all(map(is_, got[0], recs)):
                counted = _Count()
                self._count_hidden(run, chunk, counted)
                got = (recs, counted)
            kept[key] = got
            total.add(got[1])
        self.hide_many(run.path, total.findings, total.records)
        if gold_on:
            self.hide_many(self.o.suite.config.gold, total.gold_findings, total.gold_records)

    def _count_hidden(self, run: RunOutcome, records: list[ScoredRecord], count: _Count
                      ) -> None:
        """Adds the findings of ``records`` to ``count`` (see ``_hide_rest``)."""
        prefix = f"{run.label} "
        for s in records:
            rec = s.record
            n = _finding_count(s)
            if n:
                count.findings += n
                count.records.append(short_label(rec.label))
            if s.extracted is not None and s.gold is not None:
                c = rec.counts  # on the gold file: a mark per mismatch and omission
                if c.mismatches + c.omissions:
                    count.gold_findings += c.mismatches + c.omissions
                    count.gold_records.append(prefix + short_label(rec.label))

    def _suspects(self) -> None:
        """Gold values two or more runs agree against (``suspects``), in the gold file."""
        o = self.o
        if self.severity("suspect") is None or o.gold is None:
            return
        for s in o.suspects:
            rec = o.gold.records[s.gold_index]
            start, end = suspect_span(s, rec.text, self.locator)
            self.add(o.suite.config.gold, rec.start + start, rec.start + end, "suspect", CODE,
                     suspect_message(s), data=suspect_data(o.suite.key, s))

    def _record_rollup(self, run: RunOutcome, s: ScoredRecord, got: tuple[Mark, ...]) -> None:
        """``diagnosticsMode: "record"``: one diagnostic per record, on its first key,
        naming its wrong fields; each finding is a related location."""
        assert s.extracted is not None
        mine = [m for m in got if m.side == "extracted" and self.severity(m.kind) is not None]
        if not mine:
            return
        if not self.room(run.path):
            self.hide(run.path, len(mine), short_label(s.record.label))
            return
        base = s.extracted.start
        d = self.doc(run.path)
        kind = min(mine, key=lambda m: self.severity(m.kind) or 9).kind  # the loudest
        names = list(dict.fromkeys(f"{m.field or m.code} ({m.kind})" for m in mine))
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        start, end = self.locator.near(s.extracted.text, None)
        related = [{"location": {"uri": d.uri, "range": self.rng(
            d, base + m.span[0], base + m.span[1])}, "message": m.message} for m in mine]
        self.add(run.path, base + start, base + end, kind, "record-findings",
                 f"{short_label(s.record.label)}: {len(mine)} finding{'s' if len(mine) != 1 else ''}: "
                 f"{shown}", related, {"record": s.record.index,
                                       "fields": [m.field for m in mine]})

    def _summaries(self) -> None:
        """One note at the top of each file with findings not shown: how many, in which
        records, and where to see them all."""
        cap = self.opt.max_per_file
        for path, hidden in self.hidden.items():
            count, names = hidden.count, list(dict.fromkeys(hidden.records))
            listed = ", ".join(names[:SUMMARY_RECORDS])
            if len(names) > SUMMARY_RECORDS:
                listed += f" and {len(names) - SUMMARY_RECORDS:,} more"
            where = f" in {len(names):,} record{'s' if len(names) != 1 else ''} ({listed})" \
                if names else ""
            self.add(path, 0, 0, "limit", "more-findings",
                     f"{count:,} more finding{'s' if count != 1 else ''}{where} "
                     f"not shown: this file shows its first {cap:,} "
                     "(evalschema.maxDiagnosticsPerFile, under the editor's limit of 1,000 "
                     "per file). The results view and hovers have every finding; "
                     "evalschema.diagnosticsMode \"record\" shows one per record.",
                     data={"hidden": count, "records": names[:MAX_LISTED_RECORDS]},
                     force=True)

    def _thresholds(self) -> None:
        cfg = self.o.suite.config
        pointers = self.o.field_pointers
        default = self.opt.field_threshold
        for run in self.o.runs:
            for name, agg in run.result.per_field.items():
                limit = cfg.thresholds.get(name, default)
                if limit is None:
                    continue
                f1 = agg.counts.f1
                if meets(f1, limit):
                    continue
                span = self.schema_key_span(pointers.get(name, ""))
                if span is None:
                    continue
                c = agg.counts
                if f1 is None:  # a threshold nothing was measured against is not met
                    unjudged = ", ".join(f"{n} {what}" for n, what in (
                        (c.errors, "errors"), (c.skipped, "skipped"), (c.pending, "pending"),
                        (c.batch_errors, "batch errors")) if n) or "no values"
                    self.add(cfg.schema, *span, "threshold", "below-threshold",
                             f"{name}: F1 undefined: nothing was judged in {run.label} "
                             f"({unjudged}; needs >= {limit:g})",
                             data={"field": name, "run": run.label})
                    continue
                self.add(cfg.schema, *span, "threshold", "below-threshold",
                         f"{name}: F1 {f1:.3f} < {limit:g} in {run.label} ({c.matches} matched, "
                         f"{c.mismatches} wrong, {c.omissions} missing, {c.hallucinations} "
                         "invented)", data={"field": name, "run": run.label})


