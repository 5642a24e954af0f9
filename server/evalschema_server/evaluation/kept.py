"""What a run keeps of a record's findings: their statuses, fields and scores, packed.

A run keeps every record's findings for what reads them all at once (the counts of
findings past the files' limits, the records' test statuses, the lists of a field's
findings and worst values). As ``FieldResult`` tuples, with the values they hold, they
took ~24 MB at 10,000 records of the benchmark's invoices (~97,000 findings) and ~240 MB
at 100,000; packed, a tenth. What a finding says beyond this (its values, reason and
pointers) is what scoring its record again gives (``SuiteOutcome.findings_of``), for the
few that are shown.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from evalschema.results import FieldResult, Status

_STATUSES = tuple(Status)
_CODES = {s: i for i, s in enumerate(_STATUSES)}
#: Not findings: a run does not keep them (``SuiteOutcome.full`` scores them again).
DROPPED = frozenset({Status.MATCH, Status.SKIPPED})
_MATCH, _SKIPPED = Status.MATCH, Status.SKIPPED


class Kept(NamedTuple):
    """One finding as the run keeps it; ``at``: its place among its record's findings."""

    at: int
    status: Status
    field: str
    score: float


@dataclass(frozen=True, slots=True)
class Findings:
    """A record's findings (its results but its matches and skipped fields), in its
    results' order: one byte, one field path (shared with the schema's nodes) and one
    float a finding."""

    statuses: bytes
    fields: tuple[str, ...]
    #: Their scores, as float64 (``array("d")``).
    scores: bytes

    @classmethod
    def of(cls, results: Iterable[FieldResult]) -> Findings:
        """Packed in one pass: made for every record a run scores."""
        codes: list[int] = []
        fields: list[str] = []
        scores: list[float] = []
        for r in results:
            st = r.status
            if st is _MATCH or st is _SKIPPED:
                continue
            codes.append(_CODES[st])
            fields.append(r.field)
            scores.append(r.score)
        if not codes:
            return NO_FINDINGS
        return cls(bytes(codes), tuple(fields), array("d", scores).tobytes())

    def __len__(self) -> int:
        return len(self.statuses)

    def __iter__(self) -> Iterator[Kept]:
        scores = memoryview(self.scores).cast("d")
        for i, (code, name) in enumerate(zip(self.statuses, self.fields, strict=True)):
            yield Kept(i, _STATUSES[code], name, scores[i])

    def of_field(self, field: str) -> list[Kept]:
        """Those of ``field``: one search of the fields for a record without any (a
        field's worst values look through every record)."""
        return [k for k in self if k.field == field] if field in self.fields else []


NO_FINDINGS = Findings(b"", (), b"")


def findings_only(results: Iterable[FieldResult]) -> tuple[FieldResult, ...]:
    """``results`` without those a run does not keep, in order: ``Findings.of``'s."""
    return tuple(r for r in results if r.status not in DROPPED)
