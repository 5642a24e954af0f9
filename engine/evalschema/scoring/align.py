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

from evalschema import limits
from evalschema.results import count_results, precision_recall_f1
from evalschema.rules.registry import StrategyDef

if TYPE_CHECKING:
    from evalschema.schema.tree import SchemaNode
    from evalschema.scoring.walk import RecordScorer

Alignment = tuple[list[tuple[int, int]], list[int], list[int]]


class AlignmentLimitError(Exception):
    """An array too large to align within ``evalschema.limits``; the scorer reports the
    array as one ``error`` result with this message instead of running out of memory."""

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
    from evalschema.scoring.vectorized import vectorized_f1

    if len(g) * len(e) > SMALL_MATRIX:
        fast = vectorized_f1(items, g, e,
                             shared_unknown_keys_skipped=scorer.policy.shared_unknown_keys_skipped)
        if fast is not None:
            return fast
    f1 = _pair_f1(scorer, items)
    return np.array([[f1(gv, ev) for ev in e] for gv in g], dtype=float).reshape(len(g), len(e))


def _pair_f1(scorer: RecordScorer, items: SchemaNode) -> Callable[[Any, Any], float]:
    """The F1 of one element pair: from the comparator scores alone for flat items
    (``_flat_pair_f1``), else by scoring the pair with the general walk. Built once per
    items node and scorer."""
    f1: Callable[[Any, Any], float] | None = scorer.helpers.get(id(items))
    if f1 is None:
        f1 = scorer.helpers[id(items)] = _make_pair_f1(scorer, items)
    return f1


def _make_pair_f1(scorer: RecordScorer, items: SchemaNode) -> Callable[[Any, Any], float]:
    from evalschema.scoring.walk import RecordScorer as _Scorer

    sub: list[_Scorer] = []

    def walked(gv: Any, ev: Any) -> float:
        if not sub:
            sub.append(_Scorer(items, scorer.policy))
        return count_results(sub[0].score(gv, ev)).f1

    flat = _flat_pair_f1(items, scorer.policy.shared_unknown_keys_skipped)
    if flat is None:
        return walked

    def f1(gv: Any, ev: Any) -> float:
        got = flat(gv, ev)
        return walked(gv, ev) if got is None else got

    return f1


_ABSENT = object()


def _flat_pair_f1(items: SchemaNode, shared_unknown_keys_skipped: bool
                  ) -> Callable[[Any, Any], float | None] | None:
    """Pair F1 for items that are objects of leaves, without building results: the
    statuses the walk would give (``RecordScorer.object``), counted, and the same
    formula (``precision_recall_f1``) on the same score sum, so the same float. Returns
    None for a pair the walk must judge (not two objects; a transform or comparator
    that raises), and is None itself for items of any other shape."""
    if items.kind != "object" or items.skip or not all(
            c.kind == "leaf" and (c.skip or c.compare is not None) for c in items.children):
        return None
    plan: tuple[tuple[Any, ...], ...] = tuple(
        (c.name, c.skip, c.null_policy == "absent", c.transform_fns, c.compare)
        for c in items.children)
    known = frozenset(items.child_map) if items.closed else None
    A = _ABSENT

    def f1(g: Any, e: Any) -> float | None:
        if type(g) is not dict or type(e) is not dict:
            return None
        if not g and not e:
            return 1.0  # the walk's one match for two empty objects
        both = omissions = hallucinations = 0
        s = 0.0
        for name, skip, absent_null, fns, compare in plan:
            if skip:
                continue
            gv = g.get(name, A)
            ev = e.get(name, A)
            if absent_null:
                if gv is None and ev is None:
                    continue  # skipped
                gv = A if gv is None else gv
                ev = A if ev is None else ev
            if gv is A or ev is A:
                if ev is not A:
                    hallucinations += 1
                elif gv is not A:
                    omissions += 1
                continue
            try:
                for fn in fns:
                    gv = fn(gv)
                for fn in fns:
                    ev = fn(ev)
                score = compare(gv, ev)
            except Exception:
                return None
            both += 1
            s += score
        if known is not None and not e.keys() <= known:
            hallucinations += sum(1 for k in e if k not in known
                                  and not (shared_unknown_keys_skipped and k in g))
        if s == both and both and not omissions and not hallucinations:
            return 1.0  # all matched with full credit: what the formula gives, exactly
        return precision_recall_f1(s, both, omissions, hallucinations)[2]

    return f1


def _hungarian(scorer: RecordScorer, node: SchemaNode, g: list[Any], e: list[Any]) -> Alignment:
    items = node.items
    assert items is not None
    n, m = len(g), len(e)
    limit = scorer.policy.hungarian_max_pairs
    if limit is not None and n * m > limit:
        return _ordered(scorer, node, g, e)
    if n * m <= SMALL_MATRIX:
        f1 = _pair_f1(scorer, items)
        diagonal: list[float] = []
        if n == m:
            # Already in order and perfect: that is an optimal assignment; skip the solver.
            for gv, ev in zip(g, e, strict=True):
                diagonal.append(f1(gv, ev))
                if diagonal[-1] != 1.0:
                    break
            else:
                return _ordered(scorer, node, g, e)
        # Pairs in the order the matrix lists them (the diagonal's already computed).
        rows = [[diagonal[i] if i == j and i < len(diagonal) else f1(gv, ev)
                 for j, ev in enumerate(e)] for i, gv in enumerate(g)]
        matrix = np.array(rows, dtype=float).reshape(n, m)
    else:
        # A resource limit (memory), unlike the policy's fallback above: over it, an error.
        cap = int(limits.value("hungarian_max_pairs"))
        if n * m > cap:
            raise AlignmentLimitError(
                f"hungarian alignment of {n:,} x {m:,} elements needs a {n * m:,}-pair matrix, "
                f"over the limit of {cap:,} pairs; the array is not scored (use "
                "x-eval-align key_field or ordered, or raise EVALSCHEMA_HUNGARIAN_MAX_PAIRS)")
        matrix = pair_f1_matrix(scorer, items, g, e)
    picked_g, picked_e = linear_sum_assignment(matrix, maximize=True)
    # Plain ints and floats: indexing numpy arrays element by element costs more.
    values = matrix[picked_g, picked_e].tolist()
    pairs = sorted((i, j) for i, j, v in zip(picked_g.tolist(), picked_e.tolist(), values,
                                             strict=True) if v > 0.0)
    used_g = {i for i, _ in pairs}
    used_e = {j for _, j in pairs}
    return (pairs, [i for i in range(n) if i not in used_g],
            [j for j in range(m) if j not in used_e])


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
                "arbitrary (line items, authors).\n\n"
                "The pair matrix takes about 100 bytes per (gold x extracted) pair at its peak; "
                "an array needing more than 4,000,000 pairs (`EVALSCHEMA_HUNGARIAN_MAX_PAIRS`; "
                "2,000 x 2,000) is one `error` result with the reason instead of exhausting "
                "memory. Use `key_field` for larger arrays.",
                types=frozenset({"array"}), builtin=True),
    StrategyDef("set", "Order-free comparison of scalar arrays: each extracted value pairs with "
                "an equal gold value (after the items' transforms); the rest are omissions and "
                "hallucinations. For tags, keywords, categories.",
                types=frozenset({"array"}), builtin=True),
)

