"""End-to-end: semantic tokens (handlers/tokens.py)."""

from __future__ import annotations

from authoring_samples import URI
from lsp_helpers import open_and_wait, position
from lsprotocol import types
from pytest_lsp import LanguageClient


async def test_semantic_tokens_mark_xeval_keys(client: LanguageClient) -> None:
    text = '{"type": "object",\n "properties": {"a": {"x-eval-compare": "exact"}}}'
    await open_and_wait(client, URI, text)
    result = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(
        types.TextDocumentIdentifier(URI)))
    assert result is not None
    start = position(text, '"x-eval-compare"')
    assert list(result.data) == [start.line, start.character, len('"x-eval-compare"'), 0, 0]
