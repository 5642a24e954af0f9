"""Where keys are in a configuration's TOML text: ``tomllib`` gives values, not positions,
so each problem's line and column comes from a scan of the text (best effort: the usual
``[[suite]]`` / ``[suite.thresholds]`` / ``key = value`` layout) and from the position
``tomllib`` writes into its error messages."""

from __future__ import annotations

import re

from evalschema.pointer import escape

#: The position ``tomllib`` appends to its error messages.
TOML_POS = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def error_position(message: str) -> tuple[str, int | None, int | None]:
    """A ``tomllib`` error message without its position, and the line and column."""
    m = TOML_POS.search(message)
    if m is None:
        return message, None, None
    return message[:m.start()], int(m.group(1)), int(m.group(2))


def key_locations(text: str, prefix: str) -> dict[str, tuple[int, int]]:
    """Pointer -> (line, column) of the keys and table headers in a configuration's text;
    ``prefix`` is the pointer of the evalschema table ("" or "/tool/evalschema")."""
    head = r"tool\.evalschema\." if prefix else ""
    suite_re = re.compile(r"^\s*\[\[\s*" + head + r"suite\s*\]\]")
    sub_re = re.compile(r"^\s*\[\s*" + head + r"suite\.(\w+)\s*\]")
    own_re = re.compile(r"^\s*\[\s*tool\.evalschema\s*\]") if prefix else None
    header_re = re.compile(r"^\s*\[+\s*([A-Za-z0-9_-]+)")
    key_re = re.compile(r"""^(\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*[=.]""")
    out: dict[str, tuple[int, int]] = {}
    table: str | None = None if prefix else ""
    suite = -1
    for lineno, line in enumerate(text.splitlines(), start=1):
        col = len(line) - len(line.lstrip()) + 1
        if suite_re.match(line):
            suite += 1
            table = f"{prefix}/suite/{suite}"
            out[table] = (lineno, col)
        elif (m := sub_re.match(line)) and suite >= 0:
            table = f"{prefix}/suite/{suite}/{escape(m.group(1))}"
            out.setdefault(table, (lineno, col))
        elif own_re is not None and own_re.match(line):
            table = prefix
            out.setdefault(prefix, (lineno, col))
        elif m := header_re.match(line):
            table = None
            if not prefix:  # an unknown top-level table of evalschema.toml
                out.setdefault("/" + escape(m.group(1)), (lineno, col))
        elif table is not None and (m := key_re.match(line)):
            out.setdefault(f"{table}/{escape(unquote(m.group(2)))}", (lineno, col))
    return out


def unquote(key: str) -> str:
    """A TOML key as written (bare, "basic" or 'literal') to the key it names."""
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'":
        inner = key[1:-1]
        return inner.encode().decode("unicode_escape") if key[0] == '"' else inner
    return key
