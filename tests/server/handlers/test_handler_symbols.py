"""End-to-end: the outline of a schema (handlers/symbols.py)."""

from __future__ import annotations

from authoring_samples import URI
from lsp_helpers import open_and_wait, span
from lsprotocol import types
from pytest_lsp import LanguageClient


async def test_document_symbols_outline(client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"vendor": {"type": "object", "properties": '
            '{"name": {"type": "string", "x-eval-compare": "normalized"}}}, '
            '"total": {"type": "number"}}}')
    await open_and_wait(client, URI, text)
    result = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        types.TextDocumentIdentifier(URI)))
    assert result is not None
    syms = [s for s in result if isinstance(s, types.DocumentSymbol)]
    assert [(s.name, s.detail) for s in syms] == [("vendor", None), ("total", "numeric")]
    assert syms[0].children is not None
    assert [(c.name, c.detail) for c in syms[0].children] == [("name", "normalized")]
    assert syms[1].selection_range == span(text, '"total"')
