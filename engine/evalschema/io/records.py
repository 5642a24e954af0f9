"""Reading records: JSON arrays, JSONL, a folder of JSON files, or Python lists.

Gold must parse (a broken gold line is a located error). Extracted lines that do
not parse are kept as text: the engine tries to rescue them leniently and scores
what it cannot rescue as an unreadable record, so one bad line never loses the run.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from evalschema.errors import InputError, Problem
from evalschema.io.jsontext import (
    json_error,
    line_col,
    loads_document,
    loads_warning_duplicates,
)
from evalschema.io.lenient import TRUNCATED, LenientParseError, parse_lenient, parses

#: Where records come from: a path (JSON array, JSONL, a folder of them) or records in memory.
RecordsLike = str | Path | Iterable[Any]

#: Starts the text of a line that is not UTF-8; then where, a NUL, and the line with
#: U+FFFD for the bad bytes (never shorter in UTF-8 than the line, so byte spans taken
#: from it still cover the line). Parsing it gives a located problem (gold) or an
#: unreadable record (extracted): one such line never stops the others being read.
NOT_UTF8 = "\x00evalschema:not-utf-8\x00"


def not_utf8(text: str) -> str | None:
    """Where a line is not UTF-8 ("byte 0xff at column 16"), or None for a decoded line."""
    if not text.startswith(NOT_UTF8):
        return None
    return text[len(NOT_UTF8):].split("\x00", 1)[0]


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One record as read, with where it came from (for located messages)."""

    value: Any
    source: str | None = None
    line: int | None = None
    #: The text did not parse as JSON; ``value`` holds the raw text.
    unparsed: bool = False
    #: Byte offset of the record's line in its file (streamed JSONL only), for reading
    #: it back with ``read_record_at``.
    offset: int | None = None
    #: The file's name without its extension, when the record is the one document of a
    #: file in a folder: what identifies (and pairs) records that carry no id.
    name: str | None = None
    #: The record is an item of a JSON array that had to be repaired as a whole (a
    #: trailing comma, a cut): how (``io.extracted.Repaired``).
    repaired: bool | str = False


def parse_line(stripped: str, source: str | None, lineno: int, *, strict: bool,
               indent: int = 0, offset: int | None = None) -> RawRecord:
    """One JSONL line (already stripped; ``indent`` is the whitespace removed in front).

    Strict (gold): a line that is not JSON is a located ``InputError``. Lenient
    (extracted): it is kept as text for the engine to rescue.
    """
    try:
        if strict:
            return RawRecord(loads_warning_duplicates(stripped, source, line=lineno,
                                                      indent=indent), source, lineno,
                             offset=offset)
        return RawRecord(json.loads(stripped), source, lineno, offset=offset)
    except ValueError as exc:
        error: ValueError = exc
    except RecursionError:
        if strict:
            raise InputError([Problem(
                "too-deep", "line is nested too deeply to read", source=source,
                line=lineno, column=1)]) from None
        return RawRecord(stripped, source, lineno, unparsed=True, offset=offset)
    if strict:
        where = not_utf8(stripped)
        if where is not None:
            raise InputError([Problem(
                "not-utf8", f"line is not UTF-8: {where}", source=source, line=lineno,
                column=int(where.rsplit(" ", 1)[1]) + indent,
                suggestion="save the file as UTF-8")]) from None
        code, msg, pos = json_error(stripped, error)
        raise InputError([Problem(
            code, f"line is not valid JSON: {msg}", source=source, line=lineno,
            column=pos + 1 + indent,
            suggestion="fix the line; gold records must be valid JSON")]) from None
    return RawRecord(stripped, source, lineno, unparsed=True, offset=offset)


def _jsonl(text: str, source: str, strict: bool) -> Iterator[RawRecord]:
    for lineno, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        yield parse_line(stripped, source, lineno, strict=strict,
                         indent=len(line) - len(line.lstrip()))


#: How a file holds its records (``records_format``).
JSONL = "jsonl"
JSON = "json"


def first_line_is_record(line: str) -> bool:
    """Whether a file's first non-blank line is a whole JSON value on its own (and does
    not open an array, which may be a JSON array written over several lines)."""
    return not line.startswith("[") and parses(line)


def second_line_is_record(line: str) -> bool:
    """Whether the line after a whole first value is a record too (or a broken one, which
    opens an object): prose or a closing fence after one line of JSON is a document."""
    return line.startswith("{") or parses(line)


def records_format(text: str, source: str = "") -> str:
    """``JSONL`` (one value per line) or ``JSON`` (one JSON text: an array of records, an
    object holding one, or one record), decided per file from its content.

    The one rule for every reader (the engine, streamed or not, and the language
    server): ``.jsonl``/``.ndjson`` files are JSONL; another file is JSONL only when
    it has more than one non-blank line, its first line is a whole value on its own and
    its second is a record too (a value, or a broken object), or, when the whole text is
    not JSON, at least half of its lines are (a JSONL file whose first record is broken). A pretty-printed document, or prose around a fenced
    one, is one JSON text, read (and repaired) whole.
    """
    if source.endswith((".jsonl", ".ndjson")):
        return JSONL
    head = text.lstrip("\ufeff \t\r\n")
    cut = head.find("\n")
    if cut < 0 or not head[cut:].strip():
        return JSON  # one non-blank line
    if (first_line_is_record(head[:cut].strip())
            and second_line_is_record(head[cut:].lstrip().split("\n", 1)[0].strip())):
        return JSONL
    lines = [ln for ln in (raw.strip() for raw in text.split("\n")) if ln]
    whole = sum(1 for ln in lines if ln.startswith("{") and parses(ln))
    if whole >= 2 and 2 * whole >= len(lines) and not parses(text):
        return JSONL
    return JSON


def parse_records_text(text: str, source: str = "<text>", *, strict: bool = True,
                       jsonl: bool | None = None, named_arrays: bool = True
                       ) -> list[RawRecord]:
    """Records from JSON or JSONL text (``jsonl=None`` decides with ``records_format``).

    JSON text holding an array (or an object whose one member is an array of objects)
    gives its items (``named_arrays=False``: an array only, as for the one-document
    files of a folder); any other value is one record. Text that is not JSON is a located
    error for gold (at its real line and column) and one unparsed record for extracted
    output, which the engine rescues whole (fences, prose, repairs, truncation).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if jsonl is None:
        jsonl = records_format(text, source) == JSONL
    if not jsonl:
        try:
            return _array(_loads(text, source, strict), source, named_arrays)
        except ValueError as exc:
            if strict:
                raise _invalid(text, source, exc) from None
            return _lenient_array(text, source, named_arrays) or [
                RawRecord(text, source, 1, unparsed=True)]
        except RecursionError:
            raise _too_deep(source) from None
    records = list(_jsonl(text, source, strict))
    if len(records) == 1 and isinstance(records[0].value, list) and not records[0].unparsed:
        return _array(records[0].value, source)
    return records


def _loads(text: str, source: str, strict: bool) -> Any:
    """Gold (strict) warns about duplicate keys; extracted text is parsed as it comes."""
    return loads_warning_duplicates(text, source) if strict else json.loads(text)


def _invalid(text: str, source: str, exc: ValueError) -> InputError:
    code, msg, pos = json_error(text, exc)
    where = not_utf8(text[pos:]) if text.startswith(NOT_UTF8, pos) else None
    if where is not None:
        code, msg = "not-utf8", f"not UTF-8: {where}"
    line, col = line_col(text, pos)
    return InputError([Problem(
        code, f"not valid JSON: {msg}" if code != "not-utf8" else msg, source=source,
        line=line, column=col, suggestion="fix the JSON, or use JSONL (one record per line) "
        "so one bad record does not stop the others")])


def decode_lines(data: bytes) -> str:
    """A file's text: UTF-8, with each line that is not UTF-8 replaced by its ``NOT_UTF8``
    text (so a JSONL file still yields its other records)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "\n".join(decode_line(line) for line in data.split(b"\n"))


def _too_deep(source: str) -> InputError:
    return InputError([Problem("too-deep", "nested too deeply to read", source=source,
                               suggestion="flatten the data; evalschema reads JSON nested up "
                               "to Python's recursion limit")])


def _array(value: Any, source: str, named_arrays: bool = True) -> list[RawRecord]:
    items = record_list(value) if named_arrays else (value if isinstance(value, list) else None)
    if items is not None:
        return [RawRecord(v, source) for v in items]
    return [RawRecord(value, source, 1)]


def _lenient_array(text: str, source: str, named_arrays: bool) -> list[RawRecord] | None:
    """The items of extracted text that is a JSON array once repaired whole (a trailing
    comma, a cut), each flagged; None for anything else (read as one record)."""
    if not text.lstrip().startswith(("[", "{")):
        return None
    try:
        got = parse_lenient(text, want_object=False)
    except LenientParseError:
        return None
    items = record_list(got.value) if named_arrays else (
        got.value if isinstance(got.value, list) else None)
    if items is None:
        return None
    how = TRUNCATED if got.method == TRUNCATED else True
    return [RawRecord(v, source, repaired=how) for v in items]


def record_list(value: Any) -> list[Any] | None:
    """The records a JSON text holds as a list: an array, or an object with one member
    whose value is a non-empty array of objects (``{"records": [...]}``); None when the
    text is one record."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and len(value) == 1:
        (items,) = value.values()
        if isinstance(items, list) and items and all(isinstance(v, dict) for v in items):
            return items
    return None


#: The files a records folder holds: JSON and JSONL, and for extracted output also the
#: text and Markdown files models write (read leniently, one document each).
GOLD_SUFFIXES = (".json", ".jsonl", ".ndjson")
EXTRACTED_SUFFIXES = (*GOLD_SUFFIXES, ".txt", ".md")


def folder_files(folder: Path, suffixes: tuple[str, ...] = GOLD_SUFFIXES) -> list[Path]:
    """The record files of a folder (``suffixes``), in name order.

    A folder of model outputs is as hostile as its contents: an entry that is not a
    regular file (a FIFO, a device, a link to one) would block or never end when read,
    so it is a located error rather than something to open.
    """
    out: list[Path] = []
    for p in sorted(q for q in folder.iterdir() if q.suffix in suffixes):
        try:
            st = p.stat()
        except OSError as exc:
            raise InputError([Problem("unreadable-file", f"cannot read: {exc.strerror or exc}",
                                      source=str(p), suggestion="check the file")]) from None
        if stat.S_ISDIR(st.st_mode):
            continue
        if not stat.S_ISREG(st.st_mode):
            raise InputError([Problem(
                "not-a-file", "not a regular file (a FIFO, a device or a link to one); "
                "reading it could block forever", source=str(p),
                suggestion="remove it from the folder, or give the records as a file")])
        out.append(p)
    return out


def load_records(source: str | Path | Iterable[Any], *, strict: bool = True) -> list[RawRecord]:
    """Records from a path (file or folder) or an in-memory iterable."""
    if isinstance(source, str | Path):
        path = Path(source)
        if path.is_dir():
            out: list[RawRecord] = []
            for f in folder_files(path, GOLD_SUFFIXES if strict else EXTRACTED_SUFFIXES):
                out.extend(load_folder_file(f, strict=strict))
            return out
        text = decode_lines(_read_bytes(path, "file"))
        return parse_records_text(text, str(path), strict=strict)
    return [RawRecord(v) for v in source]


def load_folder_file(path: Path, *, strict: bool) -> list[RawRecord]:
    """The records of one file of a folder: its items when it is JSONL or a JSON array,
    else its one document, named by the file (``RawRecord.name``)."""
    text = decode_lines(_read_bytes(path, "file"))
    if records_format(text, str(path)) == JSONL:
        return parse_records_text(text, str(path), strict=strict, jsonl=True)
    records = parse_records_text(text, str(path), strict=strict, jsonl=False,
                                 named_arrays=False)
    if len(records) == 1 and records[0].line == 1:  # one document, not an array's item
        return [replace(records[0], name=path.stem)]
    return records


def load_json(path: str | Path, what: str = "file", *, jsonc: bool = False) -> Any:
    """One JSON document (a schema or config), with a located error when it is broken;
    ``jsonc``: comments and trailing commas allowed (``io.jsonc``), as in eval schemas."""
    p = Path(path)
    data = _read_bytes(p, what)
    if data.startswith(_BOM):
        data = data[3:]  # what editors on Windows write; JSON itself forbids it
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError([Problem(
            "not-utf8", f"{what} is not UTF-8: byte 0x{data[exc.start]:02x}", source=str(p),
            line=data.count(b"\n", 0, exc.start) + 1,
            column=exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1,
            suggestion="save the file as UTF-8")]) from None
    return loads_document(text, str(p), what, jsonc=jsonc)


# -- streaming ---------------------------------------------------------------------------

_BOM = b"\xef\xbb\xbf"


def _open(path: Path) -> BinaryIO:
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise InputError([Problem("file-not-found", "no such file", source=str(path),
                                  suggestion="check the path")]) from None
    except OSError as exc:
        raise InputError([Problem("unreadable-file", f"cannot read: {exc}",
                                  source=str(path))]) from None


def _read_bytes(path: Path, what: str) -> bytes:
    """A whole input file, every OSError a located problem (never a traceback)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError([Problem("file-not-found", f"{what} not found", source=str(path),
                                  suggestion="check the path")]) from None
    except IsADirectoryError:
        raise InputError([Problem("unreadable-file", f"{what} is a folder", source=str(path),
                                  suggestion="give a file")]) from None
    except OSError as exc:
        raise InputError([Problem("unreadable-file", f"cannot read {what}: "
                                  f"{exc.strerror or exc}", source=str(path))]) from None


def decode_line(raw: bytes) -> str:
    """A line's text; a line that is not UTF-8 becomes its ``NOT_UTF8`` text."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start]
        return (f"{NOT_UTF8}byte 0x{bad:02x} at column {exc.start + 1}\x00"
                + raw.decode("utf-8", errors="replace"))


def iter_lines(path: str | Path) -> Iterator[tuple[int, int, int, str]]:
    """``(line number, byte offset, indent, stripped text)`` of each non-blank line.

    Reads one line at a time, so memory stays flat however large the file is.
    """
    p = Path(path)
    with _open(p) as f:
        offset = 0
        for lineno, raw in enumerate(f, start=1):
            start = offset
            offset += len(raw)
            if lineno == 1 and raw.startswith(_BOM):
                raw = raw[3:]
            text = decode_line(raw)
            stripped = text.strip()
            if stripped:
                yield lineno, start, len(text) - len(text.lstrip()), stripped


def is_streamable(path: str | Path) -> bool:
    """Whether a file holds one record per line (so it can be read line by line).

    ``.jsonl``/``.ndjson`` files do. Other files do when their first non-blank line is
    a complete JSON value that does not open an array and the next is a record too:
    files ``parse_records_text`` reads as JSONL.
    """
    p = Path(path)
    if p.suffix in (".jsonl", ".ndjson"):
        return True
    if not p.is_file():
        return False
    first: str | None = None
    try:
        for _, _, _, text in iter_lines(p):
            if first is not None:
                return second_line_is_record(text)
            first = text
            if not first_line_is_record(first):
                return False
    except InputError:
        return False
    return False


class RawLine(NamedTuple):
    """A record's line as text, not parsed yet (parsing happens where it is scored, so
    worker processes share the work). ``strict`` is how to parse it."""

    text: str
    source: str | None = None
    line: int | None = None
    indent: int = 0
    strict: bool = False

    def parse(self) -> RawRecord:
        return parse_line(self.text, self.source, self.line or 0, strict=self.strict,
                          indent=self.indent)


def iter_records(source: str | Path | Iterable[Any], *, strict: bool = True) -> Iterator[RawRecord]:
    """Records one at a time: JSONL files stream line by line (with line numbers and
    byte offsets); folders file by file; other files (a JSON array, one document) and
    in-memory iterables as ``load_records`` reads them. Yields what ``load_records``
    returns, in the same order."""
    for rec, _ in iter_records_text(source, strict=strict):
        yield rec


def iter_records_text(source: str | Path | Iterable[Any], *, strict: bool = True
                      ) -> Iterator[tuple[RawRecord, RawLine | None]]:
    """``iter_records``, each record with its line's text when it came from one."""
    if not isinstance(source, str | Path):
        for v in source:
            yield RawRecord(v), None
        return
    path = Path(source)
    if path.is_dir():
        for f in folder_files(path, GOLD_SUFFIXES if strict else EXTRACTED_SUFFIXES):
            if is_streamable(f):
                yield from iter_records_text(f, strict=strict)
            else:
                for rec in load_folder_file(f, strict=strict):
                    yield rec, None
        return
    if not path.exists() or not is_streamable(path):
        for rec in load_records(path, strict=strict):
            yield rec, None
        return
    name = str(path)
    held: RawRecord | None = None
    count = 0
    for lineno, offset, indent, text in iter_lines(path):
        rec = parse_line(text, name, lineno, strict=strict, indent=indent, offset=offset)
        count += 1
        if count == 1 and isinstance(rec.value, list) and not rec.unparsed:
            held = rec  # a file holding one JSON array on one line: its items are the records
            continue
        if held is not None:
            yield held, None
            held = None
        yield rec, RawLine(text, name, lineno, indent, strict)
    if held is not None:
        for rec in _array(held.value, name):
            yield rec, None


def iter_raw_lines(path: str | Path, *, strict: bool = False) -> Iterator[RawLine] | None:
    """The records of a JSONL file as unparsed lines, or ``None`` when the file is not
    one record per line (then read it with ``iter_records``)."""
    p = Path(path)
    if not p.is_file() or not is_streamable(p):
        return None
    for _, _, _, text in iter_lines(p):
        if text.startswith("["):
            return None  # maybe one JSON array on one line: let iter_records decide
        break
    name = str(p)
    return (RawLine(text, name, lineno, indent, strict)
            for lineno, _, indent, text in iter_lines(p))


def _line_text_at(path: str | Path, offset: int, handle: BinaryIO | None) -> str:
    """The decoded text of the line starting at byte ``offset``."""
    p = Path(path)
    f = handle if handle is not None else _open(p)
    try:
        f.seek(offset)
        raw = f.readline()
    finally:
        if handle is None:
            f.close()
    if offset == 0 and raw.startswith(_BOM):
        raw = raw[3:]
    return decode_line(raw)


def read_line_at(path: str | Path, offset: int, *, handle: BinaryIO | None = None,
                 lineno: int | None = None, strict: bool = False) -> RawLine:
    """The unparsed record on the line starting at byte ``offset``."""
    text = _line_text_at(path, offset, handle)
    return RawLine(text.strip(), str(path), lineno, len(text) - len(text.lstrip()), strict)


def read_record_at(path: str | Path, offset: int, *, strict: bool = False,
                   handle: BinaryIO | None = None, lineno: int | None = None) -> RawRecord:
    """The record on the line starting at byte ``offset`` (see ``RawRecord.offset``)."""
    text = _line_text_at(path, offset, handle)
    stripped = text.strip()
    p = Path(path)
    return parse_line(stripped, str(p), lineno or 0, strict=strict,
                      indent=len(text) - len(text.lstrip()), offset=offset)
