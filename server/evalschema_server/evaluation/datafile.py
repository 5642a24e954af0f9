"""A gold or extracted file as record slices: each record's text and where it starts.

The engine scores values; the editor needs offsets. A slice keeps both: the record's
source text (one JSONL line, or one element of a JSON array), its offset in the file,
and its parsed value. Slices of unchanged text parse once: ``SliceParser`` caches by
text, which is what makes re-reading a 10,000-line file after a one-line edit cheap.

A record's whole value is not kept: a slice holds its ``head`` (of an object record,
the members that pairing reads: the id) and parses its text again when ``value`` is asked
for (tens of microseconds for a record, against kilobytes of Python objects per record
kept for a whole file). A run scores a record from ``value``, so a new record is parsed
twice (to pair it, then to score it) and no whole file's values are ever held at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from evalschema.errors import InputError
from evalschema.io.extracted import NO_RECORD, Read, Repaired, read_extracted
from evalschema.io.lenient import TRUNCATED
from evalschema.io.records import JSONL, parse_line, record_list, records_format

from ..document import parse
from ..fastinit import slot_constructor


@dataclass(frozen=True, slots=True)
class RecordSlice:
    """One record of a data file."""

    #: Position among the file's records (0-based).
    index: int
    #: Offset of ``text`` in the file's text.
    start: int
    #: The file's text, which holds the record's at ``start`` (``length`` characters);
    #: with ``length`` -1, the record's text itself. Slices share their file's text
    #: rather than hold a copy each.
    source: str
    #: The record as read (``value``), or for an object its ``Head``; ``NO_RECORD`` when
    #: it cannot be read. A gold record may be any JSON value: the engine's gold checks
    #: judge it when pairing.
    head: Any
    repaired: Repaired = False
    #: Why the record cannot be read or used.
    problem: str | None = None
    #: Read as gold (strict JSON) or as extracted (rescued leniently).
    strict: bool = False
    length: int = -1
    #: ``hash`` of the record's text (with ``length``: ``key``).
    digest: int = 0

    @property
    def text(self) -> str:
        n = self.length
        return self.source if n < 0 else self.source[self.start:self.start + n]

    @property
    def end(self) -> int:
        n = self.length
        return self.start + (len(self.source) if n < 0 else n)

    @property
    def key(self) -> Any:
        """What tells this record's text from another's, as the caches key it: the text's
        hash and length (the text itself for a slice that holds its own)."""
        return self.source if self.length < 0 else (self.digest, self.length)

    @property
    def value(self) -> Any:
        """The record as read (parsed again from ``text`` when only its head is kept)."""
        head = self.head
        if type(head) is not Head:
            return head
        return _parse_record(self.text, self.strict)[0]


#: ``RecordSlice(...)``, made for every line of a file on every save (see ``fastinit``).
_new_slice = slot_constructor(RecordSlice)


class Head(dict[str, Any]):
    """An object record's members that pairing reads (its id), standing in for the
    record until it is scored: ``SliceParser(keys)``'s keys, or without keys its
    members whose values are not objects or arrays."""


def head_of(value: Any, keys: tuple[str, ...] | None) -> Any:
    """What a slice keeps of a record's value (see ``Head``); other values as they are."""
    if type(value) is not dict:
        return value
    if keys is not None:
        return Head({k: value[k] for k in keys if k in value})
    return Head({k: v for k, v in value.items() if type(v) is not dict and type(v) is not list})


@dataclass(frozen=True, slots=True)
class FileIssue:
    """A problem of the file as a whole, at an offset range (a JSON syntax error)."""

    start: int
    end: int
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class DataFile:
    path: str
    text: str
    records: tuple[RecordSlice, ...]
    issues: tuple[FileIssue, ...] = ()
    jsonl: bool = True

    def record_at(self, offset: int) -> RecordSlice | None:
        """The record whose text holds ``offset`` (binary search over starts)."""
        recs = self.records
        lo, hi = 0, len(recs)
        while lo < hi:
            mid = (lo + hi) // 2
            if recs[mid].start <= offset:
                lo = mid + 1
            else:
                hi = mid
        if lo == 0:
            return None
        rec = recs[lo - 1]
        return rec if offset <= rec.end else None


def is_jsonl(path: str, text: str) -> bool:
    """Whether the file holds one record per line: the engine's rule (``records_format``),
    so the editor reads a file as ``evalschema eval`` does."""
    return records_format(text, path) == JSONL


class SliceParser:
    """Parses record texts, remembering the last file's answers by text."""

    def __init__(self, keys: tuple[str, ...] | None = None) -> None:
        #: The members each record's head keeps (see ``Head``).
        self.keys = keys
        #: (hash, length) of a JSONL line -> (its (head, repaired, problem), the file
        #: text holding it, its offset there), for the lines of the last file read.
        self._lines: dict[tuple[int, int], tuple[Read, str, int]] = {}
        #: Text -> (head, repaired, problem) of the records of other files.
        self._cache: dict[str, Read] = {}
        self._last: tuple[str, str, bool, DataFile] | None = None

    def read(self, path: str, text: str, *, strict: bool) -> DataFile:
        """``strict`` (gold): a record must be valid JSON. Otherwise (extracted) text
        answers are rescued leniently, as the engine does. The same text gives the
        same ``DataFile`` object, which lets later stages reuse their work too."""
        last = self._last
        if last is not None and last[1] == path and last[2] == strict and last[0] == text:
            return last[3]
        raw = text
        if text.startswith("\ufeff"):
            text = " " + text[1:]  # keep offsets: the BOM becomes a blank
        got = self._jsonl(path, text, strict) if is_jsonl(path, text) else \
            self._array(path, text, strict)
        self._last = (raw, path, strict, got)
        return got

    def _value(self, text: str, strict: bool) -> Read:
        got = self._cache.get(text)
        if got is None:
            got = self._cache[text] = self._parse(text, strict)
        return got

    def _parse(self, text: str, strict: bool) -> Read:
        value, repaired, problem = _parse_record(text, strict)
        return head_of(value, self.keys), repaired, problem

    def _jsonl(self, path: str, text: str, strict: bool) -> DataFile:
        records: list[RecordSlice] = []
        old, lines = self._lines, {}
        pos = 0
        for line in text.split("\n"):
            stripped = line.strip()
            if stripped:
                start = pos + len(line) - len(line.lstrip())
                n = len(stripped)
                key = (hash(stripped), n)
                got = old.get(key)
                # The same hash and length: the same text, checked (a collision is
                # parsed). A slice, not ``startswith(stripped, at)``: that compares
                # character by character when the file is not all ASCII, 7 times slower.
                read = got[0] if got is not None and \
                    got[1][got[2]:got[2] + n] == stripped else self._parse(stripped, strict)
                lines[key] = (read, text, start)
                head, repaired, problem = read
                records.append(_new_slice(len(records), start, text, head, repaired,
                                          problem, strict, n, key[0]))
            pos += len(line) + 1
        self._lines = lines
        return DataFile(path, text, tuple(records), (), True)

    def _array(self, path: str, text: str, strict: bool) -> DataFile:
        doc = parse(text, comments=False, trailing_commas=False)
        root = doc.root
        issues = tuple(FileIssue(i.offset, i.end, i.code, i.message) for i in doc.issues)
        if root is not None and root.kind == "object" and len(root.children) == 1:
            # {"records": [...]}: the array's items, as the engine reads them.
            inner = root.children[0].value_node
            if inner is not None and inner.kind == "array" and \
                    record_list(_plain(text, root)) is not None:
                root = inner
        if root is None or root.kind != "array":
            # A single record, or nothing readable.
            stripped = text.strip()
            if not stripped:
                return DataFile(path, text, (), issues, False)
            start = len(text) - len(text.lstrip())
            head, repaired, problem = self._value(stripped, strict)
            return DataFile(path, text, (RecordSlice(0, start, stripped, head, repaired,
                                                     problem, strict),), issues, False)
        records = []
        for i, node in enumerate(root.children):
            chunk = text[node.offset:node.end]
            head, repaired, problem = self._value(chunk, strict)
            records.append(RecordSlice(i, node.offset, chunk, head, repaired, problem, strict))
        if issues and not strict:
            # The engine repairs a broken array whole and flags every item as it was
            # repaired ("truncated" when it was cut short).
            how: Repaired = TRUNCATED if any(r.repaired == TRUNCATED for r in records) \
                else True
            records = [replace(r, repaired=how) if r.head is not NO_RECORD else r
                       for r in records]
        return DataFile(path, text, tuple(records), issues, False)


def _plain(text: str, node: Any) -> Any:
    """The value of ``node``'s text when it is strict JSON, else None."""
    try:
        return json.loads(text[node.offset:node.end])
    except (ValueError, RecursionError):
        return None


def _parse_record(text: str, strict: bool) -> Read:
    """(record or NO_RECORD, repaired, problem), read as the engine reads records."""
    if not strict:
        return read_extracted(parse_line(text, None, 0, strict=False))
    try:
        return parse_line(text, None, 0, strict=True).value, False, None
    except InputError as exc:
        # The engine's message is about a line; a record may also be an array element.
        message = exc.problems[0].message if exc.problems else str(exc)
        return NO_RECORD, False, message.removeprefix("line is ")
