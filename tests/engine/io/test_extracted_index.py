"""The extracted records of a file by id (``evalschema.io.extracted_index``): the same index
whether the file is a JSONL file read back line by line, a JSON array held whole or a
list, and byte ranges that cut a file at line starts."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from evalschema.io.extracted import NO_RECORD
from evalschema.io.extracted_index import ExtractedIndex, scan_range, split_ranges
from evalschema.io.records import RawLine

RECORDS: list[Any] = [{"id": "a"}, {"id": "b", "v": "é"}, {"no": "id"}, "{not json",
                      {"id": "a", "again": True}, '```json\n{"id": "c"}\n```']


def _index(tmp_path: Path, kind: str) -> ExtractedIndex:
    if kind == "list":
        return ExtractedIndex(RECORDS, "id")
    path = tmp_path / ("e.jsonl" if kind == "jsonl" else "e.json")
    if kind == "jsonl":
        path.write_text("".join((r if isinstance(r, str) and not r.startswith("`") else
                                 json.dumps(r)) + "\n" for r in RECORDS), encoding="utf-8")
    else:
        path.write_text(json.dumps(RECORDS, indent=2), encoding="utf-8")
    return ExtractedIndex(path, "id")


@pytest.mark.parametrize("kind", ["jsonl", "array", "list"])
def test_the_index_is_the_same_for_every_source(tmp_path: Path, kind: str) -> None:
    index = _index(tmp_path, kind)
    try:
        assert index.by_id == {"a": 0, "b": 1, "c": 5}
        assert index.leftovers == [(2, "extracted record has no 'id'"),
                                   (3, index.leftovers[1][1]),
                                   (4, "duplicate id 'a' (first at extracted record #1)")]
        assert index.leftovers[1][1].startswith("unreadable extracted record")
        assert index.unread == 1
        assert index.get(1) == ({"id": "b", "v": "é"}, False, None)
        assert index.get(3)[0] is NO_RECORD
        assert index.get(5) == ({"id": "c"}, True, None)
        lazy = index.get_lazy(1)
        # A JSONL file is read back line by line, unparsed until scored.
        assert isinstance(lazy, RawLine) == (kind == "jsonl")
    finally:
        index.close()


def test_ranges_start_at_line_starts_and_cover_the_file(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    lines = [json.dumps({"id": f"r{i}", "pad": "x" * (i * 7 % 50)}) for i in range(40)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = path.read_bytes()
    for parts in (1, 2, 5, 39, 200):
        ranges = split_ranges(path, parts)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        assert all(a < b for a, b in ranges)
        assert all(a2 == b1 for (_, b1), (a2, _) in itertools.pairwise(ranges))
        assert all(data[a - 1:a] == b"\n" for a, _ in ranges[1:])
        ids = [i for a, b in ranges for i in scan_range(str(path), a, b, "id").ids]
        assert ids == [f"r{i}" for i in range(40)]


def test_a_cut_that_falls_on_a_line_start_stays_there(tmp_path: Path) -> None:
    """Lines of equal length, as many parts as lines: each range is one line (a cut that
    lands on a line start is not pushed past that line, which would merge parts)."""
    path = tmp_path / "e.jsonl"
    lines = [json.dumps({"id": f"r{i}"}) + "\n" for i in range(8)]
    path.write_text("".join(lines), encoding="utf-8")
    width = len(lines[0])
    assert split_ranges(path, 8) == [(i * width, (i + 1) * width) for i in range(8)]
    assert split_ranges(path, 2) == [(0, 4 * width), (4 * width, 8 * width)]
