"""Text that fits: paths shortened in the middle, lines fitted to a terminal's width.

Widths are terminal cells, measured by rich (a CJK character takes two, a combining mark
none), so a table lines up whatever its field names hold. A field path keeps its start and
its distinguishing end (``line_items[].…unit_price``, ``…segment_name`` vs
``…segment_type``): the last segment is what tells sibling fields apart.
"""

from __future__ import annotations

import os
import re

from rich.cells import cell_len

ELLIPSIS = "…"
_GAPS = re.compile(r" {2,}")


def terminal_width() -> int | None:
    """The width to fit standard output to: ``COLUMNS`` when set, else the terminal's
    (measured by rich) when standard output is a terminal; None (no limit) when it goes
    to a pipe or a file, whose readers do not wrap."""
    import sys

    from rich.console import Console

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(20, int(columns))
    if not sys.stdout.isatty():
        return None
    return max(20, Console().width)


def head(text: str, cells: int) -> str:
    """The longest start of ``text`` that takes at most ``cells`` cells."""
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > cells:
            break
        out.append(ch)
        used += w
    return "".join(out)


def tail(text: str, cells: int) -> str:
    """The longest end of ``text`` that takes at most ``cells`` cells."""
    return head(text[::-1], cells)[::-1]


def clip(text: str, cells: int) -> str:
    """``text`` cut at its end to ``cells`` cells, with an ellipsis when cut."""
    if cell_len(text) <= cells:
        return text
    return head(text, cells - 1) + ELLIPSIS if cells > 0 else ""


def shorten(path: str, cells: int) -> str:
    """A field path in at most ``cells`` cells, cut in the middle: the whole last segment
    when it fits beside a few characters of the start, else the end's share is two
    thirds (the distinguishing part is at the end)."""
    if cell_len(path) <= cells:
        return path
    if cells <= 1:
        return ELLIPSIS[:cells]
    room = cells - 1
    cut = max(path.rfind("."), path.rfind("/"))
    last = path[cut + 1:] if cut >= 0 else ""
    if last and cell_len(last) + 4 <= room:
        end = last if cut < 0 else path[cut:]
        if cell_len(end) > room - 4:
            end = last
        return head(path, room - cell_len(end)) + ELLIPSIS + end
    end_cells = max(1, (2 * room + 2) // 3)
    end = tail(path, end_cells)
    return head(path, room - cell_len(end)) + ELLIPSIS + end


def fit_line(line: str, width: int) -> list[str]:
    """One line as lines of at most ``width`` cells: a line of parts separated by two or
    more spaces (a summary's figures) is re-packed at those gaps, continuation lines
    keeping its indent; a part that is still too long is cut at its end."""
    if cell_len(line) <= width:
        return [line]
    indent = line[:len(line) - len(line.lstrip(" "))]
    lead = indent or "  "
    out: list[str] = []
    current: str | None = None
    for part in _GAPS.split(line.strip()):
        if current is not None and cell_len(f"{current}  {part}") <= width:
            current = f"{current}  {part}"
            continue
        if current is not None:
            out.append(current)
        current = clip(f"{lead if out else indent}{part}", width)
    if current is not None:
        out.append(current)
    return out


def fit_lines(lines: list[str], width: int | None) -> list[str]:
    """Every line fitted to ``width`` (unchanged when ``width`` is None)."""
    if width is None:
        return lines
    return [piece for line in lines for piece in fit_line(line, width)]
