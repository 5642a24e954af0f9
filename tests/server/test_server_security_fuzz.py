"""The language server over hostile documents: never a crash, never a hang, never a write.

One real server process (stdio, driven by pygls's client on a background event loop) serves a
workspace with a suite on disk. Hypothesis opens random text, random JSON and random eval
schemas as that suite's schema, gold and extracted documents (and as unrelated files), edits and
saves them (a save runs the suite on the editor's text), and asks for hovers, completions,
symbols, semantic tokens and code lenses at random places. Every request must be answered
within a budget, no internal error may be logged, the process must stay alive, and nothing on
disk may change.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from eval_workspace import write_suite
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsp_helpers import SERVER
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities

#: Seconds a request may take on a loaded two-core machine before it counts as a hang.
BUDGET_S = 20.0

T = TypeVar("T")

NASTY = st.sampled_from([
    "", "\x00", "\x1b[2J", "\ud800", "\udfff", "\u2028", "\u0085", "\r", "\r\n", "\ufeff",
    "{" * 2000, "[" * 2000, '"' * 500, "9" * 5000, "💥" * 50, "\t" * 100,
    '{"x-eval-compare": {"regex": {"pattern": "^(a+)+$"}}}', '{"$ref": "/dev/zero"}',
])
TEXT = st.one_of(st.text(max_size=200), NASTY,
                 st.lists(st.one_of(st.text(max_size=30), NASTY), max_size=8).map("".join))
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(st.text(max_size=10), st.sampled_from([
                                "type", "properties", "items", "x-eval-compare",
                                "x-eval-transform", "x-eval-align", "x-eval-skip", "$ref",
                                "x-eval-weight", "x-eval-id", "anyOf"])), inner, max_size=4)),
    max_leaves=20)
DOCUMENTS = st.one_of(
    TEXT,
    JSON_VALUES.map(lambda v: json.dumps(v, indent=1)),
    st.lists(JSON_VALUES, max_size=5).map(lambda rows: "\n".join(json.dumps(r) for r in rows)),
)
#: Which document the text is opened as: the suite's own files (so saves run it) or others.
TARGETS = st.sampled_from(["shop.eval.json", "shop.gold.jsonl", "shop.run1.extracted.jsonl",
                           "other.eval.json", "notes.json", "data.jsonl"])


def _disk(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


class Session:
    """A server process and a client whose event loop runs on its own thread, so that
    hypothesis (synchronous) can drive it and bound every wait."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.disk = _disk(workspace)
        self.errors: list[str] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client: LanguageClient = self.call(self._start())
        self.version = 0

    def call(self, coro: Coroutine[Any, Any, T], budget: float = BUDGET_S) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(budget)

    async def _start(self) -> LanguageClient:
        client = LanguageClient()

        @client.feature(types.WINDOW_LOG_MESSAGE)
        def log(params: types.LogMessageParams) -> None:
            if params.type == types.MessageType.Error and "internal error" in params.message:
                self.errors.append(params.message)

        await client.start_io(*SERVER, cwd=str(self.workspace))
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=self.workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(self.workspace.as_uri(), "ws")]))
        return client

    def alive(self) -> bool:
        server = self.client._server
        return server is not None and server.returncode is None

    def close(self) -> None:
        try:
            self.call(self.client.shutdown_session(), 10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    workspace = tmp_path_factory.mktemp("fuzz-ws")
    write_suite(workspace, config=True)
    s = Session(workspace)
    yield s
    s.close()


def _position(text: str, fraction: float) -> types.Position:
    """A position inside (or just past) ``text``, in UTF-16 units as LSP counts them."""
    lines = text.split("\n")
    line = min(int(fraction * len(lines)), len(lines) - 1)
    units = len(lines[line].encode("utf-16-le", "surrogatepass")) // 2
    return types.Position(line, int(fraction * (units + 1)))


async def _exercise(client: LanguageClient, uri: str, version: int, first: str, second: str,
                    where: list[float], save: bool) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", version, first)))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
        [types.TextDocumentContentChangeWholeDocument(text=second)]))
    doc = types.TextDocumentIdentifier(uri)
    if save:
        # A save runs the suite on the editor's text; running it by command as well waits
        # for that run, so a hang or an internal error in the evaluation shows here.
        client.text_document_did_save(types.DidSaveTextDocumentParams(doc))
        with contextlib.suppress(JsonRpcException):  # an answered error is not a hang
            await client.workspace_execute_command_async(types.ExecuteCommandParams(
                "evalschema.server.runSuite", [{"suite": "shop-suite"}]))
    for fraction in where:
        pos = _position(second, fraction)
        await client.text_document_hover_async(types.HoverParams(doc, pos))
        await client.text_document_completion_async(types.CompletionParams(doc, pos))
        await client.text_document_definition_async(types.DefinitionParams(doc, pos))
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
    await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(doc))
    await client.text_document_code_lens_async(types.CodeLensParams(doc))
    await client.text_document_inlay_hint_async(types.InlayHintParams(
        doc, types.Range(types.Position(0, 0), _position(second, 1.0))))
    client.text_document_did_close(types.DidCloseTextDocumentParams(doc))


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(target=TARGETS, first=DOCUMENTS, second=DOCUMENTS,
       where=st.lists(st.floats(0, 1), min_size=1, max_size=3), save=st.booleans())
def test_hostile_documents_never_crash_hang_or_write(session: Session, target: str, first: str,
                                                     second: str, where: list[float],
                                                     save: bool) -> None:
    session.version += 2
    uri = (session.workspace / target).as_uri()
    session.call(_exercise(session.client, uri, session.version, first, second, where, save))
    assert session.alive(), "the server process exited"
    assert not session.errors, session.errors[0]
    assert _disk(session.workspace) == session.disk


def test_the_session_still_answers_after_the_fuzz(session: Session) -> None:
    """Runs after the fuzz in this module: the server still scores the suite on disk."""
    uri = (session.workspace / "shop.eval.json").as_uri()
    text = (session.workspace / "shop.eval.json").read_text(encoding="utf-8")
    pos = _position(text, 0.3)

    async def hover() -> types.Hover | None:
        client = session.client
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, "json", 10_000, text)))
        found = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), pos))
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            types.TextDocumentIdentifier(uri)))
        return found

    session.call(hover())
    assert session.alive()
    assert not session.errors
