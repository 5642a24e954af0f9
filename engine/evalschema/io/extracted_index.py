"""The extracted records of a file by id, without holding them (pairing by id, streamed).

A JSONL file is indexed as id -> record number -> (byte offset, length, line), and each
line read back with one ``pread`` when its gold record comes. Indexing is a scan of the
file's lines; ``split_ranges`` and ``scan_range`` cut it into byte ranges that worker
processes scan in parallel, and ``ExtractedIndex`` folds their ``ScanPart``s into the
index one scan gives.
"""

from __future__ import annotations

import array
import itertools
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from evalschema.io.extracted import (
    NO_RECORD,
    Read,
    duplicate_id_problem,
    no_id_problem,
    read_extracted,
    usable_id,
)
from evalschema.io.records import (
    RawLine,
    RawRecord,
    RecordsLike,
    decode_line,
    is_streamable,
    iter_lines,
    iter_records_text,
    read_line_at,
)


@dataclass
class ScanPart:
    """What scanning one byte range of an extracted JSONL file found: per record its
    offset, length, line (within the range) and id, or why it has no usable id."""

    offsets: list[int]
    lengths: list[int]
    lines: list[int]
    ids: list[Any]
    #: (record number within the range, problem, unreadable?)
    problems: list[tuple[int, str, bool]]
    #: Lines in the range (blank ones too), to number the next range's lines.
    n_lines: int
    #: The range could not be scanned here (text that is not UTF-8): scan the file in
    #: the calling process, which reports it located.
    failed: bool = False


#: Scans the byte ranges of an extracted file, in order (e.g. on worker processes).
Scanner = Callable[[str, list[tuple[int, int]], str], list[ScanPart]]


def split_ranges(path: str | Path, parts: int) -> list[tuple[int, int]]:
    """``parts`` byte ranges of a file, each starting at a line start."""
    p = Path(path)
    size = p.stat().st_size
    cuts = [0]
    with p.open("rb") as f:
        for k in range(1, parts):
            f.seek(max(cuts[-1], size * k // parts))
            if f.tell() > 0:
                f.seek(f.tell() - 1)
                f.readline()  # to the start of the next line
            pos = f.tell()
            if cuts[-1] < pos < size:
                cuts.append(pos)
    cuts.append(size)
    return list(itertools.pairwise(cuts))


def scan_range(path: str, start: int, end: int, id_field: str) -> ScanPart:
    """Scan the records of ``path`` between byte ``start`` and ``end`` (line starts) for
    their ids: the work of indexing an extracted file, splittable across processes."""
    part = ScanPart([], [], [], [], [], 0)
    with open(path, "rb") as f:
        f.seek(start)
        pos = start
        lineno = 0
        j = -1
        while pos < end:
            raw = f.readline()
            if not raw:
                break
            offset, pos = pos, pos + len(raw)
            lineno += 1
            if offset == 0 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            text = decode_line(raw)  # a line that is not UTF-8: an unreadable record
            stripped = text.strip()
            if not stripped:
                continue
            j += 1
            indent = len(text) - len(text.lstrip())
            part.offsets.append(offset)
            part.lengths.append(_span_length(stripped, indent, offset))
            part.lines.append(lineno)
            rid, problem, unread = _line_id(stripped, id_field,
                                            partial(RawLine, stripped, path, lineno, indent))
            part.ids.append(rid)
            if problem is not None:
                part.problems.append((j, problem, unread))
        part.n_lines = lineno
    return part


def _span_length(text: str, indent: int, offset: int) -> int:
    """Bytes to read back for a line: room for a multi-byte indent, a BOM, the break."""
    return len(text.encode()) + 4 * indent + 2 + (3 if offset == 0 else 0)


def _read_id(read: Read, id_field: str) -> tuple[Any, str | None, bool]:
    """(id, problem, unreadable) of an extracted record as read."""
    value, _, problem = read
    if value is NO_RECORD:
        return None, problem or "unreadable", True
    rid = value.get(id_field)
    if not usable_id(rid):
        return None, no_id_problem(id_field), False
    return rid, None, False


def _line_id(text: str, id_field: str, raw_line: Callable[[], RawLine]
             ) -> tuple[Any, str | None, bool]:
    """(id, problem, unreadable) of one stripped JSONL line: json.loads for plain objects,
    the lenient reader (through ``raw_line``) for anything else."""
    value: Any = None
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
    if type(value) is not dict:
        return _read_id(read_extracted(raw_line().parse()), id_field)
    rid = value.get(id_field)
    if not usable_id(rid):
        return None, no_id_problem(id_field), False
    return rid, None, False


class ExtractedIndex:
    """Extracted records by id, without holding them: a JSONL file is indexed as
    id -> record number -> (byte offset, length, line) and each line read back with one
    ``pread`` when its gold record comes; other sources (a JSON array, a folder, a
    list) are held, as they must be read whole anyway.

    ``by_id`` maps each id to its first record; ``leftovers`` lists, in file order,
    the records no id can pair (unreadable, without a usable id, a repeated id) with
    why; ``unread`` counts the unreadable ones.
    """

    def __init__(self, extracted: RecordsLike, id_field: str,
                 scanner: Scanner | None = None, parts: int = 1) -> None:
        self.path: Path | None = None
        self.source = ""
        self.held: list[RawRecord] = []
        self.offsets = array.array("q")
        self.lengths = array.array("l")
        self.lines = array.array("l")
        self.by_id: dict[Any, int] = {}
        self.leftovers: list[tuple[int, str]] = []
        self.unread = 0
        self._fd: int | None = None
        streamed = isinstance(extracted, str | Path) and Path(extracted).is_file() \
            and is_streamable(extracted)
        if streamed:
            self.path = Path(extracted)  # type: ignore[arg-type]
            self.source = str(self.path)
        if streamed and scanner is not None and self._first_line_is_not_array():
            scanned = scanner(self.source, split_ranges(self.source, parts), id_field)
            if not any(p.failed for p in scanned):
                self._merge(scanned)
                return
        if streamed and self._scan_lines(id_field):
            return
        records: Iterable[tuple[RawRecord, RawLine | None]] = iter_records_text(
            extracted, strict=False) if isinstance(extracted, str | Path) else (
            (RawRecord(v), None) for v in extracted)
        for j, (raw, line) in enumerate(records):
            if streamed:
                if raw.offset is None or line is None:  # one-line array: items have no lines
                    self.path = None
                    self.held = [*(self._get_raw(k) for k in range(j)), raw]
                    streamed = False
                else:
                    self.offsets.append(raw.offset)
                    self.lengths.append(_span_length(line.text, line.indent, raw.offset))
                    self.lines.append(raw.line or 0)
            else:
                self.held.append(raw)
            self._add(j, *_read_id(read_extracted(raw), id_field))

    def _first_line_is_not_array(self) -> bool:
        for _, _, _, text in iter_lines(self.source):
            return not text.startswith("[")
        return True

    def _merge(self, parts: list[ScanPart]) -> None:
        """Fold scanned ranges, in file order, into one index (ids checked for duplicates
        in record order, so the result is the one a single scan gives)."""
        base_j = base_line = 0
        for part in parts:
            self.offsets.extend(part.offsets)
            self.lengths.extend(part.lengths)
            self.lines.extend(line + base_line for line in part.lines)
            problems = {j: (p, unread) for j, p, unread in part.problems}
            for j, rid in enumerate(part.ids):
                if rid is None:
                    self._add(base_j + j, None, *problems[j])
                else:
                    self._add(base_j + j, rid, None, False)
            base_j += len(part.ids)
            base_line += part.n_lines

    def _add(self, j: int, rid: Any, problem: str | None, unread: bool) -> None:
        """Record ``j``: indexed by ``rid``, else a leftover (its ``problem``, or a
        repeated id)."""
        if problem is not None:
            self.leftovers.append((j, problem))
            self.unread += unread
            return
        first = self.by_id.setdefault(rid, j)
        if first != j:
            self.leftovers.append((j, duplicate_id_problem(rid, first)))

    def _scan_lines(self, id_field: str) -> bool:
        """The fast path for a JSONL file: read each line's id without building record
        objects (lines that are not plain JSON objects take the general path). False
        when the file turns out to hold one JSON array on one line."""
        offsets, lengths, lines = self.offsets, self.lengths, self.lines
        add = self._add
        for j, (lineno, offset, indent, text) in enumerate(iter_lines(self.source)):
            if j == 0 and text.startswith("["):
                self.offsets, self.lengths, self.lines = (type(offsets)("q"),
                                                          type(lengths)("l"),
                                                          type(lines)("l"))
                return False
            offsets.append(offset)
            lengths.append(_span_length(text, indent, offset))
            lines.append(lineno)
            add(j, *_line_id(text, id_field, partial(self._line, j)))
        return True

    def _line(self, j: int) -> RawLine:
        if self._fd is None:
            assert self.path is not None
            self._fd = os.open(self.path, os.O_RDONLY)
        data = os.pread(self._fd, self.lengths[j], self.offsets[j])
        if self.offsets[j] == 0 and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:  # a length cut inside a character: read it plainly
            return read_line_at(self.source, self.offsets[j], lineno=self.lines[j])
        cut = text.find("\n")
        text = text if cut < 0 else text[:cut]
        stripped = text.strip()
        return RawLine(stripped, self.source, self.lines[j], len(text) - len(text.lstrip()))

    def _get_raw(self, j: int) -> RawRecord:
        if self.path is None:
            return self.held[j]
        return self._line(j).parse()

    def name(self, j: int) -> str | None:
        """The file name of record ``j`` when it is the one document of a folder's file."""
        return self.held[j].name if self.path is None else None

    def get(self, j: int) -> Read:
        """Record ``j`` as read (``read_extracted``)."""
        return read_extracted(self._get_raw(j))

    def get_lazy(self, j: int) -> RawLine | Read:
        """The record's unparsed line (file-backed), else the record as read."""
        if self.path is None:
            return self.get(j)
        return self._line(j)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
