"""JSON with comments (JSONC), as eval schemas may be written (``*.eval.jsonc``, and
VS Code's JSON with comments): ``//`` and ``/* */`` comments and trailing commas.

They are blanked to spaces rather than parsed by a second grammar: the text keeps its
length and line breaks, so the strict parser (``jsontext``) reads the rest and every
error it reports stays at the line and column the user wrote. Strings are left as they
are, whatever they hold (``"http://x"``, ``"/* not a comment */"``).
"""

from __future__ import annotations

import re

#: A string (kept), a comment, or a comma with only blanks and comments before a closing
#: bracket (blanked). One alternation, so a ``//`` inside a string is never a comment.
_TOKENS = re.compile(r'''
    "(?:[^"\\]|\\.)*"                          # a string, escapes included
  | //[^\n\r]*                                 # a line comment, up to the line break
  | /\*.*?\*/                                  # a block comment
  | ,(?=(?:\s|//[^\n\r]*|/\*.*?\*/)*[}\]])     # a trailing comma
''', re.DOTALL | re.VERBOSE)

_NOT_BREAKS = re.compile(r"[^\n\r]")


def blank_jsonc(text: str) -> str:
    """``text`` with its comments and trailing commas turned into spaces (line breaks
    kept), so it is strict JSON of the same length when it was valid JSONC. A comma
    after ``{``, ``[`` or another comma is no trailing comma and stays (``{,}`` is an
    error, as in VS Code), as does a comment left open (``/*`` with no end): the strict
    parser reports them where they are."""
    if "/" not in text and "," not in text:
        return text
    out: list[str] = []
    last = 0
    before = ""  # the last character that is neither blank nor in a comment
    for m in _TOKENS.finditer(text):
        between = text[last:m.start()].rstrip()
        out.append(text[last:m.start()])
        if between:
            before = between[-1]
        token = m.group()
        if token[0] == '"':
            out.append(token)
            before = '"'
        elif token[0] == ",":
            trailing = before not in ("", "{", "[", ",")
            out.append(" " if trailing else ",")
            before = before if trailing else ","
        else:
            out.append(_NOT_BREAKS.sub(" ", token))
        last = m.end()
    out.append(text[last:])
    return "".join(out)
