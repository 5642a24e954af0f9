"""Shared generators for the compat tests: JSON-like values, by hypothesis or by seed.

Hypothesis strategies are handed out through session fixtures (drawn with
``st.data()``), and the seeded generator is a fixture too, so no test module
imports another.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import strategies as st

from evalschema.results import FieldResult, Status

KEYS = ["a", "b", "name", "Name", "a.b", "price", "items", "0", "", "é"]
TEXT = st.text(alphabet="abcAB é\u0301ß{}", max_size=6)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-1000, max_value=1000),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    TEXT,
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    ),
    max_leaves=12,
)
OBJECTS = st.dictionaries(st.sampled_from(KEYS), JSON, max_size=5)


@pytest.fixture(scope="session")
def json_values() -> st.SearchStrategy[Any]:
    """Any JSON value (finite numbers, small ints, short strings with accents)."""
    return JSON


@pytest.fixture(scope="session")
def json_objects() -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object whose values are any JSON value."""
    return OBJECTS


class RandomJson:
    """Seeded JSON values and near-copies of them, for parity runs against real packages."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def value(self, depth: int = 3) -> Any:
        r = self.rng
        kind = r.choice(["null", "bool", "int", "float", "str", "str", "dict", "list"])
        if depth <= 0 and kind in ("dict", "list"):
            kind = "str"
        if kind == "null":
            return None
        if kind == "bool":
            return r.random() < 0.5
        if kind == "int":
            return r.choice([0, 1, -1, 2, 10, 25, -5, r.randint(-100, 100)])
        if kind == "float":
            return r.choice([0.0, -0.0, 1.0, 20.3, 20.5, 1e-13, -2.5, round(r.uniform(-50, 50), 2)])
        if kind == "str":
            return r.choice(["", "apple", "Apple", "grape", "orange", "José", "jose", "1", "a b"])
        if kind == "dict":
            return {r.choice(KEYS): self.value(depth - 1) for _ in range(r.randint(0, 4))}
        return [self.value(depth - 1) for _ in range(r.randint(0, 4))]

    def mutate(self, value: Any, depth: int = 3) -> Any:
        """A near-copy: most parts kept, some changed, dropped, added or retyped."""
        r = self.rng
        roll = r.random()
        if roll < 0.08:
            return self.value(depth)
        if isinstance(value, dict):
            out = {
                k: self.mutate(v, depth - 1) if r.random() < 0.5 else v for k, v in value.items()
            }
            if out and r.random() < 0.2:
                out.pop(r.choice(list(out)))
            if r.random() < 0.2:
                out[r.choice(KEYS)] = self.value(depth - 1)
            return out
        if isinstance(value, list):
            out_list = [self.mutate(v, depth - 1) if r.random() < 0.5 else v for v in value]
            if out_list and r.random() < 0.2:
                out_list.pop()
            if r.random() < 0.2:
                out_list.append(self.value(depth - 1))
            return out_list
        if isinstance(value, bool):
            return not value if roll < 0.3 else value
        if isinstance(value, int | float):
            return r.choice([value, value + 1, value * 1.5, -value, float(value), str(value)])
        if isinstance(value, str):
            return r.choice([value, value.upper(), value[:-1], value + "x", None])
        return value


@pytest.fixture
def random_json() -> Callable[[int], RandomJson]:
    return RandomJson


def recompose(fields: tuple[FieldResult, ...], empty: float) -> float:
    """``Σ weight·score / Σ weight`` over the fields (``empty`` when nothing is weighted)."""
    total = sum(f.weight for f in fields)
    if total == 0:
        return empty
    return sum(f.weight * f.score for f in fields) / total


@pytest.fixture(scope="session")
def recomposed() -> Callable[[tuple[FieldResult, ...], float], float]:
    return recompose


def check_field_invariants(fields: tuple[FieldResult, ...]) -> None:
    """What every explanation promises, whatever the system."""
    for f in fields:
        assert 0.0 <= f.score <= 1.0 or f.score != f.score
        if f.status is Status.MATCH:
            assert f.score == 1.0
        if f.status is Status.OMISSION:
            assert f.extracted_pointer is None
        if f.status is Status.HALLUCINATION:
            assert f.gold_pointer is None
        if f.status is Status.SKIPPED:
            assert f.weight == 0.0
        assert not re.search(r"\[\d+\]", f.field), f.field


@pytest.fixture(scope="session")
def field_invariants() -> Callable[[tuple[FieldResult, ...]], None]:
    return check_field_invariants


def deep(levels: int = 5000) -> dict[str, Any]:
    """An object nested beyond Python's recursion limit."""
    value: Any = "leaf"
    for _ in range(levels):
        value = {"a": value}
    return value  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def deep_object() -> dict[str, Any]:
    return deep()
