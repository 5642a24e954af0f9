"""Pair-F1 matrices for Hungarian alignment, a whole matrix at a time.

Scoring every (gold, extracted) element pair one by one costs seconds at 1,000 x
1,000. For flat items (every field a leaf with a comparator that has a matrix
form) the same per-pair F1 is computed column-wise with numpy and rapidfuzz; any
other shape returns None and the caller scores pairs one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .registry import Registry, default_registry
from .schema.tree import SchemaNode

_ABSENT = object()


def vectorized_f1(items: SchemaNode, g: Sequence[Any], e: Sequence[Any],
                  registry: Registry | None = None) -> np.ndarray | None:
    if items.kind != "object" or items.skip or not items.children:
        return None
    if not all(type(v) is dict and v for v in g) or not all(type(v) is dict and v for v in e):
        return None
    reg = registry or default_registry
    n, m = len(g), len(e)
    s = np.zeros((n, m))
    both_n = np.zeros((n, m))
    omit = np.zeros((n, m))
    hall = np.zeros((n, m))
    for child in items.children:
        if child.skip:
            continue
        if child.kind != "leaf" or child.compare is None or child.comparator is None:
            return None
        d = reg.comparators.get(child.comparator)
        if d is None or d.matrix_factory is None:
            return None
        name = child.name
        absent_null = child.null_policy == "absent"
        gv = [v.get(name, _ABSENT) for v in g]
        ev = [v.get(name, _ABSENT) for v in e]
        if absent_null:
            gv = [_ABSENT if v is None else v for v in gv]
            ev = [_ABSENT if v is None else v for v in ev]
        gp = np.fromiter((v is not _ABSENT for v in gv), bool, n)
        ep = np.fromiter((v is not _ABSENT for v in ev), bool, m)
        try:
            gt = [_transform(child, v) for v in gv]
            et = [_transform(child, v) for v in ev]
        except Exception:
            return None
        scores = d.matrix_factory(child.params)(gt, et)
        if scores is None:
            return None
        both = gp[:, None] & ep[None, :]
        s += np.where(both, scores, 0.0)
        both_n += both
        omit += gp[:, None] & ~ep[None, :]
        hall += ~gp[:, None] & ep[None, :]
    if items.closed:
        extra = np.fromiter((sum(k not in items.child_map for k in v) for v in e), float, m)
        hall += extra[None, :]
    return _f1(s, both_n, omit, hall)


def _transform(node: SchemaNode, value: Any) -> Any:
    if value is _ABSENT:
        return None
    for fn in node.transform_fns:
        value = fn(value)
    return value


def _f1(s: np.ndarray, both: np.ndarray, omit: np.ndarray, hall: np.ndarray) -> np.ndarray:
    """The same arithmetic as Counts.precision/recall/f1, element-wise."""
    pd = both + hall
    rd = both + omit
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(pd > 0, s / np.where(pd > 0, pd, 1.0), 1.0)
        r = np.where(rd > 0, s / np.where(rd > 0, rd, 1.0), 1.0)
        total = p + r
        f1 = np.where(total > 0, 2 * p * r / np.where(total > 0, total, 1.0), 0.0)
    return np.where(both + omit + hall == 0, 1.0, f1)
