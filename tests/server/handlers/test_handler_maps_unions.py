"""Maps (additionalProperties/patternProperties) and anyOf branches in the editor:
completion and hover under them, and every ignored x-eval-* key as a located diagnostic."""

from __future__ import annotations

import json

from authoring_samples import URI, labels
from lsp_helpers import open_and_wait, position, span
from lsprotocol import types
from pytest_lsp import LanguageClient


async def _hover(client: LanguageClient, pos: types.Position) -> str:
    h = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(URI), pos))
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    return h.contents.value


async def _complete(client: LanguageClient, text: str, pos: types.Position) -> list[str]:
    await open_and_wait(client, URI, text)
    return labels(await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(URI), pos)))


async def test_completion_under_additional_properties(client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"skills": {"type": "object", '
            '"additionalProperties": {"type": "array", "items": {"type": "string"}, ""}}}}')
    got = await _complete(client, text, position(text, '""', delta=1))
    assert "x-eval-align" in got and "x-eval-transform" not in got
    # The map itself is an object: no leaf keys offered.
    text = ('{"type": "object", "properties": {"skills": {"type": "object", "": 1, '
            '"additionalProperties": {"type": "string"}}}}')
    got = await _complete(client, text, position(text, '""', delta=1))
    assert "x-eval-weight" in got and "x-eval-compare" in got
    assert "x-eval-transform" not in got and "x-eval-threshold" not in got


async def test_hover_on_a_map_and_its_values(client: LanguageClient) -> None:
    text = json.dumps({"type": "object", "properties": {"skills": {
        "type": "object", "additionalProperties": {
            "type": "string", "x-eval-compare": "levenshtein"}}}})
    await open_and_wait(client, URI, text)
    assert "a map: each key judged on its own, as `skills{}`" in await _hover(
        client, position(text, '"skills"', delta=2))
    value = await _hover(client, position(text, '"additionalProperties"', delta=2))
    assert "**skills{}**" in value and "comparator: `levenshtein" in value


async def test_hover_on_a_union_names_its_branches(client: LanguageClient) -> None:
    text = json.dumps({"type": "object", "properties": {"v": {"anyOf": [
        {"type": "string", "x-eval-compare": "date"},
        {"type": "integer", "x-eval-compare": "numeric"}]}}})
    await open_and_wait(client, URI, text)
    got = await _hover(client, position(text, '"v"', delta=1))
    assert "anyOf/0 (string): `date`" in got and "anyOf/1 (integer): `numeric`" in got


async def test_problems_under_maps_and_branches_and_ignored_keys_are_located(
        client: LanguageClient) -> None:
    text = json.dumps({"type": "object", "properties": {
        "m": {"type": "object", "additionalProperties": {"type": "string",
                                                         "x-eval-compare": "exct"}},
        "v": {"anyOf": [{"type": "string"}, {"type": "integer", "x-eval-compare": "numerc"}]},
        "n": {"type": "string", "not": {"x-eval-threshold": 0.5}},
    }}, indent=2)
    diags = await open_and_wait(client, URI, text)
    got = {(str(d.code), d.range.start.line, d.range.start.character) for d in diags}
    assert got == {
        ("unknown-comparator", span(text, '"exct"').start.line,
         span(text, '"exct"').start.character),
        ("unknown-comparator", span(text, '"numerc"').start.line,
         span(text, '"numerc"').start.character),
        ("ignored-key", span(text, '"x-eval-threshold"').start.line,
         span(text, '"x-eval-threshold"').start.character),
    }
    [ignored] = [d for d in diags if d.code == "ignored-key"]
    assert ignored.severity == types.DiagnosticSeverity.Warning
    assert "under not" in ignored.message
