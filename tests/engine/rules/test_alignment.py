"""The built-in alignment strategies (``evalschema.rules.alignment``), run through the registry
that dispatches them, against a scorer stand-in: which gold element meets which extracted one.

End-to-end scoring of aligned arrays is in scoring/test_scoring.py; here the pairs themselves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from evalschema import builtin_registry
from evalschema.policy import NATIVE, ScoringPolicy
from evalschema.rules.alignment import hungarian, ordered, set_alignment
from evalschema.rules.registry import Align, Alignment

#: Items without transforms (what ``set`` reads of the items node).
ITEMS = SimpleNamespace(transform_fns=())


@dataclasses.dataclass
class Scorer:
    """What a strategy may ask of the scorer (``rules.registry.AlignContext``): a pair's F1
    is 1 for equal elements, else 0."""

    policy: ScoringPolicy = NATIVE

    def pair_f1(self, items: Any) -> Any:
        return lambda g, e: 1.0 if g == e else 0.0

    def pair_f1_matrix(self, items: Any, g: Sequence[Any], e: Sequence[Any]) -> Any:
        return np.array([[1.0 if a == b else 0.0 for b in e] for a in g], dtype=float)


def align(name: str, g: list[Any], e: list[Any], policy: ScoringPolicy = NATIVE,
          **params: Any) -> Alignment:
    factory = builtin_registry().strategies[name].factory
    assert factory is not None
    run: Align = factory(params)
    return run(Scorer(policy), ITEMS, g, e)


def test_the_registry_dispatches_each_name_to_its_algorithm() -> None:
    strategies = builtin_registry().strategies
    for name, fn in (("ordered", ordered), ("set", set_alignment), ("hungarian", hungarian)):
        factory = strategies[name].factory
        assert factory is not None and factory({}) is fn, name


def test_keyless_elements_pair_in_order_and_every_pair_is_in_gold_order() -> None:
    """Pairs come in gold order, whatever the strategy (the walk emits results in that
    order): key_field's keyless pairs are merged in, not appended."""
    g = [{"v": 1}, {"k": "a"}, {"v": 2}]
    e = [{"k": "a"}, {"v": 3}, {"v": 4}]
    assert align("key_field", g, e, key="k") == ([(0, 1), (1, 0), (2, 2)], [], [])
    off = dataclasses.replace(NATIVE, key_field_keyless_in_order=False)
    assert align("key_field", g, e, off, key="k") == ([(1, 0)], [0, 2], [1, 2])


def test_an_unmatched_key_never_pairs_with_a_keyless_element() -> None:
    """Only elements without a usable key pair in order: a gold key extracted lacks (or
    an extracted key gold lacks) stays unpaired, beside keyless elements on the other side."""
    assert align("key_field", [{"k": "a"}, {"v": 1}], [{"v": 2}], key="k") == (
        [(1, 0)], [0], [])
    assert align("key_field", [{"v": 1}], [{"k": "b"}, {"v": 2}], key="k") == (
        [(0, 1)], [], [0])


def test_set_pairs_equal_values_of_the_same_type_only() -> None:
    """``True == 1`` in Python, but a boolean is not the number 1: neither pairs with it."""
    assert align("set", [True, 1, "1", None], [1, "1", None, True]) == (
        [(0, 3), (1, 0), (2, 1), (3, 2)], [], [])
    assert align("set", [True], [1]) == ([], [0], [0])


def test_set_pairs_containers_by_their_value() -> None:
    """Lists and objects pair with an equal one, not with any other container."""
    assert align("set", [[1], {"a": 2}, [3]], [[3], [1], {"a": 2}]) == (
        [(0, 1), (1, 2), (2, 0)], [], [])
    assert align("set", [[1]], [[2]]) == ([], [0], [0])


def test_hungarian_falls_back_to_positions_only_over_the_policy_limit() -> None:
    """``hungarian_max_pairs`` is the largest matrix still solved: at it, the best pairing;
    one pair over, pairs by position."""
    g, e = ["a", "b"], ["b", "a"]
    at_limit = dataclasses.replace(NATIVE, hungarian_max_pairs=4)
    assert align("hungarian", g, e, at_limit) == ([(0, 1), (1, 0)], [], [])
    over = dataclasses.replace(NATIVE, hungarian_max_pairs=3)
    assert align("hungarian", g, e, over) == ([(0, 0), (1, 1)], [], [])


def test_ordered_pairs_by_position_and_leaves_the_longer_tail() -> None:
    assert align("ordered", [1, 2, 3], [9]) == ([(0, 0)], [1, 2], [])
    assert align("ordered", [9], [1, 2, 3]) == ([(0, 0)], [], [1, 2])
    assert align("ordered", [], [1]) == ([], [], [0])
    assert align("ordered", [1, 2], [3, 4]) == ([(0, 0), (1, 1)], [], [])


def test_key_field_pairs_by_key_whatever_the_order() -> None:
    g = [{"k": "a"}, {"k": 2}, {"k": 1.5}, {"k": "c"}]
    e = [{"k": 1.5}, {"k": "c"}, {"k": "x"}, {"k": "a"}, {"k": 2}]
    assert align("key_field", g, e, key="k") == ([(0, 3), (1, 4), (2, 0), (3, 1)], [], [2])


def test_key_field_repeated_keys_pair_in_order_or_first_wins() -> None:
    g = [{"k": "a", "n": 1}, {"k": "a", "n": 2}, {"k": "a", "n": 3}]
    e = [{"k": "a", "n": 1}, {"k": "b"}, {"k": "a", "n": 2}]
    assert align("key_field", g, e, key="k") == ([(0, 0), (1, 2)], [2], [1])
    first_wins = dataclasses.replace(NATIVE, key_field_repeats_in_order=False,
                                     key_field_keyless_in_order=False)
    assert align("key_field", g, e, first_wins, key="k") == ([(0, 0)], [1, 2], [1, 2])


def test_key_field_keys_that_cannot_pair() -> None:
    """A key that is missing, null, a boolean, an object, or an element that is not an
    object at all, is no key (``True`` would otherwise meet ``1``): such elements pair
    only with each other, in order, and never with a keyed element."""
    g = [{"k": True}, {"k": 1}, {"k": None}, "text", {"k": [1]}, {"other": 1}]
    e = [{"k": 1}, {"v": 0}, {"k": {"a": 1}}, {"k": False}]
    assert align("key_field", g, e, key="k") == (
        [(0, 1), (1, 0), (2, 2), (3, 3)], [4, 5], [])
    off = dataclasses.replace(NATIVE, key_field_keyless_in_order=False)
    assert align("key_field", g, e, off, key="k") == ([(1, 0)], [0, 2, 3, 4, 5], [1, 2, 3])
    # More keyless extracted elements than gold ones: the rest are extra, in order.
    assert align("key_field", [{"v": 1}], [{"v": 2}, {"k": "z"}, {"v": 3}], key="k") == (
        [(0, 0)], [], [1, 2])


@dataclasses.dataclass
class CountingScorer(Scorer):
    """Counts what the strategy asks: per-pair F1 calls, and whole matrices."""

    pair_calls: int = 0
    matrix_calls: int = 0

    def pair_f1(self, items: Any) -> Any:
        def f1(g: Any, e: Any) -> float:
            self.pair_calls += 1
            return 1.0 if g == e else 0.0
        return f1

    def pair_f1_matrix(self, items: Any, g: Sequence[Any], e: Sequence[Any]) -> Any:
        self.matrix_calls += 1
        return super().pair_f1_matrix(items, g, e)


def test_hungarian_asks_per_pair_up_to_the_small_matrix_size_then_for_a_matrix() -> None:
    """Up to ``SMALL_MATRIX`` pairs each pair's F1 is asked once (the in-order diagonal
    is not asked again); past it the scorer builds the matrix in one call."""
    from evalschema.rules.alignment import SMALL_MATRIX

    assert SMALL_MATRIX == 256
    g = list(range(16))
    e = g[::-1]
    s = CountingScorer()
    assert hungarian(s, ITEMS, g, e) == ([(i, 15 - i) for i in range(16)], [], [])
    assert (s.pair_calls, s.matrix_calls) == (256, 0)
    s = CountingScorer()
    assert hungarian(s, ITEMS, g, [*e, 99]) == ([(i, 15 - i) for i in range(16)], [], [16])
    assert (s.pair_calls, s.matrix_calls) == (0, 1)
    # In order and perfect: the diagonal alone answers.
    s = CountingScorer()
    assert hungarian(s, ITEMS, g, list(g)) == ([(i, i) for i in range(16)], [], [])
    assert (s.pair_calls, s.matrix_calls) == (16, 0)
    # The diagonal breaks at the third element: 3 asked there, the other 6 in the matrix.
    s = CountingScorer()
    assert hungarian(s, ITEMS, ["a", "b", "c"], ["a", "b", "x"]) == (
        [(0, 0), (1, 1)], [2], [2])
    assert s.pair_calls == 9


def test_hungarian_maximises_and_drops_pairs_with_f1_zero() -> None:
    assert align("hungarian", ["a", "b", "c"], ["c", "a", "x"]) == ([(0, 1), (2, 0)], [1], [2])
    assert align("hungarian", ["a", "b"], ["x", "y", "a"]) == ([(0, 2)], [1], [0, 1])
    assert align("hungarian", ["a", "b"], ["b", "c"]) == ([(1, 0)], [0], [1])


def test_hungarian_with_an_empty_side() -> None:
    assert align("hungarian", [], ["a"]) == ([], [], [0])
    assert align("hungarian", ["a", "b"], []) == ([], [0, 1], [])
    assert align("hungarian", [], []) == ([], [], [])


def test_hungarian_over_the_memory_limit_is_an_error_saying_how_to_proceed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``EVALSCHEMA_HUNGARIAN_MAX_PAIRS`` is the largest matrix built: at it, solved."""
    from evalschema.rules.alignment import AlignmentLimitError

    monkeypatch.setenv("EVALSCHEMA_HUNGARIAN_MAX_PAIRS", "289")
    g = list(range(17))
    assert align("hungarian", g, g[::-1])[0] == [(i, 16 - i) for i in range(17)]
    with pytest.raises(AlignmentLimitError) as got:
        align("hungarian", g, list(range(18)))
    assert str(got.value) == (
        "hungarian alignment of 17 x 18 elements needs a 306-pair matrix, over the limit of "
        "289 pairs; the array is not scored (use x-eval-align key_field or ordered, or raise "
        "EVALSCHEMA_HUNGARIAN_MAX_PAIRS)")


def test_set_compares_after_the_items_transforms() -> None:
    """Values pair when they are equal after the items' transforms; a value a transform
    cannot handle pairs only with an equal untransformable value."""
    from evalschema.rules.registry import CompareTypeError

    def lower(v: Any) -> Any:
        if not isinstance(v, str):
            raise CompareTypeError("not a string")
        return v.lower()

    items = SimpleNamespace(transform_fns=(lower, str.strip))
    run = set_alignment
    assert run(Scorer(), items, ["ABC ", "x", 5, [1]], [[1], " abc", 5, "Y"]) == (
        [(0, 1), (2, 2), (3, 0)], [1], [3])
    # Without transforms, equal numbers pair (0.0 and -0.0 too), case still counts.
    assert run(Scorer(), ITEMS, [0.0, "A", None, {"k": 1}], [None, "a", -0.0, {"k": 1}]) == (
        [(0, 2), (2, 0), (3, 3)], [1], [1])


def test_a_strategy_without_parameters_binds_to_its_algorithm_whatever_it_is_given() -> None:
    from evalschema.rules.alignment import _unbound

    assert _unbound(ordered)({}) is ordered
    assert _unbound(hungarian)({"ignored": 1}) is hungarian
