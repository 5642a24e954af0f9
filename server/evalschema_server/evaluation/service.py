"""Evaluation in the editor: which suites exist, when they run, and what gets shown.

The service owns the suites (re-discovered when configuration or files change), the
scheduler and the last outcome of each suite. It reads the editor's texts from the
``DocumentStore``, puts the diagnostics it builds in the ``DiagnosticStore`` (one source
per suite, one for the configuration) and talks to the client only through the small
``Client`` protocol the server implements, so it holds no LSP plumbing itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from evalschema.errors import Problem
from evalschema.report.figures import figure
from evalschema.run.gcpause import gc_paused

from .. import files
from ..diagnostic_store import DIAGNOSTIC_SOURCE, DiagnosticStore
from ..document import LineIndex
from ..files import in_thread
from ..memory import release
from ..protocol import (
    RUN_FINISHED,
    RUN_QUEUED,
    RUN_STARTED,
    SUITES_CHANGED,
    RunFinishedParams,
    RunStartedParams,
    SuitesChangedParams,
    SuiteSummary,
)
from ..ranges import range_json
from ..settings import EvalSettings
from ..store import DocumentStore
from .findings import DiagnosticBuilder, FindingOptions, MarkCache
from .locate import RecordLocator, Span, key_span
from .runner import SuiteOutcome, text_or_none
from .scheduler import Hooks, Scheduler
from .suites import SKIP_DIRS, Discovery, Suite, discover
from .views import summary

log = logging.getLogger(__name__)

CONFIG_NAMES = ("evalschema.toml", "pyproject.toml")
WATCHED_SUFFIXES = (".json", ".jsonl", ".ndjson", ".jsonc", ".toml")


def watched(path: str, *, added: bool) -> bool:
    """Whether a change on disk concerns suites: a data, schema or configuration file, or
    a folder just made (its files may be written before the watcher watches it, and their
    events never come: the search for suites that its event starts finds them)."""
    if any(p in SKIP_DIRS for p in Path(path).parts):
        return False
    return path.endswith(WATCHED_SUFFIXES) or (added and os.path.isdir(path))
#: The diagnostic store's source for problems in the configuration files.
CONFIG_SOURCE = "configuration"


def suite_source(key: str) -> str:
    """The diagnostic store's source for the findings of suite ``key``."""
    return f"suite:{key}"


class Client(Protocol):
    """What the service needs from the language server."""

    def schemas_named(self, paths: set[Path]) -> None: ...
    def notify(self, method: str,
               params: RunStartedParams | RunFinishedParams | SuitesChangedParams) -> None: ...
    def progress_begin(self, token: str, title: str) -> None: ...
    def progress_report(self, token: str, done: int, total: int) -> None: ...
    def progress_end(self, token: str, message: str) -> None: ...
    def log_error(self, where: str, exc: BaseException) -> None: ...
    def log_info(self, message: str) -> None: ...
    @property
    def encoding(self) -> str: ...
    @property
    def eval_settings(self) -> EvalSettings: ...


class EvaluationService:
    def __init__(self, client: Client, documents: DocumentStore,
                 diagnostics: DiagnosticStore) -> None:
        self.client = client
        self.documents = documents
        self.diagnostics = diagnostics
        self.started = False
        self.roots: list[Path] = []
        self.discovery = Discovery()
        self.outcomes: dict[str, SuiteOutcome] = {}
        self.marks: dict[str, MarkCache] = {}
        #: For hovers and commands, on the event loop.
        self.locator = RecordLocator()
        #: For building diagnostics, on the worker thread (the cache is not shared).
        self._build_locator = RecordLocator(size=256)
        self.scheduler = Scheduler(Hooks(self._queued, self._dropped, self._started,
                                         self._progress, self._finished, self._cancelled,
                                         self._failed), self._snapshot,
                                   self._build,
                                   helper=lambda: self.client.eval_settings.helper_process)
        self._watch: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._rediscover_timer: asyncio.TimerHandle | None = None
        #: Per open file: the pending look at whether the editor reloaded it from disk,
        #: and the disk's ``files.signature`` at the last look.
        self._reload_timers: dict[Path, asyncio.TimerHandle] = {}
        self._disk_seen: dict[Path, tuple[int, ...]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: Set once the first search for suites is done: events and commands that come
        #: earlier (an editor restoring open files) wait for it instead of finding nothing.
        self.ready = asyncio.Event()

    # -- lifecycle ----------------------------------------------------------

    async def start(self, roots: Iterable[Path]) -> None:
        self.started = True
        self.roots = [r.resolve() for r in roots if r.is_dir()]
        try:
            await self.rediscover()
        finally:
            self.ready.set()
        if self.client.eval_settings.run_on_startup:
            for suite in self.discovery.suites:
                self.scheduler.request(suite, 0)
        if self.client.eval_settings.watch_files and self.roots:
            self._watch = asyncio.get_running_loop().create_task(self._watch_files())

    def shutdown(self) -> None:
        self._stop.set()
        self.scheduler.shutdown()
        if self._watch is not None:
            self._watch.cancel()

    async def rediscover(self) -> set[str]:
        """Find the suites again; returns the keys of suites that are new or changed."""
        texts = {p: t for p in self._config_paths() if (t := self.documents.text_at(p))}
        roots = list(self.roots)

        def search() -> tuple[Discovery, dict[Path, str]]:
            # Globs and reads on a daemon thread (see ``files``): a glob that walks the
            # disk, or a FIFO, never holds up a request or the exit.
            found = discover(roots, lambda path: text_or_none(path, texts))
            return found, {p: text_or_none(p, texts) or "" for p in found.config_problems}

        found, config_texts = await in_thread(search)
        old = {s.key: s for s in self.discovery.suites}
        self.discovery = found
        changed = {s.key for s in found.suites if old.get(s.key) != s}
        gone = set(old) - {s.key for s in found.suites}
        self.scheduler.forget({s.key for s in found.suites})
        for key in gone:
            self.outcomes.pop(key, None)
            for uri in self.diagnostics.clear_diagnostics(suite_source(key)):
                self.diagnostics.publish(uri)
        self._publish_config(found.config_problems, config_texts)
        self.client.schemas_named({s.config.schema for s in found.suites if s.origin})
        if changed or gone:  # a client's list of tests (suites, runs) is out of date
            self.client.notify(SUITES_CHANGED, SuitesChangedParams(changed=sorted(changed),
                                                                   removed=sorted(gone)))
        return changed

    async def set_roots(self, roots: Iterable[Path]) -> None:
        """Workspace folders were added or removed."""
        self.roots = [r.resolve() for r in roots if r.is_dir()]
        await self._rediscover_and_run(True)
        if self._watch is not None:  # watch the new set of folders
            self._watch.cancel()
            self._stop = asyncio.Event()
            self._watch = None
        if self.client.eval_settings.watch_files and self.roots:
            self._watch = asyncio.get_running_loop().create_task(self._watch_files())

    def settings_changed(self, *, modules: bool) -> None:
        """Show results under the new settings; new comparator modules also mean
        cached scores may be wrong."""
        if not self.started:
            return
        if modules:
            self.scheduler.generation += 1
        for suite in self.discovery.suites:
            self.scheduler.request(suite, 0.1)

    async def text_of(self, path: Path) -> str | None:
        """A file's text: the editor's when it is open, else the disk's, read off the
        event loop (None if unreadable)."""
        open_text = self.documents.text_at(path)
        return open_text if open_text is not None else await in_thread(text_or_none, path, {})

    def _config_paths(self) -> list[Path]:
        return [r / n for r in self.roots for n in CONFIG_NAMES]

    # -- events from the editor ---------------------------------------------

    def suites_for(self, path: Path) -> list[Suite]:
        return self.discovery.using(path)

    async def wait_ready(self, timeout: float = 30) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ready.wait(), timeout)

    def _unless_early(self, event: Callable[[Path], None], path: Path) -> bool:
        """Before the first search for suites: replay ``event`` once it is done."""
        if self.ready.is_set():
            return False

        async def later() -> None:
            await self.wait_ready()
            event(path)

        self._spawn(later())
        return True

    def saved(self, path: Path) -> None:
        if self._unless_early(self.saved, path):
            return
        if path.name in CONFIG_NAMES or self._unknown_data_file(path):
            self._schedule_rediscover(run_all_changed=True)
        for suite in self.suites_for(path):
            self.scheduler.request(suite, self.client.eval_settings.debounce_ms / 1000)

    def changed(self, path: Path) -> None:
        if self._unless_early(self.changed, path):
            return
        if path.name in CONFIG_NAMES:
            self._schedule_rediscover(run_all_changed=False, delay=0.2)
            return
        suites = self.suites_for(path)
        if self.client.eval_settings.run_on == "change":
            for suite in suites:
                self.scheduler.request(suite, 0.3)
        elif suites:
            self._check_reload(path)

    def _check_reload(self, path: Path, delay: float = 0.15) -> None:
        """After edits settle, whether the editor's text is now the disk's: the editor
        reloaded a file another program wrote (it sends the new text as a change, with no
        save). Then the suites run, as after a save. The disk is read only when it changed
        since the last look, so typing costs one ``stat`` per pause."""
        old = self._reload_timers.pop(path, None)
        if old is not None:
            old.cancel()

        def fire() -> None:
            self._reload_timers.pop(path, None)
            self._spawn(self._reloaded(path))

        self._reload_timers[path] = asyncio.get_running_loop().call_later(delay, fire)

    async def _reloaded(self, path: Path) -> None:
        def look() -> tuple[tuple[int, ...] | None, str | None]:
            try:
                sig = files.signature(path)
            except OSError:
                return None, None
            if self._disk_seen.get(path) == sig:
                return sig, None
            return sig, text_or_none(path, {})

        sig, disk = await in_thread(look)
        if sig is not None:
            self._disk_seen[path] = sig
        if disk is None or self.documents.text_at(path) != disk:
            return
        shown = self.outcomes_for(path)
        if shown and all(o.texts.get(path) == disk for o in shown):
            return  # what the results were computed from: nothing to do
        for suite in self.suites_for(path):
            self.scheduler.request(suite, 0)

    def opened(self, path: Path) -> None:
        if self._unless_early(self.opened, path):
            return
        for suite in self.suites_for(path):
            if suite.key not in self.outcomes and suite.key not in self.scheduler.active:
                self.scheduler.request(suite, 0)

    def _unknown_data_file(self, path: Path) -> bool:
        return path.name.endswith(WATCHED_SUFFIXES) and path not in self.discovery.files

    def _schedule_rediscover(self, *, run_all_changed: bool, delay: float = 0.05) -> None:
        if self._rediscover_timer is not None:
            self._rediscover_timer.cancel()
        loop = asyncio.get_running_loop()

        def fire() -> None:
            self._rediscover_timer = None
            self._spawn(self._rediscover_and_run(run_all_changed))

        self._rediscover_timer = loop.call_later(delay, fire)

    async def _rediscover_and_run(self, run_changed: bool, paths: Iterable[Path] = ()) -> None:
        changed = await self.rediscover()
        keys = set(changed) if run_changed else set()
        for p in paths:
            keys.update(s.key for s in self.suites_for(p))
        for suite in self.discovery.suites:
            if suite.key in keys:
                self.scheduler.request(suite, 0)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- files changed on disk ----------------------------------------------

    async def _watch_files(self) -> None:
        try:
            from watchfiles import Change, awatch
        except ImportError:  # pragma: no cover - a dependency of the server extra
            return

        def wanted(change: Change, path: str) -> bool:
            return watched(path, added=change == Change.added)

        try:
            async for changes in awatch(*self.roots, watch_filter=wanted, stop_event=self._stop,
                                        debounce=150, step=50, recursive=True,
                                        ignore_permission_denied=True):
                self.on_disk_changes([(c == Change.modified, Path(p)) for c, p in changes])
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a watcher failure must not take the server down
            self.client.log_error("file watcher", exc)

    def on_disk_changes(self, changes: list[tuple[bool, Path]]) -> None:
        """React to files written by other programs (open documents: the editor wins)."""
        paths = {p.resolve() for _, p in changes}
        structural = any(not modified or p.name in CONFIG_NAMES for modified, p in changes) \
            or any(self._unknown_data_file(p) for p in paths)
        fresh = [p for p in paths if self.documents.text_at(p) is None]
        if structural:
            self._spawn(self._rediscover_and_run(True, fresh))
            return
        for suite in {s.key: s for p in fresh for s in self.suites_for(p)}.values():
            self.scheduler.request(suite, 0.05)

    # -- runs ---------------------------------------------------------------

    def _snapshot(self, suite: Suite) -> dict[Path, str]:
        out = {}
        for path in suite.files:
            text = self.documents.text_at(path)
            if text is not None:
                out[path] = text
        return out

    def _queued(self, suite: Suite) -> None:
        self.client.notify(RUN_QUEUED, RunStartedParams(suite=suite.name, key=suite.key))

    def _dropped(self, suite: Suite) -> None:
        self._notify_stopped(suite)

    async def _started(self, suite: Suite, run_id: str) -> None:
        self.client.notify(RUN_STARTED, RunStartedParams(suite=suite.name, key=suite.key))
        self.client.progress_begin(run_id, f"evalschema: {suite.name}")

    def _progress(self, suite: Suite, run_id: str, done: int, total: int) -> None:
        self.client.progress_report(run_id, done, total)

    def _build(self, outcome: SuiteOutcome, texts: dict[Path, str]
               ) -> dict[str, list[dict[str, Any]]]:
        """Diagnostics of an outcome (runs on the worker thread)."""
        s = self.client.eval_settings
        options = FindingOptions(self.client.encoding, {**s.severity}, s.gold_diagnostics,
                                 s.field_threshold, s.max_diagnostics_per_file,
                                 s.diagnostics_mode)
        cache = self.marks.setdefault(outcome.suite.key, MarkCache())
        schema_open = outcome.suite.config.schema in texts
        # Results live until the next run: frozen, the collector does not re-scan them
        # (they hold no cycles, so reference counting still frees them).
        with gc_paused(freeze=True):
            return DiagnosticBuilder(outcome, options, cache, self._build_locator,
                                     self._uri_of, schema_open).build()

    def _uri_of(self, path: Path) -> str:
        return self.documents.uri_of(path)

    async def _finished(self, outcome: SuiteOutcome, run_id: str,
                        built: dict[str, list[dict[str, Any]]]) -> None:
        key = outcome.suite.key
        source = suite_source(key)
        last = self.outcomes.get(key)
        if outcome.stopped is not None and last is not None and last.runs \
                and last.suite == outcome.suite:
            outcome = _keep_stale(last, outcome)
            built = {uri: items for uri, items in built.items()
                     if uri == self._uri_of(outcome.suite.config.schema)}
        previous = self.diagnostics.uris(source)
        stale = self.stale_paths(outcome)
        stale_uris = {self._uri_of(p) for p in stale}
        for path, text in outcome.texts.items():
            doc = self.documents.at(path)
            if doc is not None and path not in stale:  # the editor's text is this one
                doc.share(text)  # held once
        for uri in stale_uris:  # built from an older text: not shown
            built[uri] = []
        self.outcomes[key] = outcome
        # Each file's findings hold positions of the text the run read: while that file
        # is open with another text they are not shown (the store checks).
        texts: dict[str, str] = {}
        for path, text in outcome.texts.items():
            texts.setdefault(self._uri_of(path), text)
        for uri in previous - built.keys():
            if outcome.stale is None:  # stale results keep their data files' findings
                self.diagnostics.clear_diagnostics(source, uri)
        for uri, items in built.items():
            self.diagnostics.set_diagnostics(source, uri, items, text=texts.get(uri))
        for uri in {*built, *previous} - stale_uris:
            self.diagnostics.publish(uri)
        self.client.progress_end(run_id, _done_message(outcome))
        self.client.log_info(_run_log(outcome))
        if stale and self.client.eval_settings.run_on == "change":
            # Before the notification, so that it says these figures are being updated.
            self.scheduler.request(outcome.suite, 0.3)
        self.client.notify(RUN_FINISHED, RunFinishedParams(
            suite=summary(outcome, self._uri_of, self.client.encoding), cancelled=False,
            pending=self.scheduler.pending(key)))
        del last, built
        # The last outcome and the run's parsed values are gone: give their pages back
        # (off the event loop: trimming a large heap takes tens of milliseconds).
        self._spawn(in_thread(release))

    def versions(self, paths: Iterable[Path]) -> dict[Path, int | None]:
        """The LSP version of each open file (None: not open, read from disk)."""
        out: dict[Path, int | None] = {}
        for path in paths:
            doc = self.documents.get(self._uri_of(path))
            out[path] = doc.version if doc is not None else None
        return out

    def stale_paths(self, outcome: SuiteOutcome) -> list[Path]:
        """Files whose editor text changed while the run read an older one."""
        out = []
        for path, text in outcome.texts.items():
            now = self.documents.text_at(path)
            if now is not None and now != text:
                out.append(path)
        return out

    async def _cancelled(self, suite: Suite, run_id: str) -> None:
        self.client.progress_end(run_id, "cancelled")
        self._notify_stopped(suite)

    async def _failed(self, suite: Suite, run_id: str, exc: BaseException) -> None:
        self.client.log_error(f"run of suite {suite.name}", exc)
        self.client.progress_end(run_id, "failed (see the log)")
        self._notify_stopped(suite)

    def _notify_stopped(self, suite: Suite) -> None:
        """A run ended without figures: the last ones stay, no longer "updating" unless
        a newer run of the suite is pending."""
        self.client.notify(RUN_FINISHED, RunFinishedParams(
            suite=SuiteSummary(name=suite.name, key=suite.key, runs=[]), cancelled=True,
            pending=self.scheduler.pending(suite.key)))

    # -- what is shown ------------------------------------------------------

    def clear(self) -> None:
        self.scheduler.cancel_all()
        uris: set[str] = set()
        for key in self.outcomes:
            uris |= self.diagnostics.clear_diagnostics(suite_source(key))
        self.outcomes.clear()
        for uri in uris:
            self.diagnostics.publish(uri)

    def outcomes_for(self, path: Path) -> list[SuiteOutcome]:
        return [o for o in self.outcomes.values() if path in o.suite.files]

    def schema_span(self, outcome: SuiteOutcome) -> Callable[[str], Span | None]:
        """Pointer -> span of the property key in the schema text the run used."""
        doc = self.locator.doc(outcome.schema_text or "")
        return lambda pointer: key_span(doc, pointer)

    def _publish_config(self, problems: dict[Path, tuple[Problem, ...]],
                        texts: dict[Path, str]) -> None:
        old = self.diagnostics.uris(CONFIG_SOURCE)
        new = {self._uri_of(path): [_config_diag(p, texts.get(path, ""), self.client.encoding)
                                    for p in probs] for path, probs in problems.items()}
        for uri in old - new.keys():
            self.diagnostics.clear_diagnostics(CONFIG_SOURCE, uri)
        for uri, items in new.items():
            self.diagnostics.set_diagnostics(CONFIG_SOURCE, uri, items)
        for uri in old | new.keys():
            self.diagnostics.publish(uri)


def _keep_stale(last: SuiteOutcome, failed: SuiteOutcome) -> SuiteOutcome:
    """The last good results, marked stale, while the schema has errors that stop a run
    (mid-typing, an auto-save): wiping every finding to show "not evaluated" would hide
    what the user is working on. The problems are the failed run's."""
    return replace(last, stale="schema has errors", schema_problems=failed.schema_problems,
                   issues=last.issues + failed.issues, stopped=failed.stopped)


def _run_log(outcome: SuiteOutcome) -> str:
    """One line per run in the server's log: what ran, how long, what it found."""
    runs = "; ".join(
        f"{r.label}: {r.result.total_records} records, F1 {figure(r.result.mean_f1)}, "
        f"{r.result.total_mismatches} wrong, {r.result.total_omissions} missing, "
        f"{r.result.total_hallucinations} invented" for r in outcome.runs) or "no runs"
    problems = len(outcome.issues) + len(outcome.schema_problems)
    stale = f" (stale: {outcome.stale})" if outcome.stale else ""
    return (f"suite {outcome.suite.name} evaluated in {outcome.seconds:.2f} s: {runs}; "
            f"{problems} problem{'s' if problems != 1 else ''}{stale}")


def _done_message(outcome: SuiteOutcome) -> str:
    parts = [f"{r.label}: F1 {figure(r.result.mean_f1)}" for r in outcome.runs]
    done = "; ".join(parts) or "no runs"
    return f"{done} (stale: {outcome.stale})" if outcome.stale else done


def _config_diag(p: Problem, text: str, encoding: str) -> dict[str, Any]:
    lines = LineIndex(text)
    line = max((p.line or 1) - 1, 0)
    start = lines.offset(line, max((p.column or 1) - 1, 0), "utf-32")
    end = lines.line_end(line) if line < lines.line_count else start
    stop = start + _token_length(text[start:end])
    message = p.message + (f" ({p.suggestion})" if p.suggestion else "")
    return {"range": range_json(lines, start, stop, encoding),
            "severity": 1 if str(p.severity) == "error" else 2, "code": p.code,
            "source": DIAGNOSTIC_SOURCE, "message": message}


def _token_length(rest: str) -> int:
    """Length of the TOML key or value that starts ``rest``: a quoted string up to its
    closing quote, an array up to its bracket on this line, else a bare word."""
    if not rest:
        return 0
    if rest[0] in "\"'":
        close = rest.find(rest[0], 1)
        while close > 0 and rest[0] == '"' and rest[close - 1] == "\\":
            close = rest.find('"', close + 1)
        return close + 1 if close > 0 else len(rest.rstrip())
    if rest[0] == "[":
        close = rest.rfind("]")
        return close + 1 if close > 0 else len(rest.rstrip())
    for i, ch in enumerate(rest):
        if ch in " \t=#," and i:
            return i
    return len(rest.rstrip())
