"""Open documents: the server's own copy, with changes applied through our line table.

This is the only copy of the editor's texts the server reads: pygls' workspace keeps
none (see ``pygls_internals.keep_no_text_documents``), so no handler can read a text
that missed an edit.

pygls applies incremental edits with ``str.splitlines``, which also breaks lines on
``\\x0b``, ``\\x85`` and ``\\u2028``; LSP does not, and LLM output contains them.
So we keep our own text and apply edits by LSP's rules, which count only ``\\n``,
``\\r\\n`` and ``\\r`` as line breaks.

An edit must stay cheap on a 50 MB document (a large data file open in the editor):
rebuilding the line table and copying the text on every keystroke cost ~120 ms each,
and 200 edits held every other request up for half a minute. So an edited document
is kept as a list of lines: an edit replaces the lines it touches (a splice of the
list, well under a millisecond), and the text is joined again only when something
reads it.
"""

from __future__ import annotations

import re
from itertools import islice
from pathlib import Path

from lsprotocol import types

from .document import LineIndex
from .uris import file_path

_BREAK = re.compile(r"\r\n|\r|\n")
#: Past this line, an edit's offset is not summed up (``edited_from`` becomes 0).
_EXACT_LINES = 50_000


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its line break; the last one has none (and
    may be empty). Only ``\\n``, ``\\r\\n`` and ``\\r`` break lines."""
    if "\r" not in text:
        parts = text.split("\n")
        out = [p + "\n" for p in parts[:-1]]
        out.append(parts[-1])
        return out
    out, pos = [], 0
    for m in _BREAK.finditer(text):
        out.append(text[pos:m.end()])
        pos = m.end()
    out.append(text[pos:])
    return out


def _content(line: str) -> str:
    """A line without its line break."""
    if line.endswith("\n"):
        return line[:-2] if line.endswith("\r\n") else line[:-1]
    return line[:-1] if line.endswith("\r") else line


class OpenDocument:
    """One open document: its text (joined on demand) and what the editor said of it."""

    __slots__ = ("_index", "_lines", "_text", "edited_from", "language_id", "path", "size",
                 "uri", "version")

    def __init__(self, uri: str, text: str, version: int | None,
                 language_id: str = "json", path: Path | None = None) -> None:
        self.uri = uri
        #: The resolved file path of a ``file:`` URI, as suites name files.
        self.path = path
        self.version = version
        self.language_id = language_id
        self._text: str | None = text
        self._lines: list[str] | None = None
        self._index: LineIndex | None = None
        #: Length of the text in characters (known without joining it).
        self.size = len(text)
        #: The lowest offset any edit touched since ``mark_parsed``: text before it is
        #: unchanged since the last full parse (completion re-parses only what follows).
        self.edited_from = len(text)

    @property
    def text(self) -> str:
        if self._text is None:
            assert self._lines is not None
            self._text = "".join(self._lines)
        return self._text

    @text.setter
    def text(self, text: str) -> None:
        self._text, self._lines, self._index, self.size = text, None, None, len(text)

    @property
    def line_index(self) -> LineIndex:
        """The current text's line table, kept until the next edit (a data file's hovers
        would otherwise rebuild it for 50 MB each time)."""
        if self._index is None or self._index.text is not self.text:
            self._index = LineIndex(self.text)
        return self._index

    def share(self, text: str) -> None:
        """A run read ``text`` as this document's: hold that string object, and no lines.

        The run's results hold its text until the next run: an equal copy in the
        document (a file opened after a run read it from disk, an edit that changed
        nothing) would keep a large file in memory twice (10,000 records: 20 MB at two
        bytes a character), and so would the lines it was joined from (11 MB). The next
        edit splits the text again (15 ms for 10 MB, once a run). Nothing is joined or
        compared when the document was edited since its text was read.
        """
        own = self._text
        if own is None or (own is not text and own != text):
            return
        self._text, self._lines = text, None
        if self._index is not None and self._index.text is own:
            self._index.text = text  # the same content: the same line table

    def has_text(self, text: str) -> bool:
        """Whether the document's text is ``text``, without joining an edited text of
        another length (a publish asks after every edit: joining 50 MB each time cost
        ~60 ms a keystroke)."""
        return self.size == len(text) and self.text == text

    def edit(self, rng: types.Range, new: str, encoding: str) -> None:
        """Replace ``rng`` (as LSP positions, clamped like ``LineIndex.offset``)."""
        lines = self._lines if self._lines is not None else split_lines(self.text)
        l0, c0 = _place(lines, rng.start, encoding)
        l1, c1 = _place(lines, rng.end, encoding)
        if (l1, c1) < (l0, c0):
            l1, c1 = l0, c0
        if l0 < _EXACT_LINES:
            start = sum(map(len, islice(lines, l0))) + c0
            self.edited_from = min(self.edited_from, start)
        else:
            self.edited_from = 0
        first = l0
        middle = lines[l0][:c0] + new + lines[l1][c1:]
        if first and middle.startswith("\n") and lines[first - 1].endswith("\r"):
            first -= 1  # the "\r" ending the line before and this "\n" are one break now
            middle = lines[first] + middle
        removed = sum(len(lines[i]) for i in range(first, l1 + 1))
        pieces = split_lines(middle)
        if l1 + 1 < len(lines):  # ``middle`` ends with line l1's break: no empty last line
            pieces.pop()
        lines[first:l1 + 1] = pieces
        self._lines, self._text, self._index = lines, None, None
        self.size += len(middle) - removed


def _place(lines: list[str], pos: types.Position, encoding: str) -> tuple[int, int]:
    """(line, column in code points) of an LSP position, clamped into the text."""
    if pos.line < 0:
        return 0, 0
    if pos.line >= len(lines):
        return len(lines) - 1, len(lines[-1])
    if pos.character <= 0:
        return pos.line, 0
    content = _content(lines[pos.line])
    if encoding == "utf-32" or content.isascii():
        return pos.line, min(pos.character, len(content))
    return pos.line, LineIndex(content).offset(0, pos.character, encoding)


class DocumentStore:
    """Open documents by URI, and by file path for the evaluation (which names files)."""

    def __init__(self) -> None:
        self.docs: dict[str, OpenDocument] = {}
        #: Open documents by resolved file path (the evaluation reads their unsaved text).
        self.uris: dict[Path, str] = {}

    def open(self, item: types.TextDocumentItem) -> OpenDocument:
        path = file_path(item.uri)
        doc = OpenDocument(item.uri, item.text, item.version, item.language_id, path)
        self.docs[item.uri] = doc
        if path is not None:
            self.uris[path] = item.uri
        return doc

    def change(self, params: types.DidChangeTextDocumentParams, encoding: str) -> OpenDocument:
        uri = params.text_document.uri
        doc = self.docs.setdefault(uri, OpenDocument(uri, "", None))
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                doc.edit(change.range, change.text, encoding)
            else:
                doc.text = change.text
                doc.edited_from = 0
        doc.version = params.text_document.version
        return doc

    def close(self, uri: str) -> None:
        doc = self.docs.pop(uri, None)
        if doc is not None and doc.path is not None and self.uris.get(doc.path) == uri:
            del self.uris[doc.path]

    def get(self, uri: str) -> OpenDocument | None:
        return self.docs.get(uri)

    def at(self, path: Path) -> OpenDocument | None:
        """The open document of the file at ``path``, if any."""
        uri = self.uris.get(path)
        return self.docs.get(uri) if uri is not None else None

    def text_at(self, path: Path) -> str | None:
        """The editor's text of the file at ``path``, or None when it is not open."""
        doc = self.at(path)
        return doc.text if doc is not None else None

    def uri_of(self, path: Path) -> str:
        """The URI the editor opened ``path`` under, else the path's own."""
        return self.uris.get(path) or path.as_uri()
