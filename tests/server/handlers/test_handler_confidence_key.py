"""End-to-end: ``x-eval-confidence`` in the editor, from the keyword table alone: completion
(with its snippet), hover (its doc) and a bad value as a located diagnostic."""

from __future__ import annotations

from authoring_samples import URI
from lsp_helpers import open_and_wait, position, span
from lsprotocol import types
from pytest_lsp import LanguageClient


async def test_completion_offers_the_key_on_leaves_and_the_root(client: LanguageClient) -> None:
    for text in ('{"type": "object", "properties": {"total": {"type": "number", ""}}}',
                 '{"type": "object", "properties": {"total": {"type": "number"}}, ""}'):
        await open_and_wait(client, URI, text)
        result = await client.text_document_completion_async(types.CompletionParams(
            types.TextDocumentIdentifier(URI), position(text, '""', delta=1)))
        assert isinstance(result, types.CompletionList)
        item = next(i for i in result.items if i.label == "x-eval-confidence")
        assert isinstance(item.text_edit, types.TextEdit)
        assert item.text_edit.new_text == '"x-eval-confidence": "${1:{key\\}_confidence}"'
        assert item.text_edit.range == span(text, '""')


async def test_hover_shows_the_keys_doc(client: LanguageClient) -> None:
    text = ('{"type": "object", "x-eval-confidence": "/confidence/{path}", '
            '"properties": {"total": {"type": "number"}}}')
    assert await open_and_wait(client, URI, text) == []
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(URI), position(text, '"x-eval-confidence"', delta=3)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value.startswith(
        "**x-eval-confidence**\n\nWhere this field's confidence sits in the extracted record")


async def test_a_bad_value_is_a_diagnostic_on_the_value(client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"total": {"type": "number", '
            '"x-eval-confidence": "/c{path}"}}}')
    diags = await open_and_wait(client, URI, text)
    assert [(d.code, d.range, d.severity, d.message) for d in diags] == [(
        "bad-confidence", span(text, '"/c{path}"'), types.DiagnosticSeverity.Error,
        'x-eval-confidence: {path} must stand for whole segments ("/confidence/{path}") '
        '(e.g. "{key}_confidence" (a sibling key) or "/confidence/{path}" (a parallel '
        'object))')]
