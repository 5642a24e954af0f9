"""Pair-F1 matrices for Hungarian alignment, a whole matrix at a time.

Scoring every (gold, extracted) element pair one by one costs seconds at 1,000 x
1,000. For flat items (every field a leaf with a comparator that has a matrix
form) the same per-pair F1 is computed column-wise with numpy and rapidfuzz; any
other shape returns None and the caller scores pairs one by one.

The counting is a copy, matrix-wise, of ``pair_f1.flat_pair_f1`` (itself checked against
the walk), and ``_f1`` an element-wise copy of ``results.pair_similarity``: numpy
cannot call the definition per cell at this speed. ``tests/engine/scoring/test_vectorized.py``
checks the formula bit for bit and the matrix against the walked F1 of every pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from evalschema.schema.node import SchemaNode

_ABSENT = object()


def vectorized_f1(items: SchemaNode, g: Sequence[Any], e: Sequence[Any],
                  shared_unknown_keys_skipped: bool = True) -> np.ndarray | None:
    if items.kind == "leaf":
        return _scalar_f1(items, g, e)
    if items.kind != "object" or items.skip or items.values or not items.children:
        return None
    if not all(type(v) is dict and v for v in g) or not all(type(v) is dict and v for v in e):
        return None
    n, m = len(g), len(e)
    s: np.ndarray | None = None
    # Which children each element holds (1.0) or lacks (0.0), one column per child: the
    # counts of every pair are then products of these (exact small integers), not n x m
    # passes per child.
    g_has: list[np.ndarray] = []
    e_has: list[np.ndarray] = []
    for child in items.children:
        if child.skip:
            continue
        if child.kind != "leaf" or child.matrix is None:
            return None
        name = child.name
        absent_null = child.null_policy == "absent"
        gv = [v.get(name, _ABSENT) for v in g]
        ev = [v.get(name, _ABSENT) for v in e]
        if absent_null:
            gv = [_ABSENT if v is None else v for v in gv]
            ev = [_ABSENT if v is None else v for v in ev]
        gp = np.fromiter((v is not _ABSENT for v in gv), bool)
        ep = np.fromiter((v is not _ABSENT for v in ev), bool)
        scores = _matrix(child, gv, ev)
        if scores is None:
            return None
        # Only pairs judged on both sides add their score: a row whose gold value is
        # absent, or a column whose extracted value is, adds 0.0 (np.where(both, scores,
        # 0.0), in place). ``scores`` is the comparator's own new array.
        scores[~gp, :] = 0.0
        scores[:, ~ep] = 0.0
        if s is None:
            s = np.zeros((n, m))
        s += scores
        del scores
        g_has.append(gp)
        e_has.append(ep)
    if s is None:
        return None
    both_n, omit, hall = _presence_counts(np.array(g_has).T.reshape(n, len(g_has)),
                                          np.array(e_has).T.reshape(m, len(e_has)))
    if items.closed:
        unknown = {k for v in e for k in v if k not in items.child_map
                   and k not in items.ignored}
        for k in sorted(unknown):
            ek = np.fromiter((k in v for v in e), bool)
            if shared_unknown_keys_skipped:
                gk = np.fromiter((k in v for v in g), bool)
                hall += ~gk[:, None] & ek[None, :]
            else:
                hall += ek[None, :]
    return _f1(s, both_n, omit, hall)


def _presence_counts(gp: np.ndarray, ep: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every (gold, extracted) pair, how many children both hold, gold alone holds
    and extracted alone holds, given which children each element holds (``gp``: n x k,
    ``ep``: m x k, booleans). Elements hold few distinct sets of children, so the counts
    of each pair of sets are computed once and every pair looks its own up: exact
    integers (as floats), in three passes over the matrix."""
    g_sets, g_of = np.unique(gp, axis=0, return_inverse=True)
    e_sets, e_of = np.unique(ep, axis=0, return_inverse=True)
    common = (g_sets[:, None, :] & e_sets[None, :, :]).sum(axis=2).astype(float)
    both = common[g_of.reshape(-1)[:, None], e_of.reshape(-1)[None, :]]
    omit = gp.sum(axis=1).astype(float)[:, None] - both
    hall = ep.sum(axis=1).astype(float)[None, :] - both
    return both, omit, hall


def _scalar_f1(items: SchemaNode, g: Sequence[Any], e: Sequence[Any]) -> np.ndarray | None:
    """One leaf per element: a pair's F1 is ``pair_similarity(s, 1, 0, 0)``, that is
    2s²/(s+s) for its score s (0 when s is 0)."""
    if items.skip or items.matrix is None or (items.null_policy == "absent" and (
            any(v is None for v in g) or any(v is None for v in e))):
        return None
    scores = _matrix(items, g, e)
    if scores is None:
        return None
    # A score of 0 divides by 1, giving the formula's 0 (no division by zero to mask).
    result: np.ndarray = 2 * scores * scores / np.where(scores > 0, 2 * scores, 1.0)
    return result


def _matrix(node: SchemaNode, g: Sequence[Any], e: Sequence[Any]) -> np.ndarray | None:
    """The node's comparator over all pairs, after its transforms; None when a value
    needs the per-pair path (a transform fails, or the matrix form declines)."""
    assert node.matrix is not None
    try:
        gt = [_transform(node, v) for v in g]
        et = [_transform(node, v) for v in e]
    except Exception:
        return None
    result: np.ndarray | None = node.matrix(gt, et)
    return result


def _transform(node: SchemaNode, value: Any) -> Any:
    if value is _ABSENT:
        return None
    for fn in node.transform_fns:
        value = fn(value)
    return value


def _f1(s: np.ndarray, both: np.ndarray, omit: np.ndarray, hall: np.ndarray) -> np.ndarray:
    """``results.pair_similarity``'s F1, element-wise: the same operations in the same
    order, so the same floats (test_vectorized.py: ..._is_pair_similarity). In place
    where it can be: ``omit`` and ``hall`` are used up (a matrix takes 8 bytes a pair)."""
    judged = both > 0
    unjudged = None if judged.all() else ~judged
    # Cells with nothing judged divide by 1 (their figure is set below): no division by 0.
    p = np.add(both, hall, out=hall)
    r = np.add(both, omit, out=omit)
    if unjudged is not None:
        missing = p[unjudged] > both[unjudged]  # omissions or hallucinations: 0, else 1
        missing |= r[unjudged] > both[unjudged]
        p[unjudged] = 1.0
        r[unjudged] = 1.0
    np.divide(s, p, out=p)
    np.divide(s, r, out=r)
    total = np.add(p, r, out=s)
    f1: np.ndarray = np.multiply(p, 2, out=p)
    f1 *= r
    del r
    total[~(total > 0)] = 1.0
    f1 /= total
    if unjudged is not None:
        f1[unjudged] = np.where(missing, 0.0, 1.0)
    return f1
