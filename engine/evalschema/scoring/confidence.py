"""Reading a record's confidences (``x-eval-confidence``) into per-field calibration tallies.

A pass after scoring, over the record's results, so the scorers' hot paths are untouched
and runs without the key pay nothing. Which values count: a ``match`` is correct, a
``mismatch`` or a ``hallucination`` wrong (the extractor gave a value, so it could give a
confidence); an omission has no extracted value, and skipped, error or pending results
were not judged, so none of them counts (docs/metrics.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalschema.calibration import ConfidenceProblem, ConfidenceTally, confidence_problem
from evalschema.pointer import resolve
from evalschema.results import FieldResult, Status, record_label
from evalschema.schema.confidence import ConfidenceAt
from evalschema.schema.node import SchemaNode

_MISSING = object()
_JUDGED = {Status.MATCH: True, Status.MISMATCH: False, Status.HALLUCINATION: False}


class ConfidenceReader:
    """The confidence locations of one schema's leaves, by field path."""

    def __init__(self, root: SchemaNode, id_field: str | None = None) -> None:
        self.at: dict[str, ConfidenceAt] = {}
        for node in root.walk():
            if node.confidence is None:
                continue
            if node.path == id_field and not node.confidence.own:
                continue  # paired by it, the id always matches: only its own key asks
            self.at.setdefault(node.path, node.confidence)

    def __bool__(self) -> bool:
        return bool(self.at)

    def read(self, results: Sequence[FieldResult], extracted: Any,
             tallies: dict[str, ConfidenceTally], index: int, record_id: Any,
             name: str | None = None) -> None:
        """Each judged extracted value's confidence, from the whole ``extracted`` record
        (pointers are from its root), into its field's tally; a missing or invalid one is
        counted there, located."""
        at_of = self.at.get
        for r in results:
            at = at_of(r.field)
            correct = _JUDGED.get(r.status)
            if at is None or correct is None or r.extracted_pointer is None:
                continue
            tally = tallies.get(r.field)
            if tally is None:
                tally = tallies[r.field] = ConfidenceTally()
            where = at.locate(r.extracted_pointer)
            value = resolve(extracted, where, _MISSING)
            why = "no confidence there" if value is _MISSING else confidence_problem(value)
            if why is None:
                tally.add(value, correct)
            else:
                tally.problem(ConfidenceProblem(
                    "missing" if value is _MISSING else "invalid",
                    record_label(record_id, name, index), where, why))
