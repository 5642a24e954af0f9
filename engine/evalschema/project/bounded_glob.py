"""A glob that cannot run away: configuration files name their extracted runs with glob
patterns, and a configuration may be someone else's. ``bounded_glob`` never follows a
symlinked folder out, visits a bounded number of entries and returns a bounded number
of files, so a pattern such as ``**/*`` over a huge or looping tree ends quickly."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from pathlib import Path

#: Characters that make a path a pattern.
GLOB_CHARS = re.compile(r"[*?\[]")


def bounded_glob(folder: Path, pattern: str, max_entries: int, max_files: int
                 ) -> tuple[list[Path], str | None]:
    """Files under ``folder`` matching the relative glob ``pattern`` (``*``, ``?``,
    ``[...]`` within a name, ``**`` for any folders; names starting with '.' only when
    the pattern says so, as ``glob``), sorted. Never follows a symlinked folder, visits
    at most ``max_entries`` directory entries and returns at most ``max_files`` files:
    when a cap is hit, returns what it has and why it stopped."""
    parts = [x for x in pattern.replace("\\", "/").split("/") if x not in ("", ".")]
    # Walk from the literal folders in front of the first wildcard.
    k = 0
    while k < len(parts) - 1 and not GLOB_CHARS.search(parts[k]):
        k += 1
    start = folder.joinpath(*parts[:k])
    rest = parts[k:]
    deep = "**" in rest
    found: list[Path] = []
    visited = 0
    if not start.is_dir() or not start.resolve().is_relative_to(folder.resolve()):
        return [], None  # nothing there, or a symlinked folder leading out: not walked
    for here, dirs, files in os.walk(start, followlinks=False):
        rel = Path(here).relative_to(start).parts
        visited += len(dirs) + len(files)
        if visited > max_entries:
            return sorted(found, key=str), f"visited more than {max_entries:,} entries"
        if not deep:
            dirs[:] = [d for d in dirs if len(rel) + 1 < len(rest)]
        dirs.sort()
        for name in sorted(files):
            if _match(rest, [*rel, name]):
                found.append(Path(here) / name)
                if len(found) > max_files:
                    return sorted(found, key=str), f"matched more than {max_files:,} files"
    return sorted(found, key=str), None


def _match(pat: list[str], path: list[str]) -> bool:
    """Glob segments against path segments (``**`` is any number of folders). Memoised
    on positions, so a pattern of many ``**`` stays polynomial."""

    @functools.cache
    def at(i: int, j: int) -> bool:
        if i == len(pat):
            return j == len(path)
        head = pat[i]
        if head == "**":
            for k in range(j, len(path) + 1):
                if at(i + 1, k):
                    return True
                if k < len(path) and path[k].startswith("."):
                    return False  # '**' does not enter hidden folders (as glob)
            return False
        if j == len(path):
            return False
        seg = path[j]
        if seg.startswith(".") and not head.startswith("."):
            return False
        return fnmatch.fnmatchcase(seg, head) and at(i + 1, j + 1)

    return at(0, 0)
