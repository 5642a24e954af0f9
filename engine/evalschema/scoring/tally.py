"""Folding field results into per-field tallies and a record's counts.

One function, used both by ``RunAccumulator.tally`` (a whole record at once) and by
the specialized scorers (``specialized``), which tally their hot path inline and hand
everything else here as it is emitted. Sums are carried through in emission order,
so both routes give bit-identical floats.

A tally is a list of 11 numbers: the 8 status counts in ``Counts`` order, then
score_sum, weight_sum and weighted_score_sum.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalschema.results import Counts, FieldResult, Status

#: Tally slot of each status (the order of Counts' fields).
SLOT = {
    Status.MATCH: 0, Status.MISMATCH: 1, Status.OMISSION: 2, Status.HALLUCINATION: 3,
    Status.SKIPPED: 4, Status.ERROR: 5, Status.PENDING: 6, Status.BATCH_ERROR: 7,
}

_M, _MM, _OM, _HA = Status.MATCH, Status.MISMATCH, Status.OMISSION, Status.HALLUCINATION

#: tuple.__new__ skips the NamedTuple's Python-level __new__ (one Counts per record).
_new = tuple.__new__

Sums = tuple[float, float, float]


def fold(results: Sequence[FieldResult], start: int, per_field: dict[str, list[float]],
         counts: list[int], s: float, w: float, ws: float) -> Sums:
    """Tally ``results[start:]`` into ``per_field`` and the record's 8 status
    ``counts``; return the record's (score, weight, weighted score) sums carried on
    from ``s``, ``w``, ``ws``."""
    get = per_field.get
    for i in range(start, len(results)):
        # Tuple indices (field 1, status 2, score 3, weight 11) and identity tests:
        # this loop runs once per judged field, and Enum.__hash__ is Python code.
        r = results[i]
        st = r[2]
        slot = (0 if st is _M else 1 if st is _MM else 2 if st is _OM else
                3 if st is _HA else SLOT[st])
        t = get(r[1])
        if t is None:
            t = per_field[r[1]] = [0.0] * 11
        t[slot] += 1
        counts[slot] += 1
        if slot < 4:
            wt = r[11]
            t[9] += wt
            w += wt
            if slot < 2:
                sc = r[3]
                t[8] += sc
                s += sc
                x = wt * sc
                t[10] += x
                ws += x
    return s, w, ws


def unfold(results: Sequence[FieldResult], per_field: dict[str, list[float]]) -> None:
    """Take ``results`` (tallied into ``per_field``) back out: for a record whose scoring
    failed part-way, so the run counts it nowhere. Counts come back exactly, score sums
    up to rounding; fields the record brought in are dropped again."""
    for r in results:
        t = per_field.get(r[1])
        if t is None:
            continue
        st = r[2]
        slot = SLOT[st]
        t[slot] -= 1
        if slot < 4:
            t[9] -= r[11]
            if slot < 2:
                t[8] -= r[3]
                t[10] -= r[11] * r[3]
        if not any(t[:8]):
            del per_field[r[1]]


def make_counts(counts: list[int], s: float, w: float, ws: float) -> Counts:
    c: Counts = _new(Counts, (*counts, s, w, ws))
    return c
