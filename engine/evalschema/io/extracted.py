"""Reading one extracted record: rescue a text answer, or say why it cannot be read.

Shared by every reader of extracted records (``evaluate``, the extracted-file index,
worker processes, the language server), so all of them judge a record alike. The id
rules (which ids are usable, how a missing or repeated one is described) live here
too: the extracted-file index applies them before any pairing happens.
"""

from __future__ import annotations

from typing import Any

from evalschema.io.lenient import TRUNCATED, LenientParseError, parse_lenient
from evalschema.io.records import RawRecord, not_utf8
from evalschema.jsontypes import json_type


class _NoRecord:
    """The side of a pair that has no record (a singleton that survives pickling, so
    pairs can be scored in worker processes)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_RECORD"

    def __reduce__(self) -> str:
        return "NO_RECORD"


NO_RECORD: Any = _NoRecord()

#: Whether an extracted record had to be repaired: False, True, or why when the reason
#: matters to the reader ("truncated": the text was cut short and closed).
Repaired = bool | str
#: (record or ``NO_RECORD``, repaired, problem): an extracted record as read.
Read = tuple[Any, Repaired, str | None]


def read_extracted(raw: RawRecord) -> Read:
    """(record, repaired, problem): rescue text answers; report what cannot be rescued.
    The language server reads extracted records with it too, so both judge them alike."""
    value = raw.value
    if isinstance(value, dict):
        return value, raw.repaired, None
    if isinstance(value, str):
        where = not_utf8(value) if raw.unparsed else None
        if where is not None:
            return NO_RECORD, False, f"unreadable extracted record: line is not UTF-8 ({where})"
        try:
            got = parse_lenient(value)
        except LenientParseError as exc:
            return NO_RECORD, False, f"unreadable extracted record: {exc}"
        if got.method == TRUNCATED:
            return got.value, TRUNCATED, None
        return got.value, got.repaired or raw.unparsed, None
    return NO_RECORD, False, f"extracted record is {json_type(value)}, not an object"


def usable_id(rid: Any) -> bool:
    """Whether ``rid`` can pair records: present, not null, not an object or an array."""
    return rid is not None and not isinstance(rid, dict | list)


def no_id_problem(id_field: str) -> str:
    return f"extracted record has no {id_field!r}"


def duplicate_id_problem(rid: Any, first: int) -> str:
    """``first`` is the 0-based index of the record that has the id first; the message
    numbers records from 1, as record labels (``#N``) and the editor do."""
    return f"duplicate id {rid!r} (first at extracted record #{first + 1})"
