"""End-to-end: "Convert Stickler keys to x-eval-*" on a Stickler model (handlers/actions.py,
authoring/stickler.py): a new eval schema next to it, created by the editor's edit only."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from lsp_helpers import open_and_wait
from lsprotocol import types
from pytest_lsp import LanguageClient

from evalschema.io.jsonc import blank_jsonc

STICKLER = """{
  "type": "object",
  "x-aws-stickler-model-name": "Receipt",
  "properties": {
    "merchant": {"type": "string", "x-aws-stickler-threshold": 0.8},
    "total": {"type": "number", "x-aws-stickler-comparator": "NumericComparator",
              "x-aws-stickler-comparator-config": {"absolute_tolerance": 0.01}},
    "paid": {"type": "boolean"}
  }
}
"""

CONVERTED = {
    "type": "object",
    "properties": {
        "merchant": {"type": "string", "x-eval-compare": "levenshtein",
                     "x-eval-transform": ["lowercase", "normalize_whitespace"],
                     "x-eval-threshold": 0.8},
        "total": {"type": "number",
                  "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}},
        "paid": {"type": "boolean", "x-eval-compare": "exact"}},
    "x-eval-null": "absent"}

HEADER = [
    "// Converted from receipt.schema.json (a Stickler JSON Schema) by evalschema.",
    "// Stickler's counts differ from evalschema's: docs/compat.md#stickler. What has no exact "
    "equivalent, by JSON Pointer into the source:",
    "//   /properties/merchant: info partial-credit: Stickler scores a similarity under the "
    "threshold (0.8) as 0 (clip_under_threshold, true by default); evalschema keeps it as "
    "partial credit in the weighted score and in precision and recall (the match or mismatch "
    "is the same; only the scores differ)",
]


async def _actions(client: LanguageClient, uri: str) -> list[types.CodeAction]:
    at = types.Range(types.Position(0, 0), types.Position(0, 0))
    got = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), at, types.CodeActionContext([])))
    return [a for a in got or [] if isinstance(a, types.CodeAction)]


async def _open(client: LanguageClient, path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", 1, text)))
    await asyncio.sleep(0)
    return uri


async def test_convert_creates_the_eval_schema_next_to_it(client: LanguageClient,
                                                          tmp_path: Path) -> None:
    source = tmp_path / "receipt.schema.json"
    uri = await _open(client, source, STICKLER)
    [action] = [a for a in await _actions(client, uri) if a.title.startswith("Convert")]
    target = tmp_path / "receipt.eval.jsonc"
    assert action.title == "Convert Stickler keys to x-eval-* (new file receipt.eval.jsonc)"
    assert action.kind == types.CodeActionKind.Source
    assert action.edit is not None and action.edit.changes is None
    create, fill = action.edit.document_changes or []
    assert create == types.CreateFile(target.as_uri(), options=types.CreateFileOptions(
        overwrite=False, ignore_if_exists=False))
    assert isinstance(fill, types.TextDocumentEdit)
    assert fill.text_document.uri == target.as_uri() and fill.text_document.version is None
    [edit] = fill.edits
    assert edit.range == types.Range(types.Position(0, 0), types.Position(0, 0))
    lines = edit.new_text.splitlines()
    assert lines[:3] == HEADER and lines[3] == "{"
    assert json.loads(blank_jsonc(edit.new_text)) == CONVERTED
    assert not target.exists()  # nothing is written until the editor applies the edit
    assert source.read_text(encoding="utf-8") == STICKLER

    # applied as the editor applies it, the new file is a clean eval schema
    target.write_text(edit.new_text, encoding="utf-8")
    diagnostics = await open_and_wait(client, target.as_uri(), edit.new_text)
    assert diagnostics == []

    # the name is taken now: the next conversion goes beside it
    [again] = [a for a in await _actions(client, uri) if a.title.startswith("Convert")]
    assert again.title == "Convert Stickler keys to x-eval-* (new file receipt-2.eval.jsonc)"


async def test_a_model_configuration_is_offered_and_plain_json_is_not(
        client: LanguageClient, tmp_path: Path) -> None:
    config = {"model_name": "Person", "fields": {
        "name": {"type": "str", "comparator": "ExactComparator"}}}
    uri = await _open(client, tmp_path / "person.config.json", json.dumps(config))
    titles = [a.title for a in await _actions(client, uri)]
    assert titles == ["Convert Stickler keys to x-eval-* (new file person.eval.jsonc)"]
    plain = await _open(client, tmp_path / "plain.json", '{"properties": {"a": '
                                                         '{"type": "string"}}}')
    assert await _actions(client, plain) == []
    broken = await _open(client, tmp_path / "broken.json", '{"x-aws-stickler-weight": ')
    assert await _actions(client, broken) == []
