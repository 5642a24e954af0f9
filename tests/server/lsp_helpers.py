"""Helpers for driving the server through a real LSP client (pytest-lsp)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from evalschema_server.document import LineIndex

SERVER = [sys.executable, "-P", "-m", "evalschema_server"]  # -P: as the editors run it


def position(text: str, needle: str, nth: int = 0, delta: int = 0) -> types.Position:
    """LSP position (UTF-16) of the nth occurrence of ``needle`` plus ``delta`` characters."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    index += delta
    line = text.count("\n", 0, index)
    line_start = text.rfind("\n", 0, index) + 1
    col = len(text[line_start:index].encode("utf-16-le")) // 2
    return types.Position(line, col)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    """``text`` with LSP edits (UTF-16 positions) applied, as an editor applies them."""
    lines = LineIndex(text)
    spans = [(lines.offset(e.range.start.line, e.range.start.character, "utf-16"),
              lines.offset(e.range.end.line, e.range.end.character, "utf-16"), e.new_text)
             for e in edits]
    for start, end, new in sorted(spans, key=lambda s: -s[0]):
        text = text[:start] + new + text[end:]
    return text


def span(text: str, needle: str, nth: int = 0) -> types.Range:
    start = position(text, needle, nth)
    end = position(text, needle, nth, len(needle))
    return types.Range(start, end)


async def start(lsp_client: LanguageClient, capabilities: types.ClientCapabilities,
                options: dict[str, Any] | None = None) -> None:
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri="file:///tmp/evalschema-tests",
        initialization_options=options))


async def open_and_wait(client: LanguageClient, uri: str, text: str,
                        language_id: str = "json") -> list[types.Diagnostic]:
    fut = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, language_id, 1, text)))
    await asyncio.wait_for(fut, 10)
    return list(client.diagnostics.get(uri, []))


async def change_and_wait(client: LanguageClient, uri: str, version: int,
                          changes: list[Any]) -> list[types.Diagnostic]:
    fut = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version), changes))
    await asyncio.wait_for(fut, 10)
    return list(client.diagnostics.get(uri, []))
