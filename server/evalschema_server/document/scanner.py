"""The token patterns of the parser's loop, and the decoders for rare tokens.

The loop in ``parser`` tokenizes inline: one compiled regular expression per
token, consuming the token and the whitespace after it, so that no function is
called per token on the keystroke path. This module holds those patterns and the
work done out of line, only for unusual tokens: strings with escapes, control
characters or no closing quote, malformed numbers, integers past Python's
str->int digit limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from json import decoder as _json_decoder
from typing import Final

from .tree import SyntaxIssue, add_issue

__all__ = [
    "BARE_WORD",
    "BLOCK_COMMENT",
    "COLON_AHEAD",
    "KEY_SCALAR",
    "LINE_COMMENT",
    "LITERAL",
    "LOOSE_NUMBER",
    "NUMBER",
    "STRAY",
    "STRICT_NUMBER",
    "STRING",
    "WHITESPACE",
    "loose_number",
    "parse_int",
    "scan_slow_string",
]

_WS_CLASS = r"[ \t\n\r]*"
# Characters some tools treat as whitespace but JSON does not: reported, then skipped.
_STRAY_CHARS = "\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff"
_NUM_PATTERN = r"(-?(?:0|[1-9][0-9]*))((?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)(?![0-9.eE])"
_LIT_PATTERN = r"(true|false|null)(?![0-9A-Za-z_$])"
_SIMPLE_STR = r'"([^"\\\x00-\x1f]*)"'

WHITESPACE: Final = re.compile(_WS_CLASS)
STRING: Final = re.compile(_SIMPLE_STR + _WS_CLASS)
NUMBER: Final = re.compile(_NUM_PATTERN + _WS_CLASS)
LITERAL: Final = re.compile(_LIT_PATTERN + _WS_CLASS)
# The hot path: `"key": scalar,` (colon, value and comma optional) in one match.
KEY_SCALAR: Final = re.compile(
    _SIMPLE_STR
    + _WS_CLASS
    + r"(?:(:)"
    + _WS_CLASS
    + r"(?:(?:"
    + _SIMPLE_STR
    + "|"
    + _NUM_PATTERN
    + "|"
    + _LIT_PATTERN
    + ")"
    + _WS_CLASS
    + r"(?:(,)"
    + _WS_CLASS
    + r")?)?)?"
)
COLON_AHEAD: Final = re.compile(_WS_CLASS + ":")
LOOSE_NUMBER: Final = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]*)?")
STRICT_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
LINE_COMMENT: Final = re.compile(r"//[^\n\r]*")
BLOCK_COMMENT: Final = re.compile(r"/\*.*?\*/", re.S)
STRAY: Final = re.compile(f"[{_STRAY_CHARS}]+")
BARE_WORD: Final = re.compile(f'(?:[^ \\t\\n\\r{{}}\\[\\],:"/{_STRAY_CHARS}]|/(?![/*]))+')


def parse_int(s: str) -> int | float:
    """``int(s)`` without tripping Python's 4300-digit str->int limit."""
    if len(s) < 4000:
        return int(s)
    try:
        return int(Decimal(s))
    except (InvalidOperation, ValueError, OverflowError):  # pragma: no cover - defensive
        return float(s)


def loose_number(s: str) -> int | float:
    """Best-effort number for an invalid literal such as ``01``, ``1.``, ``.5``, ``+1``, ``1e``."""
    t = s.lstrip("+").rstrip("eE+-")
    try:
        if "." in t or "e" in t or "E" in t:
            return float(t)
        return parse_int(t)
    except ValueError:  # pragma: no cover - the regex only admits convertible shapes
        return 0


# A string that may hold escapes and control characters; it ends at the closing
# quote, or (unterminated) at the line end / end of text, a trailing `\` included.
_STR_SLOW: Final = re.compile(r'"([^"\\\n\r]*(?:\\[^\n\r][^"\\\n\r]*)*)(?:(")|\\?)')
_CTRL: Final = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1f]+")
_ESC: Final = re.compile(
    r"\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
    r'|u([0-9a-fA-F]{4})|(["\\/bfnrt])|(.?))',
    re.S,
)
# C-accelerated JSON string decoding (not in typeshed's stubs).
_scanstring: Callable[[str, int, bool], tuple[str, int]] = _json_decoder.scanstring  # type: ignore[attr-defined]
_SIMPLE_ESC: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}


def scan_slow_string(text: str, pos: int, end: int, issues: list[SyntaxIssue]) -> tuple[int, str]:
    """Scan a string with escapes, control characters or no closing quote."""
    m = _STR_SLOW.match(text, pos, end)
    if m is None:  # pragma: no cover - text[pos] is always '"'
        return pos + 1, ""
    raw = m.group(1)
    tend = m.end()
    terminated = m.group(2) is not None
    if not terminated:
        add_issue(issues, "unterminated-string", pos, tend - pos)
    content = pos + 1
    for c in _CTRL.finditer(text, content, content + len(raw)):
        add_issue(
            issues,
            "invalid-character",
            c.start(),
            c.end() - c.start(),
            "Invalid characters in string. Control characters must be escaped.",
        )
    if "\\" not in raw:
        return tend, raw
    if terminated:
        try:
            value, after = _scanstring(text, content, False)
            if after == tend:
                return tend, value
        except ValueError:
            pass
    out: list[str] = []
    last = 0
    for e in _ESC.finditer(raw):
        out.append(raw[last : e.start()])
        hi, lo, u, simple, _other = e.groups()
        if hi is not None:
            h = int(hi, 16)
            low = int(lo, 16)
            out.append(chr(0x10000 + ((h - 0xD800) << 10) + (low - 0xDC00)))
        elif u is not None:
            out.append(chr(int(u, 16)))
        elif simple is not None:
            out.append(_SIMPLE_ESC[simple])
        else:
            add_issue(issues, "invalid-escape", content + e.start(), e.end() - e.start())
            out.append(e.group(0))  # keep `\q` verbatim: Windows paths survive
        last = e.end()
    out.append(raw[last:])
    return tend, "".join(out)
