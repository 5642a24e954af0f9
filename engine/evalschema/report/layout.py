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


def shorten_all(paths: list[str], cells: int) -> dict[str, str]:
    """Each path in at most ``cells`` cells (``shorten``), and no two alike: paths that
    would read the same (``itinerary_section_00.….name`` and ``…_01.….name``) keep,
    besides their start and end, the part where they differ from each other."""
    out = {p: shorten(p, cells) for p in paths}
    alike: dict[str, list[str]] = {}
    for p, s in out.items():
        alike.setdefault(s, []).append(p)
    for same in alike.values():
        if len(same) < 2:
            continue
        for p in same:
            at = max(_common(p, q) for q in same if q != p)
            out[p] = _around(p, at, cells)
    return out


def _common(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _around(path: str, at: int, cells: int) -> str:
    """``path`` in ``cells`` cells keeping its start, the segment holding character
    ``at`` (where it differs from a sibling) and its last segment."""
    cut = max(path.rfind("."), path.rfind("/"))
    end = path[cut:] if cut > at else ""
    start = max(path.rfind(".", 0, at), path.rfind("[", 0, at), path.rfind("/", 0, at)) + 1
    stop = next((i for i in range(at, len(path)) if path[i] in ".[/"), len(path))
    room = cells - cell_len(end) - (2 if end else 1)
    window = path[start:stop]
    if cell_len(window) > room - 1:
        window = tail(path[:stop], max(1, room - 1))
        start = stop - len(window)
    prefix = head(path, max(0, room - cell_len(window)))
    if len(prefix) >= start:
        text = path[:stop]
        text = text if cell_len(text) <= room + 1 else head(text, 1) + ELLIPSIS + window
    else:
        text = prefix + ELLIPSIS + window
    got = text + (ELLIPSIS + end if end else ("" if stop >= len(path) else ELLIPSIS))
    return got if cell_len(got) <= cells else shorten(path, cells)


def fit_line(line: str, width: int, *, words: bool = False) -> list[str]:
    """One line as lines of at most ``width`` cells, continuation lines indented: a line
    of parts separated by two or more spaces (a summary's figures) is re-packed at those
    gaps; with ``words``, prose is wrapped between words. A part that is still too long
    is cut at its end."""
    if cell_len(line) <= width:
        return [line]
    indent = line[:len(line) - len(line.lstrip(" "))]
    lead = indent + "  " if words else indent or "  "
    sep = " " if words else "  "
    out: list[str] = []
    current: str | None = None
    for part in (line.split() if words else _GAPS.split(line.strip())):
        if current is not None and cell_len(f"{current}{sep}{part}") <= width:
            current = f"{current}{sep}{part}"
            continue
        if current is not None:
            out.append(current)
        current = clip(f"{lead if out else indent}{part}", width)
    if current is not None:
        out.append(current)
    return out


def fit_lines(lines: list[str], width: int | None, *, words: bool = False) -> list[str]:
    """Every line fitted to ``width`` (unchanged when ``width`` is None)."""
    if width is None:
        return lines
    return [piece for line in lines for piece in fit_line(line, width, words=words)]
