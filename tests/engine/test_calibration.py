"""Calibration figures (evalschema.calibration): hand-computed cases for each metric, the
undefined cases, and properties of synthetic extractors (hypothesis)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import mannwhitneyu

from evalschema.calibration import (
    RESOLUTION,
    ConfidenceProblem,
    ConfidenceTally,
    calibrate,
    check_budgets,
    confidence_problem,
    figures,
)


def tally(pairs: list[tuple[float, bool]]) -> ConfidenceTally:
    t = ConfidenceTally()
    for c, ok in pairs:
        t.add(c, ok)
    return t


# correct: 0.9, 0.6; wrong: 0.2, 0.8
HAND = [(0.9, True), (0.6, True), (0.2, False), (0.8, False)]


def test_hand_computed_figures() -> None:
    f = figures(tally(HAND), (25, 50, 100))
    assert (f.values, f.correct) == (4, 2)
    # ECE: four bins of one value each: (|0-.2| + |1-.6| + |0-.8| + |1-.9|) / 4
    assert f.ece == pytest.approx(0.375, abs=1e-15)
    # Brier: (.2² + .4² + .8² + .1²) / 4
    assert f.brier == pytest.approx(0.2125, abs=1e-15)
    # AUROC: 0.9 beats both wrong, 0.6 beats 0.2 only: 3 of 4 pairs
    assert f.auroc == 0.75
    assert f.mean_confidence == pytest.approx(0.625, abs=1e-15)
    assert f.accuracy == 0.5
    # 25%: one value, 0.2 (wrong): half the errors, all reviewed wrong; 50%: 0.2 and 0.6
    assert [(r.budget, r.reviewed, r.caught, r.wrong_share) for r in f.review] == [
        (25, 1.0, 0.5, 1.0), (50, 2.0, 0.5, 0.5), (100, 4.0, 1.0, 0.5)]
    assert [(b.count, b.mean_confidence, b.accuracy) for b in f.bins if b.count] == [
        (1, 0.2, 0.0), (1, 0.6, 1.0), (1, 0.8, 0.0), (1, 0.9, 1.0)]
    assert [b.count for b in f.bins] == [0, 0, 1, 0, 0, 0, 1, 0, 1, 1]


def test_ties_count_one_half_in_auroc() -> None:
    # pairs: .7>.5, .7>.3, .5=.5 (one half), .5>.3: 3.5 of 4
    assert figures(tally([(0.7, True), (0.5, True), (0.5, False), (0.3, False)])).auroc == 0.875
    assert figures(tally([(0.5, True), (0.5, True), (0.5, False)])).auroc == 0.5


def test_review_budget_shares_a_tie_at_the_cut() -> None:
    # four values at 0.5, two wrong; 25% reviews one of them: half a wrong one expected
    f = figures(tally([(0.5, True), (0.5, False), (0.5, True), (0.5, False)]), (25,))
    assert [(r.reviewed, r.caught, r.wrong_share) for r in f.review] == [(1.0, 0.25, 0.5)]
    # 5% of 10 values is half a value, the least confident one (wrong)
    f = figures(tally([(0.1, False)] + [(0.9, True)] * 9), (5,))
    assert [(r.reviewed, r.caught, r.wrong_share) for r in f.review] == [(0.5, 0.5, 1.0)]


def test_undefined_figures() -> None:
    only_correct = figures(tally([(0.9, True), (0.8, True)]), (10,))
    assert only_correct.auroc is None  # one class: undefined, never 1.0 or 0.5
    assert only_correct.review[0].caught is None  # no error to catch
    assert only_correct.review[0].wrong_share == 0.0
    assert figures(tally([(0.1, False)])).auroc is None
    empty = figures(ConfidenceTally(), (10,))
    assert (empty.values, empty.ece, empty.brier, empty.auroc, empty.mean_confidence,
            empty.accuracy) == (0, None, None, None, None, None)
    assert (empty.review[0].caught, empty.review[0].wrong_share) == (None, None)
    assert all(b.count == 0 and b.accuracy is None for b in empty.bins)
    assert calibrate({}) is None


def test_bins_are_left_closed_and_the_last_is_closed() -> None:
    f = figures(tally([(0.1, True), (1.0, True), (0.0, False), (0.09996, False)]))
    # 0.09996 rounds to 0.1000 (the grid), so it joins 0.1 in [0.1, 0.2)
    assert [b.count for b in f.bins] == [1, 2, 0, 0, 0, 0, 0, 0, 0, 1]
    assert f.bins[9].low == 0.9 and f.bins[9].high == 1.0


def test_confidences_are_rounded_to_the_grid() -> None:
    t = tally([(0.12344, True), (0.12346, True), (1, True), (0, False)])
    assert t.correct == {1234: 1, 1235: 1, RESOLUTION: 1}
    assert t.wrong == {0: 1}


@pytest.mark.parametrize(("value", "reason"), [
    ("0.9", "a confidence must be a number in [0, 1], not string"),
    (True, "a confidence must be a number in [0, 1], not boolean"),
    (None, "a confidence must be a number in [0, 1], not null"),
    ([0.5], "a confidence must be a number in [0, 1], not array"),
    (1.2, "a confidence must be a number in [0, 1], not 1.2"),
    (-0.1, "a confidence must be a number in [0, 1], not -0.1"),
    (math.nan, "a confidence must be a number in [0, 1], not nan"),
    (2, "a confidence must be a number in [0, 1], not 2"),
])
def test_invalid_confidences_have_a_reason(value: object, reason: str) -> None:
    assert confidence_problem(value) == reason


@pytest.mark.parametrize("value", [0, 1, 0.0, 1.0, 0.5])
def test_valid_confidences(value: float) -> None:
    assert confidence_problem(value) is None


def test_problems_counted_and_the_first_kept() -> None:
    t = ConfidenceTally()
    for i in range(7):
        t.problem(ConfidenceProblem("missing" if i % 2 else "invalid", f"r{i}", "/x", "why"))
    assert (t.missing, t.invalid) == (3, 4)
    assert [p.record for p in t.problems] == ["r0", "r1", "r2", "r3", "r4"]


def test_budgets_are_percents() -> None:
    assert check_budgets([5, 10.5, 100]) == (5.0, 10.5, 100.0)
    for bad in (0, -1, 101):
        with pytest.raises(ValueError, match="a review budget is a percent in"):
            check_budgets([bad])


# -- properties -------------------------------------------------------------------------

GRID = st.integers(0, RESOLUTION)


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_calibrated_extractor_has_no_calibration_error(seed: int) -> None:
    """Correct with probability equal to its confidence: ECE near 0, Brier near the
    mean of c(1 - c)."""
    rng = np.random.default_rng(seed)
    conf = rng.choice(np.arange(5, 100, 10) / 100, size=40_000)
    ok = rng.random(conf.size) < conf
    f = figures(tally(list(zip(conf.tolist(), ok.tolist(), strict=True))))
    assert f.ece is not None and f.ece < 0.02
    assert f.brier == pytest.approx(float(np.mean(conf * (1 - conf))), abs=0.01)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, RESOLUTION - 1).flatmap(lambda cut: st.tuples(
    st.lists(st.integers(0, cut - 1), min_size=1, max_size=30),
    st.lists(st.integers(cut, RESOLUTION), min_size=1, max_size=30))))
def test_separable_confidences_have_an_auroc_of_one(split: tuple[list[int], list[int]]) -> None:
    wrong, correct = split
    t = tally([(b / RESOLUTION, False) for b in wrong] + [(b / RESOLUTION, True) for b in correct])
    assert figures(t).auroc == 1.0
    # and reversed, 0
    r = tally([(b / RESOLUTION, True) for b in wrong] + [(b / RESOLUTION, False) for b in correct])
    assert figures(r).auroc == 0.0


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_shuffled_confidences_have_an_auroc_of_one_half(seed: int) -> None:
    rng = np.random.default_rng(seed)
    conf = rng.random(40_000)
    ok = rng.permutation(conf > 0.3)  # as many right as a real extractor, shuffled
    f = figures(tally(list(zip(conf.tolist(), ok.tolist(), strict=True))))
    assert f.auroc == pytest.approx(0.5, abs=0.02)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.booleans()), min_size=2, max_size=60))
def test_auroc_is_mann_whitney_u_with_average_ranks(pairs: list[tuple[int, bool]]) -> None:
    # a coarse grid, so ties are many
    pos = [b / 20 for b, ok in pairs if ok]
    neg = [b / 20 for b, ok in pairs if not ok]
    got = figures(tally([(b / 20, ok) for b, ok in pairs])).auroc
    if not pos or not neg:
        assert got is None
        return
    u = mannwhitneyu(pos, neg, method="asymptotic").statistic
    assert got == pytest.approx(u / (len(pos) * len(neg)), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(GRID, st.booleans()), max_size=60), st.data())
def test_merging_split_tallies_equals_one_tally(pairs: list[tuple[int, bool]],
                                                data: st.DataObject) -> None:
    values = [(b / RESOLUTION, ok) for b, ok in pairs]
    cut = data.draw(st.integers(0, len(values)))
    whole = tally(values)
    left, right = tally(values[:cut]), tally(values[cut:])
    left.update(right)
    assert (left.correct, left.wrong) == (whole.correct, whole.wrong)
    assert figures(left, (5, 10, 20)) == figures(whole, (5, 10, 20))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(GRID, st.booleans()), min_size=1, max_size=60))
def test_review_budgets_grow_to_every_error(pairs: list[tuple[int, bool]]) -> None:
    f = figures(tally([(b / RESOLUTION, ok) for b, ok in pairs]), (5, 10, 20, 50, 100))
    caught = [r.caught for r in f.review]
    if any(not ok for _, ok in pairs):
        assert all(c is not None for c in caught)
        assert caught == sorted(caught)  # type: ignore[type-var]
        assert caught[-1] == pytest.approx(1.0)
    else:
        assert caught == [None] * 5
