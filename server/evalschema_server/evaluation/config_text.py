"""Where the cursor is in ``evalschema.toml`` (or ``[tool.evalschema]`` of ``pyproject.toml``):
the key under it and the table it is in, for hovers; the line of each ``[[suite]]``, for
code lenses. Line-based on purpose: it must work on a half-typed file that TOML cannot
parse, and the keys of a suite table are bare words on their own lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]\s]+)\s*\]\]?")
_KEY = re.compile(r"""^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_.-]+))\s*=""")
#: The table names of a suite and of its thresholds, in evalschema.toml and pyproject.toml.
SUITE_TABLES = ("suite", "tool.evalschema.suite")
THRESHOLD_TABLES = ("suite.thresholds", "tool.evalschema.suite.thresholds")


@dataclass(frozen=True, slots=True)
class KeyAt:
    """The key under the cursor: its table (``suite``, ``suite.thresholds``...), its name,
    and its offsets in the text; ``suite`` counts the ``[[suite]]`` tables before it."""

    table: str
    key: str
    start: int
    end: int
    suite: int


def key_at(text: str, offset: int) -> KeyAt | None:
    """The key (or the table header, with ``key`` "") under ``offset``."""
    table, suite, pos = "", -1, 0
    for line in text.splitlines(keepends=True):
        end = pos + len(line)
        header = _HEADER.match(line)
        if header:
            table = header.group(2)
            if header.group(1) == "[[" and table in SUITE_TABLES:
                suite += 1
            if pos <= offset < end:
                return KeyAt(table, "", pos + header.start(2), pos + header.end(2), suite)
        elif pos <= offset < end or (offset == end and not line.endswith("\n")):
            found = _KEY.match(line)
            if found is None:
                return None
            g = next(i for i in (1, 2, 3) if found.group(i) is not None)
            start, stop = pos + found.start(g), pos + found.end(g)
            if found.group(1) is not None or found.group(2) is not None:
                start, stop = start - 1, stop + 1  # the quotes
            return KeyAt(table, found.group(g), start, stop, suite) \
                if start <= offset <= stop else None
        pos = end
    return None
