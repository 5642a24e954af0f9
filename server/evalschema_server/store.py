"""Open documents: the server's own copy, with changes applied through our line table.

pygls applies incremental edits with ``str.splitlines``, which also breaks lines on
``\\x0b``, ``\\x85`` and ``\\u2028``; LSP does not, and LLM output contains them.
So we keep our own text and apply edits with ``LineIndex``, which counts only
``\\n``, ``\\r\\n`` and ``\\r``.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from .document import LineIndex


@dataclass
class OpenDocument:
    uri: str
    text: str
    version: int | None
    language_id: str = "json"
    #: The lowest offset any edit touched since ``mark_parsed``: text before it is
    #: unchanged since the last full parse (completion re-parses only what follows).
    edited_from: int = 0


class DocumentStore:
    def __init__(self) -> None:
        self.docs: dict[str, OpenDocument] = {}

    def open(self, item: types.TextDocumentItem) -> OpenDocument:
        doc = OpenDocument(item.uri, item.text, item.version, item.language_id, len(item.text))
        self.docs[item.uri] = doc
        return doc

    def change(self, params: types.DidChangeTextDocumentParams, encoding: str) -> OpenDocument:
        uri = params.text_document.uri
        doc = self.docs.setdefault(uri, OpenDocument(uri, "", None))
        text = doc.text
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                lines = LineIndex(text)
                start = lines.offset(change.range.start.line, change.range.start.character,
                                     encoding)
                end = lines.offset(change.range.end.line, change.range.end.character, encoding)
                text = text[:start] + change.text + text[max(start, end):]
                doc.edited_from = min(doc.edited_from, start)
            else:
                text = change.text
                doc.edited_from = 0
        doc.text = text
        doc.version = params.text_document.version
        return doc

    def close(self, uri: str) -> None:
        self.docs.pop(uri, None)

    def get(self, uri: str) -> OpenDocument | None:
        return self.docs.get(uri)
