"""Offsets in a text -> LSP ranges, and back: the one conversion every part of the server uses.

A range's end is never before its start. Two shapes of the same range: an lsprotocol
``Range`` for handlers' answers, and plain JSON for diagnostics that are built by the
thousand (see ``evaluation/findings.py``: converting each through cattrs costs more
than building it).
"""

from __future__ import annotations

from lsprotocol import types

from .document import LineIndex
from .protocol import LspRange


def to_range(lines: LineIndex, start: int, end: int, encoding: str) -> types.Range:
    """The range of ``[start, end)`` in ``encoding``'s columns."""
    return types.Range(types.Position(*lines.position(start, encoding)),
                       types.Position(*lines.position(max(start, end), encoding)))


def range_json(lines: LineIndex, start: int, end: int, encoding: str) -> LspRange:
    """``to_range`` as plain JSON (the shape lsprotocol's converter gives)."""
    sl, sc = lines.position(start, encoding)
    el, ec = lines.position(max(start, end), encoding)
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def to_offset(lines: LineIndex, position: types.Position, encoding: str) -> int:
    """The offset of an LSP position (clamped into the text, see ``LineIndex.offset``)."""
    return lines.offset(position.line, position.character, encoding)
