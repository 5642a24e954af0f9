"""End-to-end: hover in an eval schema (handlers/hover.py; hover on results: evaluation/test_evaluation_editor_e2e.py)."""

from __future__ import annotations

from authoring_samples import URI
from lsp_helpers import open_and_wait, position
from lsprotocol import types
from pytest_lsp import LanguageClient


async def test_hover_docs_and_effective_config(client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"total": {"type": "number", "x-eval-weight": 3, '
            '"x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}}, '
            '"name": {"type": "string", "x-eval-compare": "levenshtein", '
            '"x-eval-transform": ["strip"]}}}')
    await open_and_wait(client, URI, text)

    async def hover_at(pos: types.Position) -> str:
        h = await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(URI), pos))
        assert h is not None and isinstance(h.contents, types.MarkupContent)
        return h.contents.value

    assert "Normalized Levenshtein" in await hover_at(position(text, '"levenshtein"', delta=3))
    assert "Transforms applied" in await hover_at(position(text, '"x-eval-transform"', delta=3))
    assert "Remove leading" in await hover_at(position(text, '"strip"', delta=2))
    config = await hover_at(position(text, '"total"', delta=2))
    assert "comparator: `numeric, rel 1%`" in config
    assert "weight: 3" in config
