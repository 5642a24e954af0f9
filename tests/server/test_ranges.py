"""Offsets -> LSP ranges and back (ranges.py): one conversion, two shapes, every encoding."""

from __future__ import annotations

from lsprotocol import types
from pygls.protocol import default_converter

from evalschema_server.document import LineIndex
from evalschema_server.ranges import range_json, to_offset, to_range

TEXT = 'a\u2028b\r\n{"x": "😀", "y": 1}\rz'


def test_both_shapes_are_the_same_range_in_each_encoding() -> None:
    lines = LineIndex(TEXT)
    start = TEXT.index('"y"')
    for enc, col in (("utf-16", 12), ("utf-8", 14), ("utf-32", 11)):
        rng = to_range(lines, start, start + 3, enc)
        assert rng == types.Range(types.Position(1, col), types.Position(1, col + 3))
        assert range_json(lines, start, start + 3, enc) == default_converter().unstructure(rng)
        assert to_offset(lines, rng.start, enc) == start


def test_an_end_before_the_start_is_the_start() -> None:
    lines = LineIndex(TEXT)
    assert to_range(lines, 5, 2, "utf-16") == to_range(lines, 5, 5, "utf-16")
    assert range_json(lines, 5, 2, "utf-16")["end"] == {"line": 1, "character": 0}


def test_only_lsp_line_breaks_count() -> None:
    lines = LineIndex(TEXT)
    assert to_range(lines, TEXT.index("b"), TEXT.index("b") + 1, "utf-16").start == \
        types.Position(0, 2)  # \u2028 is not a line break
    assert to_range(lines, len(TEXT) - 1, len(TEXT), "utf-16").start == types.Position(2, 0)
