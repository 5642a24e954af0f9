"""Offsets <-> LSP positions, with only ``\\n``, ``\\r\\n`` and ``\\r`` as line breaks.

``str.splitlines`` also breaks on ``\\x0b``, ``\\x0c``, ``\\x1c``-``\\x1e``, ``\\x85``,
``\\u2028`` and ``\\u2029``; LSP clients do not, and LLM output is full of them, so
using it would shift every position after such a character. Columns are counted
in the negotiated position encoding: UTF-16 code units (the LSP default, where an
emoji counts 2), UTF-8 bytes, or UTF-32 code points (= Python string indices).

All work is lazy: building a ``LineIndex`` costs nothing until it is asked a
question, ASCII lines need no per-line data at all, and long non-ASCII lines keep
one checkpoint every ``_CHUNK`` code points so a lookup never re-encodes more
than one chunk.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from typing import Final

__all__ = ["ENCODINGS", "LineIndex"]

ENCODINGS: Final = ("utf-16", "utf-8", "utf-32")

_BREAK: Final = re.compile(r"\r\n?|\n")
_CHUNK: Final = 512  # code points between checkpoints on non-ASCII lines


def _units(s: str, encoding: str) -> int:
    """Length of ``s`` in code units of ``encoding`` (lone surrogates count as one char)."""
    if encoding == "utf-16":
        return len(s.encode("utf-16-le", "surrogatepass")) >> 1
    if encoding == "utf-8":
        return len(s.encode("utf-8", "surrogatepass"))
    return len(s)


def _normalize(encoding: object) -> str:
    """Accept plain strings and ``lsprotocol``'s ``PositionEncodingKind`` (a str enum)."""
    value = getattr(encoding, "value", encoding)
    if value in ENCODINGS:
        return str(value)
    raise ValueError(f"unknown position encoding {encoding!r}; expected one of {ENCODINGS}")


class LineIndex:
    """Line starts of a text and conversions between offsets and (line, character)."""

    __slots__ = ("_all_ascii", "_checkpoints", "_starts", "text")

    def __init__(self, text: str, starts: list[int] | None = None) -> None:
        """``starts``: the text's line starts when the caller knows them already (a data
        file's reader does: ``evaluation.datafile``), so the text is not split again."""
        self.text = text
        self._starts: list[int] | None = starts
        self._all_ascii: bool | None = None
        # line -> None (ASCII line) or {encoding: units at each _CHUNK boundary}
        self._checkpoints: dict[int, dict[str, list[int]] | None] = {}

    # -- line table ---------------------------------------------------------

    @property
    def line_starts(self) -> list[int]:
        """Offset of the first character of every line (``[0]`` for empty text)."""
        starts = self._starts
        if starts is None:
            text = self.text
            if "\r" not in text:
                # All in C: the start of line i+1 is the start of line i + its length + 1.
                starts = list(
                    accumulate(map((1).__add__, map(len, text.split("\n")[:-1])), initial=0)
                )
            else:
                starts = [0]
                starts.extend(m.end() for m in _BREAK.finditer(text))
            self._starts = starts
        return starts

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def line_of(self, offset: int) -> int:
        """0-based line holding ``offset`` (clamped into the text)."""
        offset = min(max(offset, 0), len(self.text))
        return bisect_right(self.line_starts, offset) - 1

    def line_start(self, line: int) -> int:
        starts = self.line_starts
        line = min(max(line, 0), len(starts) - 1)
        return starts[line]

    def line_end(self, line: int) -> int:
        """Offset just past the line's content, before its line break."""
        starts = self.line_starts
        line = min(max(line, 0), len(starts) - 1)
        if line + 1 >= len(starts):
            return len(self.text)
        nxt = starts[line + 1]
        if nxt >= 2 and self.text[nxt - 2] == "\r" and self.text[nxt - 1] == "\n":
            return nxt - 2
        return nxt - 1

    # -- conversions --------------------------------------------------------

    def position(self, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
        """(line, character) of a string offset; character counted in ``encoding``."""
        text = self.text
        offset = min(max(offset, 0), len(text))
        starts = self.line_starts
        line = bisect_right(starts, offset) - 1
        start = starts[line]
        col = offset - start
        if col == 0 or encoding == "utf-32":
            return line, col
        encoding = _normalize(encoding)
        if encoding == "utf-32" or self._is_ascii_line(line):
            return line, col
        cps = self._line_checkpoints(line, encoding)
        i = min(col // _CHUNK, len(cps) - 1)  # col may point into the line break
        base = start + i * _CHUNK
        return line, cps[i] + _units(text[base:offset], encoding)

    def offset(self, line: int, character: int, encoding: str = "utf-16") -> int:
        """String offset of (line, character); clamps past line/document ends, never raises."""
        starts = self.line_starts
        if line < 0:
            return 0
        if line >= len(starts):
            return len(self.text)
        start = starts[line]
        end = self.line_end(line)
        if character <= 0:
            return start
        encoding = _normalize(encoding)
        if encoding == "utf-32" or self._is_ascii_line(line):
            return min(start + character, end)
        cps = self._line_checkpoints(line, encoding)
        if character >= cps[-1] + _units(
            self.text[start + (len(cps) - 1) * _CHUNK : end], encoding
        ):
            return end
        i = bisect_right(cps, character) - 1
        # Binary search inside the chunk for the last code point starting at or before
        # ``character`` (a column inside a surrogate pair / multi-byte char rounds down).
        lo = start + i * _CHUNK
        hi = min(lo + _CHUNK, end)
        base_units = cps[i]
        text = self.text
        lo_off = lo
        while lo < hi:
            mid = (lo + hi + 1) >> 1
            if base_units + _units(text[lo_off:mid], encoding) <= character:
                lo = mid
            else:
                hi = mid - 1
        return lo

    # -- per-line encoding info ---------------------------------------------

    def _is_ascii_line(self, line: int) -> bool:
        all_ascii = self._all_ascii
        if all_ascii is None:
            all_ascii = self._all_ascii = self.text.isascii()
        if all_ascii:
            return True
        cached = self._checkpoints.get(line, 0)
        if cached == 0:
            start = self.line_starts[line]
            if self.text[start : self.line_end(line)].isascii():
                self._checkpoints[line] = None
                return True
            self._checkpoints[line] = {}
            return False
        return cached is None

    def _line_checkpoints(self, line: int, encoding: str) -> list[int]:
        """Units of the line's prefix at every ``_CHUNK`` code points (non-ASCII lines only)."""
        per_line = self._checkpoints.get(line)
        if per_line is None:
            per_line = self._checkpoints[line] = {}
        cps = per_line.get(encoding)
        if cps is None:
            text = self.text
            start = self.line_starts[line]
            end = self.line_end(line)
            cps = [0]
            total = 0
            for chunk_start in range(start, end - _CHUNK + 1, _CHUNK):
                total += _units(text[chunk_start : chunk_start + _CHUNK], encoding)
                cps.append(total)
            per_line[encoding] = cps
        return cps
