"""Shared generators for the compat tests: JSON-like values, by hypothesis or by seed.

Hypothesis strategies are handed out through session fixtures (drawn with
``st.data()``), and the seeded generator is a fixture too, so no test module
imports another.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import strategies as st
from seeded_json import KEYS, RandomJson

from evalschema.results import FieldResult, Status

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
