"""Seeded JSON values and near-copies of them, for parity runs against real packages.

A module of its own (not the compat conftest) so that
scripts/record_struct_extract_eval_parity.py generates the same cases as the tests.
"""

from __future__ import annotations

import random
from typing import Any

KEYS = ["a", "b", "name", "Name", "a.b", "price", "items", "0", "", "é"]


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
