"""End-to-end: quick fixes and the "Annotate schema" action (handlers/actions.py)."""

from __future__ import annotations

from authoring_samples import SCHEMA, URI
from lsp_helpers import change_and_wait, open_and_wait, position, span
from lsprotocol import types
from pytest_lsp import LanguageClient


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


async def test_extract_bench_schema_notes_and_annotate_writes_what_is_read(
        client: LanguageClient) -> None:
    """The wrapper and evaluation_config as the engine reads them: notes at the text the
    user wrote, and an annotate action that writes the same keys (nothing changes)."""
    text = ('{"name": "n", "description": "d", "schema_definition": {"type": "object", '
            '"properties": {"unit": {"type": "string", '
            '"evaluation_config": "string_case_insensitive"}}}}')
    diags = {str(d.code): d for d in await open_and_wait(client, URI, text)}
    assert set(diags) == {"extract-bench-wrapper", "evaluation-config-read"}
    assert diags["extract-bench-wrapper"].severity == types.DiagnosticSeverity.Information
    assert diags["extract-bench-wrapper"].range == span(text, '"schema_definition"')
    assert diags["evaluation-config-read"].range == span(text, '"string_case_insensitive"')
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(URI), diags["evaluation-config-read"].range,
        types.CodeActionContext(list(diags.values()))))
    annotate = next(a for a in actions or [] if isinstance(a, types.CodeAction)
                    and a.title.startswith("Annotate schema"))
    assert annotate.edit is not None and annotate.edit.changes is not None
    [edit] = annotate.edit.changes[URI]
    assert edit.new_text == ('"x-eval-compare": "exact", "x-eval-transform": '
                             '[{"type_convert": {"to": "str"}}, "casefold"], ')
    after = await change_and_wait(client, URI, 2, [types.TextDocumentContentChangePartial(
        edit.range, edit.new_text)])
    assert [d.code for d in after] == ["extract-bench-wrapper"]
