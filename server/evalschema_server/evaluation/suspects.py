"""Suspect gold in the editor: what its diagnostics in the gold file say and carry (the
search itself, the engine's ``find_suspects`` over a suite's runs, is ``SuiteOutcome.suspects``).

A suite with two or more runs gets one ``suspect-gold`` diagnostic per gold value (or gold
gap) that at least two runs agree against, at the gold value (at the nearest parent present
for a key gold lacks). Its ``data`` (``SuspectGoldData``) holds what a code action needs to
put the agreed value into gold: the suite, the gold record, the pointer in it, the value.
"""

from __future__ import annotations

from typing import Any, TypedDict

from evalschema.results import show_value
from evalschema.run.suspects import SuspectGold
from evalschema.safetext import finite, json_text

from .locate import RecordLocator, Span

#: The diagnostics' code.
CODE = "suspect-gold"


class SuspectGoldData(TypedDict):
    """A ``suspect-gold`` diagnostic's ``data``."""

    #: The suite's key (``SuiteSummary.key``).
    suite: str
    #: The gold record: its place among the gold file's records (0-based), and its id.
    record: int
    recordId: Any
    #: Where the value is, or belongs, in that record (RFC 6901, relative to the record).
    goldPointer: str
    #: "mismatch" (gold has another value) or "hallucination" (gold has none there: the
    #: keys on the way from the nearest parent present are missing too).
    kind: str
    #: The value the runs agree on, as the first of them wrote it; ``valueText`` is the
    #: same as JSON text, ready to insert.
    value: Any
    valueText: str
    field: str
    path: str
    #: The labels of the runs that agree; how many do, of the runs that scored the record.
    runs: list[str]
    agreeing: int
    scored: int


def suspect_message(s: SuspectGold) -> str:
    """``2 of 2 runs say "Acme GmbH"; gold says "Acme Gmbh"`` (or ``gold has no value``)."""
    said = f"{s.agreeing} of {s.scored} runs say {show_value(s.agreed)}"
    if s.kind == "hallucination":
        return f"{said}; gold has no value"
    return f"{said}; gold says {show_value(s.gold)}"


def suspect_span(s: SuspectGold, text: str, locator: RecordLocator) -> Span:
    """Where in the gold record's text: the gold value, else (a key gold lacks, a value
    that cannot be pointed at) the nearest parent present."""
    span = locator.value(text, s.gold_pointer) if s.kind == "mismatch" else None
    return span or locator.near(text, s.gold_pointer)


def suspect_data(suite: str, s: SuspectGold) -> SuspectGoldData:
    value = finite(s.agreed)  # the message must stay JSON: no NaN from a lenient read
    return SuspectGoldData(suite=suite, record=s.gold_index, recordId=finite(s.record_id),
                           goldPointer=s.gold_pointer, kind=s.kind, value=value,
                           valueText=json_text(value, indent=None), field=s.field,
                           path=s.path, runs=list(s.runs), agreeing=s.agreeing,
                           scored=s.scored)
