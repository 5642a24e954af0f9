"""A gold or extracted file as record slices: each record's text and where it starts.

The engine scores values; the editor needs offsets. A slice keeps both: the record's
source text (one JSONL line, or one element of a JSON array), its offset in the file,
and its parsed value. Slices of unchanged text parse once: ``SliceParser`` caches by
text, which is what makes re-reading a 10,000-line file after a one-line edit cheap.
Re-reading a JSONL file compares its text with the last one first: the lines before
and after the changed part keep their reads and digests, moved by the length the edit
added (``_unchanged``), and only the lines in between are looked at one by one.

A record's whole value is not kept: a slice holds its ``head`` (of an object record,
the members that pairing reads: the id) and parses its text again when ``value`` is asked
for (tens of microseconds for a record, against kilobytes of Python objects per record
kept for a whole file). A run scores a record from ``value``, so a new record is parsed
twice (to pair it, then to score it) and no whole file's values are ever held at once.
"""

from __future__ import annotations

import itertools
import json
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import Any

from evalschema.errors import InputError
from evalschema.io.extracted import NO_RECORD, Read, Repaired, read_extracted
from evalschema.io.lenient import TRUNCATED
from evalschema.io.records import JSONL, parse_line, record_list, records_format

from ..document import LineIndex, parse
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
        if self.strict:
            # Read as strict JSON already, its repeated keys warned about then: the plain
            # parser gives the same value (the last of repeated keys) in 3/4 of the time.
            return json.loads(self.text)
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
class Edit:
    """Records ``lo`` to ``old_end`` of the read numbered ``since`` became records ``lo``
    to ``new_end`` of this one; the others are the same records (the same text, head,
    repaired flag and problem; the ones after ``new_end`` moved by the edit's length)."""

    since: int
    lo: int
    old_end: int
    new_end: int


_serials = itertools.count(1)


@dataclass(frozen=True, slots=True)
class DataFile:
    path: str
    text: str
    records: tuple[RecordSlice, ...]
    issues: tuple[FileIssue, ...] = ()
    jsonl: bool = True
    #: The offset of each line of ``text`` (``LineIndex.line_starts``), when the reader
    #: split it into lines anyway (JSONL without a carriage return); else None.
    line_starts: list[int] | None = None
    #: This read's number (``SliceParser`` counts them), and when it read the file again
    #: from where it changed, how it differs from the read numbered ``Edit.since``.
    serial: int = 0
    edit: Edit | None = None

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
        #: Text -> (head, repaired, problem) of the records of other files.
        self._cache: dict[str, Read] = {}
        #: The last file read: (its text as given, path, strict, what it read as).
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
        if not is_jsonl(path, text):
            got = self._array(path, text, strict)
        elif last is not None and last[1] == path and last[2] == strict and last[3].jsonl:
            got = self._jsonl_again(path, text, strict, last[3])
        else:
            got = self._jsonl(path, text, strict)
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
        starts = self._lines_of(text, 0, len(text), strict, records, None)
        return DataFile(path, text, tuple(records), (), True,
                        None if "\r" in text else starts, next(_serials))

    def _jsonl_again(self, path: str, text: str, strict: bool, old: DataFile) -> DataFile:
        """``_jsonl`` of ``text``, reusing what ``old`` (the last read of this file) read of
        the lines the two texts share at their start and at their end."""
        head, tail, delta = _unchanged(old.text, text)
        recs = old.records
        records: list[RecordSlice] = []
        append = records.append
        k = 0
        for r in recs:  # the lines before the change: the same offsets
            if r.start + r.length >= head:
                break
            append(_new_slice(k, r.start, text, r.head, r.repaired, r.problem, strict,
                              r.length, r.digest))
            k += 1
        first_after = len(recs)
        while first_after > k and recs[first_after - 1].start >= tail - delta:
            first_after -= 1
        # The changed lines: read one by one, reusing the read of a line the old text had.
        lo = k
        middle = self._lines_of(text, head, tail, strict, records, recs[k:first_after])
        k = len(records)
        edit = Edit(old.serial, lo, first_after, k)
        for r in recs[first_after:]:  # the lines after it: moved by ``delta``
            append(_new_slice(k, r.start + delta, text, r.head, r.repaired, r.problem,
                              strict, r.length, r.digest))
            k += 1
        starts = old.line_starts
        if "\r" in text:
            starts = None
        elif starts is None:  # the old text had a carriage return
            starts = LineIndex(text).line_starts
        else:
            # Line starts as the lines: the old ones before ``head``, the changed part's
            # own (from ``head`` on, the last one at or past ``tail``), the old ones past
            # ``tail`` moved (``tail`` starts a line in both texts, or is the end).
            after = bisect_right(starts, tail - delta)
            starts = [*starts[:bisect_left(starts, head)], *middle,
                      *[s + delta for s in starts[after:]]]
        return DataFile(path, text, tuple(records), (), True, starts, next(_serials), edit)

    def _lines_of(self, text: str, lo: int, hi: int, strict: bool, records: list[RecordSlice],
                  known: tuple[RecordSlice, ...] | None) -> list[int]:
        """Slices of the lines of ``text[lo:hi]`` (whole lines), appended to ``records``;
        a line whose text one of ``known`` has keeps its read (hash and length equal, then
        the texts compared: a collision is parsed). Returns the lines' starts (the last
        one: where the piece after the last line break starts, ``hi`` when it ends one)."""
        by_key = {(r.digest, r.length): r for r in known} if known else {}
        pieces = text[lo:hi].split("\n")
        starts = list(accumulate(map((1).__add__, map(len, pieces[:-1])), initial=lo))
        pos = lo
        for line in pieces:
            stripped = line.strip()
            if stripped:
                start = pos + len(line) - len(line.lstrip())
                n = len(stripped)
                digest = hash(stripped)
                got = by_key.get((digest, n))
                # A slice, not ``startswith(stripped, at)``: that compares character by
                # character when the file is not all ASCII, 7 times slower.
                if got is not None and got.source[got.start:got.start + n] == stripped:
                    head, repaired, problem = got.head, got.repaired, got.problem
                else:
                    head, repaired, problem = self._parse(stripped, strict)
                records.append(_new_slice(len(records), start, text, head, repaired,
                                          problem, strict, n, digest))
            pos += len(line) + 1
        return starts

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


#: ``_unchanged`` compares texts this many characters at a time before narrowing down.
_CHUNK = 1 << 16


def _unchanged(old: str, new: str) -> tuple[int, int, int]:
    """Where ``new`` differs from ``old``, in whole lines: (``head``, ``tail``, ``delta``)
    such that ``new[:head] == old[:head]`` and ``new[tail:] == old[tail - delta:]``, each
    a run of whole lines (``head`` 0 or just past a line break; ``tail`` the text's end
    or just past one), and ``delta = len(new) - len(old)``. The lines in between are
    the ones that changed; they may be none (``head == tail``)."""
    n = min(len(old), len(new))
    p = 0
    while p < n:  # common prefix: chunks compared in C, then the last one narrowed down
        step = min(_CHUNK, n - p)
        if old[p:p + step] == new[p:p + step]:
            p += step
            continue
        while step > 1:
            half = step // 2
            if old[p:p + half] == new[p:p + half]:
                p += half
                step -= half
            else:
                step = half
        break
    # Common suffix, not overlapping the prefix in either text.
    limit = n - p
    q = 0
    lo, ln = len(old), len(new)
    while q < limit:
        step = min(_CHUNK, limit - q)
        if old[lo - q - step:lo - q] == new[ln - q - step:ln - q]:
            q += step
            continue
        while step > 1:
            half = step // 2
            if old[lo - q - half:lo - q] == new[ln - q - half:ln - q]:
                q += half
                step -= half
            else:
                step = half
        break
    head = new.rfind("\n", 0, p) + 1  # past the last line break before the difference
    # The first line after the difference starts past a line break inside the common
    # suffix: there, and only there, both texts start a line (the character before the
    # suffix differs between them).
    at = new.find("\n", ln - q) if q else -1
    return head, ln if at < 0 else at + 1, ln - lo
