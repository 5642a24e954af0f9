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


def test_set_pairs_equal_values_of_the_same_type_only() -> None:
    """``True == 1`` in Python, but a boolean is not the number 1: neither pairs with it."""
    assert align("set", [True, 1, "1", None], [1, "1", None, True]) == (
        [(0, 3), (1, 0), (2, 1), (3, 2)], [], [])
    assert align("set", [True], [1]) == ([], [0], [0])


def test_hungarian_falls_back_to_positions_only_over_the_policy_limit() -> None:
    """``hungarian_max_pairs`` is the largest matrix still solved: at it, the best pairing;
    one pair over, pairs by position."""
    g, e = ["a", "b"], ["b", "a"]
    at_limit = dataclasses.replace(NATIVE, hungarian_max_pairs=4)
    assert align("hungarian", g, e, at_limit) == ([(0, 1), (1, 0)], [], [])
    over = dataclasses.replace(NATIVE, hungarian_max_pairs=3)
    assert align("hungarian", g, e, over) == ([(0, 0), (1, 1)], [], [])
