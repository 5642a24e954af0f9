"""End-to-end: the schema checks as diagnostics, pushed and pulled (handlers/diagnostics.py)."""

from __future__ import annotations

import asyncio
import json

import pytest_lsp
from authoring_samples import SCHEMA, URI
from lsp_helpers import SERVER, change_and_wait, open_and_wait, span, start
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities


def by_code(diags: list[types.Diagnostic]) -> dict[str, types.Diagnostic]:
    return {str(d.code): d for d in diags}


async def test_diagnostics_on_the_exact_node(client: LanguageClient) -> None:
    diags = by_code(await open_and_wait(client, URI, SCHEMA))
    assert set(diags) == {"unknown-comparator", "unknown-key", "align-key-unknown"}
    comp = diags["unknown-comparator"]
    assert comp.range == span(SCHEMA, '"levenstein"')
    assert comp.severity == types.DiagnosticSeverity.Error
    assert comp.source == "evalschema"
    assert "did you mean 'levenshtein'?" in comp.message
    assert diags["unknown-key"].range == span(SCHEMA, '"x-eval-compar"')
    assert diags["align-key-unknown"].range == span(SCHEMA, '"skuu"')


async def test_syntax_errors_and_fixes_clear_diagnostics(client: LanguageClient) -> None:
    text = '{"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": "exct"}}'
    diags = await open_and_wait(client, URI, text)
    codes = {str(d.code) for d in diags}
    assert "unknown-comparator" in codes
    assert any(d.code == "missing-close-brace" for d in diags), diags
    fixed = text.replace('"exct"', '"exact"') + "}"
    diags = await change_and_wait(client, URI, 2, [types.TextDocumentContentChangeWholeDocument(
        fixed)])
    assert diags == []


async def test_incremental_edit_after_emoji_and_line_separator(client: LanguageClient) -> None:
    text = ('{"description": "naïve 😀 \u2028 text", "type": "object",\n'
            ' "properties": {"a": {"type": "string", "x-eval-compare": "exact"}}}')
    assert await open_and_wait(client, URI, text) == []
    where = span(text, '"exact"')
    diags = await change_and_wait(client, URI, 2, [types.TextDocumentContentChangePartial(
        range=where, text='"exakt"')])
    assert len(diags) == 1, diags
    [diag] = diags
    assert diag.code == "unknown-comparator"
    assert diag.range == where


async def test_utf16_columns_count_emoji_as_two(client: LanguageClient) -> None:
    text = '{"title": "😀😀", "type": "object", "x-eval-bogus": 1, "properties": {}}'
    [diag] = await open_and_wait(client, URI, text)
    assert diag.range.start == types.Position(0, text.index('"x-eval-bogus"') + 2)


async def test_close_clears_diagnostics(client: LanguageClient) -> None:
    await open_and_wait(client, URI, SCHEMA)
    fut = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        types.TextDocumentIdentifier(URI)))
    await asyncio.wait_for(fut, 10)
    assert list(client.diagnostics[URI]) == []


async def test_plain_json_is_left_alone(client: LanguageClient) -> None:
    uri = "file:///tmp/evalschema-tests/package.json"
    diags = await open_and_wait(client, uri, '{"name": "x", "version": 1,}')
    assert diags == []


async def test_content_with_xeval_keys_is_recognised(client: LanguageClient) -> None:
    uri = "file:///tmp/evalschema-tests/schema.json"
    diags = await open_and_wait(client, uri, '{"type": "object", "x-eval-skp": true}')
    assert [d.code for d in diags] == ["unknown-key"]


async def test_the_vscode_eval_schema_language_is_json_to_the_server(
        client: LanguageClient) -> None:
    """VS Code opens eval schemas in its own language (``evalschema``), and the inferred
    schema as an untitled document in it: both are checked like JSON ones."""
    diags = await open_and_wait(client, "untitled:Untitled-1",
                                '{"type": "object", "x-eval-skp": true}', "evalschema")
    assert [d.code for d in diags] == ["unknown-key"]
    other = "file:///tmp/evalschema-tests/notes.md"  # not JSON: left alone, x-eval or not
    assert await open_and_wait(client, other, '{"x-eval-skp": true}', "markdown") == []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def pull_client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities()
    await start(lsp_client, caps)
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_pull_diagnostics_when_the_client_supports_them(pull_client: LanguageClient
                                                              ) -> None:
    pull_client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(URI, "json", 1, SCHEMA)))
    report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        types.TextDocumentIdentifier(URI)))
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert {str(d.code) for d in report.items} == {"unknown-comparator", "unknown-key",
                                                    "align-key-unknown"}
    await asyncio.sleep(0.4)
    assert URI not in pull_client.diagnostics  # nothing pushed on top


async def test_a_mistyped_nested_parameter_is_a_diagnostic_on_its_key(
        client: LanguageClient) -> None:
    """The engine's check, through the server: ``tolerance.rell`` is not silently ignored."""
    text = ('{"type": "object", "properties": {"total": {"type": "number", '
            '"x-eval-compare": {"numeric": {"tolerance": {"rell": 0.01}}}}}}')
    [diag] = await open_and_wait(client, URI, text)
    assert diag.code == "unknown-param"
    assert diag.range == span(text, '"rell"')
    assert diag.severity == types.DiagnosticSeverity.Error
    assert "tolerance.rell" in diag.message and "did you mean 'rel'?" in diag.message
    fixed = text.replace('"rell"', '"rel"')
    assert await change_and_wait(client, URI, 2, [
        types.TextDocumentContentChangeWholeDocument(fixed)]) == []


async def test_parameters_below_a_name_are_diagnostics_on_themselves(
        client: LanguageClient) -> None:
    """A transform's or comparator's parameter, with the field two levels deep and in a
    union branch: each diagnostic covers the parameter's own value (or key, for an unknown
    one), not the transform or comparator around it."""
    fields = {
        "a": {"type": "number", "x-eval-transform": [{"round_digits": {"digits": "two"}}]},
        "b": {"type": "string", "x-eval-transform": ["strip", {"normalize_unicode": {
            "from": "NFC"}}]},
        "c": {"anyOf": [{"type": "string", "x-eval-compare": "exact"}, {
            "type": "number", "x-eval-transform": [{"round_digits": {"digits": 1.5}}]}]},
        "d": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": "1%"}}}},
        "e": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01,
                                                                             "pct": 1}}}},
    }
    text = json.dumps({"type": "object", "properties": {"lines": {"type": "array", "items": {
        "type": "object", "properties": fields}}}}, indent=1)
    diags = await open_and_wait(client, URI, text)
    got = sorted((str(d.code), d.range.start.line, d.range.start.character,
                  d.range.end.line, d.range.end.character) for d in diags)
    want = [(code, r.start.line, r.start.character, r.end.line, r.end.character)
            for code, r in [("bad-param", span(text, '"two"')),
                            ("unknown-param", span(text, '"from"')),
                            ("bad-param", span(text, "1.5")),
                            ("bad-param", span(text, '"1%"')),
                            ("unknown-param", span(text, '"pct"'))]]
    assert got == sorted(want)
    assert all(d.severity == types.DiagnosticSeverity.Error for d in diags)


async def test_an_extract_bench_schema_is_recognised_by_its_evaluation_config(
        client: LanguageClient) -> None:
    """A resume-schema.json with no x-eval key: its wrapper and evaluation_config notes
    are shown rather than the file being left alone."""
    uri = "file:///tmp/evalschema-tests/resume-schema.json"
    text = ('{"name": "r", "description": "d", "schema_definition": {"type": "object", '
            '"properties": {"bio": {"type": "string", "evaluation_config": "string_semantic"}'
            '}}}')
    diags = by_code(await open_and_wait(client, uri, text))
    assert set(diags) == {"extract-bench-wrapper", "evaluation-config-untranslated"}
    assert diags["evaluation-config-untranslated"].severity == \
        types.DiagnosticSeverity.Warning
    assert diags["evaluation-config-untranslated"].range == span(text, '"string_semantic"')
