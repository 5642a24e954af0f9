"""The F1 of (gold, extracted) element pairs: what Hungarian alignment maximises.

Computed from the very comparators that are reported, so the pairing agrees with the
scores shown for it: by scoring the pair with the walk (the definition), or, for flat
items, from the comparator scores alone (``flat_pair_f1``) or a whole matrix at a time
(``scoring.vectorized``). The walk hands in the walked F1 (``make_pair_f1``): this
module does not import it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from evalschema.results import pair_similarity
from evalschema.rules.alignment import SMALL_MATRIX
from evalschema.rules.registry import AlignContext, PairF1
from evalschema.schema.node import SchemaNode

if TYPE_CHECKING:
    import numpy as np

_ABSENT = object()


def pair_f1_matrix(scorer: AlignContext, items: SchemaNode, g: Sequence[Any],
                   e: Sequence[Any]) -> np.ndarray:
    """F1 of every (gold, extracted) element pair, as the reported scores would give it."""
    import numpy as np  # on first use (numpy: ~20 MB, ~0.1 s at import)

    if len(g) * len(e) > SMALL_MATRIX:
        from evalschema.scoring.vectorized import vectorized_f1

        fast = vectorized_f1(items, g, e,
                             shared_unknown_keys_skipped=scorer.policy.shared_unknown_keys_skipped)
        if fast is not None:
            return fast
    f1 = scorer.pair_f1(items)
    return np.array([[f1(gv, ev) for ev in e] for gv in g]).reshape(len(g), len(e))


def make_pair_f1(items: SchemaNode, shared_unknown_keys_skipped: bool, walked: PairF1) -> PairF1:
    """The F1 of one element pair: ``flat_pair_f1`` where it judges the pair, else
    ``walked`` (the F1 of the results the walk gives the pair)."""
    flat = flat_pair_f1(items, shared_unknown_keys_skipped)
    if flat is None:
        return walked

    def f1(gv: Any, ev: Any) -> float:
        got = flat(gv, ev)
        return walked(gv, ev) if got is None else got

    return f1


def flat_pair_f1(items: SchemaNode, shared_unknown_keys_skipped: bool
                 ) -> Callable[[Any, Any], float | None] | None:
    """Pair F1 for items that are objects of leaves, without building results.

    A copy, for speed, of what the walk does to such a pair (``RecordScorer.object``):
    the statuses it would give, counted, then the one formula (``pair_similarity``)
    on the same score sum, so the same float; ``tests/engine/scoring/test_pair_f1.py``
    checks it bit for bit. Returns None for a pair the walk must judge (not two objects;
    a transform or comparator that raises), and is None itself for items of any other
    shape."""
    if items.kind != "object" or items.skip or items.values or not all(
            c.kind == "leaf" and (c.skip or c.compare is not None) for c in items.children):
        return None
    plan: tuple[tuple[Any, ...], ...] = tuple(
        (c.name, c.skip, c.null_policy == "absent", c.transform_fns, c.compare)
        for c in items.children)
    known = frozenset(items.child_map) | items.ignored if items.closed else None
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
        return pair_similarity(s, both, omissions, hallucinations)

    return f1
