"""Array alignment: which gold element is judged against which extracted element.

The built-in strategies, each declared with the algorithm it runs (``StrategyDef.factory``
binds the parameters at schema-parse time, as a comparator's factory does). An algorithm
asks the scorer running it (an ``AlignContext``: ``scoring.walk.RecordScorer``) for the
policy and, for Hungarian alignment, for the F1 of element pairs as the reported scores
would give it; it never imports the scorer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evalschema import limits
from evalschema.rules.registry import (
    Align,
    AlignContext,
    Alignment,
    AlignmentError,
    ItemsNode,
    StrategyDef,
    with_unpaired,
)


class AlignmentLimitError(AlignmentError):
    """An array too large to align within ``evalschema.limits``; the scorer reports the
    array as one ``error`` result with this message instead of running out of memory."""


_PRIMITIVE = (str, int, float)

#: Below this many (gold x extracted) pairs, numpy's per-call overhead outweighs its
#: speed: pair scores are computed one by one (a 3 x 3 array: ~15 µs against ~200 µs).
SMALL_MATRIX = 256


def ordered(ctx: AlignContext, items: ItemsNode, g: list[Any], e: list[Any]) -> Alignment:
    """Pairs by position; what an array without ``x-eval-align`` gets."""
    n = min(len(g), len(e))
    return [(i, i) for i in range(n)], list(range(n, len(g))), list(range(n, len(e)))


def _key_value(elem: Any, key: str) -> Any:
    if type(elem) is not dict:
        return None
    v = elem.get(key)
    return v if isinstance(v, _PRIMITIVE) and not isinstance(v, bool) else None


def _key_field(params: Mapping[str, Any]) -> Align:
    key = str(params["key"])

    def key_field(ctx: AlignContext, items: ItemsNode, g: list[Any], e: list[Any]) -> Alignment:
        """Pair by key value; repeated keys pair in order of appearance (k-th with k-th),
        and elements without a usable key pair with each other in order."""
        by_key: dict[Any, list[int]] = {}
        for j, elem in enumerate(e):
            kv = _key_value(elem, key)
            if kv is not None:
                by_key.setdefault(kv, []).append(j)
        pairs: list[tuple[int, int]] = []
        gold_only: list[int] = []
        for i, elem in enumerate(g):
            slot = by_key.get(_key_value(elem, key))  # keyless (None) is never a key
            if slot:
                pairs.append((i, slot.pop(0)))
                if not ctx.policy.key_field_repeats_in_order:
                    slot.clear()  # first wins: later duplicates stay unpaired
            else:
                gold_only.append(i)
        used_e = {j for _, j in pairs}
        extra = [j for j in range(len(e)) if j not in used_e]
        if ctx.policy.key_field_keyless_in_order:
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

    return key_field


def set_alignment(ctx: AlignContext, items: ItemsNode, g: list[Any], e: list[Any]) -> Alignment:
    """Pairs equal values (after the items' transforms), in order of appearance."""
    fns = items.transform_fns

    def canon(v: Any) -> Any:
        try:
            for fn in fns:
                v = fn(v)
        except Exception:
            return ("untransformable", repr(v))
        if isinstance(v, _PRIMITIVE):
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


def hungarian(ctx: AlignContext, items: ItemsNode, g: list[Any], e: list[Any]) -> Alignment:
    """The one-to-one pairing with the largest summed pair F1 (pairs with F1 0 dropped)."""
    n, m = len(g), len(e)
    limit = ctx.policy.hungarian_max_pairs
    if limit is not None and n * m > limit:
        return ordered(ctx, items, g, e)
    if n * m <= SMALL_MATRIX:
        f1 = ctx.pair_f1(items)
        diagonal: list[float] = []
        if n == m:
            # Already in order and perfect: that is an optimal assignment; skip the solver.
            for gv, ev in zip(g, e, strict=True):
                diagonal.append(f1(gv, ev))
                if diagonal[-1] != 1.0:
                    break
            else:
                return ordered(ctx, items, g, e)
        # Pairs in the order the matrix lists them (the diagonal's already computed).
        rows = [[diagonal[i] if i == j and i < len(diagonal) else f1(gv, ev)
                 for j, ev in enumerate(e)] for i, gv in enumerate(g)]
        import numpy as np  # on first use (numpy: ~20 MB, ~0.1 s at import)

        matrix = np.array(rows, dtype=float).reshape(n, m)
    else:
        # A resource limit (memory), unlike the policy's fallback above: over it, an error.
        cap = int(limits.value("hungarian_max_pairs"))
        if n * m > cap:
            raise AlignmentLimitError(
                f"hungarian alignment of {n:,} x {m:,} elements needs a {n * m:,}-pair matrix, "
                f"over the limit of {cap:,} pairs; the array is not scored (use "
                "x-eval-align key_field or ordered, or raise EVALSCHEMA_HUNGARIAN_MAX_PAIRS)")
        matrix = ctx.pair_f1_matrix(items, g, e)
    # Imported here: scipy.optimize costs ~0.6 s and ~50 MB at import, which a run (or
    # the language server) without Hungarian alignment should not pay.
    from scipy.optimize import linear_sum_assignment

    picked_g, picked_e = linear_sum_assignment(matrix, maximize=True)
    # Plain ints and floats: indexing numpy arrays element by element costs more.
    values = matrix[picked_g, picked_e].tolist()
    pairs = sorted((i, j) for i, j, v in zip(picked_g.tolist(), picked_e.tolist(), values,
                                             strict=True) if v > 0.0)
    return with_unpaired(pairs, n, m)


def _unbound(fn: Align) -> Callable[[Mapping[str, Any]], Align]:
    """The factory of a strategy that takes no parameters."""
    return lambda _params: fn


BUILTIN_STRATEGIES: tuple[StrategyDef, ...] = (
    StrategyDef("ordered", "Pair elements by position: gold[0] with extracted[0], and so on. "
                "Extra gold elements are omissions, extra extracted ones hallucinations. The "
                "default; right when order carries meaning (steps, ranks).",
                factory=_unbound(ordered), builtin=True),
    StrategyDef("key_field", "Pair elements whose `key` property holds the same value (e.g. a "
                "SKU or line number); order is ignored. A repeated key pairs in order of "
                "appearance (the k-th with the k-th), and elements without a usable key "
                "(missing, null, a boolean, an object or an array) pair with each other in "
                "order; the rest are omissions and hallucinations.",
                params={"type": "object", "properties": {"key": {"type": "string",
                        "minLength": 1}}, "required": ["key"], "additionalProperties": False},
                types=frozenset({"array"}), factory=_key_field, builtin=True),
    StrategyDef("hungarian", "Optimal one-to-one pairing (scipy linear_sum_assignment) that "
                "maximises the summed F1 of the pairs, using the same comparators that score "
                "them. Pairs with F1 0 stay unpaired. For lists without a key whose order is "
                "arbitrary (line items, authors).\n\n"
                "The pair matrix takes about 35 bytes per (gold x extracted) pair at its peak; "
                "an array needing more than 4,000,000 pairs (`EVALSCHEMA_HUNGARIAN_MAX_PAIRS`; "
                "2,000 x 2,000) is one `error` result with the reason instead of exhausting "
                "memory. Use `key_field` for larger arrays.",
                types=frozenset({"array"}), factory=_unbound(hungarian), builtin=True),
    StrategyDef("set", "Order-free comparison of scalar arrays: each extracted value pairs with "
                "an equal gold value (after the items' transforms); the rest are omissions and "
                "hallucinations. For tags, keywords, categories.",
                types=frozenset({"array"}), factory=_unbound(set_alignment), builtin=True),
)
