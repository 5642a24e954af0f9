"""End-to-end: go to definition of a $ref (handlers/definition.py; from results: evaluation/test_evaluation_editor_e2e.py)."""

from __future__ import annotations

from authoring_samples import URI
from lsp_helpers import open_and_wait, position
from lsprotocol import types
from pytest_lsp import LanguageClient


async def test_definition_of_a_ref(client: LanguageClient) -> None:
    text = ('{"$defs": {"money": {"type": "number"}}, "type": "object", '
            '"properties": {"total": {"$ref": "#/$defs/money"}}}')
    await open_and_wait(client, URI, text)
    loc = await client.text_document_definition_async(types.DefinitionParams(
        types.TextDocumentIdentifier(URI), position(text, "#/$defs", delta=2)))
    assert isinstance(loc, types.Location)
    assert loc.range.start == position(text, '"money"')
