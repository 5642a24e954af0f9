"""Records as tests: each record of a run is a test that passes when every field of it
matches, fails with one message per wrong field (at the extracted value, with the gold
and extracted sub-trees for a diff) and errors when it could not be judged.

The VS Code extension shows them in its Test Explorer; any client can list a suite's
failing records. Plain functions over ``SuiteOutcome``s (and, for suites not run yet or
whose files changed since, over the files' current texts, paired as a run pairs them),
so the statuses are the server's scoring, never a second implementation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalschema.errors import EvalSchemaError
from evalschema.pointer import resolve
from evalschema.results import FINDINGS, RecordResult, Status, record_label

from ..document import LineIndex
from ..protocol import (
    TestLocation,
    TestMessage,
    TestRecord,
    TestRecordResult,
    TestRun,
    TestRunResult,
    TestSuite,
)
from ..ranges import range_json
from .datafile import DataFile, RecordSlice, SliceParser
from .findings import Whole, extracted_span, finding_message, short_label
from .locate import RecordLocator, Span
from .runner import (
    RunOutcome,
    ScoredRecord,
    SuiteOutcome,
    evaluator_of,
    label_of,
    pair_records,
)
from .suites import Suite

PASSED = "passed"
FAILED = "failed"
#: The record could not be judged: unreadable, its scoring failed, or a field errored.
ERRORED = "errored"
#: No current result: the suite has not run, or a file changed since its last run.
NOT_RUN = "not run"

_WRONG = frozenset({Status.MISMATCH, Status.OMISSION, Status.HALLUCINATION})
_ABSENT = object()
ToUri = Callable[[Path], str]


@dataclass(frozen=True, slots=True)
class RecordTest:
    """One record of a run, as a test."""

    #: Unique in its run: the record's id, else ``#N`` (its place in the run).
    id: str
    label: str
    #: The record in the run's file (also when it cannot be read); None: only in gold.
    extracted: RecordSlice | None
    gold: RecordSlice | None
    #: None: not run (no current result).
    scored: ScoredRecord | None


def _tests(items: Iterable[tuple[RecordResult | Any, ScoredRecord | None]], gold: DataFile,
           data: DataFile) -> list[RecordTest]:
    """``items``: what names each record (a RecordResult or the engine's Pair: both have
    ``record_id``, ``name``, ``index``/``number``, ``gold_index``, ``extracted_index``)."""
    out: list[RecordTest] = []
    seen: dict[str, int] = {}
    for named, scored in items:
        number = named.index if isinstance(named, RecordResult) else named.number
        ei, gi = named.extracted_index, named.gold_index
        ext = data.records[ei] if ei is not None and ei < len(data.records) else None
        gold_slice = gold.records[gi] if gi is not None and gi < len(gold.records) else None
        if named.record_id is not None or named.name is not None:
            label = record_label(named.record_id, named.name, number)
            base = label
        else:  # JSONL without ids: where the record is
            where, file = (ext, data) if ext is not None else (gold_slice, gold)
            line = file.text.count("\n", 0, where.start) + 1 if where is not None else 0
            label = f"{Path(file.path).name} #{number + 1} (line {line})"
            base = f"#{number + 1}"
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(RecordTest(base if not n else f"{base} ({n + 1})", label, ext, gold_slice,
                              scored))
    return out


def run_tests(outcome: SuiteOutcome, run: RunOutcome) -> list[RecordTest]:
    """The records of a run that was scored, with their results."""
    assert outcome.gold is not None
    return _tests(((s.record, s) for s in run.scored), outcome.gold, run.data)


def unscored_tests(suite: Suite, texts: Mapping[Path, str]
                   ) -> dict[Path, tuple[DataFile, list[RecordTest]]]:
    """Each run's records in the current texts, paired as a run pairs them, not scored
    (on a worker thread: it parses every file). Runs are left out when the schema or gold
    cannot be read."""
    cfg = suite.config
    schema_text, gold_text = texts.get(cfg.schema), texts.get(cfg.gold)
    if schema_text is None or gold_text is None:
        return {}
    try:
        id_field = evaluator_of(suite, schema_text).id_field
    except EvalSchemaError:
        return {}
    gold = SliceParser().read(str(cfg.gold), gold_text, strict=True)
    out = {}
    for path in cfg.extracted:
        text = texts.get(path)
        if text is None:
            continue
        data = SliceParser().read(str(path), text, strict=False)
        pairs = pair_records(gold, data, id_field, [], path)
        out[path] = (data, _tests(((p.pair, None) for p in pairs), gold, data))
    return out


def status(test: RecordTest) -> str:
    s = test.scored
    if s is None:
        return NOT_RUN
    rec = s.record
    # No result at all (its counts say so: the run keeps findings only): scoring failed.
    if (s.extracted is None and s.gold is None) or (not any(rec.counts[:8]) and rec.problem):
        return ERRORED  # unreadable, or its scoring failed
    found = {k.status for k in s.findings if k.status in FINDINGS}
    if found & _WRONG:
        return FAILED
    return ERRORED if found else PASSED


def _pretty(value: Any) -> str:
    """A sub-tree as the diff shows it; "" for a side that has no value."""
    if value is _ABSENT:
        return ""
    return json.dumps(value, indent=2, ensure_ascii=False)


def _at(record: RecordSlice | None, pointer: str | None) -> Any:
    if record is None or pointer is None:
        return _ABSENT
    return resolve(record.value, pointer, _ABSENT)


@dataclass(frozen=True, slots=True)
class Failure:
    """One message of a test: where (``side``'s record text), what, and the two sides."""

    message: str
    side: str  # "extracted" or "gold"
    span: Span
    expected: str
    actual: str
    #: The field's path; None for a message about the whole record.
    field: str | None
    status: str


def failures(test: RecordTest, whole: Whole, locator: RecordLocator,
             labels: Mapping[str, str]) -> list[Failure]:
    """One per wrong field (``whole``: the record's findings with their values and
    pointers, ``SuiteOutcome.findings_of``, asked only when it has some); one about the
    whole record when a side is missing."""
    s = test.scored
    if s is None:
        return []
    rec = s.record
    g, e = s.gold, s.extracted
    name = short_label(test.label)
    if e is None or g is None:  # the whole record: missing, invented or unreadable
        whole_gold = _pretty(g.value) if g is not None else ""
        if test.extracted is not None:
            raw = test.extracted
            actual = _pretty(e.value) if e is not None else raw.text
            why = rec.problem or ("no gold record; its fields count as hallucinations"
                                  if g is None else "it cannot be read")
            return [Failure(f"record {name}: {why}", "extracted", (0, len(raw.text)),
                            whole_gold, actual, None, "record-hallucinated"
                            if g is None and e is not None else "unreadable-record")]
        if g is None:
            return []
        why = rec.problem or "missing from this run; its fields count as omissions"
        return [Failure(f"record {name}: {why}", "gold", (0, len(g.text)), whole_gold, "",
                        None, "record-omitted")]
    return [Failure(finding_message(r, labels), "extracted", extracted_span(r, e.text, locator),
                    _pretty(_at(g, r.gold_pointer)), _pretty(_at(e, r.extracted_pointer)),
                    r.path, str(r.status))
            for r in (whole(s) if s.findings else ()) if r.status in FINDINGS]


# -- payloads ---------------------------------------------------------------------------

class _Places:
    """Offsets of the suite's files to LSP ranges (one line table per file)."""

    def __init__(self, to_uri: ToUri, encoding: str) -> None:
        self.to_uri = to_uri
        self.encoding = encoding
        self._lines: dict[Path, LineIndex] = {}

    def at(self, path: Path, text: str, start: int, end: int) -> TestLocation:
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = LineIndex(text)
        return {"uri": self.to_uri(path), "range": range_json(lines, start, end, self.encoding)}


def _record(test: RecordTest, run_path: Path, data: DataFile, gold_path: Path, gold: DataFile,
            places: _Places) -> TestRecord:
    gold_at = places.at(gold_path, gold.text, test.gold.start, test.gold.end) \
        if test.gold is not None else None
    if test.extracted is not None:
        at = places.at(run_path, data.text, test.extracted.start, test.extracted.end)
    else:
        assert gold_at is not None
        at = gold_at
    return {"id": test.id, "label": test.label, "uri": at["uri"], "range": at["range"],
            "gold": gold_at, "status": status(test)}


def tree(suite: Suite, outcome: SuiteOutcome | None, current: Mapping[Path, str] | None,
         versions: Mapping[Path, int | None], to_uri: ToUri, encoding: str) -> TestSuite:
    """A suite's runs and records with their last statuses. ``current``: the files' texts
    now, when they differ from those of ``outcome`` (or there is none): the records are
    then read from them, not run (on a worker thread)."""
    cfg = suite.config
    places = _Places(to_uri, encoding)
    runs: list[TestRun] = []
    if current is None and outcome is not None and outcome.gold is not None:
        for run in outcome.runs:
            records = [_record(t, run.path, run.data, cfg.gold, outcome.gold, places)
                       for t in run_tests(outcome, run)]
            runs.append({"uri": to_uri(run.path), "label": run.label,
                         "version": versions.get(run.path), "records": records})
    elif current is not None:
        gold_text = current.get(cfg.gold, "")
        gold = SliceParser().read(str(cfg.gold), gold_text, strict=True)
        for path, (data, tests) in unscored_tests(suite, current).items():
            runs.append({"uri": to_uri(path), "label": label_of(suite, path),
                         "version": versions.get(path),
                         "records": [_record(t, path, data, cfg.gold, gold, places)
                                     for t in tests]})
    return {"key": suite.key, "name": suite.name, "uri": to_uri(cfg.schema), "runs": runs}


def results(outcome: SuiteOutcome, run_path: Path | None, ids: frozenset[str] | None,
            stale: set[Path], versions: Mapping[Path, int | None], to_uri: ToUri,
            encoding: str) -> list[TestRunResult]:
    """The results of the runs (only ``run_path``'s when given) for the records ``ids``
    (all when None). A run whose file changed during the run is ``stale``: its results
    are of an older text (on a worker thread: it locates every message)."""
    cfg = outcome.suite.config
    gold = outcome.gold
    places = _Places(to_uri, encoding)
    locator = RecordLocator()
    labels = outcome.labels
    out: list[TestRunResult] = []
    for run in outcome.runs:
        if gold is None or (run_path is not None and run.path != run_path):
            continue
        records: list[TestRecordResult] = []
        for t in run_tests(outcome, run):
            if ids is not None and t.id not in ids:
                continue
            messages: list[TestMessage] = []
            for f in failures(t, outcome.findings_of, locator, labels):
                where = t.extracted if f.side == "extracted" else t.gold
                path, file = (run.path, run.data) if f.side == "extracted" else (cfg.gold, gold)
                assert where is not None
                at = places.at(path, file.text, where.start + f.span[0], where.start + f.span[1])
                messages.append({"message": f.message, "field": f.field, "status": f.status,
                                 "uri": at["uri"], "range": at["range"],
                                 "expected": f.expected, "actual": f.actual})
            records.append({"id": t.id, "status": status(t), "messages": messages})
        out.append({"uri": to_uri(run.path), "label": run.label, "version": versions.get(run.path),
                    "stale": bool({run.path, cfg.gold, cfg.schema} & stale),
                    "records": records})
    return out
