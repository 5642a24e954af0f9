"""Array alignment: which gold element is judged against which extracted element.

Strategies are declared in the registry (so editors can list and document them);
the algorithms live here. Hungarian alignment maximises the sum of per-pair F1,
computed from the very comparators that are reported, with whole-matrix
(vectorised) similarity for flat items so 1,000 x 1,000 arrays stay fast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from .registry import StrategyDef
from .results import count_results

if TYPE_CHECKING:
    from .schema.tree import SchemaNode
    from .scoring import RecordScorer

Alignment = tuple[list[tuple[int, int]], list[int], list[int]]

_PRIMITIVE = (str, int, float)


def _ordered(scorer: RecordScorer, node: SchemaNode, g: list[Any], e: list[Any]) -> Alignment:
    n = min(len(g), len(e))
    return [(i, i) for i in range(n)], list(range(n, len(g))), list(range(n, len(e)))


def _key_value(elem: Any, key: str) -> Any:
    if type(elem) is not dict:
        return None
    v = elem.get(key)
    return v if isinstance(v, _PRIMITIVE) and not isinstance(v, bool) else None


def _key_field(scorer: RecordScorer, node: SchemaNode, g: list[Any], e: list[Any]) -> Alignment:
    """Pair by key value; repeated keys pair in order of appearance (k-th with k-th),
    and elements without a usable key pair with each other in order."""
    key = str(node.align.params["key"]) if node.align else ""
    by_key: dict[Any, list[int]] = {}
    for j, elem in enumerate(e):
        kv = _key_value(elem, key)
        if kv is not None:
            by_key.setdefault(kv, []).append(j)
    pairs: list[tuple[int, int]] = []
    gold_only: list[int] = []
    for i, elem in enumerate(g):
        kv = _key_value(elem, key)
        slot = by_key.get(kv) if kv is not None else None
        if slot:
            pairs.append((i, slot.pop(0)))
            if not scorer.policy.key_field_repeats_in_order:
                slot.clear()  # first wins: later duplicates stay unpaired
        else:
            gold_only.append(i)
    used_e = {j for _, j in pairs}
    extra = [j for j in range(len(e)) if j not in used_e]
    if scorer.policy.key_field_keyless_in_order:
        keyless_g = [i for i in gold_only if _key_value(g[i], key) is None]
        keyless_e = [j for j in extra if _key_value(e[j], key) is None]
        matched = list(zip(keyless_g, keyless_e, strict=False))
        if matched:
            pairs = sorted([*pairs, *matched])
            done_g = {i for i, _ in matched}
            done_e = {j for _, j in matched}
            gold_only = [i for i in gold_only if i not in done_g]
            extra = [j for j in extra if j not in done_e]
    return pairs, gold_only, extra


def _set(scorer: RecordScorer, node: SchemaNode, g: list[Any], e: list[Any]) -> Alignment:
    items = node.items
    fns = items.transform_fns if items is not None else ()

    def canon(v: Any) -> Any:
        try:
            for fn in fns:
                v = fn(v)
        except Exception:
            return ("untransformable", repr(v))
        if v is None or isinstance(v, _PRIMITIVE):
            return (type(v).__name__, v)
        return ("repr", repr(v))

    free: dict[Any, list[int]] = {}
    for j, v in enumerate(e):
        free.setdefault(canon(v), []).append(j)
    pairs, gold_only = [], []
    for i, v in enumerate(g):
        slot = free.get(canon(v))
        if slot:
            pairs.append((i, slot.pop(0)))
        else:
            gold_only.append(i)
    used = {j for _, j in pairs}
    return pairs, gold_only, [j for j in range(len(e)) if j not in used]


#: Below this many (gold x extracted) pairs, numpy's per-call overhead outweighs its
#: speed: pair scores are computed one by one (a 3 x 3 array: ~15 µs against ~200 µs).
SMALL_MATRIX = 256


def pair_f1_matrix(scorer: RecordScorer, items: SchemaNode, g: Sequence[Any],
                   e: Sequence[Any]) -> np.ndarray:
    """F1 of every (gold, extracted) element pair, as the reported scores would give it."""
    from .vectorized import vectorized_f1

    if len(g) * len(e) > SMALL_MATRIX:
        fast = vectorized_f1(items, g, e,
                             shared_unknown_keys_skipped=scorer.policy.shared_unknown_keys_skipped)
        if fast is not None:
            return fast
    f1 = _pair_f1(scorer, items)
    return np.array([[f1(gv, ev) for ev in e] for gv in g], dtype=float).reshape(len(g), len(e))


def _pair_f1(scorer: RecordScorer, items: SchemaNode) -> Callable[[Any, Any], float]:
    from .scoring import RecordScorer as _Scorer

    sub = _Scorer(items, scorer.policy)
    return lambda gv, ev: count_results(sub.score(gv, ev)).f1


def _hungarian(scorer: RecordScorer, node: SchemaNode, g: list[Any], e: list[Any]) -> Alignment:
    items = node.items
    assert items is not None
    limit = scorer.policy.hungarian_max_pairs
    if limit is not None and len(g) * len(e) > limit:
        return _ordered(scorer, node, g, e)
    if len(g) == len(e) and len(g) * len(e) <= SMALL_MATRIX:
        # Already in order and perfect: that is an optimal assignment; skip the solver.
        f1 = _pair_f1(scorer, items)
        if all(f1(gv, ev) == 1.0 for gv, ev in zip(g, e, strict=True)):
            return _ordered(scorer, node, g, e)
    matrix = pair_f1_matrix(scorer, items, g, e)
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    pairs = sorted((int(i), int(j)) for i, j in zip(rows, cols, strict=True)
                   if matrix[i, j] > 0.0)
    used_g = {i for i, _ in pairs}
    used_e = {j for _, j in pairs}
    return (pairs, [i for i in range(len(g)) if i not in used_g],
            [j for j in range(len(e)) if j not in used_e])


AlignFn = Callable[["RecordScorer", "SchemaNode", list[Any], list[Any]], Alignment]

ALGORITHMS: dict[str, AlignFn] = {
    "ordered": _ordered,
    "key_field": _key_field,
    "hungarian": _hungarian,
    "set": _set,
}


def align(scorer: RecordScorer, node: SchemaNode, g: list[Any], e: list[Any]) -> Alignment:
    """Pairs (gold index, extracted index), unmatched gold, unmatched extracted."""
    strategy = node.align.strategy if node.align else "ordered"
    return ALGORITHMS.get(strategy, _ordered)(scorer, node, g, e)


BUILTIN_STRATEGIES: tuple[StrategyDef, ...] = (
    StrategyDef("ordered", "Pair elements by position: gold[0] with extracted[0], and so on. "
                "Extra gold elements are omissions, extra extracted ones hallucinations. The "
                "default; right when order carries meaning (steps, ranks).", builtin=True),
    StrategyDef("key_field", "Pair elements whose `key` property holds the same value (e.g. a "
                "SKU or line number); order is ignored. Elements without the key, or with a "
                "duplicate key, stay unpaired.",
                params={"type": "object", "properties": {"key": {"type": "string",
                        "minLength": 1}}, "required": ["key"], "additionalProperties": False},
                types=frozenset({"array"}), builtin=True),
    StrategyDef("hungarian", "Optimal one-to-one pairing (scipy linear_sum_assignment) that "
                "maximises the summed F1 of the pairs, using the same comparators that score "
                "them. Pairs with F1 0 stay unpaired. For lists without a key whose order is "
                "arbitrary (line items, authors).",
                types=frozenset({"array"}), builtin=True),
    StrategyDef("set", "Order-free comparison of scalar arrays: each extracted value pairs with "
                "an equal gold value (after the items' transforms); the rest are omissions and "
                "hallucinations. For tags, keywords, categories.",
                types=frozenset({"array"}), builtin=True),
)

