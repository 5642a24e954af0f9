"""End-to-end: completion in an eval schema (handlers/completion.py)."""

from __future__ import annotations

from authoring_samples import URI, labels
from lsp_helpers import open_and_wait, position, span
from lsprotocol import types
from pytest_lsp import LanguageClient


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


async def test_json_schema_keywords_come_after_the_xeval_keys(client: LanguageClient) -> None:
    """No JSON language server runs on eval schemas in VS Code (nor, maybe, in other
    editors): the standard keywords and the type names come from this server."""
    text = '{"type": "object", "properties": {"name": {"type": "string", ""}}}'
    result = await complete_at(client, text, position(text, '""', delta=1))
    assert isinstance(result, types.CompletionList)
    by_label = {i.label: i for i in result.items}
    assert {"description", "enum", "format", "$ref"} <= set(by_label)
    assert "type" not in by_label, "present already"
    assert "$schema" not in by_label and "$id" not in by_label, "root only"
    fmt = by_label["format"]
    assert fmt.kind == types.CompletionItemKind.Keyword and fmt.detail == "JSON Schema"
    assert (by_label["x-eval-compare"].sort_text or "x-eval-compare") < (fmt.sort_text or "")
    assert isinstance(fmt.text_edit, types.TextEdit)
    assert fmt.text_edit.new_text.startswith('"format": "${1|date,date-time')
    root = '{"": 1, "properties": {}}'
    got = labels(await complete_at(client, root, position(root, '""', delta=1)))
    assert {"$schema", "$id", "type", "x-eval-id"} <= set(got) and "properties" not in got


async def test_type_names_as_a_value_and_in_a_list(client: LanguageClient) -> None:
    names = ['"string"', '"number"', '"integer"', '"boolean"', '"object"', '"array"', '"null"']
    text = '{"type": "object", "properties": {"a": {"type": "st"}}}'
    result = await complete_at(client, text, position(text, '"st"', delta=3))
    assert labels(result) == names
    assert isinstance(result, types.CompletionList)
    edit = result.items[0].text_edit
    assert isinstance(edit, types.TextEdit) and edit.range == span(text, '"st"')
    text = '{"type": "object", "properties": {"a": {"type": ["string", "nu"]}}}'
    assert labels(await complete_at(client, text, position(text, '"nu"', delta=3))) == names
    text = '{"type": "object", "properties": {"type": {"x-eval-compare": "ex"}}}'
    got = labels(await complete_at(client, text, position(text, '"ex"', delta=3)))
    assert '"string"' not in got and "exact" in got, "a field named type is not the keyword"


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


async def test_nested_parameter_names_and_values(client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"n": {"type": "number", "x-eval-compare": '
            '{"numeric": {"tolerance": {""}}}}}}')
    result = await complete_at(client, text, position(text, '{""}', delta=2))
    assert labels(result) == ["rel", "abs"]
    assert isinstance(result, types.CompletionList)
    rel = result.items[0]
    assert isinstance(rel.documentation, types.MarkupContent)
    assert "`numeric` parameter `tolerance.rel`" in rel.documentation.value
    text = ('{"type": "object", "properties": {"n": {"type": "number", "x-eval-compare": '
            '{"numeric": {"tolerance": {"rel": 0.1, ""}}}}}}')
    assert labels(await complete_at(client, text, position(text, ', ""', delta=3))) == ["abs"]


async def test_a_new_key_before_another_member_brings_its_comma(client: LanguageClient) -> None:
    """Typed between two members (the editor closed the quote): the snippet ends with the
    comma the object needs, so accepting it leaves valid JSON; before the closing brace,
    or on a key that already has its colon, nothing is added."""

    def item(got: object, name: str) -> types.CompletionItem:
        items = got.items if isinstance(got, types.CompletionList) else got
        assert isinstance(items, list | tuple)
        [found] = [i for i in items if i.label == name]
        return found

    before = '{"type": "object", "properties": {"name": {"type": "string", ""\n  "format": "x"}}}'
    got = item(await complete_at(client, before, position(before, '""', delta=1)),
               "x-eval-compare")
    assert got.insert_text_format == types.InsertTextFormat.Snippet
    assert isinstance(got.text_edit, types.TextEdit)
    assert got.text_edit.new_text.startswith('"x-eval-compare": ')
    assert got.text_edit.new_text.endswith(","), got.text_edit.new_text
    last = '{"type": "object", "properties": {"name": {"type": "string", ""}}}'
    got = item(await complete_at(client, last, position(last, '""', delta=1)), "x-eval-compare")
    assert isinstance(got.text_edit, types.TextEdit) and not got.text_edit.new_text.endswith(",")
    colon = '{"type": "object", "properties": {"name": {"type": "string", "x": 1, "y": 2}}}'
    got = item(await complete_at(client, colon, position(colon, '"x"', delta=1)),
               "x-eval-compare")
    assert isinstance(got.text_edit, types.TextEdit)
    assert got.text_edit.new_text == '"x-eval-compare"', "only the name: the rest is there"
