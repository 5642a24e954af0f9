"""A client session for the evaluation's end-to-end tests: a real LSP client over stdio
(pytest-lsp) that records every notification in arrival order, with helpers to wait for
runs and diagnostics (every wait polls with a timeout) and to open, edit and save files.
Each test boots the session itself (folders and settings differ), through ``Session.boot``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_lsp
from lsp_helpers import SERVER
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

CMD = "evalschema.server."
TIMEOUT = 15.0
#: A cancelled slow run (4,000 records sleeping 5 ms each, 20 s in all) must end before
#: this many seconds from its start; only a run that was not stopped reaches it.
STOPPED_EARLY = 15.0
QUEUED = "evalschema/runQueued"
STARTED = "evalschema/runStarted"
FINISHED = "evalschema/runFinished"
SUITES_CHANGED = "evalschema/suitesChanged"
PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS


# -- the client side ----------------------------------------------------------------

def read_code_actions_as_the_spec_says(lsp: Session) -> None:
    """lsprotocol's client reads any code action that has a ``command`` as a Command, but
    a CodeAction's ``command`` is an object, a Command's a string (LSP 3.17): tell them
    apart by that, as VS Code does."""
    converter = lsp.client.protocol._converter

    def hook(obj: Any, _: type) -> types.Command | types.CodeAction:
        kind = types.Command if isinstance(obj.get("command"), str) else types.CodeAction
        return converter.structure(obj, kind)  # type: ignore[no-any-return]

    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007


def plain(value: Any) -> Any:
    """Custom notifications arrive as namedtuples: back to JSON-like values."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


class Session:
    """The client, with everything it received in arrival order."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        #: (monotonic time, method, params) of every notification from the server.
        self.events: list[tuple[float, str, Any]] = []
        self.versions: dict[str, int] = {}
        client.feature(QUEUED)(lambda params: None)
        client.feature(STARTED)(lambda params: None)
        client.feature(FINISHED)(lambda params: None)
        client.feature(SUITES_CHANGED)(lambda params: None)
        proto = client.protocol
        original = proto._handle_notification

        def record(method: str, params: Any) -> None:
            value = params if method.startswith(("textDocument/", "$/", "window/")) \
                else plain(params)
            self.events.append((time.monotonic(), method, value))
            original(method, params)

        proto._handle_notification = record  # type: ignore[method-assign]

    # -- what arrived -----------------------------------------------------------

    @property
    def mark(self) -> int:
        return len(self.events)

    def _of(self, method: str, since: int) -> list[tuple[float, Any]]:
        return [(t, p) for t, m, p in self.events[since:] if m == method]

    def finished(self, since: int = 0, key: str | None = None,
                 cancelled: bool | None = None) -> list[dict[str, Any]]:
        return [p for _, p in self._of(FINISHED, since)
                if (key is None or p["suite"]["key"] == key)
                and (cancelled is None or p["cancelled"] is cancelled)]

    def started(self, since: int = 0, key: str | None = None) -> list[dict[str, Any]]:
        return [p for _, p in self._of(STARTED, since) if key is None or p["key"] == key]

    def queued(self, since: int = 0, key: str | None = None) -> list[dict[str, Any]]:
        return [p for _, p in self._of(QUEUED, since) if key is None or p["key"] == key]

    def publishes(self, path: Path, since: int = 0) -> list[types.PublishDiagnosticsParams]:
        uri = path.as_uri()
        return [p for _, p in self._of(PUBLISH, since) if p.uri == uri]

    def diags(self, path: Path) -> list[types.Diagnostic]:
        return list(self.client.diagnostics.get(path.as_uri(), []))

    async def until(self, what: str, check: Callable[[], Any], timeout: float = TIMEOUT
                    ) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            got = check()
            if got:
                return got
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
            await asyncio.sleep(0.02)

    async def run_finished(self, since: int, key: str | None = None, *,
                           cancelled: bool | None = False, timeout: float = TIMEOUT
                           ) -> dict[str, Any]:
        got = await self.until(f"runFinished (suite {key or 'any'}, cancelled={cancelled})",
                               lambda: self.finished(since, key, cancelled), timeout)
        return got[0]  # type: ignore[no-any-return]

    # -- what is sent -----------------------------------------------------------

    async def boot(self, folders: list[Path], options: dict[str, Any] | None = None, *,
                   progress: bool = True) -> None:
        caps = client_capabilities("visual-studio-code")
        if not progress and caps.window is not None:
            caps.window.work_done_progress = False
        await self.client.initialize_session(types.InitializeParams(
            capabilities=caps, root_uri=folders[0].as_uri(),
            workspace_folders=[types.WorkspaceFolder(f.as_uri(), f.name) for f in folders],
            initialization_options=options))

    async def command(self, name: str, arg: dict[str, Any] | None = None) -> Any:
        return await self.client.workspace_execute_command_async(types.ExecuteCommandParams(
            CMD + name, [arg or {}]))

    async def suite_keys(self) -> list[str]:
        listed = await self.command("listSuites")
        return sorted(s["key"] for s in listed["suites"])

    async def discovered(self, *keys: str) -> None:
        """Wait until the server knows the suites ``keys`` (it finds them after
        ``initialized``, off the event loop)."""
        deadline = time.monotonic() + TIMEOUT
        while not set(keys) <= set(await self.suite_keys()):
            if time.monotonic() > deadline:
                raise AssertionError(f"suites {keys} not discovered")
            await asyncio.sleep(0.02)

    def open(self, path: Path, language_id: str = "jsonl") -> str:
        uri = path.as_uri()
        self.versions[uri] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            # as the editor opens it: the line endings kept (read_text would turn CRLF to LF)
            types.TextDocumentItem(uri, language_id, 1, path.read_bytes().decode("utf-8"))))
        return uri

    def edit(self, path: Path, rng: types.Range, text: str) -> None:
        uri = path.as_uri()
        self.versions[uri] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            [types.TextDocumentContentChangePartial(range=rng, text=text)]))

    async def code_actions(self, path: Path, diags: list[types.Diagnostic]
                           ) -> list[types.CodeAction]:
        """The code actions on ``diags`` of ``path`` (at the first one's range)."""
        read_code_actions_as_the_spec_says(self)
        got = await self.client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(path.as_uri()), diags[0].range,
            types.CodeActionContext(diagnostics=diags)))
        return [a for a in got or [] if isinstance(a, types.CodeAction)]

    def save(self, path: Path) -> None:
        self.client.text_document_did_save(types.DidSaveTextDocumentParams(
            types.TextDocumentIdentifier(path.as_uri())))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def session_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    """The client; each test initializes the session itself (folders and settings
    differ), through ``Session.boot``."""
    lsp_client.session = Session(lsp_client)  # type: ignore[attr-defined]
    yield
    server = lsp_client._server
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(lsp_client.shutdown_session(), 10)
    if server is not None and server.returncode is None and (
            lsp_client.capabilities is None or lsp_client.error is not None):
        server.terminate()  # never initialized (or broken): no exit request was sent


@pytest.fixture
def lsp(session_client: LanguageClient) -> Session:
    return session_client.session  # type: ignore[attr-defined,no-any-return]
