"""End-to-end: writing eval schemas through a real LSP client (pytest-lsp over stdio)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import SERVER, change_and_wait, open_and_wait, position, span, start
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

URI = "file:///tmp/evalschema-tests/invoice.eval.json"

SCHEMA = """{
  "type": "object",
  "x-eval-id": "id",
  "properties": {
    "id": {"type": "string"},
    "name": {"type": "string", "x-eval-compare": "levenstein"},
    "total": {"type": "number", "x-eval-compar": "numeric"},
    "items": {
      "type": "array",
      "x-eval-align": {"match_by": "key_field", "key": "skuu"},
      "items": {"type": "object", "properties": {"sku": {"type": "string"}}}
    }
  }
}
"""


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


def labels(result: types.CompletionList | list[types.CompletionItem] | None) -> list[str]:
    items = result.items if isinstance(result, types.CompletionList) else result or []
    return [i.label for i in items]


async def complete_at(client: LanguageClient, text: str, pos: types.Position
                      ) -> types.CompletionList | list[types.CompletionItem] | None:
    await open_and_wait(client, URI, text)
    return await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(URI), pos))


async def test_key_completion_fits_the_node_type(client: LanguageClient) -> None:
    text = '{"type": "object", "properties": {"name": {"type": "string", ""}}}'
    got = labels(await complete_at(client, text, position(text, '""', delta=1)))
    assert "x-eval-compare" in got and "x-eval-transform" in got and "x-eval-threshold" in got
    assert "x-eval-align" not in got and "x-eval-id" not in got
    text = '{"type": "object", "properties": {"xs": {"type": "array", "items": {}, ""}}}'
    got = labels(await complete_at(client, text, position(text, '""', delta=1)))
    assert "x-eval-align" in got and "x-eval-transform" not in got


async def test_root_offers_xeval_id(client: LanguageClient) -> None:
    text = '{"type": "object", "": 1, "properties": {"a": {"type": "string"}}}'
    got = labels(await complete_at(client, text, position(text, '""', delta=1)))
    assert "x-eval-id" in got


async def test_comparator_names_at_value_position(client: LanguageClient) -> None:
    text = '{"type": "object", "properties": {"n": {"type": "number", "x-eval-compare": "nu"}}}'
    result = await complete_at(client, text, position(text, '"nu"', delta=3))
    assert isinstance(result, types.CompletionList)
    names = labels(result)
    for name in ("exact", "numeric", "levenshtein", "date", "semantic"):
        assert name in names
    numeric = next(i for i in result.items if i.label == "numeric")
    assert isinstance(numeric.text_edit, types.TextEdit)
    assert numeric.text_edit.new_text == '"numeric"'
    assert numeric.text_edit.range == span(text, '"nu"')
    assert isinstance(numeric.documentation, types.MarkupContent)
    assert "tolerance" in numeric.documentation.value
    # numeric fits a number field; levenshtein does not and sorts after it
    lev = next(i for i in result.items if i.label == "levenshtein")
    assert (numeric.sort_text or "") < (lev.sort_text or "")
    regex = next(i for i in result.items if i.label == "regex {…}")
    assert regex.insert_text_format == types.InsertTextFormat.Snippet
    assert isinstance(regex.text_edit, types.TextEdit)
    assert regex.text_edit.new_text == '{"regex": {"pattern": "${1}"}}'


async def test_transform_names_in_arrays(client: LanguageClient) -> None:
    text = '{"type": "object", "properties": {"s": {"type": "string", "x-eval-transform": ["st"]}}}'
    got = labels(await complete_at(client, text, position(text, '"st"', delta=3)))
    assert {"strip", "lowercase", "round_digits", "round_digits {…}"} <= set(got)


async def test_alignment_strategies_and_key_candidates(client: LanguageClient) -> None:
    base = ('{"type": "object", "properties": {"xs": {"type": "array", "x-eval-align": '
            '{"match_by": "MB", "key": "KY"}, "items": {"type": "object", "properties": '
            '{"sku": {"type": "string"}, "qty": {"type": "number"}}}}}}')
    got = labels(await complete_at(client, base, position(base, '"MB"', delta=1)))
    assert got == ["ordered", "key_field", "hungarian", "set"]
    got = labels(await complete_at(client, base, position(base, '"KY"', delta=1)))
    assert got == ["sku", "qty"]


async def test_parameter_names_inside_comparator_params(client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"n": {"type": "number", "x-eval-compare": '
            '{"numeric": {""}}}}}')
    got = labels(await complete_at(client, text, position(text, '{""}', delta=2)))
    assert got == ["tolerance", "partial"]


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


async def test_quick_fix_did_you_mean_applies_cleanly(client: LanguageClient) -> None:
    diags = await open_and_wait(client, URI, SCHEMA)
    target = next(d for d in diags if d.code == "unknown-comparator")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(URI), target.range, types.CodeActionContext([target])))
    assert actions is not None
    fix = next(a for a in actions if isinstance(a, types.CodeAction)
               and a.title == "Change to 'levenshtein'")
    assert fix.is_preferred
    assert fix.edit is not None and fix.edit.changes is not None
    [edit] = fix.edit.changes[URI]
    assert edit.range == target.range and edit.new_text == '"levenshtein"'
    fixed = SCHEMA.replace('"levenstein"', '"levenshtein"')
    after = await change_and_wait(client, URI, 2, [types.TextDocumentContentChangePartial(
        edit.range, edit.new_text)])
    assert "unknown-comparator" not in {d.code for d in after}
    assert len(after) == 2
    del fixed


async def test_quick_fix_inserts_required_parameters(client: LanguageClient) -> None:
    text = '{"type": "object", "properties": {"c": {"type": "string", "x-eval-compare": "regex"}}}'
    [diag] = await open_and_wait(client, URI, text)
    assert diag.code == "missing-param"
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(URI), diag.range, types.CodeActionContext([diag])))
    assert actions is not None
    fix = next(a for a in actions if isinstance(a, types.CodeAction)
               and a.title.startswith("Add required parameter"))
    assert fix.edit is not None and fix.edit.changes is not None
    [edit] = fix.edit.changes[URI]
    assert edit.new_text == '{"regex": {"pattern": ""}}'
    after = await change_and_wait(client, URI, 2, [types.TextDocumentContentChangePartial(
        edit.range, edit.new_text)])
    assert after == []


async def test_skip_and_annotate_actions(client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"a": {"type": "string"}, '
            '"n": {"type": "number", "x-eval-compare": "bogus"}}}')
    [diag] = await open_and_wait(client, URI, text)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(URI), diag.range, types.CodeActionContext([diag])))
    assert actions is not None
    titles = [a.title for a in actions]
    assert "Skip this field (x-eval-skip)" in titles
    annotate = next(a for a in actions if isinstance(a, types.CodeAction)
                    and a.title.startswith("Annotate schema"))
    assert annotate.kind == types.CodeActionKind.Source
    assert annotate.edit is not None and annotate.edit.changes is not None
    [edit] = annotate.edit.changes[URI]
    assert edit.new_text == '"x-eval-compare": "exact", '
    assert edit.range.start == position(text, '"type": "string"')


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


async def test_definition_of_a_ref(client: LanguageClient) -> None:
    text = ('{"$defs": {"money": {"type": "number"}}, "type": "object", '
            '"properties": {"total": {"$ref": "#/$defs/money"}}}')
    await open_and_wait(client, URI, text)
    loc = await client.text_document_definition_async(types.DefinitionParams(
        types.TextDocumentIdentifier(URI), position(text, "#/$defs", delta=2)))
    assert isinstance(loc, types.Location)
    assert loc.range.start == position(text, '"money"')


async def test_semantic_tokens_mark_xeval_keys(client: LanguageClient) -> None:
    text = '{"type": "object",\n "properties": {"a": {"x-eval-compare": "exact"}}}'
    await open_and_wait(client, URI, text)
    result = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(
        types.TextDocumentIdentifier(URI)))
    assert result is not None
    start = position(text, '"x-eval-compare"')
    assert list(result.data) == [start.line, start.character, len('"x-eval-compare"'), 0, 0]


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


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def custom_client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
                        ):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("project")
    (folder / "my_comparators.py").write_text(
        "from evalschema import register_comparator, register_strategy\n"
        "register_comparator('iban', lambda g, e, p: float(g.replace(' ', '') == "
        "e.replace(' ', '')), doc='IBANs equal ignoring spaces.', types=['string', 'null'])\n"
        "register_strategy('reversed', lambda g, e, p: [], doc='Pairs from opposite ends.')\n")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=folder.as_uri(),
        initialization_options={"comparatorModules": ["my_comparators.py"],
                                "workspaceTrusted": True}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_custom_comparator_from_configuration(custom_client: LanguageClient) -> None:
    text = '{"type": "object", "properties": {"acct": {"type": "string", "x-eval-compare": "iban"}}}'
    assert await open_and_wait(custom_client, URI, text) == []
    result = await custom_client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(URI), position(text, '"iban"', delta=2)))
    assert "iban" in labels(result)


async def test_custom_strategy_from_configuration(custom_client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"xs": {"type": "array", "items": {}, '
            '"x-eval-align": {"match_by": "reversed"}}}}')
    assert await open_and_wait(custom_client, URI, text) == []
    result = await custom_client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(URI), position(text, '"reversed"', delta=1)))
    assert labels(result)[-1] == "reversed"
    hover = await custom_client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(URI), position(text, '"reversed"', delta=3)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Pairs from opposite ends." in hover.contents.value


async def test_configuration_change_takes_effect_without_restart(client: LanguageClient) -> None:
    uri = "file:///tmp/evalschema-tests/rules.schema.json"
    text = '{"type": "object", "x-eval-skp": true}'
    diags = await open_and_wait(client, uri, text)
    assert [d.code for d in diags] == ["unknown-key"]  # recognised by content
    fut = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"evalschema": {"debounceMs": 0, "schemaPatterns": ["*.schema.json"]}}))
    await asyncio.wait_for(fut, 10)
    assert [d.code for d in client.diagnostics[uri]] == ["unknown-key"]


async def test_server_survives_garbage(client: LanguageClient) -> None:
    for text in ["", "{", "[[[[[", '{"a": ', "\x00\ud800", "}" * 50, json.dumps([1] * 5)]:
        await open_and_wait(client, URI, text)
        await client.text_document_completion_async(types.CompletionParams(
            types.TextDocumentIdentifier(URI), types.Position(0, 1)))
        await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(URI), types.Position(0, 1)))
    assert not [m for m in client.log_messages if m.type == types.MessageType.Error]


@pytest.fixture
def project_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("proj")
    (folder / "evalschema.toml").write_text(
        '[[suite]]\nname = "s"\nschema = "rules.json"\ngold = "g.jsonl"\n'
        'extracted = ["run.jsonl"]\n')
    (folder / "rules.json").write_text('{"type": "object"}')
    (folder / "g.jsonl").write_text("{}\n")
    (folder / "run.jsonl").write_text("{}\n")
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[*SERVER[:1], "-m", "evalschema",
                                                                "serve", "--stdio"]))
async def project_client(lsp_client: LanguageClient, project_dir: Path
                         ):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=project_dir.as_uri()))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_evalschema_serve_and_schemas_named_by_the_project_config(
        project_client: LanguageClient, project_dir: Path) -> None:
    uri = (project_dir / "rules.json").as_uri()
    # No x-eval key and no .eval.json name: recognised only because evalschema.toml names it.
    diags = await open_and_wait(project_client, uri, '{"type": "object", "properties": {"a": '
                                '{"type": "strng"}}}')
    assert [d.code for d in diags] == ["bad-type"]
    other = await open_and_wait(project_client, (project_dir / "other.json").as_uri(),
                                '{"type": "strng"}')
    assert other == []


async def test_skip_and_annotate_edits_applied_and_rechecked(client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"a": {"type": "string"}, '
            '"n": {"type": "number", "x-eval-compare": "bogus"}}}')
    [diag] = await open_and_wait(client, URI, text)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(URI), diag.range, types.CodeActionContext([diag])))
    assert actions is not None
    by_title = {a.title: a for a in actions if isinstance(a, types.CodeAction)}
    skip = by_title["Skip this field (x-eval-skip)"]
    assert skip.edit is not None and skip.edit.changes is not None
    [edit] = skip.edit.changes[URI]
    after = await change_and_wait(client, URI, 2, [types.TextDocumentContentChangePartial(
        edit.range, edit.new_text)])
    assert [d.code for d in after] == ["unknown-comparator"]  # skipped, but still misspelt
    skipped_text = text.replace('{"type": "number"', '{"x-eval-skip": true, "type": "number"')
    annotate = next(a for a in (await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(URI), after[0].range,
                               types.CodeActionContext(after))) or [])
        if isinstance(a, types.CodeAction) and a.title.startswith("Annotate schema"))
    assert annotate.edit is not None and annotate.edit.changes is not None
    [edit] = annotate.edit.changes[URI]
    after = await change_and_wait(client, URI, 3, [types.TextDocumentContentChangePartial(
        edit.range, edit.new_text)])
    assert [d.code for d in after] == ["unknown-comparator"]
    fixed = skipped_text.replace('{"type": "string"}', '{"x-eval-compare": "exact", '
                                 '"type": "string"}').replace('"bogus"', '"numeric"')
    final = await change_and_wait(client, URI, 4, [types.TextDocumentContentChangeWholeDocument(
        fixed)])
    assert final == []
