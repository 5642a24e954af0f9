"""Folding field results into per-field tallies and a record's counts.

One function, used both by ``RunAccumulator.tally`` (a whole record at once) and by
the specialized scorers (``specialized``), which tally their hot path inline and hand
everything else here as it is emitted. Sums are carried through in emission order,
so both routes give bit-identical floats.

A tally is a list of ``SIZE`` (11) numbers laid out as ``Counts``: the 8 status counts
(``SLOT``), then ``SCORE_SUM``, ``WEIGHT_SUM`` and ``WEIGHTED_SCORE_SUM``. ``fold`` and the
specialized scorers index them by literals for speed; ``tests/engine/scoring/test_tally.py``
checks the literals against this layout and ``fold`` against ``results.count_results``.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalschema.results import Counts, FieldResult, Status

#: Tally slot of each status: Status lists them in the order of Counts' fields, so a
#: status's slot is the place of its count there. The first four take part in precision
#: and recall; the first two are judged on both sides (they carry a score).
SLOT: dict[Status, int] = {status: i for i, status in enumerate(Status)}
#: Slots of the sums (the fields of Counts after the counts) and of the whole tally.
SCORE_SUM = Counts._fields.index("score_sum")
WEIGHT_SUM = Counts._fields.index("weight_sum")
WEIGHTED_SCORE_SUM = Counts._fields.index("weighted_score_sum")
SIZE = len(Counts._fields)

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
        # Tuple indices (field 1, status 2, score 3, weight 11), identity tests and literal
        # slots (SLOT, SCORE_SUM, WEIGHT_SUM, WEIGHTED_SCORE_SUM): this loop runs once per
        # judged field, and Enum.__hash__ is Python code.
        r = results[i]
        st = r[2]
        slot = (0 if st is _M else 1 if st is _MM else 2 if st is _OM else
                3 if st is _HA else SLOT[st])
        t = get(r[1])
        if t is None:
            t = per_field[r[1]] = [0.0] * SIZE
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
        t = per_field[r[1]]  # tallied, so there (a field goes only with its last result)
        st = r[2]
        slot = SLOT[st]
        t[slot] -= 1
        if slot < 4:
            t[WEIGHT_SUM] -= r[11]
            if slot < 2:
                t[SCORE_SUM] -= r[3]
                t[WEIGHTED_SCORE_SUM] -= r[11] * r[3]
        if not any(t[:8]):
            del per_field[r[1]]


def make_counts(counts: list[int], s: float, w: float, ws: float) -> Counts:
    """A record's Counts from its 8 status ``counts`` and sums (``fold``)."""
    c: Counts = _new(Counts, (*counts, s, w, ws))
    return c
