"""The evalschema language server: a thin pygls adapter over the engine.

State lives as typed attributes on the server; each LSP feature is a short
handler that maps positions to offsets, calls a plain function in ``features/``
and maps the answer back. Every handler is guarded: an internal error is logged
to the client once and the server goes on.
"""

from __future__ import annotations

import asyncio
import fnmatch
import gc
import logging
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlparse

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from evalschema import __version__, default_registry
from evalschema.errors import Severity
from evalschema.judge.client import reset_breakers
from evalschema.judge.settings import configure_judges
from evalschema.project.config import find_config, load_config
from evalschema.rules.custom_modules import import_hint, load_entries
from evalschema.rules.registry import Registry

from . import eval_handlers
from .analysis import (
    XEVAL_PREFIX,
    SchemaAnalysis,
    analyze,
    has_xeval_keys,
    reads_files,
    release,
)
from .document import JsonDocument, LineIndex
from .evaluation.service import EvaluationService
from .features import actions, completion, hover, symbols, tokens
from .files import in_thread
from .guard import guarded, log_to_client, report_once
from .jsonrpc import Protocol
from .judges import judge_settings
from .settings import EvalSettings, Settings
from .store import DocumentStore, OpenDocument
from .transport import StdioReader, serve
from .uris import file_path, uri_to_path
from .window import window_at

SOURCE = "evalschema"
UNTRUSTED_JUDGE = (
    "the LLM judge is not asked in a workspace you have not trusted (it would send this "
    "folder's data with your API key); in VS Code trust the workspace, in other editors "
    "start the server with the initialization option workspaceTrusted = true")

UNTRUSTED_MODULES = (
    "evalschema (comparator-modules-untrusted): the comparatorModules setting names {}, "
    "which are not imported because the workspace is not trusted. In VS Code, trust the "
    "workspace (Workspaces: Manage Workspace Trust); other editors: start the server with "
    "the initialization option workspaceTrusted = true for folders whose code you trust.")

log = logging.getLogger(__name__)


class EvalSchemaServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("evalschema", __version__, protocol_cls=Protocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = Settings()
        self.registry: Registry = default_registry
        self.store = DocumentStore()
        self.analyses: dict[str, tuple[int | None, SchemaAnalysis]] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.warming: dict[str, asyncio.TimerHandle] = {}
        self.to_release: list[JsonDocument] = []
        self.background: set[asyncio.Task[None]] = set()
        #: Schemas that the workspace's evalschema.toml names (absolute paths).
        self.config_schemas: set[str] = set()
        self.logged_errors: set[str] = set()
        #: Open documents over ``maxDocumentSize`` that were logged as such.
        self.large_noted: set[str] = set()
        #: Documents whose schema check is running on a thread (see ``check_off_loop``).
        self.checking: set[str] = set()
        #: Whether the client said the user trusts the workspace (initializationOptions
        #: ``workspaceTrusted``; only then is custom code imported).
        self.workspace_trusted = False
        self.untrusted_warned: tuple[str, ...] = ()
        self.pull_diagnostics = False
        self.snippets = False
        self.root_path: str | None = None
        self.roots: list[Path] = []
        #: Open documents by resolved file path (the evaluation reads their unsaved text).
        self.open_paths: dict[Path, str] = {}
        self.progress_tokens: dict[str, bool] = {}
        self.evaluation = EvaluationService(self)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
                 ) -> int:
        """pygls's ``start_io`` with our framing (see ``transport``): malformed headers
        are reported and skipped, message sizes capped. Returns the exit code: 0 after
        ``shutdown``, else 1 (input ended, or ``exit`` came first), as LSP asks."""
        self._stop_event = stop = threading.Event()
        reader = StdioReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(serve(stop, reader, self.protocol, self.report_framing))
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]
        return 0 if self.protocol._shutdown else 1

    def report_framing(self, message: str) -> None:
        log_to_client(self, types.MessageType.Error,
                      f"evalschema: malformed input from the client: {message}")

    # -- the evaluation service's view of the editor --------------------------

    def open_text(self, path: Path) -> str | None:
        uri = self.open_paths.get(path)
        doc = self.store.get(uri) if uri is not None else None
        return doc.text if doc is not None else None

    def to_uri(self, path: Path) -> str:
        return self.open_paths.get(path) or path.as_uri()

    @property
    def eval_settings(self) -> EvalSettings:
        return self.settings.evaluation

    def notify(self, method: str, params: Any) -> None:
        self.send_raw(method, params)

    def send_raw(self, method: str, params: Any) -> None:
        """A notification whose params are plain JSON: diagnostics of a large data file
        are built as dicts, and sending them through lsprotocol's converter would cost
        more than building them (see evaluation/findings.py)."""
        self.protocol._send_data({"jsonrpc": "2.0", "method": method, "params": params})

    def log_error(self, where: str, exc: BaseException) -> None:
        report_once(self, where, exc)

    def progress_begin(self, token: str, title: str) -> None:
        window = self.client_capabilities.window
        if window is None or not window.work_done_progress:
            return
        self.progress_tokens[token] = False

        async def create() -> None:
            try:
                await asyncio.wait_for(self.work_done_progress.create_async(token), 5)
            except Exception:
                self.progress_tokens.pop(token, None)
                return
            if token not in self.progress_tokens:  # ended before the client answered
                return
            self.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title=title, cancellable=True, message="starting", percentage=0))
            self.progress_tokens[token] = True

        self.spawn(create())

    def progress_report(self, token: str, done: int, total: int) -> None:
        if self.progress_tokens.get(token):
            self.work_done_progress.report(token, types.WorkDoneProgressReport(
                message=f"{done}/{total} records",
                percentage=int(100 * done / total) if total else 100))

    def progress_end(self, token: str, message: str) -> None:
        if self.progress_tokens.pop(token, False):
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    def publish_eval(self, uri: str) -> None:
        self.send_diagnostics(uri)

    def schemas_named(self, paths: set[Path]) -> None:
        """The configuration's schemas, as found again: they are eval schemas whatever
        their names (open ones are re-checked when this changes)."""
        named = {str(p) for p in paths}
        if named == self.config_schemas:
            return
        self.config_schemas = named
        self.analyses.clear()
        for uri in list(self.store.docs):
            self.schedule(uri, immediate=True)
        if self.pull_diagnostics:
            try:
                self.workspace_diagnostic_refresh(None)
            except Exception as exc:  # the client may not support refreshes
                report_once(self, "diagnostic refresh", exc)

    # -- encoding and ranges ------------------------------------------------

    @property
    def encoding(self) -> str:
        if self.protocol._workspace is None:
            return "utf-16"
        enc = self.workspace.position_encoding
        return str(getattr(enc, "value", enc) or "utf-16")

    def to_range(self, doc: JsonDocument, start: int, end: int) -> types.Range:
        s = doc.lines.position(start, self.encoding)
        e = doc.lines.position(max(start, end), self.encoding)
        return types.Range(types.Position(*s), types.Position(*e))

    def to_offset(self, doc: JsonDocument, pos: types.Position) -> int:
        return doc.lines.offset(pos.line, pos.character, self.encoding)

    # -- which documents ----------------------------------------------------

    def named_as_schema(self, doc: OpenDocument) -> bool:
        """By file name or by the project configuration, without reading the text."""
        path = uri_to_path(doc.uri)
        name = Path(path or urlparse(doc.uri).path).name
        if any(fnmatch.fnmatch(name, p) for p in self.settings.schema_patterns):
            return True
        return path is not None and str(Path(path).resolve()) in self.config_schemas

    def too_large(self, doc: OpenDocument) -> bool:
        """Over ``maxDocumentSize``: no eval-schema features (never parsed here)."""
        limit = self.settings.max_document_size
        return bool(limit) and doc.size > limit

    def might_be_schema(self, doc: OpenDocument) -> bool:
        """Cheap pre-check, so plain JSON files are never parsed."""
        if self.too_large(doc):
            return False
        return self.named_as_schema(doc) or (
            doc.language_id in ("json", "jsonc") and XEVAL_PREFIX in doc.text)

    def is_eval_schema(self, doc: OpenDocument, analysis: SchemaAnalysis | None = None) -> bool:
        if self.too_large(doc):
            return False
        if self.named_as_schema(doc):
            return True
        if not self.might_be_schema(doc):
            return False
        return has_xeval_keys((analysis or self.analysis(doc.uri)).doc)

    def open_analysis(self, uri: str) -> SchemaAnalysis | None:
        """The analysis of an open document, or None when it is not open (or too large)."""
        doc = self.store.get(uri)
        return self.analysis(uri) if doc is not None and not self.too_large(doc) else None

    def analysis(self, uri: str) -> SchemaAnalysis:
        doc = self.store.get(uri)
        text = doc.text if doc is not None and not self.too_large(doc) else ""
        version = doc.version if doc else None
        cached = self.analyses.get(uri)
        if cached is not None and cached[0] == version and cached[1].text == text:
            return cached[1]
        result = analyze(text, self.registry, base_uri=uri_to_path(uri),
                         deferred=reads_files(text))
        if doc is not None:
            doc.edited_from = len(text)
        # Keep the collector from re-scanning the new tree on every later collection
        # (a 20,000-line schema is ~100,000 nodes); replaced trees are freed by
        # reference counting once ``release`` has cut their parent links.
        gc.freeze()
        self.analyses[uri] = (version, result)
        if cached is not None:
            self.release_later(cached[1].doc)
        if result.deferred and uri not in self.checking:
            self.checking.add(uri)
            self.spawn(self.check_off_loop(uri))
        return result

    async def check_off_loop(self, uri: str) -> None:
        """The engine's check of a schema that may read files (``reads_files``), on a
        thread: one at a time per document, always of its latest analysis."""
        try:
            while (cached := self.analyses.get(uri)) is not None and cached[1].deferred:
                analysis = cached[1]
                try:
                    check = await in_thread(analysis.run_check)
                except Exception as exc:
                    report_once(self, "schema check", exc)
                    check = None
                analysis.set_check(check)
                if self.analyses.get(uri) is cached:
                    self.show_checked(uri)
        finally:
            self.checking.discard(uri)

    def show_checked(self, uri: str) -> None:
        if not self.pull_diagnostics:
            self.schedule(uri, immediate=True)
            return
        try:
            self.workspace_diagnostic_refresh(None)
        except Exception as exc:  # the client may not support refreshes
            report_once(self, "diagnostic refresh", exc)

    def release_later(self, doc: JsonDocument) -> None:
        """Free a replaced tree once the diagnostics it delays are out (see ``publish``)."""
        self.to_release.append(doc)
        if len(self.to_release) > 4:  # no publish coming (pull clients, tests): free now
            self.release_pending()

    def release_pending(self) -> None:
        while self.to_release:
            release(self.to_release.pop())

    # -- configuration ------------------------------------------------------

    async def read_project_configs(self, roots: list[Path]) -> None:
        """Remember the schemas an evalschema.toml (or [tool.evalschema]) names, early:
        the search for suites (which keeps this set current, see ``schemas_named``) walks
        the workspace and may finish after the first documents are opened. Read on a
        thread of its own: a configuration's glob may walk the whole disk."""
        try:
            named = await in_thread(_configured_schemas, roots)
        except Exception as exc:
            report_once(self, "reading evalschema.toml", exc)
            return
        if named - self.config_schemas:
            self.config_schemas |= named
            self.analyses.clear()
            for uri in list(self.store.docs):
                self.schedule(uri, immediate=True)

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def apply_settings(self, raw: Any, *, judge: bool = True, first: bool = False) -> None:
        """Take new settings; ``judge=False`` (a workspace/configuration answer, which a
        client may fill from the workspace) keeps the judge settings as they were.
        ``first``: the settings of ``initialize``, when the judge is set up whatever they say."""
        before = self.settings
        self.settings = Settings.from_dict(raw)
        if not judge:
            self.settings = replace(self.settings, judge=before.judge)
        judge_changed = first or before.judge != self.settings.judge
        if judge_changed:
            self.apply_judge_settings()
        self.import_comparator_modules()
        self.analyses.clear()
        if before != self.settings:
            self.evaluation.settings_changed(
                modules=before.comparator_modules != self.settings.comparator_modules
                or judge_changed)

    def apply_judge_settings(self) -> None:
        """Set the process's judge profiles from the editor's user-level settings, the
        environment and the user's judges.toml."""
        settings, problems = judge_settings(self.settings.judge)
        if not self.workspace_trusted:
            # A folder's schema must not spend the user's key on its own data merely by
            # being opened: in an untrusted workspace the judge is never asked.
            settings = replace(settings, disabled=UNTRUSTED_JUDGE)
        configure_judges(settings)
        reset_breakers()
        for p in problems[:5]:
            self.window_show_message(types.ShowMessageParams(
                types.MessageType.Warning, f"evalschema: judge settings: {p.format()}"))

    def import_comparator_modules(self) -> None:
        """Import the ``comparatorModules`` setting's modules, only in a trusted workspace.

        Dotted names come from the server's own environment; paths (``my_cmp.py``) are
        relative to the workspace root and loaded by file. No folder is put on ``sys.path``.
        Untrusted, nothing is imported and the user is told once how to opt in."""
        modules = self.settings.comparator_modules
        if not modules:
            return
        if not self.workspace_trusted:
            if modules != self.untrusted_warned:
                self.untrusted_warned = modules
                self.window_show_message(types.ShowMessageParams(
                    types.MessageType.Warning, UNTRUSTED_MODULES.format(", ".join(modules))))
            return
        base = Path(self.root_path) if self.root_path else Path.cwd()
        _, failed = load_entries(modules, base)  # a module loaded before is not run again
        for _, module, exc in failed:
            self.window_show_message(types.ShowMessageParams(
                types.MessageType.Warning,
                f"evalschema: cannot import comparator module {module!r}: {exc} "
                f"({import_hint(module, base)})"))

    # -- diagnostics --------------------------------------------------------

    def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        doc = self.store.get(uri)
        if doc is not None and self.too_large(doc):
            return [self.size_notice(doc)] if self.named_as_schema(doc) else []
        if doc is None or not self.might_be_schema(doc):
            return []
        analysis = self.analysis(uri)
        if not self.is_eval_schema(doc, analysis):
            return []
        out = []
        for loc in analysis.located:
            p = loc.problem
            message = p.message + (f" ({p.suggestion})" if p.suggestion else "")
            out.append(types.Diagnostic(
                range=self.to_range(analysis.doc, loc.start, loc.end),
                message=message,
                severity=types.DiagnosticSeverity.Warning if p.severity is Severity.WARNING
                else types.DiagnosticSeverity.Error,
                code=p.code, source=SOURCE,
                data={**p.data, "code": p.code, "pointer": p.pointer, "target": p.target},
            ))
        return out

    def size_notice(self, doc: OpenDocument) -> types.Diagnostic:
        """What a schema over ``maxDocumentSize`` shows instead of its checks."""
        return types.Diagnostic(
            range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            message=self.size_message(doc), severity=types.DiagnosticSeverity.Information,
            code="document-too-large", source=SOURCE)

    def size_message(self, doc: OpenDocument) -> str:
        return (f"this document has {doc.size:,} characters, over evalschema.maxDocumentSize "
                f"({self.settings.max_document_size:,}): eval-schema checks, completion, hover "
                "and the outline are off for it (raise evalschema.maxDocumentSize to turn "
                "them on; evaluation of data files is not affected)")

    def note_size(self, doc: OpenDocument) -> None:
        """Log once when a JSON document goes over the limit (a data file, say: it shows
        no diagnostic, and the user may wonder why features are missing)."""
        if not self.too_large(doc):
            self.large_noted.discard(doc.uri)
            return
        if doc.uri in self.large_noted or not (
                doc.language_id in ("json", "jsonc") or self.named_as_schema(doc)):
            return
        self.large_noted.add(doc.uri)
        name = Path(urlparse(doc.uri).path).name or doc.uri
        self.window_log_message(types.LogMessageParams(
            types.MessageType.Info, f"evalschema: {name}: {self.size_message(doc)}"))

    def publish(self, uri: str) -> None:
        self.pending.pop(uri, None)
        if self.pull_diagnostics:
            return
        self.send_diagnostics(uri)
        self.release_pending()

    def send_diagnostics(self, uri: str) -> None:
        """Push a document's diagnostics: the schema checks (unless the client pulls
        those) and the evaluation's findings, in one list."""
        out: list[Any] = []
        if not self.pull_diagnostics:
            try:
                own = self.diagnostics(uri)
            except Exception as exc:
                report_once(self, "diagnostics", exc)
                return
            out = [self.protocol._converter.unstructure(d) for d in own]
        out.extend(self.evaluation.diagnostics_for(uri))
        doc = self.store.get(uri)
        params: dict[str, Any] = {"uri": uri, "diagnostics": out}
        if doc is not None and doc.version is not None:
            params["version"] = doc.version
        self.send_raw(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)

    def schedule(self, uri: str, immediate: bool = False) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        if self.pull_diagnostics:
            return
        loop = asyncio.get_event_loop()
        delay = 0 if immediate else self.settings.debounce_ms / 1000
        self.pending[uri] = loop.call_later(delay, self.publish, uri)
        if not immediate:
            # Parse during the debounce, once the requests that came with the edit
            # (completion, mostly) have been answered: the publish then only checks.
            warm = self.warming.pop(uri, None)
            if warm is not None:
                warm.cancel()
            self.warming[uri] = loop.call_later(min(delay / 2, 0.015), self.warm, uri)

    def warm(self, uri: str) -> None:
        self.warming.pop(uri, None)
        doc = self.store.get(uri)
        if doc is not None and self.might_be_schema(doc):
            try:
                self.analysis(uri)
            except Exception as exc:
                report_once(self, "parse", exc)


server = EvalSchemaServer()


@server.feature(types.INITIALIZE)
@guarded()
def on_initialize(ls: EvalSchemaServer, params: types.InitializeParams) -> None:
    caps = params.capabilities
    td = caps.text_document
    ls.pull_diagnostics = td is not None and td.diagnostic is not None
    comp = td.completion if td else None
    ls.snippets = bool(comp and comp.completion_item and comp.completion_item.snippet_support)
    if params.root_uri:
        ls.root_path = uri_to_path(params.root_uri)
    roots = [uri_to_path(f.uri) for f in params.workspace_folders or []] or [ls.root_path]
    ls.roots = [Path(r) for r in roots if r]
    options = params.initialization_options
    # Trust comes from the client at startup only: a later configuration (which some
    # clients read from files in the workspace) cannot turn it on.
    ls.workspace_trusted = isinstance(options, dict) and options.get("workspaceTrusted") is True
    ls.spawn(ls.read_project_configs(list(ls.roots)))
    ls.apply_settings(options if options is not None else {}, first=True)


@server.feature(types.INITIALIZED)
@guarded()
async def on_initialized(ls: EvalSchemaServer, params: types.InitializedParams) -> None:
    try:
        await _pull_configuration(ls)
    finally:
        await ls.evaluation.start(ls.roots)


@server.feature(types.SHUTDOWN)
@guarded()
def on_shutdown(ls: EvalSchemaServer, params: None) -> None:
    ls.evaluation.shutdown()


def _configured_schemas(roots: list[Path]) -> set[str]:
    """The schemas the configurations of ``roots`` name (on a worker thread)."""
    out: set[str] = set()
    for root in roots:
        found = find_config(root)
        loaded = load_config(found) if found is not None else None
        if loaded is not None and loaded.config is not None:
            out.update(str(s.schema.resolve()) for s in loaded.config.suites)
    return out


async def _pull_configuration(ls: EvalSchemaServer) -> None:
    ws = ls.client_capabilities.workspace
    if ws is None or not ws.configuration:
        return
    try:
        result = await ls.workspace_configuration_async(types.ConfigurationParams(
            items=[types.ConfigurationItem(section="evalschema")]))
    except Exception:
        return
    if result and isinstance(result[0], dict):
        ls.apply_settings(result[0], judge=False)
        for uri in list(ls.store.docs):
            ls.schedule(uri, immediate=True)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
@guarded()
async def on_configuration(ls: EvalSchemaServer,
                           params: types.DidChangeConfigurationParams) -> None:
    if isinstance(params.settings, dict) and params.settings:
        ls.apply_settings(params.settings)
        for uri in list(ls.store.docs):
            ls.schedule(uri, immediate=True)
    await _pull_configuration(ls)
    if ls.pull_diagnostics:
        ls.workspace_diagnostic_refresh(None)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@guarded()
def did_open(ls: EvalSchemaServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.note_size(ls.store.open(params.text_document))
    path = file_path(params.text_document.uri)
    if path is not None:
        ls.open_paths[path] = params.text_document.uri
    ls.schedule(params.text_document.uri, immediate=True)
    if path is not None:
        ls.evaluation.opened(path)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guarded()
def did_change(ls: EvalSchemaServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.note_size(ls.store.change(params, ls.encoding))
    ls.schedule(params.text_document.uri)
    path = file_path(params.text_document.uri)
    if path is not None:
        ls.evaluation.changed(path)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
@guarded()
def did_save(ls: EvalSchemaServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, immediate=True)
    path = file_path(params.text_document.uri)
    if path is not None:
        ls.evaluation.saved(path)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded()
def did_close(ls: EvalSchemaServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    for timers in (ls.pending, ls.warming):
        handle = timers.pop(uri, None)
        if handle is not None:
            handle.cancel()
    ls.store.close(uri)
    ls.large_noted.discard(uri)
    path = file_path(uri)
    if path is not None and ls.open_paths.get(path) == uri:
        del ls.open_paths[path]
    old = ls.analyses.pop(uri, None)
    if old is not None:
        ls.release_later(old[1].doc)
    # The schema checks go; the evaluation's findings stay (they concern the file on disk).
    ls.send_diagnostics(uri)


@server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=False,
                                        workspace_diagnostics=False))
@guarded(default=types.RelatedFullDocumentDiagnosticReport(items=[]))
def pull_diagnostics(ls: EvalSchemaServer, params: types.DocumentDiagnosticParams
                     ) -> types.RelatedFullDocumentDiagnosticReport:
    return types.RelatedFullDocumentDiagnosticReport(items=ls.diagnostics(params.text_document.uri))


@server.feature(types.TEXT_DOCUMENT_COMPLETION,
                types.CompletionOptions(trigger_characters=['"', ":", "[", ","]))
@guarded(default=None)
def on_completion(ls: EvalSchemaServer, params: types.CompletionParams
                  ) -> types.CompletionList | None:
    doc = ls.store.get(params.text_document.uri)
    if doc is None:
        return None
    if not ls.might_be_schema(doc):
        return None
    edits = _complete_in_window(ls, doc, params.position)
    if edits is None:
        analysis = ls.analysis(doc.uri)
        if not ls.is_eval_schema(doc, analysis):
            return None
        lines = analysis.doc.lines
        offset = lines.offset(params.position.line, params.position.character, ls.encoding)
        edits = completion.complete(analysis, offset, ls.registry, ls.snippets)
    else:
        lines = LineIndex(doc.text)

    def rng(start: int, end: int) -> types.Range:
        return types.Range(types.Position(*lines.position(start, ls.encoding)),
                           types.Position(*lines.position(end, ls.encoding)))

    items = []
    for e in edits:
        items.append(types.CompletionItem(
            label=e.label, kind=e.kind, detail=e.detail,
            documentation=types.MarkupContent(types.MarkupKind.Markdown, e.doc) if e.doc else None,
            text_edit=types.TextEdit(rng(e.start, e.end), e.new_text),
            insert_text_format=types.InsertTextFormat.Snippet if e.snippet
            else types.InsertTextFormat.PlainText,
            sort_text=e.sort, filter_text=e.new_text if e.start != e.end else None,
        ))
    return types.CompletionList(is_incomplete=False, items=items)


def _complete_in_window(ls: EvalSchemaServer, doc: OpenDocument, position: types.Position
                        ) -> list[completion.Edit] | None:
    """Completion from a re-parsed window when the last full parse is one edit behind."""
    cached = ls.analyses.get(doc.uri)
    if cached is None or cached[1].text == doc.text or doc.edited_from >= len(cached[1].text):
        return None
    if not ls.is_eval_schema(doc, cached[1]):
        return None
    offset = LineIndex(doc.text).offset(position.line, position.character, ls.encoding)
    win = window_at(cached[1], doc.text, doc.edited_from, offset)
    if win is None:
        return None
    shim = SchemaAnalysis(doc.text, win.doc, ls.registry, deferred=True)
    return [replace(e, start=e.start + win.offset, end=e.end + win.offset)
            for e in completion.complete(shim, offset - win.offset, ls.registry, ls.snippets)]


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded(default=None)
def on_hover(ls: EvalSchemaServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    doc = ls.store.get(uri)
    if doc is None:
        return None
    if not ls.is_eval_schema(doc):
        return eval_handlers.data_hover(ls, uri, doc.text, params.position, doc.line_index)
    analysis = ls.analysis(uri)
    offset = ls.to_offset(analysis.doc, params.position)
    found = hover.hover(analysis, offset, ls.registry)
    figures = eval_handlers.field_hover(ls, uri, analysis, offset)
    if found is None and figures is None:
        return None
    text, start, end = found if found is not None else ("", offset, offset)
    if figures:
        text = f"{text}\n\n---\n\n{figures}" if text else figures
        if found is None:
            node = analysis.doc.node_at(offset)
            start, end = (node.offset, node.end) if node is not None else (offset, offset)
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text),
                       ls.to_range(analysis.doc, start, end))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix,
                                                           types.CodeActionKind.Source]))
@guarded(default=None)
def on_code_action(ls: EvalSchemaServer, params: types.CodeActionParams
                   ) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    doc = ls.store.get(uri)
    if doc is None or ls.too_large(doc):
        return None
    analysis = ls.analysis(uri)
    out: list[types.CodeAction] = []
    for i, diag in enumerate(params.context.diagnostics):
        if diag.source != SOURCE or not isinstance(diag.data, dict):
            continue
        start = ls.to_offset(analysis.doc, diag.range.start)
        end = ls.to_offset(analysis.doc, diag.range.end)
        for fix in actions.quick_fixes(analysis, i, start, end, diag.data, ls.registry):
            out.append(_code_action(ls, analysis, uri, fix, [diag]))
    edits = actions.annotate_edits(analysis)
    if edits:
        out.append(_code_action(ls, analysis, uri, actions.Fix(
            "Annotate schema: make every default comparator explicit", edits,
            kind=types.CodeActionKind.Source), []))
    return out


def _code_action(ls: EvalSchemaServer, analysis: SchemaAnalysis, uri: str, fix: actions.Fix,
                 diags: list[types.Diagnostic]) -> types.CodeAction:
    edits = [types.TextEdit(ls.to_range(analysis.doc, e.start, e.end), e.new_text)
             for e in fix.edits]
    return types.CodeAction(
        title=fix.title,
        kind=types.CodeActionKind.QuickFix if fix.kind == "quickfix" else fix.kind,
        diagnostics=diags or None, is_preferred=fix.preferred or None,
        edit=types.WorkspaceEdit(changes={uri: edits}))


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded(default=None)
def on_symbols(ls: EvalSchemaServer, params: types.DocumentSymbolParams
               ) -> list[types.DocumentSymbol] | None:
    analysis = ls.open_analysis(params.text_document.uri)
    if analysis is None:
        return None
    kinds = {"object": types.SymbolKind.Object, "array": types.SymbolKind.Array,
             "field": types.SymbolKind.Field}

    def convert(sym: symbols.Symbol) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=sym.name, detail=sym.detail or None, kind=kinds[sym.kind],
            range=ls.to_range(analysis.doc, sym.start, sym.end),
            selection_range=ls.to_range(analysis.doc, sym.sel_start, sym.sel_end),
            children=[convert(c) for c in sym.children] or None)

    return [convert(s) for s in symbols.outline(analysis)]


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded(default=None)
def on_definition(ls: EvalSchemaServer, params: types.DefinitionParams
                  ) -> types.Location | list[types.Location] | None:
    uri = params.text_document.uri
    doc = ls.store.get(uri)
    if doc is None:
        return None
    if not ls.is_eval_schema(doc):
        return eval_handlers.data_definition(ls, uri, doc.text, params.position,
                                             doc.line_index)
    analysis = ls.analysis(uri)
    found = symbols.definition(analysis, ls.to_offset(analysis.doc, params.position))
    if found is None:
        return None
    return types.Location(uri, ls.to_range(analysis.doc, *found))


@server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
@guarded(default=None)
def on_code_lens(ls: EvalSchemaServer, params: types.CodeLensParams
                 ) -> list[types.CodeLens] | None:
    return eval_handlers.code_lenses(ls, params.text_document.uri) or None


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
@guarded(default=None)
def on_inlay_hints(ls: EvalSchemaServer, params: types.InlayHintParams
                   ) -> list[types.InlayHint] | None:
    analysis = ls.open_analysis(params.text_document.uri)
    if analysis is None:
        return None
    return eval_handlers.inlay_hints(ls, params.text_document.uri, analysis, params.range) or None


@server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
                types.SemanticTokensLegend(token_types=tokens.TOKEN_TYPES,
                                           token_modifiers=tokens.TOKEN_MODIFIERS))
@guarded(default=None)
def on_semantic_tokens(ls: EvalSchemaServer, params: types.SemanticTokensParams
                       ) -> types.SemanticTokens | None:
    analysis = ls.open_analysis(params.text_document.uri)
    if analysis is None:
        return None
    data: list[int] = []
    prev_line = prev_char = 0
    for offset, length, kind in tokens.semantic_tokens(analysis):
        line, char = analysis.doc.lines.position(offset, ls.encoding)
        _, end_char = analysis.doc.lines.position(offset + length, ls.encoding)
        delta_line = line - prev_line
        delta_char = char - prev_char if delta_line == 0 else char
        data.extend([delta_line, delta_char, end_char - char, kind, 0])
        prev_line, prev_char = line, char
    return types.SemanticTokens(data=data)


eval_handlers.register(server)
