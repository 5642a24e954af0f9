"""Completion right after an edit re-parses only the object around the cursor; it must
answer exactly what a full re-parse answers."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from evalschema_server.handlers.completion import on_completion
from evalschema_server.server import EvalSchemaServer

URI = "file:///tmp/w/big.eval.json"


def big_schema() -> str:
    props = {f"s{i}": {"type": "object", "properties": {
        "name": {"type": "string", "x-eval-compare": "exact"},
        "total": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
        "xs": {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "k"},
               "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
    }} for i in range(40)}
    return json.dumps({"type": "object", "properties": props}, indent=2)


def complete(ls: EvalSchemaServer, line: int, col: int) -> list[tuple[str, str]]:
    result = on_completion(ls, types.CompletionParams(types.TextDocumentIdentifier(URI),
                                                      types.Position(line, col)))
    assert isinstance(result, types.CompletionList)
    out = []
    for item in result.items:
        assert isinstance(item.text_edit, types.TextEdit)
        out.append((item.label, f"{item.text_edit.range}:{item.text_edit.new_text}"))
    return out


def server_with(text: str) -> EvalSchemaServer:
    ls = EvalSchemaServer()
    ls.store.open(types.TextDocumentItem(URI, "json", 1, text))
    ls.schemas.analysis(URI)  # the last full parse
    return ls


@pytest.mark.parametrize(("needle", "replacement", "cursor_delta"), [
    ('"exact"', '"exa"', 4),            # retyping a comparator name
    ('"key_field"', '"key_field"', 1),  # a strategy, unchanged text
    ('"key": "k"', '"key": ""', 8),  # an emptied key candidate
])
def test_window_completion_equals_full_parse(needle: str, replacement: str,
                                             cursor_delta: int) -> None:
    text = big_schema()
    lines = text.split("\n")
    line = next(i for i, ln in enumerate(lines) if needle in ln and i > len(lines) // 2)
    col = lines[line].index(needle)
    new_text_line = lines[line][:col] + replacement + lines[line][col + len(needle):]
    new_text = "\n".join([*lines[:line], new_text_line, *lines[line + 1:]])

    ls = server_with(text)
    ls.store.change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=URI, version=2),
        [types.TextDocumentContentChangePartial(
            types.Range(types.Position(line, col), types.Position(line, col + len(needle))),
            replacement)]), "utf-16")
    windowed = complete(ls, line, col + cursor_delta)
    assert ls.schemas.analyses[URI][1].text == text  # no full re-parse happened

    fresh = server_with(new_text)
    full = complete(fresh, line, col + cursor_delta)
    assert windowed == full
    assert windowed  # and it found something
