"""Lenient reading of LLM output that should have been JSON.

Extractors answer with fenced blocks, prose around the object, trailing commas and
single quotes. We dig the value out and say that we had to, so a report can show
how often an extractor needed rescuing. An unreadable answer raises
``LenientParseError``; callers turn that into a scored outcome.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json5?|JSON)?[ \t]*\r?\n?(.*?)```", re.DOTALL)


#: The method (and a record's repair reason) of text that was cut short and closed.
TRUNCATED = "truncated"


class LenientParseError(ValueError):
    """The text holds no JSON value we could recover."""


@dataclass(frozen=True, slots=True)
class LenientResult:
    value: Any
    #: False when the text was plain strict JSON.
    repaired: bool
    #: How it was recovered: "strict", "fence", "embedded", "repaired", or "truncated"
    #: (the text was cut short: see ``close_truncated``).
    method: str


def parse_lenient(text: str, *, want_object: bool = True) -> LenientResult:
    """Recover a JSON value from ``text``.

    Order: strict JSON; the first ```json fenced block; the first balanced ``{...}``
    (or ``[...]`` when ``want_object`` is false) that parses; then the same
    candidates after repairing trailing commas, single quotes and Python literals.
    """
    stripped = text.strip()
    try:
        return _parse(stripped, want_object)
    except RecursionError:
        raise LenientParseError("the text is nested too deeply to read") from None


def _parse(stripped: str, want_object: bool) -> LenientResult:
    try:
        value = json.loads(stripped)
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            # No repair can read it: say why instead of "no JSON object found".
            raise LenientParseError(f"an integer has more than {sys.get_int_max_str_digits():,} "
                                    "digits, more than Python reads") from None
    else:
        if not want_object or isinstance(value, dict):
            return LenientResult(value, False, "strict")
    for method, candidate in _candidates(stripped, want_object):
        try:
            return LenientResult(json.loads(candidate), True, method)
        except ValueError:
            pass
        repaired, truncated = close_truncated(_repair(candidate))
        try:
            return LenientResult(json.loads(repaired), True,
                                 TRUNCATED if truncated else "repaired")
        except ValueError:
            continue
    snippet = stripped[:60] + ("…" if len(stripped) > 60 else "")
    raise LenientParseError(f"no JSON {'object' if want_object else 'value'} found in {snippet!r}")


def _candidates(text: str, want_object: bool) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = [("fence", m.group(1).strip()) for m in _FENCE.finditer(text)]
    openers = "{" if want_object else "{["
    begin = -1
    while len(out) < 16:
        positions = [p for p in (text.find(o, begin + 1) for o in openers) if p >= 0]
        if not positions:
            break
        begin = min(positions)
        end = balanced_end(text, begin)
        # Unbalanced: offer the rest of the text, repair may still close it.
        out.append(("embedded", text[begin:] if end is None else text[begin : end + 1]))
        if end is None:
            break
    return out


def balanced_end(text: str, begin: int, limit: int | None = None) -> int | None:
    """Index of the bracket closing the one at ``begin``, skipping strings; None when it
    is not closed (within ``limit`` characters)."""
    depth = 0
    stop = len(text) if limit is None else min(len(text), begin + limit)
    i = begin
    while i < stop:
        ch = text[i]
        if ch in "\"'":
            i = _string_end(text, i, stop)  # ``stop`` when the string is not closed
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
#: The escapes of a single-quoted (Python) string that mean the character itself.
_PY_ESCAPE = re.compile(r"\\([\\'\"])")


def _repair(text: str) -> str:
    """Fix the common slips: single-quoted strings, trailing commas, Python literals."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            j = _string_end(text, i, n)
            if j == n:
                out.append(text[i:])  # cut inside the string: close_truncated drops it
                break
            if ch == '"':
                out.append(text[i : j + 1])
            else:
                body = _PY_ESCAPE.sub(r"\1", text[i + 1 : j])
                out.append(json.dumps(body))  # parsed next: the escapes read back alike
            i = j + 1
        elif ch.isalpha():
            # A bare word other than these literals leaves the text invalid whatever
            # follows it, so only whole words need telling apart.
            j = i
            while j < n and text[j].isalnum():
                j += 1
            word = text[i:j]
            out.append(_PY_LITERALS.get(word, word))
            i = j
        elif ch == ",":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # a trailing comma
                continue
            out.append(ch)
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _string_end(text: str, begin: int, end: int) -> int:
    """Index of the quote closing the string that opens at ``begin`` (a backslash escapes
    the character after it); ``end`` when the text is cut before it (at ``end``)."""
    quote = text[begin]
    i = begin + 1
    while i < end:
        ch = text[i]
        if ch == quote:
            return i
        i += 2 if ch == "\\" else 1
    return end


_LITERALS = ("true", "false", "null")
_DELIMS = frozenset(",:{}[]\"")


def close_truncated(text: str) -> tuple[str, bool]:
    """(text, truncated): JSON text cut short (``max_tokens``) closed so it parses.

    The cut is made after the last complete member: an open string, a key without its
    value, a half-written literal are dropped; every complete field is kept and the open
    arrays and objects are closed. Text whose brackets all close comes back unchanged.
    A number at the very end is kept (it cannot be told from a complete one).
    """
    stack: list[str] = []  # the closers of the open containers, innermost last
    #: Per open container: True when the next string is an object's key.
    want_key: list[bool] = []
    #: text[:good] + the closers of the containers open at that point parses. Every push
    #: and pop moves ``good``, so those are the ones still open when the walk stops:
    #: joined once at the end (joining them at every step is quadratic in the depth).
    good = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\r\n,":
            i += 1
            continue
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
            want_key.append(ch == "{")
            i += 1
            good = i
            continue
        if ch in "}]":
            if not stack:
                return text, False
            stack.pop()
            want_key.pop()
            i += 1
            if not stack:
                return text, False  # the value closed: not truncated
            if stack[-1] == "}":
                want_key[-1] = True
            good = i
            continue
        if ch == ":":
            i += 1
            continue
        if not stack:
            return text, False
        if ch == '"':
            j = _string_end(text, i, n)
            if j == n:
                break  # cut inside the string
            i = j + 1
            if want_key[-1]:
                want_key[-1] = False  # its value comes next
                continue
        else:
            j = i
            while j < n and text[j] not in _DELIMS and not text[j].isspace():
                j += 1
            word = text[i:j]
            i = j
            if j >= n and word not in _LITERALS and not parses(word):
                break
        if stack[-1] == "}":
            want_key[-1] = True
        good = i
    if good == 0:  # no container was opened
        return text, False
    # ``good`` is right after a value or a bracket: no comma or space to trim.
    return text[:good] + "".join(reversed(stack)), True


def parses(text: str) -> bool:
    """Whether ``text`` is strict JSON (a whole number, a line of JSONL, …)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True
