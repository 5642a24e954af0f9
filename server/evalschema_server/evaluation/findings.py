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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalschema.results import Status, show_value

from ..diagnostic_store import DIAGNOSTIC_SOURCE
from ..document import LineIndex
from ..protocol import LspRange
from ..ranges import range_json
from .locate import RecordLocator, Span, key_span
from .runner import RunOutcome, ScoredRecord, SuiteOutcome

SEVERITIES = {"error": 1, "warning": 2, "information": 3, "info": 3, "hint": 4}
#: Finding kind -> default severity name ("off" hides the kind).
DEFAULT_SEVERITY: dict[str, str] = {
    "mismatch": "warning", "omission": "warning", "hallucination": "warning",
    "error": "error", "record": "warning", "input": "error", "threshold": "warning",
    "limit": "information",
}


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


@dataclass(frozen=True)
class FindingOptions:
    encoding: str = "utf-16"
    severity: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SEVERITY))
    gold_diagnostics: bool = False
    field_threshold: float | None = None
    #: Diagnostics per file, in file order; 0 means no limit.
    max_per_file: int = 2000


@dataclass
class MarkCache:
    """What one suite's next diagnostics can reuse: marks by record pair texts (for the
    records of the last run only), and each file's line table while its text stays."""

    marks: dict[tuple[Any, ...], tuple[Mark, ...]] = field(default_factory=dict)
    fingerprint: Any = None
    line_tables: dict[Path, tuple[str, LineIndex]] = field(default_factory=dict)

    def line_table(self, path: Path, text: str) -> LineIndex:
        got = self.line_tables.get(path)
        if got is None or got[0] != text:
            got = self.line_tables[path] = (text, LineIndex(text))
        return got[1]


def record_marks(s: ScoredRecord, locator: RecordLocator, labels: Mapping[str, str]
                 ) -> tuple[Mark, ...]:
    rec = s.record
    g, e = s.gold, s.extracted
    if e is None and g is None:
        return ()
    if e is None or g is None:
        return _unpaired(s, locator)
    out: list[Mark] = []
    for r in rec.field_results:
        st = r.status
        if st is Status.MATCH or st is Status.SKIPPED or st is Status.PENDING:
            continue
        label = labels.get(r.schema_pointer) or r.comparator
        how = f" ({label})" if label else ""  # no empty "()" for a node without a comparator
        gold_span = locator.value(g.text, r.gold_pointer)
        if st is Status.MISMATCH:
            span = locator.value(e.text, r.extracted_pointer)
            if span is None:
                continue
            # The engine's reason, the one text the reports show too.
            out.append(Mark("extracted", span, "mismatch", "mismatch",
                            f"{r.path}: {r.explanation}", r.field, r.schema_pointer, gold_span))
        elif st is Status.HALLUCINATION:
            span = locator.key(e.text, r.extracted_pointer)
            if span is None:
                continue
            out.append(Mark("extracted", span, "hallucination", "hallucination",
                            f"{r.path}: invented {show_value(r.extracted)} (gold has no value here)",
                            r.field, r.schema_pointer))
        elif st is Status.OMISSION:
            near = locator.nearest(e.text, r.extracted_pointer or r.gold_pointer)
            if near is None:
                continue
            out.append(Mark("extracted", near[0], "omission", "omission",
                            f"{r.path}: missing (gold {show_value(r.gold)})", r.field,
                            r.schema_pointer, gold_span))
        else:  # error, batch_error
            span = locator.value(e.text, r.extracted_pointer)
            if span is None:  # the nearest parent present, else the record's first character
                near = locator.nearest(e.text, r.extracted_pointer or r.gold_pointer)
                span = (0, 1) if near is None else near[0]
            out.append(Mark("extracted", span, "error", str(st),
                            f"{r.path}: {r.explanation or st}{how}", r.field,
                            r.schema_pointer, gold_span))
        if st is Status.MISMATCH and gold_span is not None:
            out.append(Mark("gold", gold_span, "mismatch", "mismatch",
                            f"{r.path}: {r.explanation}", r.field, r.schema_pointer, gold_span))
        elif st is Status.OMISSION and gold_span is not None:
            out.append(Mark("gold", gold_span, "omission", "omission",
                            f"{r.path}: gold {show_value(r.gold)}, extracted nothing{how}",
                            r.field, r.schema_pointer, gold_span))
    return tuple(out)


def _unpaired(s: ScoredRecord, locator: RecordLocator) -> tuple[Mark, ...]:
    rec = s.record
    n = sum(1 for r in rec.field_results if r.status is Status.OMISSION
            or r.status is Status.HALLUCINATION)
    rid = f" {rec.label}"
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
    by_ext = run.by_extracted
    ordered = [scored[by_ext[i]] for i in sorted(by_ext)]
    ordered.extend(s for s in scored if s.extracted is None)
    return ordered


def _finding_count(s: ScoredRecord) -> int:
    if s.extracted is None or s.gold is None:
        return 1 if s.extracted is not None or s.gold is not None else 0
    c = s.record.counts
    return c.mismatches + c.omissions + c.hallucinations + c.errors + c.batch_errors


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

    # -- helpers ------------------------------------------------------------

    def doc(self, path: Path) -> _Doc:
        got = self.docs.get(path)
        if got is None:
            text = self.o.texts.get(path, "")
            got = self.docs[path] = _Doc(self.to_uri(path), self.cache.line_table(path, text))
        return got

    def rng(self, d: _Doc, start: int, end: int) -> LspRange:
        return range_json(d.lines, start, end, self.opt.encoding)

    def severity(self, kind: str) -> int | None:
        name = self.opt.severity.get(kind, DEFAULT_SEVERITY[kind])
        return SEVERITIES.get(name)

    def add(self, path: Path, start: int, end: int, kind: str, code: str, message: str,
            related: list[dict[str, Any]] | None = None, data: Any = None) -> None:
        sev = self.severity(kind)
        if sev is None:
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

    def related(self, gold_start: int | None, m: Mark) -> list[dict[str, Any]]:
        out = []
        cfg = self.o.suite.config
        if m.gold_span is not None and gold_start is not None:
            d = self.doc(cfg.gold)
            out.append({"location": {"uri": d.uri, "range": self.rng(
                d, gold_start + m.gold_span[0], gold_start + m.gold_span[1])},
                "message": "gold value"})
        if m.schema_pointer:
            span = self.schema_key_span(m.schema_pointer)
            if span is not None:
                d = self.doc(cfg.schema)
                label = self.labels.get(m.schema_pointer)  # "" for an object, an array
                out.append({"location": {"uri": d.uri, "range": self.rng(d, *span)},
                            "message": f"schema rule: {label}" if label else "schema rule"})
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
        marks: dict[tuple[Any, ...], tuple[Mark, ...]] = {}
        old = self.cache.marks if self.cache.fingerprint == o.schema_text else {}
        for run in o.runs:
            self._run(run, old, marks)
        self.cache.marks, self.cache.fingerprint = marks, o.schema_text
        self._thresholds()
        return self.out

    def _schema_problems(self) -> None:
        for p in self.o.schema_problems:
            span = self.schema_key_span(p.pointer) if p.pointer else None
            if span is None and isinstance(p.data.get("span"), list):
                span = p.data["span"][0], p.data["span"][1]  # a syntax error's offsets
            start, end = span if span else (0, 0)
            self.add(self.o.suite.config.schema, start, end, "input", p.code,
                     p.message + (f" ({p.suggestion})" if p.suggestion else ""))

    def _run(self, run: RunOutcome, old: dict[tuple[Any, ...], tuple[Mark, ...]],
             marks: dict[tuple[Any, ...], tuple[Mark, ...]]) -> None:
        """The run's findings in file order, up to the per-file limit: past it only
        the count is kept (computing marks is what costs, so it stops too)."""
        cfg = self.o.suite.config
        cap = self.opt.max_per_file
        run_uri = self.doc(run.path).uri
        gold_uri = self.doc(cfg.gold).uri
        hidden = 0
        for s in _file_order(run):
            full = cap and len(self.out[run_uri]) >= cap
            if full and (not self.opt.gold_diagnostics or len(self.out[gold_uri]) >= cap):
                hidden += _finding_count(s)
                continue
            key = (s.gold.text if s.gold else None, s.extracted.text if s.extracted else None,
                   s.record.problem)
            got = old.get(key) or marks.get(key)
            if got is None:
                got = record_marks(s, self.locator, self.labels)
            marks[key] = got
            if s.extracted is None:  # a gold record missing from the run: on the run file
                if s.gold is not None:
                    if full:
                        hidden += 1
                    else:
                        [m] = got
                        gold = self.doc(cfg.gold)
                        self.add(run.path, 0, 0, m.kind, m.code, m.message, [
                            {"location": {"uri": gold.uri, "range": self.rng(
                                gold, s.gold.start, s.gold.end)}, "message": "gold record"}])
                continue
            for m in got:
                message = m.message
                if m.side == "extracted":
                    if full:
                        hidden += 1
                        continue
                    base = s.extracted.start
                    path = run.path
                else:  # the gold value of a mismatch or an omission
                    assert s.gold is not None
                    if not self.opt.gold_diagnostics or (
                            cap and len(self.out[gold_uri]) >= cap):
                        continue
                    base = s.gold.start
                    path = cfg.gold
                    message = f"[{run.label}] {message}"
                self.add(path, base + m.span[0], base + m.span[1], m.kind, m.code, message,
                         self.related(s.gold.start if s.gold else None, m),
                         {"field": m.field, "record": s.record.index})
        if hidden:
            self.add(run.path, 0, 0, "limit", "more-findings",
                     f"{hidden:,} more findings in this file are not shown (the limit is "
                     f"{cap:,} per file: setting evalschema.maxDiagnosticsPerFile); the report "
                     "and hovers have them all")

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
                if f1 is not None and f1 >= limit:
                    continue
                span = self.schema_key_span(pointers.get(name, ""))
                if span is None:
                    continue
                c = agg.counts
                if f1 is None:  # a threshold nothing was measured against is not met
                    self.add(cfg.schema, *span, "threshold", "below-threshold",
                             f"{name}: F1 undefined: nothing was judged in {run.label} "
                             f"({c.skipped} skipped; needs >= {limit:g})",
                             data={"field": name, "run": run.label})
                    continue
                self.add(cfg.schema, *span, "threshold", "below-threshold",
                         f"{name}: F1 {f1:.3f} < {limit:g} in {run.label} ({c.matches} matched, "
                         f"{c.mismatches} wrong, {c.omissions} missing, {c.hallucinations} "
                         "invented)", data={"field": name, "run": run.label})


