"""Running a suite for the editor: tolerant pairing, incremental scoring, cancellation.

Unlike ``evalschema.run.evaluate``, a bad record never stops the run: it becomes an
``InputIssue`` located in its file and the other records are scored. Scores are cached
per (gold text, extracted text) of each record pair for as long as the schema and
options stay the same, so saving a 10,000-record file after one edit re-scores one
record. Runs execute on a worker thread; they read only the texts handed to them
(the editor's unsaved content) or the disk, and write nothing.

What a run keeps is small: each record's counts and its findings packed (``kept``: their
statuses, fields and scores; not its matches, nor values and reasons: re-scoring one record
takes microseconds, so hovers and commands that need more of a record ask
``SuiteOutcome.full`` or ``findings_of``), and one accumulator per block of ``BLOCK``
records and per group of blocks, so a save after an edit re-scores the edited block and
merges its group's blocks, then the groups (O(blocks), not O(records)). A schema with an
LLM judge keeps every result: re-scoring would ask again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import Any, NamedTuple

from evalschema.errors import EvalSchemaError, Problem
from evalschema.io.extracted import NO_RECORD, Read
from evalschema.io.gold import GoldChecker, GoldProblem, json_id
from evalschema.io.jsontext import loads_document
from evalschema.jsontypes import json_type
from evalschema.judge.client import cancellation
from evalschema.results import FieldResult, RecordResult, RunResult
from evalschema.rules.registry import Entry, default_registry
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.evaluate import Evaluator, make_evaluator
from evalschema.run.gcpause import gc_paused
from evalschema.run.pairing import (
    Pair,
    match_ids,
    pairs_by_id,
    pairs_by_position,
)
from evalschema.run.suspects import SuspectGold, find_suspects

from .. import files
from ..fastinit import slot_constructor
from .datafile import DataFile, Head, RecordSlice, SliceParser
from .helper import MIN_RECORDS, Helping, cores
from .kept import Findings, findings_only
from .suites import Suite

#: (done, total) records, called from the worker thread.
Progress = Callable[[int, int], None]


class Cancelled(Exception):
    """The run was cancelled or superseded."""


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    @property
    def event(self) -> threading.Event:
        return self._event

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled


@dataclass(frozen=True, slots=True)
class InputIssue:
    """A problem with the input, at an offset range of a file's text."""

    path: Path
    start: int
    end: int
    code: str
    message: str
    severity: str = "error"


@dataclass(frozen=True, slots=True)
class ScoredRecord:
    """A record's result as the run keeps it, its findings packed, and its slices. With
    ``pair`` set, the result holds no field results (its counts are whole):
    ``SuiteOutcome.full`` scores the pair again for every result, ``findings_of`` for the
    findings ``findings`` packs. Without, the result is whole (an LLM judge's schema)."""

    record: RecordResult
    findings: Findings
    gold: RecordSlice | None
    extracted: RecordSlice | None
    pair: Pair | None = None


@dataclass(frozen=True)
class RunOutcome:
    """One extracted file scored against the suite's gold."""

    path: Path
    label: str
    data: DataFile
    result: RunResult
    scored: tuple[ScoredRecord, ...]
    #: Record slice index -> position in ``scored``, for each side (not to be changed:
    #: the next run's outcome may share them).
    by_extracted: dict[int, int] = field(default_factory=dict)
    by_gold: dict[int, int] = field(default_factory=dict)
    #: Positions in ``scored`` in the extracted file's order, the records missing from the
    #: run last (None: work it out from ``by_extracted``).
    file_order: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Stopped:
    """Why a suite's schema could not be scored at all (it does not read, or its root is
    unusable): the first such problem, and the schema text it is located in."""

    problem: Problem
    schema_text: str


@dataclass(frozen=True)
class SuiteOutcome:
    suite: Suite
    runs: tuple[RunOutcome, ...] = ()
    gold: DataFile | None = None
    schema_text: str | None = None
    evaluator: Evaluator | None = None
    issues: tuple[InputIssue, ...] = ()
    schema_problems: tuple[Problem, ...] = ()
    #: The text of every file the run read, to tell whether results are still current.
    texts: dict[Path, str] = field(default_factory=dict)
    started: float = 0.0
    seconds: float = 0.0
    #: Why these results are no longer current though they are still shown (the schema
    #: stopped parsing since they were computed); None for the results of the last run.
    stale: str | None = None
    #: Set when the schema stopped this run (``schema_problems`` then lists every error;
    #: otherwise it lists the errors tolerated, each scored as its field's ``error``).
    stopped: Stopped | None = None

    def full(self, s: ScoredRecord) -> RecordResult:
        """Every field result of ``s``'s record (matches included): the kept result
        when the run kept it whole, else the pair scored again. The same figures, values
        and reasons as the run's: the same schema and options, bound anew, as a run may
        be using the run's evaluator on the worker thread meanwhile."""
        if s.pair is None or self.schema_text is None:
            return s.record
        scorer = self._rescorer
        pair = whole_pair(s.pair, s.gold, s.extracted)
        with _RESCORE:
            return scorer.score(pair, RunAccumulator(keep_records=False))

    def findings_of(self, s: ScoredRecord) -> tuple[FieldResult, ...]:
        """The results ``s.findings`` packs, whole (values, reasons, pointers), in order."""
        return findings_only(self.full(s).field_results)

    def full_result(self, run: RunOutcome) -> RunResult:
        """``run.result`` with every record's every result (for ``compare_runs``)."""
        return replace(run.result, records=tuple(self.full(s) for s in run.scored))

    @cached_property
    def _rescorer(self) -> Evaluator:
        assert self.schema_text is not None
        return evaluator_of(self.suite, self.schema_text)

    def line_starts(self, path: Path, text: str) -> list[int] | None:
        """The line starts of ``text``, the run's text of ``path``, when the reader of
        its records found them (``DataFile.line_starts``)."""
        files = [r.data for r in self.runs if r.path == path]
        if path == self.suite.config.gold and self.gold is not None:
            files.append(self.gold)
        return next((d.line_starts for d in files if d.text is text), None)

    @property
    def labels(self) -> dict[str, str]:
        """Schema pointer -> how its node judges (``numeric, rel 1%``)."""
        if self.evaluator is None:
            return {}
        return {n.pointer: n.label for n in self.evaluator.root.walk()}

    @cached_property
    def suspects(self) -> tuple[SuspectGold, ...]:
        """The suite's suspect gold (none with fewer than two runs): once per outcome, as
        the gold file's diagnostics and each code-action request there both read it."""
        runs, gold, evaluator = self.runs, self.gold, self.evaluator
        if len(runs) < 2 or gold is None or evaluator is None:
            return ()
        gold_records = gold.records

        def extracted(k: int, rec: Any) -> Any:
            return runs[k].data.records[rec.extracted_index].value

        # A gold value is suspect when two runs' findings agree against it: only a record
        # with two such findings (in any runs) can hold one, and only those are scored
        # again for their values (an invented value is placed by the record's aligned
        # pairs: every result).
        agreeing: dict[int, int] = {}
        for r in runs:
            for s in r.scored:
                c, gi = s.record.counts, s.record.gold_index
                if gi is not None and c.mismatches + c.hallucinations:
                    agreeing[gi] = agreeing.get(gi, 0) + c.mismatches + c.hallucinations

        def kept(s: ScoredRecord) -> RecordResult:
            gi = s.record.gold_index
            return self.full(s) if gi is not None and agreeing.get(gi, 0) >= 2 else s.record

        return find_suspects([[kept(s) for s in r.scored] for r in runs],
                             [r.label for r in runs], evaluator.root,
                             lambda i: gold_records[i].value, extracted,
                             policy=evaluator.policy)

    @property
    def field_pointers(self) -> dict[str, str]:
        """Field path -> schema pointer of its node (an anyOf's, not its branches': they
        share its path and come after it)."""
        if self.evaluator is None:
            return {}
        out: dict[str, str] = {}
        for n in self.evaluator.root.walk():
            if n.path:
                out.setdefault(n.path, n.pointer)
        return out


#: (gold text's key, extracted text's key, problem, repaired) -> the record's result (see
#: ``RecordSlice.key``). Repaired too: an item of a JSON array broken elsewhere is read
#: as repaired with its text unchanged.
_Key = tuple[Any, Any, str | None, Any]


@dataclass
class SuiteCache:
    """What one suite's next run can reuse."""

    fingerprint: tuple[Any, ...] | None = None
    evaluator: Evaluator | None = None
    #: Whether the schema refers to no other file (``self_contained``).
    self_contained: bool = False
    #: Whole results by key (only when results are kept whole: an LLM judge's schema).
    records: dict[_Key, RecordResult] = field(default_factory=dict)
    parsers: dict[Path, SliceParser] = field(default_factory=dict)
    #: Extracted path -> how it was paired last: unchanged files (the same DataFile
    #: objects) pair the same way, and records edited in place keep their pairs.
    pairings: dict[Path, _Pairing] = field(default_factory=dict)
    #: Extracted path -> the last run's blocks, and their sums by group.
    blocks: dict[Path, list[_Block]] = field(default_factory=dict)
    groups: dict[Path, list[_Group]] = field(default_factory=dict)
    #: The texts of the suite's files that are not open, read again when they change.
    disk: files.DiskTexts = field(default_factory=files.DiskTexts)
    #: The last run's texts by path (see ``same_text``).
    texts: dict[Path, str] = field(default_factory=dict)

    def same_text(self, path: Path, text: str) -> str:
        """The last run's text of ``path`` when ``text`` equals it, else ``text``: a file
        read again with the same content (opened in the editor after a run read it from
        disk, saved unchanged, its edits undone) is another string object, and the
        parsed files cached by text would hold the old one beside it (10,000 records:
        20 MB more each time)."""
        old = self.texts.get(path)
        return old if old is not None and old == text else text

    def parser(self, path: Path, id_field: str | None) -> SliceParser:
        """The file's parser, its records' heads keeping ``id_field`` (pairing's key)."""
        keys = (id_field,) if id_field is not None else ()
        got = self.parsers.get(path)
        if got is None or got.keys != keys:
            got = self.parsers[path] = SliceParser(keys)
        return got


#: Records a block holds: a run keeps one accumulator per block (see ``_Block``), and
#: one per ``GROUP`` blocks (``_Group``). A save after a one-record edit re-scores one
#: block (64 records: ~15 ms for 24-field invoices) and merges one group's blocks and
#: then the groups (~25 merges at 10,000 records, against 40 of 256-record blocks).
BLOCK = 64
GROUP = 16

#: Re-scoring for ``SuiteOutcome.full`` is done one record at a time, under this lock
#: (the worker thread may ask too, for suspect gold).
_RESCORE = threading.Lock()


@dataclass(frozen=True, slots=True)
class _Block:
    """``BLOCK`` consecutive pairs of a run: their marks (key and indices), their kept
    results and findings, and their own sums (an accumulator that started empty). A next
    run whose block holds the same marks reuses them; the run's figures are the blocks'
    sums merged in order (counts exact, float sums within rounding of one pass)."""

    marks: list[tuple[_Key, int | None, int | None]]
    records: list[RecordResult]
    findings: list[Findings]
    acc: RunAccumulator
    #: Whether scoring a record failed (its issue is re-raised by scoring it again).
    failed: bool


@dataclass(frozen=True, slots=True)
class _Pairing:
    """How an extracted file was paired with the gold file: the pairs, the issues found,
    and each extracted record's pair (its index -> the pair's position)."""

    gold: DataFile
    data: DataFile
    id_field: str | None
    pairs: list[_Pair]
    issues: list[InputIssue]
    #: Record index -> its pair's position, for each side (``RunOutcome.by_extracted``).
    by_extracted: dict[int, int]
    by_gold: dict[int, int]
    #: The pairs' positions in the extracted file's order (``RunOutcome.file_order``).
    file_order: tuple[int, ...]


def _pairing(gold: DataFile, data: DataFile, id_field: str | None, pairs: list[_Pair],
             issues: list[InputIssue], prev: _Pairing | None = None) -> _Pairing:
    """The pairing of ``pairs``; with ``prev``, a pairing of the same records (edited in
    place) whose positions are ``prev``'s."""
    if prev is not None:
        return _Pairing(gold, data, id_field, pairs, issues, prev.by_extracted,
                        prev.by_gold, prev.file_order)
    by_ext = {p.extracted.index: j for j, p in enumerate(pairs) if p.extracted}
    by_gold = {p.gold.index: j for j, p in enumerate(pairs) if p.gold}
    order = [by_ext[i] for i in sorted(by_ext)]
    order.extend(j for j, p in enumerate(pairs) if p.extracted is None)
    return _Pairing(gold, data, id_field, pairs, issues, by_ext, by_gold, tuple(order))


@dataclass(frozen=True, slots=True)
class _Group:
    """``GROUP`` consecutive blocks and their merged sums, reused while the blocks are
    the same objects (an unchanged block is reused as it is)."""

    blocks: tuple[_Block, ...]
    acc: RunAccumulator


def _groups(blocks: list[_Block], old: list[_Group]) -> list[_Group]:
    """``blocks`` by group, each group's sums merged again only when one of its blocks
    is new. The run's sums are the groups' merged in order: a fixed order for a given
    number of records, whatever was reused (bit-identical to a fresh run's)."""
    out = []
    for g, lo in enumerate(range(0, len(blocks), GROUP)):
        members = tuple(blocks[lo:lo + GROUP])
        prev = old[g] if g < len(old) else None
        if prev is None or len(prev.blocks) != len(members) or any(
                a is not b for a, b in zip(prev.blocks, members, strict=True)):
            acc = RunAccumulator(keep_records=False)
            for block in members:
                acc.update(block.acc)
            prev = _Group(members, acc)
        out.append(prev)
    return out


def _mark(p: _Pair) -> tuple[_Key, int | None, int | None]:
    """What a block's reuse compares: the record's key and the pair's indices (the pair's,
    not its slices': an unreadable record has no slice, and its index moves too)."""
    pair = p.pair
    return p.key, pair.gold_index, pair.extracted_index


@dataclass(frozen=True, slots=True)
class _Pair:
    """The engine's pair (``evalschema.run.pairing``) and the record slices of its sides
    (None for a side that has no record or cannot be read)."""

    pair: Pair
    gold: RecordSlice | None
    extracted: RecordSlice | None

    @property
    def key(self) -> _Key:
        pair = self.pair
        return (self.gold.key if self.gold else None,
                self.extracted.key if self.extracted else None, pair.problem, pair.repaired)


#: ``_Pair(...)`` and ``ScoredRecord(...)``, made for every record on every save (``fastinit``).
_new_pair = slot_constructor(_Pair)
_new_scored = slot_constructor(ScoredRecord)


def read_text(path: Path, texts: dict[Path, str], disk: files.DiskTexts | None = None) -> str:
    """The editor's text for an open file, else the disk's (``OSError`` when unreadable:
    not a regular file, over the size limit, not UTF-8; see ``files``), through ``disk``
    when given (read again only when the file changed)."""
    got = texts.get(path)
    if got is not None:
        return got
    return files.read_text(path) if disk is None else disk.read(path)


def text_or_none(path: Path, texts: dict[Path, str]) -> str | None:
    """``read_text``, with None for a file that cannot be read."""
    try:
        return read_text(path, texts)
    except OSError:
        return None


def run_suite(suite: Suite, open_texts: dict[Path, str], cache: SuiteCache, token: CancelToken,
              progress: Progress | None = None, generation: int = 0, *,
              helper: bool = True) -> SuiteOutcome:
    """Score every extracted file of ``suite``; raises ``Cancelled`` when cancelled.

    The cyclic collector is paused throughout: a run allocates tens of thousands of
    objects next to the previous run's cached results, and each collection would
    re-scan all of them (results hold no cycles; reference counting frees them). What
    the run made is then frozen (``gc_paused(freeze=True)``): left young, the first
    allocation after the pause would scan it all (~30 ms a save at 10,000 records).

    With ``helper``, a run that scores ``MIN_RECORDS`` records or more shares them with a
    helper process (``helper``), when the schema uses only built-in rules and no comparator
    module is loaded (``shareable``): the same outcome, on two cores.
    """
    # Cancel also stops judge requests; the helper, if one starts, stops at the end.
    helping: Helping[list[_Scored]] = Helping(enabled=helper)
    with gc_paused(freeze=True), cancellation(token.event), helping:
        outcome = _run_suite(suite, open_texts, cache, token, progress, generation, helping)
    cache.texts = dict(outcome.texts)
    cache.disk.keep(p for p in outcome.texts if p not in open_texts)
    return outcome


def _run_suite(suite: Suite, open_texts: dict[Path, str], cache: SuiteCache,
               token: CancelToken, progress: Progress | None, generation: int,
               helping: Helping[list[_Scored]]) -> SuiteOutcome:
    t0 = time.perf_counter()
    started = time.time()
    cfg = suite.config
    issues: list[InputIssue] = []
    texts: dict[Path, str] = {}

    def load(path: Path) -> str | None:
        try:
            text = cache.same_text(path, read_text(path, open_texts, cache.disk))
        except OSError as exc:
            reason = exc.strerror or str(exc)
            issues.append(InputIssue(path, 0, 0, "unreadable-file", f"cannot read {path.name}: "
                                     f"{reason}"))
            return None
        texts[path] = text
        return text

    schema_text = load(cfg.schema)
    if schema_text is None:
        return SuiteOutcome(suite, issues=tuple(issues), texts=texts, started=started)
    fingerprint = (schema_text, cfg.id_field, cfg.null_policy, cfg.fields, cfg.target,
                   generation)
    if cache.fingerprint != fingerprint:
        cache.fingerprint, cache.evaluator, cache.records = fingerprint, None, {}
        cache.blocks, cache.groups = {}, {}
        try:
            schema = read_schema(suite, schema_text)
            cache.evaluator = bind(Binding.of(suite, schema_text), schema)
            cache.self_contained = self_contained(schema)
        except EvalSchemaError as exc:
            cache.fingerprint = None
            return SuiteOutcome(suite, schema_text=schema_text, issues=tuple(issues),
                                schema_problems=exc.problems, texts=texts, started=started,
                                stopped=_stopped(exc, schema_text))
    evaluator = cache.evaluator
    assert evaluator is not None
    tolerated = evaluator.tolerated
    gold_text = load(cfg.gold)
    if gold_text is None:
        return SuiteOutcome(suite, schema_text=schema_text, evaluator=evaluator,
                            issues=tuple(issues), schema_problems=tolerated, texts=texts,
                            started=started)
    whole = keeps_whole(evaluator)
    helps = helping.enabled and not whole and cache.self_contained \
        and shareable(generation) and cores() > 1
    if helps and not cache.blocks and gold_text.count("\n") >= MIN_RECORDS:
        helping.start()  # every record is scored: the helper starts while the files are read
    gold = cache.parser(cfg.gold, evaluator.id_field).read(str(cfg.gold), gold_text,
                                                         strict=True)
    issues.extend(_file_issues(cfg.gold, gold))
    if not any(g.head is not NO_RECORD for g in gold.records):
        # One located error, not a warning on every record of every run.
        issues.extend(_empty_gold(suite, gold, load))
        return SuiteOutcome(suite, gold=gold, schema_text=schema_text, evaluator=evaluator,
                            issues=tuple(issues), schema_problems=tolerated, texts=texts,
                            started=started)
    #: (path, its records, their pairing, the pairs' positions whose records may have
    #: changed since the last run: None when not known, and every block is compared).
    #: A pairing goes into the cache only with the blocks scored for it.
    plans: list[tuple[Path, DataFile, _Pairing, set[int] | None]] = []
    gold_pairs_checked = False
    id_field = evaluator.id_field
    for path in cfg.extracted:
        text = load(path)
        if text is None:
            continue
        data = cache.parser(path, id_field).read(str(path), text, strict=False)
        issues.extend(_file_issues(path, data))
        report_gold = not gold_pairs_checked
        gold_pairs_checked = True
        prev = cache.pairings.get(path)
        dirty: set[int] | None = None
        if prev is not None and prev.gold is gold and prev.data is data \
                and prev.id_field == id_field:
            paired, dirty = prev, set()
        elif prev is not None and prev.gold is gold and prev.id_field == id_field \
                and same_reads(prev.data, data) \
                and (moved := moved_issues(prev.issues, path, prev.data, data)) is not None:
            # Records edited in place (the same ids, read alike): the same pairs and
            # issues, on the new text's slices.
            records = data.records
            pairs = [_new_pair(p.pair, p.gold, records[p.extracted.index] if p.extracted
                               else None) for p in prev.pairs]
            paired = _pairing(gold, data, id_field, pairs, moved, prev)
            edit = data.edit
            if edit is not None and edit.since == prev.data.serial:
                at = prev.by_extracted
                dirty = {at[i] for i in range(edit.lo, edit.new_end) if i in at}
        else:
            found: list[InputIssue] = []
            pairs = pair_records(gold, data, id_field, found, path)
            paired = _pairing(gold, data, id_field, pairs, found)
        issues.extend(i for i in paired.issues if report_gold or i.path != cfg.gold)
        plans.append((path, data, paired, dirty))
    total = sum(len(p[2].pairs) for p in plans)
    done = 0
    runs: list[RunOutcome] = []
    used: dict[_Key, RecordResult] = {}
    last_report = 0.0
    binding = Binding.of(suite, schema_text)
    for path, data, paired, dirty in plans:
        pairs = paired.pairs
        old_blocks = cache.blocks.get(path, [])
        blocks: list[_Block] = []
        acc = RunAccumulator(keep_records=False)
        scored: list[ScoredRecord] = []
        changed = None if dirty is None else {at // BLOCK for at in dirty}
        chunks = [pairs[lo:lo + BLOCK] for lo in range(0, len(pairs), BLOCK)]
        #: Per block: its marks, and its old block when that can be reused as it is.
        marked: list[tuple[list[tuple[_Key, int | None, int | None]], _Block | None]] = []
        for b, chunk in enumerate(chunks):
            old = old_blocks[b] if b < len(old_blocks) else None
            if changed is not None and b not in changed and old is not None \
                    and not old.failed and len(old.marks) == len(chunk):
                marks = old.marks  # none of its records changed: its marks are the same
            else:
                marks = [_mark(p) for p in chunk]
            marked.append((marks, old if old is not None and not old.failed
                           and old.marks == marks else None))
        todo = [b for b, (_, old) in enumerate(marked) if old is None]
        if len(todo) * BLOCK >= MIN_RECORDS and helps:
            helping.start()
        helper = helping.helper
        tasks = {t[0]: t for t in (todo[k:k + TASK_BLOCKS]
                                   for k in range(0, len(todo), TASK_BLOCKS))}
        if helper is not None:
            helper.share(_score_elsewhere, partial(_task, binding, path, cfg.gold, chunks,
                                                   tasks), list(tasks))
        ready: dict[int, _Scored] = {}
        for b, chunk in enumerate(chunks):
            marks, block_or_none = marked[b]
            if block_or_none is not None:
                block = block_or_none
                if whole:
                    for m, rec in zip(marks, block.records, strict=True):
                        used[m[0]] = rec
            else:
                token.check()
                now = time.perf_counter()
                if progress is not None and now - last_report > 0.1:
                    last_report = now
                    progress(done, total)
                if helper is not None and b in tasks \
                        and (got := helper.take(b, token.check)) is not None:
                    ready.update(zip(tasks[b], got, strict=True))
                elsewhere = ready.pop(b, None)
                if elsewhere is not None:
                    issues.extend(elsewhere.issues)
                    block = elsewhere.block(marks)
                else:
                    block = _score_block(evaluator, chunk, marks,
                                         cache.records if whole else None, used, issues,
                                         path, cfg.gold, token.check)
            done += len(chunk)
            blocks.append(block)
            acc.records.extend(block.records)
            scored.extend(_new_scored(rec, found, p.gold, p.extracted,
                                      None if whole else p.pair)
                          for rec, found, p in zip(block.records, block.findings, chunk,
                                                   strict=True))
        groups = _groups(blocks, cache.groups.get(path, []))
        # Together, once the file is scored: a run cancelled before would otherwise leave
        # a pairing that says "nothing changed" beside the blocks of an older gold, and
        # the next run would show their figures as current.
        cache.pairings[path], cache.blocks[path], cache.groups[path] = paired, blocks, groups
        for group in groups:
            acc.update(group.acc)
        runs.append(RunOutcome(path, label_of(suite, path), data, acc.result(),
                               tuple(scored), paired.by_extracted, paired.by_gold,
                               paired.file_order))
    token.check()
    cache.records = used
    if progress is not None:
        progress(total, total)
    return SuiteOutcome(suite, tuple(runs), gold, schema_text, evaluator, tuple(issues),
                        tolerated, texts, started, time.perf_counter() - t0)


def _score_block(evaluator: Evaluator, chunk: list[_Pair],
                 marks: list[tuple[_Key, int | None, int | None]],
                 records: dict[_Key, RecordResult] | None, used: dict[_Key, RecordResult],
                 issues: list[InputIssue], path: Path, gold_path: Path,
                 after_each: Callable[[], None]) -> _Block:
    """``chunk``'s records scored into a block of their own. With ``records`` (results
    kept whole), those already scored for the same key are reused, and every result is
    recorded in ``used``."""
    acc = RunAccumulator(keep_records=False)
    kept: list[RecordResult] = []
    packed: list[Findings] = []
    failed = False
    for p in chunk:
        before = len(issues)
        p = _whole(p)
        rec = _score(evaluator, p, acc, records if records is not None else {},
                     used if records is not None else {}, issues,
                     path if p.extracted else gold_path)
        after_each()  # a judge cut short by the cancel must not leave its result
        failed = failed or len(issues) != before
        packed.append(Findings.of(rec.field_results))
        kept.append(rec if records is not None else _counts_only(rec))
    return _Block(marks, kept, packed, acc, failed)


#: Blocks in a task of the run's helper (``helper``): the longest the run's thread waits
#: on reaching a task the helper is doing (4 blocks of 24-field invoices: ~0.1 s).
TASK_BLOCKS = 4


@dataclass(frozen=True, slots=True)
class _Scored:
    """A block scored by the helper, and the issues scoring it found."""

    records: list[RecordResult]
    findings: list[Findings]
    acc: RunAccumulator
    failed: bool
    issues: list[InputIssue]

    def block(self, marks: list[tuple[_Key, int | None, int | None]]) -> _Block:
        return _Block(marks, self.records, self.findings, self.acc, self.failed)


class Binding(NamedTuple):
    """What binds a suite's schema (``bind``): its text and the suite's options; what a
    helper process is given."""

    schema_text: str
    schema_path: str
    id_field: str | None
    null_policy: str | None
    fields: tuple[str, ...]
    target: str | None

    @classmethod
    def of(cls, suite: Suite, schema_text: str) -> Binding:
        cfg = suite.config
        return cls(schema_text, str(cfg.schema), cfg.id_field, cfg.null_policy,
                   tuple(cfg.fields), cfg.target)


#: The helper process's last binding and its evaluator.
_bound: tuple[Binding, Evaluator] | None = None


def _score_elsewhere(binding: Binding, path: Path, gold_path: Path,
                     chunks: list[list[_Pair]]) -> list[_Scored]:
    """A helper's task: ``chunks`` scored as the run's thread scores them, each into a
    block of its own (its sums its own, merged in order by the run: the same figures)."""
    global _bound
    if _bound is None or _bound[0] != binding:
        _bound = (binding, bind(binding))
    evaluator = _bound[1]
    out = []
    for chunk in chunks:
        issues: list[InputIssue] = []
        b = _score_block(evaluator, chunk, [], None, {}, issues, path, gold_path, _nothing)
        out.append(_Scored(b.records, b.findings, b.acc, b.failed, issues))
    return out


def _task(binding: Binding, path: Path, gold_path: Path, chunks: list[list[_Pair]],
          tasks: dict[int, list[int]], first: int) -> tuple[Any, ...]:
    """The arguments of ``_score_elsewhere`` for the task of blocks ``tasks[first]``."""
    return binding, path, gold_path, [[_portable(p) for p in chunks[b]] for b in tasks[first]]


def _nothing() -> None:
    pass


def _portable(p: _Pair) -> _Pair:
    """``p`` with slices that hold their own text, not their file's (which pickling a
    slice would copy whole, once a task)."""
    return _Pair(p.pair, _own(p.gold), _own(p.extracted))


def _own(s: RecordSlice | None) -> RecordSlice | None:
    return s if s is None or s.length < 0 else replace(s, source=s.text, length=-1)


def self_contained(schema: Any) -> bool:
    """Whether the schema's every ``$ref`` points into itself: a helper binds the schema
    again, and would read a file it refers to again, perhaps changed since this process
    read it."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if ref is not None and not (isinstance(ref, str) and ref.startswith("#")):
                return False
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return True


def shareable(generation: int) -> bool:
    """Whether a helper process scores as this one does: no comparator module was loaded
    into this one (``generation`` counts loads; a helper imports none of them), so
    every rule is the built-in one, unchanged."""
    reg = default_registry
    return generation == 0 and all(e.builtin for table in (
        reg.comparators, reg.transforms, reg.strategies) for e in table.values())


def keeps_whole(evaluator: Evaluator) -> bool:
    """Whether a run keeps every result of its records: when the schema uses an LLM
    judge (a batch comparator: re-scoring would ask again) or anything that is not built
    in (a custom comparator, transform or strategy may be slow), so that a record is
    only ever scored once per text, as before."""
    reg = default_registry
    for n in evaluator.root.walk():
        if n.batch is not None or (n.comparator is not None and not _builtin(
                reg.comparators, n.comparator)):
            return True
        if any(not _builtin(reg.transforms, name) for name, _ in n.transforms):
            return True
        if n.align is not None and not _builtin(reg.strategies, n.align.strategy):
            return True
    return False


def _builtin(table: Mapping[str, Entry], name: str) -> bool:
    got = table.get(name)
    return got is not None and got.builtin


def _counts_only(rec: RecordResult) -> RecordResult:
    """``rec`` without its field results (``SuiteOutcome.full`` brings them back, the
    record's ``Findings`` say what its findings are): with the values they hold, they
    were most of what a run kept."""
    return rec._replace(field_results=()) if rec.field_results else rec


def whole_pair(pair: Pair, gold: RecordSlice | None, extracted: RecordSlice | None) -> Pair:
    """``pair`` (paired on the records' heads, see ``datafile.Head``) with the records'
    whole values, parsed again (a side with no slice kept as paired)."""
    return pair._replace(gold=pair.gold if gold is None else gold.value,
                         extracted=pair.extracted if extracted is None else extracted.value)


def _whole(p: _Pair) -> _Pair:
    return _Pair(whole_pair(p.pair, p.gold, p.extracted), p.gold, p.extracted)


def _stopped(exc: EvalSchemaError, schema_text: str) -> Stopped:
    """The first error that stopped the run: a syntax error, or the first no field owns
    (``parse_partial`` lists those first)."""
    return Stopped(exc.problems[0], schema_text)


def label_of(suite: Suite, path: Path) -> str:
    name = path.name
    stem = suite.config.schema.name.split(".eval.")[0] + "."
    for suffix in (".extracted.jsonl", ".extracted.json", ".jsonl", ".json", ".ndjson"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return name[len(stem):] if name.startswith(stem) and len(name) > len(stem) else name


def evaluator_of(suite: Suite, schema_text: str) -> Evaluator:
    """The suite's schema bound as ``evalschema eval --allow-schema-errors`` binds it: read
    by the engine's reader (JSONC), a field with errors scored ``error``, the rest as
    usual; ``EvalSchemaError`` only when the schema does not read or its root is unusable."""
    return bind(Binding.of(suite, schema_text))


def read_schema(suite: Suite, schema_text: str) -> Any:
    """The suite's schema document, read as ``evaluator_of`` reads it."""
    return loads_document(schema_text, str(suite.config.schema), "the schema", jsonc=True)


def bind(b: Binding, schema: Any = None) -> Evaluator:
    """``evaluator_of``, from a ``Binding`` (and its schema, when already read)."""
    if schema is None:
        schema = loads_document(b.schema_text, b.schema_path, "the schema", jsonc=True)
    return make_evaluator(schema, id_field=b.id_field, null_policy=b.null_policy,
                          fields=list(b.fields) or None, target=b.target,
                          base_uri=b.schema_path, allow_schema_errors=True)


def _empty_gold(suite: Suite, gold: DataFile, load: Callable[[Path], str | None]
                ) -> list[InputIssue]:
    """A gold file with no record to score against: one error at its top, and one note at
    the top of each run (its records are not scored)."""
    cfg = suite.config
    bad = [g for g in gold.records if g.head is NO_RECORD]
    if bad:
        first = bad[0]
        line = gold.text.count("\n", 0, first.start) + 1
        what = (f"the gold file has 0 readable records: {len(bad):,} cannot be read (the "
                f"first, line {line}: {first.problem}); fix it or point the suite at "
                "another gold file")
    else:
        what = ("the gold file has 0 records: there is nothing to score the runs against; "
                "add one JSON object per line (JSONL) or a JSON array of objects")
    out = [InputIssue(cfg.gold, 0, 0, "gold-empty", what)]
    for path in cfg.extracted:
        if load(path) is not None:
            out.append(InputIssue(path, 0, 0, "gold-empty", f"not scored: the gold file "
                                  f"{cfg.gold.name} has 0 records", "warning"))
    return out


def _file_issues(path: Path, data: DataFile) -> list[InputIssue]:
    return [InputIssue(path, i.start, i.end, i.code, i.message) for i in data.issues]


def moved_issues(issues: list[InputIssue], path: Path, old: DataFile, new: DataFile
                 ) -> list[InputIssue] | None:
    """The pairing issues of ``path``'s records in ``old`` (each spans its record) on the
    same records of ``new``, a read of the file alike (``same_reads``) whose texts may
    have moved; None when one does not span a record (the file is paired again)."""
    out = []
    for issue in issues:
        if issue.path == path:
            rec = old.record_at(issue.start)
            if rec is None or (rec.start, rec.end) != (issue.start, issue.end):
                return None
            now = new.records[rec.index]
            issue = replace(issue, start=now.start, end=now.end)
        out.append(issue)
    return out


def same_reads(a: DataFile, b: DataFile) -> bool:
    """Whether two reads of a file pair alike: as many records, each with the same head
    (pairing's id, of the same JSON type), repaired flag and problem. When ``b`` is ``a``
    read again from where it changed (``DataFile.edit``), only the changed records are
    compared: the others are the same reads."""
    if len(a.records) != len(b.records):
        return False
    pairs: Any = zip(a.records, b.records, strict=True)
    edit = b.edit
    if edit is not None and edit.since == a.serial:
        if edit.old_end != edit.new_end:
            return False
        pairs = zip(a.records[edit.lo:edit.new_end], b.records[edit.lo:edit.new_end],
                    strict=True)
    for x, y in pairs:
        hx, hy = x.head, y.head
        if x.repaired != y.repaired or x.problem != y.problem or type(hx) is not type(hy) \
                or hx != hy:
            return False
        if type(hx) is Head and any(type(v) is not type(hy[k]) for k, v in hx.items()):
            return False
    return True


def pair_records(gold: DataFile, ext: DataFile, id_field: str | None,
                 issues: list[InputIssue], ext_path: Path) -> list[_Pair]:
    """Pair records as the engine pairs them (the same gold checks, numbering and codes),
    except that a bad record never stops the run: it becomes an issue, located where it
    is, and the other records are paired."""
    gold_path = Path(gold.path)

    def issue(path: Path, s: RecordSlice, code: str, message: str, severity: str = "error"
              ) -> None:
        issues.append(InputIssue(path, s.start, s.end, code, message, severity))

    for s in ext.records:
        if s.head is NO_RECORD:
            issue(ext_path, s, "unreadable-record", f"record {s.index + 1} cannot be read: "
                  f"{s.problem}; it is not scored")
    check = GoldChecker(id_field)
    gold_values: list[Any] = []
    for g in gold.records:
        value = g.head
        if value is NO_RECORD:
            issue(gold_path, g, "unreadable-record", f"gold record {g.index + 1} cannot be "
                  f"read: {g.problem}; it is not scored")
        elif (refused := check.check(value, g.index)) is not None:
            issue(gold_path, g, refused.code, _refused_message(refused, value, id_field))
            value = NO_RECORD  # left out of the pairing, where the engine would stop
        gold_values.append(value)
    records = ext.records
    read: list[Read] = [(e.head, e.repaired, e.problem) for e in records]
    if id_field is None:
        pairs = pairs_by_position(gold_values, read)
    else:
        m = match_ids([v[id_field] for v in gold_values if v is not NO_RECORD],
                      [(e.head, e.problem) for e in records], id_field)
        for j, code, _ in m.extra:
            e = records[j]
            if code == "missing-id":
                issue(ext_path, e, code, f"record {j + 1} has no usable {id_field!r}: it "
                      "cannot be paired, so its fields count as hallucinations", "warning")
            elif code == "duplicate-id":
                rid = e.head.get(id_field)
                issue(ext_path, e, code, f"id {rid!r} appears again (first in record "
                      f"{m.first[rid] + 1}): this record counts as hallucinated", "warning")
        pairs = pairs_by_id(gold_values, read, id_field, m)
    return [_Pair(p, _side(gold.records, p.gold_index, p.gold),
                  _side(records, p.extracted_index, p.extracted)) for p in pairs]


def _side(records: tuple[RecordSlice, ...], index: int | None, value: Any) -> RecordSlice | None:
    """The slice of a pair's side; None when it has no record or it cannot be read."""
    return None if index is None or value is NO_RECORD else records[index]


def _refused_message(refused: GoldProblem, value: Any, id_field: str | None) -> str:
    """The editor's words for a gold record the engine's checks refuse."""
    n = refused.index + 1
    if refused.code == "gold-not-object":
        return f"gold record {n} is {json_type(value)}, not an object; it is not scored"
    if refused.code == "gold-missing-id":
        return f"gold record {n} has no usable {id_field!r}; it is not scored"
    return (f"gold id {json_id(refused.record_id)} appears again (first in record "
            f"{refused.first + 1}); this record is not scored")


def _score(evaluator: Evaluator, p: _Pair, acc: RunAccumulator,
           cache: dict[_Key, RecordResult], used: dict[_Key, RecordResult],
           issues: list[InputIssue], path: Path) -> RecordResult:
    pair = p.pair
    number, gi, ei = pair.number, pair.gold_index, pair.extracted_index
    key = p.key
    rec = cache.get(key) or used.get(key)
    if rec is not None:
        if rec.index != number or rec.gold_index != gi or rec.extracted_index != ei:
            rec = rec._replace(index=number, gold_index=gi, extracted_index=ei,
                               field_results=tuple(f._replace(record_index=number)
                                                   for f in rec.field_results))
        counted = pair.gold is not NO_RECORD or pair.extracted is not NO_RECORD
        if counted:
            acc.tally(rec.field_results)
        acc.add(rec, counted=counted)
        used[key] = rec
        return rec
    try:
        rec = evaluator.score(pair, acc)
    except Exception as exc:  # a custom comparator's bug must not stop the run
        where = p.extracted or p.gold
        if where is not None:
            issues.append(InputIssue(path, where.start, where.end, "scoring-failed",
                                     f"scoring this record failed: {type(exc).__name__}: {exc}"))
        rec = RecordResult(number, pair.record_id, (), acc.tally(()), gi, ei, False,
                           f"scoring failed: {exc}")
        acc.add(rec, counted=False)
        return rec
    used[key] = rec
    return rec
