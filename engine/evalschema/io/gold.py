"""The checks a gold record passes before it can be paired or trusted: it is an object
and, when records pair by id, holds a usable id no earlier record holds.

One checker for every reader of gold: in-memory and streamed pairing (``run.pairing``),
``validate_gold`` and the language server, so each gives the same codes
(``gold-not-object``, ``gold-missing-id``, ``duplicate-id``) for the same record.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from evalschema.errors import GoldValidationError, Problem
from evalschema.io.extracted import usable_id
from evalschema.io.records import RawRecord
from evalschema.jsontypes import json_type


class GoldProblem(NamedTuple):
    """Why gold record ``index`` cannot be paired (``GoldChecker.check``)."""

    #: ``gold-not-object``, ``gold-missing-id`` or ``duplicate-id``.
    code: str
    index: int  # type: ignore[assignment]  # shadows tuple.index, as RecordResult's does
    #: ``duplicate-id``: the id, and the record that holds it first.
    record_id: Any = None
    first: int = -1


class GoldChecker:
    """The checks each gold record passes before pairing, one record at a time: it is an
    object and, when pairing by id, has a usable id no earlier record has.

    ``check`` answers for one record (the language server words its own diagnostics);
    ``ok`` keeps the engine's located ``Problem`` and ``finish`` raises them together.
    """

    def __init__(self, id_field: str | None) -> None:
        self.id_field = id_field
        #: Id -> the first gold record holding it.
        self.ids: dict[Any, int] = {}
        self.problems: list[Problem] = []

    def check(self, value: Any, i: int) -> GoldProblem | None:
        """The problem of gold record ``i`` (``value``), or None when it can be paired."""
        id_field = self.id_field
        if type(value) is dict:
            if id_field is None:
                return None
            rid = value.get(id_field)
            if type(rid) is str or type(rid) is int:  # the common case, checked cheaply
                first = self.ids.setdefault(rid, i)
                return None if first == i else GoldProblem("duplicate-id", i, rid, first)
        elif not isinstance(value, dict):
            return GoldProblem("gold-not-object", i)
        if id_field is None:
            return None
        rid = value.get(id_field)
        if not usable_id(rid):
            return GoldProblem("gold-missing-id", i)
        first = self.ids.setdefault(rid, i)
        return None if first == i else GoldProblem("duplicate-id", i, rid, first)

    def ok(self, record: Any, i: int) -> bool:
        """``check`` for the engine: ``record`` is a ``RawRecord`` (read from a file) or a
        record given in memory; its problem is kept, located."""
        raw = record if type(record) is RawRecord else None
        found = self.check(raw.value if raw is not None else record, i)
        if found is None:
            return True
        self.problems.append(gold_problem(found, raw if raw is not None else RawRecord(record),
                                          self.id_field))
        return False

    def finish(self) -> None:
        """Raise every problem kept by ``ok``, if any."""
        if self.problems:
            raise GoldValidationError(self.problems, "the gold records are unusable")


def gold_problem(found: GoldProblem, raw: RawRecord, id_field: str | None) -> Problem:
    """The engine's located ``Problem`` for a gold record the checks refused: by line in a
    JSONL file, else by pointer (``/3``)."""
    i = found.index
    if raw.line is not None:
        where: dict[str, Any] = {"source": raw.source, "line": raw.line}
    else:
        where = {"source": raw.source, "pointer": f"/{i}"}
    # Records are numbered from 1 and ids written as JSON, as the language server does.
    if found.code == "gold-not-object":
        return Problem(found.code, f"gold record {i + 1} is {json_type(raw.value)}, not an "
                       "object", **where)
    if found.code == "gold-missing-id":
        return Problem(found.code, f"gold record {i + 1} has no usable {id_field!r}", **where,
                       suggestion="every gold record needs its id")
    return Problem(found.code, f"gold id {json_id(found.record_id)} appears again (first in "
                   f"record {found.first + 1})", **where,
                   suggestion="ids must be unique within the gold file")


def json_id(record_id: Any) -> str:
    """An id as JSON (``"a"``, ``7``, ``false``), not Python's repr (``'a'``, ``False``)."""
    try:
        return json.dumps(record_id, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(record_id)
