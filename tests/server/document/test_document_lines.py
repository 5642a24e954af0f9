"""LineIndex: offsets <-> LSP positions in UTF-16 / UTF-8 / UTF-32, LSP line breaks only."""

from __future__ import annotations

import re

import pytest
from hang_budget import HANG_SECONDS
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol.types import PositionEncodingKind

from evalschema_server.document import LineIndex

ENCODINGS = ("utf-16", "utf-8", "utf-32")
CODECS = {"utf-16": "utf-16-le", "utf-8": "utf-8", "utf-32": "utf-32-le"}
WIDTH = {"utf-16": 2, "utf-8": 1, "utf-32": 4}


def naive_position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    """Reference: split on LSP line breaks only, encode the line prefix."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    line = max(i for i, s in enumerate(starts) if s <= offset)
    prefix = text[starts[line] : offset]
    units = len(prefix.encode(CODECS[encoding], "surrogatepass")) // WIDTH[encoding]
    return line, units


# -- line breaks ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "starts"),
    [
        ("", [0]),
        ("abc", [0]),
        ("a\nb", [0, 2]),
        ("a\r\nb", [0, 3]),
        ("a\rb", [0, 2]),
        ("a\n", [0, 2]),
        ("\n\n", [0, 1, 2]),
        ("a\r\n\r\nb\rc\nd", [0, 3, 5, 7, 9]),
        ("\r\r\n\n", [0, 1, 3, 4]),
    ],
)
def test_line_starts(text: str, starts: list[int]) -> None:
    assert LineIndex(text).line_starts == starts


@pytest.mark.parametrize(
    "sep", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
)
def test_splitlines_separators_are_not_line_breaks(sep: str) -> None:
    text = f'{{"a": "x{sep}y",\n "b": 1}}'
    assert len(text.splitlines()) == 3  # what str.splitlines would (wrongly) do
    idx = LineIndex(text)
    assert idx.line_count == 2
    b = text.index('"b"')
    assert idx.position(b) == (1, 1)
    y = text.index("y")
    assert idx.position(y, "utf-32") == (0, y)
    assert idx.offset(1, 1) == b


def test_line_end_excludes_the_break() -> None:
    text = "ab\r\ncd\ref\ngh"
    idx = LineIndex(text)
    assert [idx.line_end(i) for i in range(4)] == [2, 6, 9, 12]
    assert idx.line_of(3) == 0  # the \n of \r\n belongs to line 0
    assert idx.line_of(4) == 1
    assert idx.line_of(-5) == 0 and idx.line_of(999) == 3


# -- positions -----------------------------------------------------------------


def test_emoji_and_accents_per_encoding() -> None:
    text = '{"naïve 😀": "x", "b": 1}'
    idx = LineIndex(text)
    b = text.index('"b"')
    assert b == 17  # code points
    assert idx.position(b, "utf-32") == (0, 17)
    assert idx.position(b) == (0, 18)  # the emoji is a surrogate pair: 2 UTF-16 units
    assert idx.position(b, "utf-16") == (0, 18)
    assert idx.position(b, "utf-8") == (0, 17 + 1 + 3)  # ï is 2 bytes, 😀 is 4
    for enc in ENCODINGS:
        line, char = idx.position(b, enc)
        assert idx.offset(line, char, enc) == b


def test_lsprotocol_encoding_kind_is_accepted() -> None:
    text = "😀x"
    idx = LineIndex(text)
    assert idx.position(1, PositionEncodingKind.Utf16) == (0, 2)
    assert idx.position(1, PositionEncodingKind.Utf8) == (0, 4)
    assert idx.offset(0, 2, PositionEncodingKind.Utf16) == 1


def test_unknown_encoding_raises() -> None:
    with pytest.raises(ValueError, match="encoding"):
        LineIndex("é").position(1, "latin-1")


def test_crlf_lone_cr_and_u2028() -> None:
    text = '{\r\n  "a": 1,\r  "b": "x\u2028y",\n  "c": 😀\r\n}'
    idx = LineIndex(text)
    assert idx.line_count == 5
    assert idx.position(text.index('"a"')) == (1, 2)
    assert idx.position(text.index('"b"')) == (2, 2)
    assert idx.position(text.index("y")) == (2, 10)  # \u2028 is one char on line 2
    assert idx.position(text.index('"c"')) == (3, 2)
    assert idx.position(text.index("}")) == (4, 0)
    # the end of the emoji on line 3, in each encoding
    after = text.index("😀") + 1
    assert idx.position(after, "utf-16") == (3, 9)
    assert idx.position(after, "utf-8") == (3, 11)
    assert idx.position(after, "utf-32") == (3, 8)


def test_position_clamps() -> None:
    idx = LineIndex("ab\ncd")
    assert idx.position(-3) == (0, 0)
    assert idx.position(99) == (1, 2)
    assert idx.position(2) == (0, 2)  # on the \n itself


def test_offset_clamps_and_never_raises() -> None:
    text = "ab\r\ncdé😀\nx"
    idx = LineIndex(text)
    assert idx.offset(0, 99) == 2  # past the line end: before the \r\n
    assert idx.offset(1, 99) == text.index("\nx")
    assert idx.offset(1, 99, "utf-8") == text.index("\nx")
    assert idx.offset(5, 0) == len(text)  # past the document end
    assert idx.offset(-1, 4) == 0
    assert idx.offset(2, -7) == text.index("x")
    emoji = text.index("😀")
    assert idx.offset(1, 3) == emoji
    assert idx.offset(1, 4) == emoji  # inside the surrogate pair: rounds down
    assert idx.offset(1, 5) == emoji + 1
    assert idx.offset(1, 3, "utf-8") == emoji - 1  # inside é (2 bytes): rounds down
    assert idx.offset(1, 4, "utf-8") == emoji
    assert idx.offset(1, 7, "utf-8") == emoji  # inside the 4-byte emoji
    assert idx.offset(1, 8, "utf-8") == emoji + 1
    assert LineIndex("").offset(0, 5) == 0
    assert LineIndex("").position(0) == (0, 0)


def test_lone_surrogates_count_as_one_char() -> None:
    text = "a\ud800b"
    idx = LineIndex(text)
    assert idx.position(2, "utf-16") == (0, 2)
    assert idx.position(2, "utf-8") == (0, 4)  # surrogatepass: 3 bytes
    assert idx.offset(0, 2, "utf-16") == 2


def test_long_non_ascii_line_matches_reference() -> None:
    # Longer than several checkpoint chunks, emoji and accents spread over it.
    pieces = ["a" * 37, "é", "😀", "ß" * 3, "x" * 200, "😀😀", "\u2028"]
    line = "".join(pieces[i % len(pieces)] for i in range(400))
    text = "short\n" + line + "\r\nlast 😀"
    idx = LineIndex(text)
    for offset in [*range(0, len(text), 7), len(text)]:
        for enc in ENCODINGS:
            expected = naive_position(text, offset, enc)
            assert idx.position(offset, enc) == expected, (offset, enc)
            if offset <= idx.line_end(expected[0]):
                assert idx.offset(*expected, enc) == offset, (offset, enc)


def test_long_lines_are_not_quadratic() -> None:
    import time

    line = ("é" + "a" * 99 + "😀") * 10_000  # 1 MB, one line
    idx = LineIndex(line + "\n")
    t0 = time.perf_counter()
    for offset in range(0, len(line), 1_000):
        pos = idx.position(offset)
        assert idx.offset(*pos) == offset
    assert time.perf_counter() - t0 < HANG_SECONDS  # quadratic: hours; speed: bench/


# -- property-based --------------------------------------------------------------

TEXT = st.text(
    alphabet=st.sampled_from(list("ab \t\n\r\x0b\x0c\x1c\x85\u2028\u2029éß😀\U0001f600中")),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.data())
def test_matches_reference_and_round_trips(text: str, data: st.DataObject) -> None:
    idx = LineIndex(text)
    offset = data.draw(st.integers(0, len(text)))
    for enc in ENCODINGS:
        line, char = idx.position(offset, enc)
        assert (line, char) == naive_position(text, offset, enc)
        back = idx.offset(line, char, enc)
        if offset <= idx.line_end(line):
            assert back == offset
        else:  # the offset points into a line break: clamps to the line end
            assert back == idx.line_end(line)
        # any (line, character) maps into the text without raising
        ln = data.draw(st.integers(-2, idx.line_count + 2))
        ch = data.draw(st.integers(-2, 200))
        assert 0 <= idx.offset(ln, ch, enc) <= len(text)
