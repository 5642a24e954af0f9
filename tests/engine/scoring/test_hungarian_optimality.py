"""Hungarian alignment finds the optimum: checked against brute force on small arrays.

The reference here is independent of the engine: the F1 of an element pair is counted by
hand from exact comparisons of flat objects, and the optimum is the best of every
one-to-one pairing (all permutations, arrays of up to 6 elements, with ties and one-sided
leftovers). The engine's pairing is read back from its results' pointers.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from evalschema import Status, evaluate

KEYS = ("a", "b", "c")
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"xs": {
        "type": "array", "x-eval-align": {"match_by": "hungarian"},
        "items": {"type": "object", "properties": {
            k: {"type": "integer", "x-eval-compare": "exact"} for k in KEYS}},
    }},
}

# Few keys and values, so pairs tie and partial overlaps are common. Elements are never
# empty: a pair of empty elements yields no result to read the pairing back from.
ELEMENT = st.dictionaries(st.sampled_from(KEYS), st.integers(0, 2), min_size=1, max_size=3)
ARRAY = st.lists(ELEMENT, max_size=6)
INDEX = re.compile(r"^/xs/(\d+)/")


def pair_f1(g: dict[str, int], e: dict[str, int]) -> float:
    """The F1 of one pair, by hand: both present and equal is a match, both present and
    different a mismatch, one side only an omission or hallucination."""
    both = g.keys() & e.keys()
    matches = sum(g[k] == e[k] for k in both)
    p_denom = len(e)
    r_denom = len(g)
    precision = matches / p_denom
    recall = matches / r_denom
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def pairings(n: int, m: int) -> list[list[tuple[int, int]]]:
    """Every maximal one-to-one pairing of n gold with m extracted elements."""
    if n <= m:
        return [list(enumerate(p)) for p in itertools.permutations(range(m), n)]
    return [[(i, j) for j, i in enumerate(p)] for p in itertools.permutations(range(n), m)]


def value(g: list[dict[str, int]], e: list[dict[str, int]], pairs: list[tuple[int, int]]) -> float:
    return sum(pair_f1(g[i], e[j]) for i, j in pairs)


def optimum(g: list[dict[str, int]], e: list[dict[str, int]]) -> tuple[float, int]:
    """The best summed pair F1 and how many distinct sets of positive pairs reach it."""
    best, winners = -1.0, set()
    for pairs in pairings(len(g), len(e)):
        v = round(value(g, e, pairs), 9)
        kept = frozenset(p for p in pairs if pair_f1(g[p[0]], e[p[1]]) > 0)
        if v > best:
            best, winners = v, {kept}
        elif v == best:
            winners.add(kept)
    return max(best, 0.0), len(winners)


def engine_pairs(g: list[Any], e: list[Any]) -> set[tuple[int, int]]:
    """The pairs the engine judged: results with a pointer into both arrays."""
    run = evaluate([{"xs": g}], [{"xs": e}], SCHEMA)
    pairs = set()
    for r in run.records[0].field_results:
        gm = INDEX.match(r.gold_pointer or "")
        em = INDEX.match(r.extracted_pointer or "")
        if gm and em:
            pairs.add((int(gm.group(1)), int(em.group(1))))
    return pairs


SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(ARRAY, ARRAY)
def test_the_pairing_reaches_the_brute_force_optimum(g: list[Any], e: list[Any]) -> None:
    pairs = engine_pairs(g, e)
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    best, _ = optimum(g, e)
    assert value(g, e, sorted(pairs)) == pytest.approx(best, abs=1e-9)


@SETTINGS
@given(ARRAY, ARRAY)
def test_swapping_gold_and_extracted_swaps_the_counts(g: list[Any], e: list[Any]) -> None:
    """The swap law under Hungarian alignment, where the optimal pairing is unique (with
    ties, either side may break them differently and both are right)."""
    assume(optimum(g, e)[1] == 1)
    forward = evaluate([{"xs": g}], [{"xs": e}], SCHEMA).records[0].counts
    backward = evaluate([{"xs": e}], [{"xs": g}], SCHEMA).records[0].counts
    assert (forward.matches, forward.mismatches) == (backward.matches, backward.mismatches)
    assert (forward.omissions, forward.hallucinations) == (
        backward.hallucinations, backward.omissions)
    assert forward.score_sum == pytest.approx(backward.score_sum)


def test_a_swapped_pair_of_good_matches_is_uncrossed() -> None:
    """The mutant that kept the in-order pairing when every in-order pair scored F1 >= 0.5:
    g0 and g1 share two of three values, so the crossed pairs (F1 2/3) look good enough
    but are not the best."""
    g0, g1 = {"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 1, "c": 2}
    run = evaluate([{"xs": [g0, g1]}], [{"xs": [g1, g0]}], SCHEMA)
    counts = run.records[0].counts
    assert (counts.matches, counts.mismatches) == (6, 0)
    assert engine_pairs([g0, g1], [g1, g0]) == {(0, 1), (1, 0)}
    statuses = {r.status for r in run.records[0].field_results}
    assert statuses == {Status.MATCH}
