"""The evalschema language server: its state, settings and lifecycle.

State lives as typed attributes on ``EvalSchemaServer``: the open documents
(``store``), the open schemas' analyses (``schemas``), every diagnostic shown
(``diagnostics``) and the evaluation service (``evaluation``). Each LSP feature is a
module of ``handlers/`` that registers itself with ``register(server)``;
``create_server`` builds the server with all of them. Every handler is guarded: an
internal error is logged to the client once and the server goes on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter

from evalschema import __version__, default_registry
from evalschema.judge.client import reset_breakers
from evalschema.judge.settings import configure_judges
from evalschema.project.config import find_config, load_config
from evalschema.rules.custom_modules import import_hint, load_entries
from evalschema.rules.registry import Registry

from . import handlers
from .diagnostic_store import DiagnosticStore, Encoded
from .evaluation.service import EvaluationService
from .files import in_thread
from .guard import guarded, log_to_client, report_once
from .jsonrpc import Protocol
from .judges import judge_settings
from .open_schemas import OpenSchemas
from .pygls_internals import send_json, send_text
from .settings import EvalSettings, Settings
from .store import DocumentStore
from .transport import StdioReader, serve
from .uris import file_path, uri_to_path

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
        converter = default_converter()  # type: ignore[no-untyped-call]
        super().__init__("evalschema", __version__, protocol_cls=Protocol,
                         converter_factory=lambda: converter,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        #: The converter pygls reads and writes messages with.
        self.converter = converter
        self.settings = Settings()
        self.registry: Registry = default_registry
        self.store = DocumentStore()
        self.schemas = OpenSchemas(self.store, self.registry, lambda: self.settings,
                                   self.spawn, self.log_error, self.show_checked)
        self.diagnostics = DiagnosticStore(self.send_raw, self.store, self.log_error)
        #: Debounce timers of each document's diagnostics, and of its parse.
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.warming: dict[str, asyncio.TimerHandle] = {}
        self.background: set[asyncio.Task[None]] = set()
        self.logged_errors: set[str] = set()
        #: Open documents over ``maxDocumentSize`` that were logged as such.
        self.large_noted: set[str] = set()
        #: Whether the client said the user trusts the workspace (initializationOptions
        #: ``workspaceTrusted``; only then is custom code imported).
        self.workspace_trusted = False
        self.untrusted_warned: tuple[str, ...] = ()
        self.pull_diagnostics = False
        self.snippets = False
        #: The position encoding negotiated at ``initialize`` (UTF-16 until then).
        self.encoding = "utf-16"
        self.root_path: str | None = None
        self.roots: list[Path] = []
        self.progress_tokens: dict[str, bool] = {}
        #: Set by the ``shutdown`` request: ``exit`` then ends the process with 0.
        self.shutdown_requested = False
        self.stop_reading: threading.Event | None = None
        self.evaluation = EvaluationService(self, self.store, self.diagnostics)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
                 ) -> int:
        """pygls's ``start_io`` with our framing (see ``transport``): malformed headers
        are reported and skipped, message sizes capped. Returns the exit code: 0 after
        ``shutdown``, else 1 (input ended, or ``exit`` came first), as LSP asks."""
        self.stop_reading = stop = threading.Event()
        reader = StdioReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(serve(stop, reader, self.protocol, self.report_framing))
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()
        return 0 if self.shutdown_requested else 1

    def shutdown(self) -> None:
        """Stop reading (pygls's ``shutdown`` stops only the readers it started)."""
        if self.stop_reading is not None:
            self.stop_reading.set()
        super().shutdown()  # type: ignore[no-untyped-call]

    def report_framing(self, message: str) -> None:
        log_to_client(self, types.MessageType.Error,
                      f"evalschema: malformed input from the client: {message}")

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    # -- what the evaluation service asks of the client ---------------------

    @property
    def eval_settings(self) -> EvalSettings:
        return self.settings.evaluation

    def notify(self, method: str, params: Any) -> None:
        self.send_raw(method, params)

    def send_raw(self, method: str, params: Any) -> None:
        """A notification whose params are plain JSON: diagnostics of a large data file
        are built as dicts, and sending them through lsprotocol's converter would cost
        more than building them (see evaluation/findings.py)."""
        diagnostics = params.get("diagnostics") if isinstance(params, dict) else None
        if isinstance(diagnostics, Encoded):  # its JSON is made: written as it is
            fields = [json.dumps(k) + ": " + (diagnostics.json if k == "diagnostics"
                                              else json.dumps(v)) for k, v in params.items()]
            send_text(self.protocol, '{"jsonrpc": "2.0", "method": ' + json.dumps(method)
                      + ', "params": {' + ", ".join(fields) + "}}")
            return
        send_json(self.protocol, {"jsonrpc": "2.0", "method": method, "params": params})

    def log_error(self, where: str, exc: BaseException) -> None:
        report_once(self, where, exc)

    def log_info(self, message: str) -> None:
        self.window_log_message(types.LogMessageParams(types.MessageType.Info,
                                                       f"evalschema: {message}"))

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

    def schemas_named(self, paths: set[Path]) -> None:
        """The configuration's schemas, as found again: they are eval schemas whatever
        their names (open ones are re-checked when this changes)."""
        named = {str(p) for p in paths}
        if named == self.schemas.configured:
            return
        self.schemas.configured = named
        self.schemas.analyses.clear()
        self.recheck_all()
        if self.pull_diagnostics:
            try:
                self.workspace_diagnostic_refresh(None)
            except Exception as exc:  # the client may not support refreshes
                report_once(self, "diagnostic refresh", exc)

    # -- when diagnostics are published ------------------------------------

    def schedule(self, uri: str, immediate: bool = False) -> None:
        """Publish ``uri``'s diagnostics after the debounce (at once when ``immediate``);
        pull clients ask for the schema checks themselves."""
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

    def stop_publishing(self) -> None:
        """Nothing is published after ``shutdown``: a debounced publish that fired while
        the event loop closes would write to a closed stream (and pygls, reporting that
        failure by writing again, would never end)."""
        for handle in (*self.pending.values(), *self.warming.values()):
            handle.cancel()
        self.pending.clear()
        self.warming.clear()

    def recheck_all(self) -> None:
        for uri in list(self.store.docs):
            self.schedule(uri, immediate=True)

    def publish(self, uri: str) -> None:
        self.pending.pop(uri, None)
        if self.pull_diagnostics:
            return
        self.diagnostics.publish(uri)
        self.schemas.release_pending()

    def warm(self, uri: str) -> None:
        self.warming.pop(uri, None)
        doc = self.store.get(uri)
        if doc is not None and self.schemas.might_be_schema(doc):
            try:
                self.schemas.analysis(uri)
            except Exception as exc:
                report_once(self, "parse", exc)

    def show_checked(self, uri: str) -> None:
        """A schema's deferred check is in: publish, or ask a pull client to pull."""
        if not self.pull_diagnostics:
            self.schedule(uri, immediate=True)
            return
        try:
            self.workspace_diagnostic_refresh(None)
        except Exception as exc:  # the client may not support refreshes
            report_once(self, "diagnostic refresh", exc)

    # -- settings -------------------------------------------------------------

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
        if named - self.schemas.configured:
            self.schemas.configured |= named
            self.schemas.analyses.clear()
            self.recheck_all()

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
        self.schemas.analyses.clear()
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


def _configured_schemas(roots: list[Path]) -> set[str]:
    """The schemas the configurations of ``roots`` name (on a worker thread)."""
    out: set[str] = set()
    for root in roots:
        found = find_config(root)
        loaded = load_config(found) if found is not None else None
        if loaded is not None and loaded.config is not None:
            out.update(str(s.schema.resolve()) for s in loaded.config.suites)
    return out


# -- lifecycle ------------------------------------------------------------------

def on_initialize(ls: EvalSchemaServer, params: types.InitializeParams) -> None:
    enc = ls.workspace.position_encoding  # pygls negotiated it before calling us
    ls.encoding = str(getattr(enc, "value", enc) or "utf-16")
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


async def on_initialized(ls: EvalSchemaServer, params: types.InitializedParams) -> None:
    try:
        await _pull_configuration(ls)
    finally:
        await ls.evaluation.start(ls.roots)


def on_shutdown(ls: EvalSchemaServer, params: None) -> None:
    ls.shutdown_requested = True
    ls.evaluation.shutdown()
    ls.stop_publishing()


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
        ls.recheck_all()


async def on_configuration(ls: EvalSchemaServer,
                           params: types.DidChangeConfigurationParams) -> None:
    if isinstance(params.settings, dict) and params.settings:
        ls.apply_settings(params.settings)
        ls.recheck_all()
    await _pull_configuration(ls)
    if ls.pull_diagnostics:
        ls.workspace_diagnostic_refresh(None)


async def folders(ls: EvalSchemaServer, params: types.DidChangeWorkspaceFoldersParams
                  ) -> None:
    removed = {file_path(f.uri) for f in params.event.removed}
    roots = [r for r in ls.roots if r not in removed]
    roots += [p for f in params.event.added if (p := file_path(f.uri)) is not None]
    ls.roots = roots
    await ls.evaluation.set_roots(roots)


def progress_cancel(ls: EvalSchemaServer, params: types.WorkDoneProgressCancelParams
                    ) -> None:
    """The user cancelled a run's work-done progress (see ``progress_begin``)."""
    ls.evaluation.scheduler.cancel_run(str(params.token))


def create_server() -> EvalSchemaServer:
    """The server with its lifecycle and every feature registered."""
    server = EvalSchemaServer()
    server.feature(types.INITIALIZE)(guarded()(on_initialize))
    server.feature(types.INITIALIZED)(guarded()(on_initialized))
    server.feature(types.SHUTDOWN)(guarded()(on_shutdown))
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(guarded()(on_configuration))
    server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(guarded()(folders))
    server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)(guarded()(progress_cancel))
    handlers.register_all(server)
    return server
