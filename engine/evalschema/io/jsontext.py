"""JSON text to values: located parse errors and warnings about repeated keys.

``json.loads`` says what is wrong but not in words a user acts on, and silently keeps
the last of two equal keys; gold and schemas are read through here so both become
located ``Problem``s. Records, files and their streaming are ``records``' concern.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import warnings
from typing import Any

from evalschema.errors import InputError, Problem, ProblemWarning, Severity
from evalschema.io.jsonc import blank_jsonc
from evalschema.pointer import join as ptr_join


def json_error(text: str, exc: ValueError) -> tuple[str, str, int]:
    """(code, message, offset) of a ``json.loads`` failure on ``text``. Besides syntax
    errors, Python refuses integers longer than its conversion limit (4,300 digits:
    converting longer ones takes quadratic time) with a ValueError that has no
    position; the first such run of digits is where it is."""
    if isinstance(exc, json.JSONDecodeError):
        return "invalid-json", exc.msg, exc.pos
    limit = sys.get_int_max_str_digits()
    if limit and "integer string conversion" in str(exc):
        m = re.search(rf"\d{{{limit + 1},}}", text)
        return ("number-too-long", f"an integer has more than {limit:,} digits, more than "
                "Python reads (write it as a string, or as a float with an exponent)",
                m.start() if m else 0)
    return "invalid-json", str(exc), 0


class _Duplicate(Exception):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _Duplicate
    return d


#: Parses as ``json.loads`` but stops at an object with a repeated key. The hook is a
#: Python call per object, so a parse costs about twice ``json.loads`` (20,000 typical
#: records: 0.25 s against 0.11 s): the price of reporting duplicate keys in gold.
_UNIQUE = json.JSONDecoder(object_pairs_hook=_unique_pairs)
_WS = " \t\n\r"


#: Duplicate keys are located by a pure-Python scan of the text; past this size only
#: the keys are named (the scan would cost seconds), and at most ``_DUPLICATES_SHOWN``
#: warnings are raised per text.
_LOCATE_MAX_CHARS = 4 * 1024 * 1024
_DUPLICATES_SHOWN = 20


def loads_warning_duplicates(text: str, source: str | None, *, line: int | None = None,
                             indent: int = 0) -> Any:
    """``json.loads(text)``; a key repeated in one object is a ``ProblemWarning`` naming
    both places (the last value wins, as JSON parsers usually do). ``line``: the text is
    that line of ``source`` (a JSONL record), starting at column ``indent`` + 1."""
    try:
        return _UNIQUE.decode(text)
    except _Duplicate:
        pass
    found: list[Problem] = []
    if len(text) > _LOCATE_MAX_CHARS:
        keys: list[str] = []

        def collect(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
            d = dict(pairs)
            if len(d) != len(pairs):
                seen: set[str] = set()
                for k, _ in pairs:
                    if k in seen:
                        keys.append(k)
                    seen.add(k)
            return d

        value = json.JSONDecoder(object_pairs_hook=collect).decode(text)
        found = [Problem("duplicate-key", f"key {key!r} appears twice in one object; the last "
                         "value is used", "", "remove one of them", Severity.WARNING, "key",
                         source, line) for key in dict.fromkeys(keys)]
    else:
        value = json.loads(text)
        for pointer, key, first, second in duplicate_keys(text):
            if line is None:
                (l1, c1), (l2, c2) = line_col(text, first), line_col(text, second)
            else:
                (l1, c1), (l2, c2) = (line, first + 1 + indent), (line, second + 1 + indent)
            found.append(Problem(
                "duplicate-key", f"key {key!r} appears twice in one object (first at line "
                f"{l1}, column {c1}); the last value is used", pointer, "remove one of them",
                Severity.WARNING, "key", source, l2, c2, {"first": [l1, c1]}))
    for problem in found[:_DUPLICATES_SHOWN]:
        warnings.warn(ProblemWarning(problem), stacklevel=2)
    if len(found) > _DUPLICATES_SHOWN:
        warnings.warn(ProblemWarning(Problem(
            "duplicate-key", f"… and {len(found) - _DUPLICATES_SHOWN:,} more duplicate keys",
            "", None, Severity.WARNING, "key", source, line)), stacklevel=2)
    return value


def loads_document(text: str, source: str | None, what: str = "file", *,
                   jsonc: bool = False) -> Any:
    """One JSON document's text to its value, or ``InputError`` located at the line and
    column of the mistake. ``jsonc``: comments and trailing commas are blanked first
    (``io.jsonc``: positions kept), the one way eval schemas are read, on the command
    line and in the editor."""
    if jsonc:
        if text.startswith("\ufeff"):
            text = " " + text[1:]  # a byte order mark, kept as a column
        try:  # strict JSON first: most schemas have no comment, and blanking costs a pass
            return loads_warning_duplicates(text, source)
        except ValueError:
            text = blank_jsonc(text)
        except RecursionError:
            pass  # reported below
    try:
        return loads_warning_duplicates(text, source)
    except ValueError as exc:
        code, msg, pos = json_error(text, exc)
        line, col = line_col(text, pos)
        raise InputError([Problem(code, f"{what} is not valid JSON: {msg}", source=source,
                                  line=line, column=col, data={"offset": pos})]) from None
    except RecursionError:
        raise InputError([Problem("too-deep", f"{what} is nested too deeply to read",
                                  source=source)]) from None


def duplicate_keys(text: str) -> list[tuple[str, str, int, int]]:
    """(pointer of the key, key, offset of its first and of its repeated occurrence) for
    every key repeated within one object of the JSON ``text`` (which must parse)."""
    scan = json.decoder.scanstring  # type: ignore[attr-defined]
    scan_value = _UNIQUE.scan_once  # type: ignore[attr-defined]
    out: list[tuple[str, str, int, int]] = []

    def skip(i: int) -> int:
        while i < len(text) and text[i] in _WS:
            i += 1
        return i

    def value(i: int, pointer: str) -> int:
        i = skip(i)
        c = text[i]
        if c == "{":
            seen: dict[str, int] = {}
            i = skip(i + 1)
            if text[i] == "}":
                return i + 1
            while True:
                i = skip(i)
                at = i
                key, i = scan(text, i + 1)
                i = skip(i) + 1  # ':'
                child = ptr_join(pointer, key)
                if key in seen:
                    out.append((child, key, seen[key], at))
                else:
                    seen[key] = at
                i = skip(value(i, child))
                if text[i] == ",":
                    i += 1
                    continue
                return i + 1
        if c == "[":
            i = skip(i + 1)
            if text[i] == "]":
                return i + 1
            k = 0
            while True:
                i = skip(value(i, f"{pointer}/{k}"))
                k += 1
                if text[i] == ",":
                    i += 1
                    continue
                return i + 1
        try:
            return int(scan_value(text, i)[1])
        except _Duplicate:  # pragma: no cover - containers are handled above
            return i

    with contextlib.suppress(RecursionError, IndexError, ValueError, StopIteration):
        value(0, "")  # else: what was found so far
    return out



def line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based (line, column) of offset ``pos`` in ``text``."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1
