"""Reading records: JSON arrays, JSONL, a folder of JSON files, or Python lists.

Gold must parse (a broken gold line is a located error). Extracted lines that do
not parse are kept as text: the engine tries to rescue them leniently and scores
what it cannot rescue as an unreadable record, so one bad line never loses the run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError, Problem


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One record as read, with where it came from (for located messages)."""

    value: Any
    source: str | None = None
    line: int | None = None
    #: The text did not parse as JSON; ``value`` holds the raw text.
    unparsed: bool = False


def _jsonl(text: str, source: str, strict: bool) -> Iterator[RawRecord]:
    for lineno, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        try:
            yield RawRecord(json.loads(stripped), source, lineno)
        except RecursionError:
            if strict:
                raise InputError([Problem(
                    "too-deep", "line is nested too deeply to read", source=source,
                    line=lineno, column=1)]) from None
            yield RawRecord(stripped, source, lineno, unparsed=True)
        except ValueError as exc:
            if strict:
                col = getattr(exc, "colno", 1) + (len(line) - len(line.lstrip()))
                raise InputError([Problem(
                    "invalid-json", f"line is not valid JSON: {getattr(exc, 'msg', exc)}",
                    source=source, line=lineno, column=col,
                    suggestion="fix the line; gold records must be valid JSON",
                )]) from None
            yield RawRecord(stripped, source, lineno, unparsed=True)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def parse_records_text(text: str, source: str = "<text>", *, strict: bool = True,
                       jsonl: bool | None = None) -> list[RawRecord]:
    """Records from JSON-array or JSONL text (``jsonl=None`` detects which)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if jsonl is None:
        if source.endswith((".jsonl", ".ndjson")):
            jsonl = True
        else:
            # One JSON document (an array of records, or a single record) unless it
            # only parses line by line.
            try:
                return _array(json.loads(text), source)
            except json.JSONDecodeError as exc:
                first_error = exc
            except RecursionError:
                raise _too_deep(source) from None
            lines = [ln for ln in text.split("\n") if ln.strip()]
            jsonl = len(lines) > 1 and not text.lstrip().startswith("[")
            if not jsonl:
                if strict:
                    line, col = _line_col(text, first_error.pos)
                    raise InputError([Problem(
                        "invalid-json", f"not valid JSON: {first_error.msg}", source=source,
                        line=line, column=col, suggestion="fix the JSON, or use JSONL "
                        "(one record per line) so one bad record does not stop the others",
                    )]) from None
                return [RawRecord(text, source, 1, unparsed=True)]
    if not jsonl:
        try:
            return _array(json.loads(text), source)
        except RecursionError:
            raise _too_deep(source) from None
    records = list(_jsonl(text, source, strict))
    if len(records) == 1 and isinstance(records[0].value, list) and not records[0].unparsed:
        return _array(records[0].value, source)
    return records


def _too_deep(source: str) -> InputError:
    return InputError([Problem("too-deep", "nested too deeply to read", source=source,
                               suggestion="flatten the data; evalschema reads JSON nested up "
                               "to Python's recursion limit")])


def _array(value: Any, source: str) -> list[RawRecord]:
    if isinstance(value, list):
        return [RawRecord(v, source) for v in value]
    return [RawRecord(value, source, 1)]


def load_records(source: str | Path | Iterable[Any], *, strict: bool = True) -> list[RawRecord]:
    """Records from a path (file or folder) or an in-memory iterable."""
    if isinstance(source, str | Path):
        path = Path(source)
        if path.is_dir():
            out: list[RawRecord] = []
            for f in sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl")):
                out.extend(load_records(f, strict=strict))
            return out
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError([Problem("file-not-found", "no such file", source=str(path),
                                      suggestion="check the path")]) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError([Problem("unreadable-file", f"cannot read: {exc}",
                                      source=str(path))]) from None
        return parse_records_text(text, str(path), strict=strict)
    return [RawRecord(v) for v in source]


def load_json(path: str | Path, what: str = "file") -> Any:
    """One JSON document (a schema or config), with a located error when it is broken."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError([Problem("file-not-found", f"{what} not found", source=str(p),
                                  suggestion="check the path")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError([Problem("unreadable-file", f"cannot read {what}: {exc}",
                                  source=str(p))]) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        line, col = _line_col(text, exc.pos)
        raise InputError([Problem("invalid-json", f"{what} is not valid JSON: {exc.msg}",
                                  source=str(p), line=line, column=col)]) from None
    except RecursionError:
        raise InputError([Problem("too-deep", f"{what} is nested too deeply to read",
                                  source=str(p))]) from None
