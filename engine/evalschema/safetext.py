"""Text that is safe to show and to write, whatever the data holds.

Keys and values come from schemas and model output nobody controls. Shown as they are,
an ESC sequence clears the user's screen or sets the terminal's title, a newline inside a
key prints a fake line ("all thresholds met"), a lone surrogate (``"\\ud800"`` in JSON)
makes the UTF-8 encoder fail half-way through a report, and a NaN makes a JSON report
that no JSON parser reads. This module neutralises each, in one place:

- ``one_line``: a piece of data shown on one line of a terminal report or message:
  every control character (C0 with tab and newline, DEL, C1), bidirectional overrides
  and line separators become visible escapes (``\\x1b``, ``\\n``, ``\\u202e``);
- ``shown``: the same, and lone surrogates too (for messages printed directly);
- ``for_document``: a whole text document (table, Markdown, JUnit, HTML): the same
  characters escaped except tab and newline, which lay the document out; lone
  surrogates become ``\\udXXX``;
- ``for_json``: a JSON text: those characters, raw inside its strings, become ``\\uXXXX``
  escapes, so the document means exactly the same and encodes everywhere;
- ``finite``/``json_text``: numbers that are not finite become the strings ``"NaN"``,
  ``"Infinity"`` and ``"-Infinity"``, so JSON output never holds bare ``NaN``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from evalschema.pointer import join as ptr_join

#: What a terminal acts on or shows misleadingly, except tab and newline: C0 controls,
#: DEL, C1 controls (``\x9b`` is a CSI), line and paragraph separators, bidirectional
#: embeddings, overrides and isolates, and the non-characters XML 1.0 forbids.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff"
_SURROGATES = "\ud800-\udfff"

_LINE = re.compile(f"[\t\n{_CONTROLS}]")
_SHOWN = re.compile(f"[\t\n{_CONTROLS}{_SURROGATES}]")
_DOCUMENT = re.compile(f"[{_CONTROLS}{_SURROGATES}]")
_SURROGATE = re.compile(f"[{_SURROGATES}]")

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    named = _NAMED.get(c)
    if named is not None:
        return named
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def _json_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def one_line(text: object) -> str:
    """``text`` as one line with nothing a terminal acts on; lone surrogates are left
    for the writer (``for_document``), which counts and reports them."""
    return _LINE.sub(_escape, str(text))


def shown(text: object) -> str:
    """``one_line``, lone surrogates escaped too: for a message printed directly."""
    return _SHOWN.sub(_escape, str(text))


def lone_surrogates(text: str) -> int:
    return len(_SURROGATE.findall(text))


def for_document(text: str) -> tuple[str, int]:
    """A text document safe to print and to encode as UTF-8 (tab and newline kept),
    and how many lone surrogates it held."""
    n = lone_surrogates(text)
    return _DOCUMENT.sub(_escape, text), n


def for_json(text: str) -> tuple[str, int]:
    """A JSON text with every unsafe character ``\\u``-escaped (they can only stand inside
    its strings, where the escape means the same character), and how many lone
    surrogates it held."""
    n = lone_surrogates(text)
    return _DOCUMENT.sub(_json_escape, text), n


def finite(value: Any) -> Any:
    """``value`` with every float that is not finite replaced by ``"NaN"``,
    ``"Infinity"`` or ``"-Infinity"`` (tuples become lists, as in JSON)."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Mapping):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def json_text(doc: Any, *, indent: int | None = 2) -> str:
    """``doc`` as JSON that every parser reads: never a bare ``NaN`` or ``Infinity``
    (``finite``); other values JSON lacks are written with ``str``. Characters are kept
    as they are; ``for_json`` makes the text safe to print and encode."""
    try:
        return json.dumps(doc, ensure_ascii=False, indent=indent, default=str, allow_nan=False)
    except ValueError:  # a NaN or an infinity somewhere: the slow path, only then
        return json.dumps(finite(doc), ensure_ascii=False, indent=indent, default=str,
                          allow_nan=False)


def _first(doc: Any, bad: Callable[[Any], bool], pointer: str = "") -> str | None:
    """The JSON Pointer of the first key or value (depth first) that is ``bad``."""
    stack: list[tuple[Any, str]] = [(doc, pointer)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for k, v in reversed(list(value.items())):
                here = ptr_join(where, str(k))
                if bad(k):
                    return here
                stack.append((v, here))
        elif isinstance(value, list):
            stack.extend((v, ptr_join(where, i)) for i, v in reversed(list(enumerate(value))))
        elif bad(value):
            return where
    return None


def _has_surrogate(value: Any) -> bool:
    return isinstance(value, str) and _SURROGATE.search(value) is not None


def _not_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def surrogate_pointer(doc: Any, pointer: str = "") -> str | None:
    """Where ``doc`` first holds a lone surrogate (in a key or a string), or None."""
    return _first(doc, _has_surrogate, pointer)


def nonfinite_pointer(doc: Any, pointer: str = "") -> str | None:
    """Where ``doc`` first holds a NaN or an infinity, or None."""
    return _first(doc, _not_finite, pointer)
