"""Scoring a suite at scale: record pairs in fixed-size chunks, in this process or in
worker processes, with identical results either way.

Pairs stream from ``iter_pairs`` (files are never held whole). Each chunk is scored
into its own ``RunAccumulator`` and the chunks are folded in order, so the sums are
added in the same order whatever the number of workers: ``workers=1`` and
``workers=4`` give the same ``to_dict()``, to the last bit. Workers start by ``fork``
where that is safe, else by ``spawn`` (``start_method``); either way each re-parses the
schema from its JSON and imports the custom comparator modules, so nothing unpicklable
crosses a process boundary.

Alongside the run, a ``Digest`` keeps what a report needs and a streamed run drops:
the N worst records with their gold and extracted values, the number of repaired
records, and the first record problems.
"""

from __future__ import annotations

import bisect
import multiprocessing
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from evalschema.errors import InputError, Problem
from evalschema.io.extracted import NO_RECORD
from evalschema.io.extracted_index import ScanPart, scan_range
from evalschema.io.lenient import TRUNCATED
from evalschema.io.records import RecordsLike
from evalschema.judge.cache import open_cache
from evalschema.judge.settings import JudgeSettings, configured_judges, current_judges, for_tasks
from evalschema.results import RecordResult, RunResult, record_label
from evalschema.rules.custom_modules import load_entries
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.evaluate import Evaluator, chunked, make_evaluator
from evalschema.run.pairing import Pair, iter_pairs

#: Records per chunk. Fixed (never derived from the worker count) so that results do
#: not depend on how many workers scored them.
CHUNK_SIZE = 1024
#: Worst records a digest keeps by default.
WORST = 20
#: Record problems a digest lists by default (all are counted).
PROBLEMS = 20


class WorkerError(RuntimeError):
    """A worker process stopped without finishing its chunk (killed, out of memory, or
    started from a script without an ``if __name__ == "__main__":`` guard)."""


def import_modules(modules: Sequence[str]) -> None:
    """Import modules that register custom comparators/transforms: dotted names from the
    installed environment, absolute paths by file (see ``custom_modules``); no folder is put
    on ``sys.path``. A module that fails to import is an ``InputError``."""
    _, failed = load_entries(modules, None)
    if failed:
        raise InputError([Problem(
            "module-import-failed", f"cannot import comparator module {name!r}: "
            f"{type(exc).__name__}: {exc}",
            suggestion="a dotted name must be importable from the installed environment; "
            "a module of your own is named by the path of its .py file")
            for _, name, exc in failed], "a comparator module could not be imported")


@contextmanager
def safe_path_children() -> Iterator[None]:
    """Spawned workers start as ``python -c ...``, which puts the current folder first on
    ``sys.path`` before they import ``multiprocessing``: a ``multiprocessing/`` planted in
    the folder a run starts from would run in every worker. PYTHONSAFEPATH (Python 3.11+,
    like ``-P``) keeps it off while the workers start."""
    before = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = before


@dataclass(frozen=True)
class EvalSpec:
    """Everything needed to build the evaluator again in another process."""

    schema: Any
    base_uri: str | None = None
    id_field: str | None = None
    fields: tuple[str, ...] = ()
    target: str | None = None
    null_policy: str | None = None
    #: Modules to import first (they register custom comparators): dotted names, or
    #: absolute paths of files or package folders.
    modules: tuple[str, ...] = ()
    #: Score a schema with errors, each field that has one an error (``make_evaluator``).
    allow_schema_errors: bool = False
    #: The judge settings the process was configured with when the spec was made
    #: (``configure_judges``), so worker processes bind the same profiles.
    judges: JudgeSettings | None = field(default_factory=configured_judges)
    #: Tasks that judge at once, each building its own evaluator from this spec (worker
    #: processes, Ray or Spark tasks): each gets its share of the judge's concurrency
    #: limit (``judge.settings.for_tasks``), so the limit holds for the whole run.
    judge_tasks: int = 1

    def evaluator(self) -> Evaluator:
        import_modules(self.modules)
        judges = self.judges
        if self.judge_tasks > 1:
            judges = for_tasks(judges or current_judges(), self.judge_tasks)
        return make_evaluator(self.schema, id_field=self.id_field,
                              fields=list(self.fields) or None, target=self.target,
                              null_policy=self.null_policy, base_uri=self.base_uri,
                              judges=judges,
                              allow_schema_errors=self.allow_schema_errors)

    def for_tasks(self, tasks: int) -> EvalSpec:
        """This spec for one of ``tasks`` tasks running at once (``judge_tasks``), with
        the judge settings read here, so every task binds the same ones. When the verdict
        cache cannot be used here, it is a warning here and the tasks go without it."""
        judges = self.judges or current_judges()
        if judges.cache.enabled and open_cache(judges.cache) is None:
            judges = replace(judges, cache=replace(judges.cache, enabled=False))
        return replace(self, judges=judges, judge_tasks=tasks)


@dataclass(frozen=True, slots=True)
class WorstRecord:
    """A badly scored record with the gold and extracted records it came from
    (``None`` for a side that had no record)."""

    record: RecordResult
    gold: Any
    extracted: Any

    def to_dict(self) -> dict[str, Any]:
        return {**self.record.to_dict(), "gold": self.gold, "extracted_record": self.extracted}


@dataclass(frozen=True, slots=True)
class RecordProblem:
    """A record that could not be read or paired."""

    index: int
    record_id: Any
    problem: str
    name: str | None = None

    @property
    def label(self) -> str:
        return record_label(self.record_id, self.name, self.index)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "record_id": self.record_id, "name": self.name,
                "label": self.label, "problem": self.problem}


def _errors(rec: RecordResult) -> int:
    c = rec.counts
    return c.mismatches + c.omissions + c.hallucinations + c.errors


def worst_key(rec: RecordResult) -> tuple[float, int, int]:
    """Worst first: lowest F1, then most wrong fields, then record order; a record with
    nothing judged (F1 undefined) comes after every judged one."""
    f1 = rec.f1
    return (2.0 if f1 is None else f1, -_errors(rec), rec.index)


@dataclass
class Digest:
    """Mergeable side information of a run that a report shows."""

    keep: int = WORST
    keep_problems: int = PROBLEMS
    worst: list[WorstRecord] = field(default_factory=list)
    #: Extracted records that could not be read (up to ``keep``, in run order), with the
    #: gold they were paired with, if any: reports list them beside the worst.
    unreadable: list[WorstRecord] = field(default_factory=list)
    repaired: int = 0
    problems: list[RecordProblem] = field(default_factory=list)
    n_problems: int = 0
    #: Of the repaired records, those cut short (``io.lenient.TRUNCATED``).
    truncated: int = 0

    def add(self, rec: RecordResult, gold: Any, extracted: Any) -> None:
        if rec.repaired:
            self.repaired += 1
            if rec.repaired == TRUNCATED:
                self.truncated += 1
        if rec.problem:
            self.n_problems += 1
            _keep_first(self.problems, RecordProblem(rec.index, rec.record_id, rec.problem,
                                                     rec.name), self.keep_problems, _problem_key)
        if extracted is NO_RECORD and rec.problem and rec.extracted_index is not None:
            _keep_first(self.unreadable, WorstRecord(rec, None if gold is NO_RECORD else gold,
                                                     None), self.keep, _place_key)
            return
        # Worst records are paired ones: a record missing on one side is listed as a
        # record problem, and its side-by-side view would be one empty column.
        if (self.keep <= 0 or gold is NO_RECORD or extracted is NO_RECORD
                or not rec.field_results or not _errors(rec)):
            return
        _keep_first(self.worst, WorstRecord(rec, gold, extracted), self.keep, _worst_key)

    def update(self, other: Digest) -> None:
        """Fold ``other`` in: the kept lists are the first under total orders (record
        place breaks every tie), so any merge order keeps the same ones."""
        self.repaired += other.repaired
        self.truncated += other.truncated
        self.n_problems += other.n_problems
        self.problems = sorted([*self.problems, *other.problems],
                               key=_problem_key)[:self.keep_problems]
        self.worst = sorted([*self.worst, *other.worst], key=_worst_key)[:self.keep]
        self.unreadable = sorted([*self.unreadable, *other.unreadable],
                                 key=_place_key)[:self.keep]


def _place(rec: RecordResult) -> tuple[int, int, int]:
    """A record's place in its run, unique: its number, then its gold and extracted indexes."""
    return (rec.index, -1 if rec.gold_index is None else rec.gold_index,
            -1 if rec.extracted_index is None else rec.extracted_index)


def _worst_key(w: WorstRecord) -> tuple[float, int, tuple[int, int, int]]:
    f1, wrong, _ = worst_key(w.record)
    return (f1, wrong, _place(w.record))


def _place_key(w: WorstRecord) -> tuple[int, int, int]:
    return _place(w.record)


def _problem_key(p: RecordProblem) -> tuple[int, str]:
    return (p.index, p.problem)


def _keep_first(kept: list[Any], item: Any, keep: int, key: Callable[[Any], Any]) -> None:
    """Insert ``item`` into ``kept`` (sorted by ``key``), holding its first ``keep``: the
    same ones whatever order the items come in."""
    if keep <= 0 or (len(kept) >= keep and key(item) >= key(kept[-1])):
        return
    bisect.insort(kept, item, key=key)
    del kept[keep:]


@dataclass(frozen=True)
class EvalOutcome:
    """A run and its digest, with how long it took and on how many workers."""

    run: RunResult
    digest: Digest
    seconds: float
    workers: int


def score_chunk(evaluator: Evaluator, pairs: Iterable[Pair], keep_records: bool,
                worst: int, keep_problems: int = PROBLEMS) -> tuple[RunAccumulator, Digest]:
    acc = RunAccumulator(keep_records=keep_records)
    digest = Digest(worst, keep_problems)
    for pair, rec in evaluator.score_pairs(pairs, acc):
        digest.add(rec, pair.gold, pair.extracted)
    return acc, digest


_worker_evaluator: Evaluator | None = None


def _init_worker(spec: EvalSpec) -> None:
    global _worker_evaluator
    _worker_evaluator = spec.evaluator()


def _score_in_worker(pairs: list[Pair], keep_records: bool, worst: int,
                     keep_problems: int) -> tuple[RunAccumulator, Digest]:
    assert _worker_evaluator is not None
    return score_chunk(_worker_evaluator, pairs, keep_records, worst, keep_problems)


def _warm() -> None:
    """Nothing: submitted once per worker so processes start (and import) early."""


def start_method(requested: str | None = None) -> str:
    """How worker processes start: ``fork`` on Linux when this process runs no other
    thread (instant: workers inherit the imported engine), else ``spawn`` (each worker
    imports the engine; safe everywhere and with threads). Workers re-parse the schema
    and import the comparator modules either way, so results never depend on it."""
    if requested is not None:
        return requested
    if sys.platform.startswith("linux") and threading.active_count() == 1 \
            and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "spawn"


def evaluate_files(spec: EvalSpec, gold: RecordsLike, extracted: RecordsLike, *,
                   workers: int = 1, keep_records: bool = False, worst: int = WORST,
                   keep_problems: int = PROBLEMS, chunk_size: int = CHUNK_SIZE,
                   progress: Callable[[int], None] | None = None,
                   start: str | None = None) -> EvalOutcome:
    """Score a suite in chunks, streaming the files, on ``workers`` processes.

    ``progress(records_done)`` is called after each chunk. The schema is checked in
    this process first, so a broken schema or comparator module raises here, located,
    before any worker starts. Results do not depend on ``workers``. ``start`` is the
    worker start method (see ``start_method``).
    """
    if workers < 1:
        raise InputError([Problem("bad-option", f"workers must be at least 1, not {workers}")])
    started = time.perf_counter()
    evaluator = spec.evaluator()
    acc = RunAccumulator(keep_records=keep_records)
    digest = Digest(worst, keep_problems)
    done = 0

    def absorb(part: tuple[RunAccumulator, Digest], size: int) -> None:
        nonlocal done
        acc.update(part[0])
        digest.update(part[1])
        done += size
        if progress is not None:
            progress(done)

    if workers == 1:
        pairs = iter_pairs(gold, extracted, evaluator.id_field, stream=True)
        for chunk in chunked(pairs, chunk_size):
            absorb(score_chunk(evaluator, chunk, keep_records, worst, keep_problems),
                   len(chunk))
        return EvalOutcome(acc.result(), digest, time.perf_counter() - started, workers)
    # Workers that do not fork start while submissions are made: all of them with the
    # current folder kept off their sys.path.
    with safe_path_children():
        ctx = multiprocessing.get_context(start_method(start))
        shared = spec.for_tasks(workers) if evaluator.judged else spec
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                   initializer=_init_worker, initargs=(shared,))
        # Start the workers now, so they import while this process opens the files.
        warming = [pool.submit(_warm) for _ in range(workers)]

        def scanner(path: str, ranges: list[tuple[int, int]], id_field: str) -> list[ScanPart]:
            futures = [pool.submit(scan_range, path, a, b, id_field) for a, b in ranges]
            return [f.result() for f in futures]

        pending: deque[tuple[Future[tuple[RunAccumulator, Digest]], int]] = deque()
        try:
            pairs = iter_pairs(gold, extracted, evaluator.id_field, stream=True,
                               scanner=scanner, scan_parts=2 * workers)
            for chunk in chunked(pairs, chunk_size):
                pending.append((pool.submit(_score_in_worker, chunk, keep_records, worst,
                                            keep_problems), len(chunk)))
                while len(pending) > 3 * workers:
                    future, size = pending.popleft()
                    absorb(future.result(), size)
            while pending:
                future, size = pending.popleft()
                absorb(future.result(), size)
            for w in warming:
                w.result()
        except BrokenProcessPool as exc:
            pool.shutdown(wait=False, cancel_futures=True)
            raise WorkerError(f"a worker process stopped unexpectedly ({exc}); "
                              "run again with one worker to see why") from None
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        return EvalOutcome(acc.result(), digest, time.perf_counter() - started, workers)
