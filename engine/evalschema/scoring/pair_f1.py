"""The F1 of (gold, extracted) element pairs: what Hungarian alignment maximises.

Computed from the very comparators that are reported, so the pairing agrees with the
scores shown for it: by scoring the pair with the walk (the definition), or, for flat
items, from the comparator scores alone (``flat_pair_f1``) or a whole matrix at a time
(``scoring.vectorized``). The walk hands in the walked F1 (``make_pair_f1``): this
module does not import it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalschema.results import pair_similarity
from evalschema.rules.alignment import SMALL_MATRIX
from evalschema.rules.registry import AlignContext, PairCells, PairF1
from evalschema.schema.node import SchemaNode
from evalschema.scoring.vectorized import vectorized_f1

_ABSENT = object()


def pair_f1_matrix(scorer: AlignContext, items: SchemaNode, g: Sequence[Any],
                   e: Sequence[Any]) -> np.ndarray:
    """F1 of every (gold, extracted) element pair, as the reported scores would give it."""
    if len(g) * len(e) > SMALL_MATRIX:
        fast = vectorized_f1(items, g, e,
                             shared_unknown_keys_skipped=scorer.policy.shared_unknown_keys_skipped)
        if fast is not None:
            return fast
    f1 = scorer.pair_f1(items)
    return np.array([[f1(gv, ev) for ev in e] for gv in g]).reshape(len(g), len(e))


def make_pair_f1(items: SchemaNode, shared_unknown_keys_skipped: bool, walked: PairF1) -> PairF1:
    """The F1 of one element pair: ``flat_pair_f1`` where it judges the pair, else
    ``walked`` (the F1 of the results the walk gives the pair)."""
    parts = _flat_parts(items, shared_unknown_keys_skipped)
    if parts is None:
        return walked
    return FlatPairF1(parts, walked)


#: A value whose transforms raised (``_flat_parts``): its pairs go to the walk.
_FAILED = object()

Prepared = tuple[Any, ...] | None
"""An element's judged values in the order of the items' children (``_ABSENT`` where
absent, ``_FAILED`` where a transform raised), or None for an element that is not an
object."""


@dataclass(frozen=True)
class _FlatParts:
    """The pair F1 of flat items in two steps: ``prepare`` reads and transforms one
    element (once, however many pairs it is in), ``count`` judges a pair of prepared
    elements (None: the walk must), given the extracted element's ``unknown`` keys."""

    prepare: Callable[[Any], Prepared]
    unknown: Callable[[Any], tuple[str, ...]]
    count: Callable[[tuple[Any, ...], tuple[Any, ...], Any, Any, tuple[str, ...]], float | None]


def _flat_parts(items: SchemaNode, shared_unknown_keys_skipped: bool) -> _FlatParts | None:
    """A copy, for speed, of what the walk does to a pair of flat items
    (``RecordScorer.object``): the statuses it would give, counted, then the one formula
    (``pair_similarity``) on the same score sum, so the same float;
    ``tests/engine/scoring/test_pair_f1.py`` checks it bit for bit. None for items of any
    other shape. Transforms are applied once per element, which takes them to be
    functions of the value (as the walk does: it applies them again to the pair)."""
    if items.kind != "object" or items.skip or items.values or not all(
            c.kind == "leaf" and (c.skip or c.compare is not None) for c in items.children):
        return None
    plan = tuple((c.name, c.null_policy == "absent", c.transform_fns)
                 for c in items.children if not c.skip)
    compares: tuple[Any, ...] = tuple(c.compare for c in items.children if not c.skip)
    known = frozenset(items.child_map) | items.ignored if items.closed else None
    A, F = _ABSENT, _FAILED

    def prepare(v: Any) -> Prepared:
        if type(v) is not dict:
            return None
        out = []
        for name, absent_null, fns in plan:
            x = v.get(name, A)
            if x is None and absent_null:
                x = A  # null counts as absent (null on both sides: skipped, not counted)
            elif fns and x is not A:
                try:
                    for fn in fns:
                        x = fn(x)
                except Exception:
                    x = F
            out.append(x)
        return tuple(out)

    def unknown(v: Any) -> tuple[str, ...]:
        if known is None or type(v) is not dict or v.keys() <= known:
            return ()
        return tuple(k for k in v if k not in known)

    def count(gi: tuple[Any, ...], ej: tuple[Any, ...], g: Any, e: Any,
              keys: tuple[str, ...]) -> float | None:
        if not g and not e:
            return 1.0  # the walk's one match for two empty objects
        both = omissions = hallucinations = 0
        s = 0.0
        for gv, ev, compare in zip(gi, ej, compares, strict=True):
            if gv is A or ev is A:
                if ev is not A:
                    hallucinations += 1
                elif gv is not A:
                    omissions += 1
                continue
            if gv is F or ev is F:
                return None
            try:
                score = compare(gv, ev)
            except Exception:
                return None
            both += 1
            s += score
        if keys:
            hallucinations += sum(1 for k in keys
                                  if not (shared_unknown_keys_skipped and k in g))
        if s == both and both and not omissions and not hallucinations:
            return 1.0  # all matched with full credit: what the formula gives, exactly
        return pair_similarity(s, both, omissions, hallucinations)

    return _FlatParts(prepare, unknown, count)


def flat_pair_f1(items: SchemaNode, shared_unknown_keys_skipped: bool
                 ) -> Callable[[Any, Any], float | None] | None:
    """Pair F1 for items that are objects of leaves, without building results
    (``_flat_parts``). Returns None for a pair the walk must judge (not two objects; a
    transform or comparator that raises), and is None itself for items of any other
    shape."""
    parts = _flat_parts(items, shared_unknown_keys_skipped)
    if parts is None:
        return None
    prepare, unknown, count = parts.prepare, parts.unknown, parts.count

    def f1(g: Any, e: Any) -> float | None:
        gi, ej = prepare(g), prepare(e)
        if gi is None or ej is None:
            return None
        return count(gi, ej, g, e, unknown(e))

    return f1


@dataclass(frozen=True)
class FlatPairF1:
    """The pair F1 of flat items (``_flat_parts``): per pair, or by index over two arrays
    (``cells``, for Hungarian alignment's small matrices: ``registry.pair_cells``), where
    each element is read and transformed once; ``walked`` judges what they decline."""

    parts: _FlatParts
    walked: PairF1

    def __call__(self, g: Any, e: Any) -> float:
        parts = self.parts
        gi, ej = parts.prepare(g), parts.prepare(e)
        got = None if gi is None or ej is None else parts.count(gi, ej, g, e, parts.unknown(e))
        return self.walked(g, e) if got is None else got

    def cells(self, g: Sequence[Any], e: Sequence[Any]) -> PairCells:
        prepare, count, walked = self.parts.prepare, self.parts.count, self.walked
        G = [prepare(v) for v in g]
        E = [prepare(v) for v in e]
        U = [self.parts.unknown(v) for v in e]

        def cell(i: int, j: int) -> float:
            gi, ej = G[i], E[j]
            got = None if gi is None or ej is None else count(gi, ej, g[i], e[j], U[j])
            return walked(g[i], e[j]) if got is None else got

        return cell
