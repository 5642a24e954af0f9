"""Completion in an eval schema: x-eval keys, registry names, parameters (``authoring.completion``).

Right after an edit the last full parse is one edit behind; completion then re-parses
only the object around the cursor (``authoring.window``) instead of the whole document.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from lsprotocol import types

from ..authoring import completion
from ..authoring.analysis import SchemaAnalysis
from ..authoring.window import window_at
from ..document import LineIndex
from ..guard import guarded
from ..ranges import to_offset, to_range
from ..store import OpenDocument

if TYPE_CHECKING:
    from ..server import EvalSchemaServer

TRIGGERS = ['"', ":", "[", ","]


def on_completion(ls: EvalSchemaServer, params: types.CompletionParams
                  ) -> types.CompletionList | None:
    doc = ls.store.get(params.text_document.uri)
    if doc is None:
        return None
    schemas = ls.schemas
    if not schemas.might_be_schema(doc):
        return None
    edits = _complete_in_window(ls, doc, params.position)
    if edits is None:
        analysis = schemas.analysis(doc.uri)
        if not schemas.is_eval_schema(doc, analysis):
            return None
        lines = analysis.doc.lines
        offset = to_offset(lines, params.position, ls.encoding)
        edits = completion.complete(analysis, offset, ls.registry, ls.snippets)
    else:
        lines = LineIndex(doc.text)

    items = []
    for e in edits:
        items.append(types.CompletionItem(
            label=e.label, kind=e.kind, detail=e.detail,
            documentation=types.MarkupContent(types.MarkupKind.Markdown, e.doc) if e.doc else None,
            text_edit=types.TextEdit(to_range(lines, e.start, e.end, ls.encoding), e.new_text),
            insert_text_format=types.InsertTextFormat.Snippet if e.snippet
            else types.InsertTextFormat.PlainText,
            sort_text=e.sort, filter_text=e.new_text if e.start != e.end else None,
        ))
    return types.CompletionList(is_incomplete=False, items=items)


def _complete_in_window(ls: EvalSchemaServer, doc: OpenDocument, position: types.Position
                        ) -> list[completion.Edit] | None:
    """Completion from a re-parsed window when the last full parse is one edit behind."""
    last = ls.schemas.last(doc.uri)
    if last is None or last.text == doc.text or doc.edited_from >= len(last.text):
        return None
    if not ls.schemas.is_eval_schema(doc, last):
        return None
    offset = to_offset(LineIndex(doc.text), position, ls.encoding)
    win = window_at(last, doc.text, doc.edited_from, offset)
    if win is None:
        return None
    shim = SchemaAnalysis(doc.text, win.doc, ls.registry, deferred=True)
    return [replace(e, start=e.start + win.offset, end=e.end + win.offset)
            for e in completion.complete(shim, offset - win.offset, ls.registry, ls.snippets)]


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(
        trigger_characters=TRIGGERS))(guarded(default=None)(on_completion))
