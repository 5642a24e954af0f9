"""A record scorer specialized to one schema: the general walk, minus its overheads.

Why: the general walk (``scoring.walk.RecordScorer``) reads every node's settings on
every record, builds each instance path and pointer as it goes, and a second pass
(``RunAccumulator.tally``) then folds its results into per-field and per-record
counts. For the common shape (objects of plain leaves, arrays of such objects) that
costs more than the comparisons. ``specialize_scorer`` binds the schema once into
closures: each object gets a tuple of its children's settings, every instance path
and pointer is built once (per array index for array items, see ``_Locations``),
and each result is tallied as it is emitted, into running sums shared by the
closures of one record.

Only the hot path is specialized: a leaf present on both sides whose transforms and
comparator succeed, objects that are objects on both sides, arrays that are arrays.
Everything else (a missing value, a comparator error, a type mismatch, a skipped
field, extra keys, arrays inside array items, maps, anyOf branches) goes to the general walk's own
methods, and the results they emit are tallied by ``tally.fold``. Results, counts
and tallies are therefore the general path's, floats included, which
``tests/engine/scoring/test_specialized.py`` checks on random schemas and records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalschema.pointer import escape
from evalschema.results import Counts, FieldResult, Status
from evalschema.rules.alignment import ordered
from evalschema.rules.registry import AlignmentError, CompareVerdict
from evalschema.schema.node import SchemaNode
from evalschema.scoring.tally import fold
from evalschema.scoring.walk import _ABSENT, RecordScorer

#: (gold, extracted, record index, record id, per-field tallies) -> the record's counts;
#: the results are appended to the scorer's ``out`` (reset by ``RecordScorer.begin``).
SpecializedScorer = Callable[[Any, Any, int, Any, dict[str, list[float]]], Counts]

#: Objects nested deeper than this below the root or an array item are scored by the
#: general walk (it recurses; the specialized closures do too, a frame per level).
MAX_DEPTH = 64
#: Array element locations (instance paths, pointers) are cached up to this index.
LOCATION_CACHE = 4096

_MATCH, _MISMATCH = Status.MATCH, Status.MISMATCH
_OMISSION, _HALLUCINATION = Status.OMISSION, Status.HALLUCINATION
_ERROR = Status.ERROR
# Kinds of object properties: plain leaves (null as a value, null as absent), objects,
# arrays, and the rest (for the general walk).
_LEAF, _LEAF_NULL_ABSENT, _OBJECT, _ARRAY, _OTHER = range(5)
_new = tuple.__new__


def specializable(root: SchemaNode) -> bool:
    """Worth specialising: an object root and no batch comparator (batch results stay
    pending until the whole record is walked, so they cannot be tallied as emitted), and
    no field broken by a schema error (``SchemaNode.broken``: the walk's alone)."""
    return (root.kind == "object" and not root.skip and not root.values
            and all(n.batch is None and n.broken is None for n in root.walk()))


def plain_leaf(node: SchemaNode) -> bool:
    """A leaf judged by its transforms and one comparator call."""
    return node.kind == "leaf" and not node.skip and node.compare is not None


def _inline_object(node: SchemaNode, level: int) -> bool:
    """An object whose closure this module builds (maps go to the general walk)."""
    return node.kind == "object" and not node.skip and not node.values and level < MAX_DEPTH


Row = tuple[int, str, str]
"""A node's place in a location entry: (entry index of its parent's path, name, pointer
segment). Its own path and pointer sit at ``2 + 2 * k`` and ``3 + 2 * k`` for row k."""


def _layout(node: SchemaNode, at: int, level: int, rows: list[Row],
            index: dict[int, int]) -> None:
    """Rows for the children of ``node`` (and of the objects inlined below it), and
    each child's entry index (by ``id``)."""
    for child in node.children:
        assert child.name is not None
        index[id(child)] = 2 + 2 * len(rows)
        rows.append((at, child.name, "/" + escape(child.name)))
        if _inline_object(child, level):
            _layout(child, index[id(child)], level + 1, rows, index)


def _entry(path: str, pointer: str, rows: list[Row]) -> tuple[str, ...]:
    """Instance paths and pointers of a node at ``path``/``pointer`` and of its rows,
    built as the general walk builds them (``prefix + name``, ``pointer + segment``)."""
    vals = [path, pointer]
    for parent, name, seg in rows:
        vals.append((vals[parent] + "." if vals[parent] else "") + name)
        vals.append(vals[parent + 1] + seg)
    return tuple(vals)


@dataclass
class _Locations:
    """The location entries of one array's elements, built once per index."""

    path: str
    pointer: str
    rows: list[Row]
    cache: list[tuple[str, ...]] = field(default_factory=list)

    def upto(self, n: int) -> list[tuple[str, ...]]:
        """Entries 0..n-1 (and maybe more)."""
        cache = self.cache
        if len(cache) < n:
            if n > LOCATION_CACHE:
                return [cache[i] if i < len(cache) else self.make(i) for i in range(n)]
            cache.extend(self.make(i) for i in range(len(cache), n))
        return cache

    def make(self, i: int) -> tuple[str, ...]:
        return _entry(f"{self.path}[{i}]", f"{self.pointer}/{i}", self.rows)


def specialize_scorer(scorer: RecordScorer, path: str = "", pointer: str = "") -> SpecializedScorer:
    """The specialized scorer of ``scorer.root`` (see ``specializable``), for records whose
    root sits at instance ``path`` and record ``pointer`` (``target=``)."""
    S = scorer
    A = _ABSENT
    root = scorer.root
    weighted = any(n.weight != 1.0 for n in root.walk())
    FR = FieldResult
    # One record's state, shared by the closures below (reset by ``score``).
    out: list[FieldResult] = []
    append = out.append
    PF: dict[str, list[float]] = {}
    PFg = PF.get
    C = [0] * 8
    m = mm = 0
    s = w = ws = 0.0
    ri = 0
    rid: Any = None

    def general(call: Callable[..., None], *args: Any) -> None:
        """A call into the general walk, then the results it emitted tallied. If it
        raises, its results are dropped: every result left in ``out`` is tallied."""
        nonlocal s, w, ws
        n0 = len(out)
        try:
            call(*args)
        except BaseException:
            del out[n0:]
            raise
        s, w, ws = fold(out, n0, PF, C, s, w, ws)

    def object_scorer(node: SchemaNode, at: int, index: dict[int, int], level: int,
                      static: tuple[str, ...] | None) -> Callable[..., None]:
        """Scores ``node`` given both values are dicts, and ``KG``/``KE``: the location
        entries (gold, extracted) holding its path and pointers at ``at``."""
        steps: list[tuple[Any, ...]] = []
        for child in node.children:
            k = index[id(child)]
            sub: Any = None
            if plain_leaf(child):
                kind = _LEAF if child.null_policy == "value" else _LEAF_NULL_ABSENT
            elif _inline_object(child, level):
                kind, sub = _OBJECT, object_scorer(child, k, index, level + 1, static)
            elif child.kind == "array" and child.items is not None and static is not None \
                    and not child.skip:
                kind, sub = _ARRAY, array_scorer(child, static[k], static[k + 1])
            else:
                kind = _OTHER
            steps.append((kind, child.name, child, k, k + 1, child.path, child.compare,
                          child.transform_fns, child.threshold, child.weight,
                          child.comparator, child.pointer, sub))
        plan = tuple(steps)
        known = frozenset(node.child_map) | node.ignored if node.closed else None

        def score_object(g: dict[str, Any], e: dict[str, Any], KG: tuple[str, ...],
                         KE: tuple[str, ...]) -> None:
            nonlocal m, mm, s, w, ws
            if not g and not e:
                general(S.emit, node, KG[at], _MATCH, 1.0, g, e, KG[at + 1], KE[at + 1])
                return
            for kind, name, nd, k, k1, fpath, cmp, fns, thr, wt, cname, sptr, sub in plan:
                gv = g.get(name, A)
                ev = e.get(name, A)
                if kind < _OBJECT:  # a plain leaf
                    if kind and (gv is None or ev is None):  # null counts as absent
                        if gv is None and ev is None:
                            general(S.child, nd, g, e, gv, ev, KG[k], KG[k1], KE[k1])
                            continue
                        gv = A if gv is None else gv
                        ev = A if ev is None else ev
                    if gv is A or ev is A:
                        if gv is ev:
                            continue  # absent on both sides: nothing to judge
                        # Present on one side only (RecordScorer.expand on a leaf).
                        t = PFg(fpath)
                        if t is None:
                            t = PF[fpath] = [0.0] * 11
                        t[9] += wt
                        w += wt
                        if ev is A:
                            t[2] += 1
                            C[2] += 1
                            append(_new(FR, (KG[k], fpath, _OMISSION, 0.0, cname,
                                             "missing from extracted", gv, None, KG[k1], None,
                                             sptr, wt, ri, rid)))
                        else:
                            t[3] += 1
                            C[3] += 1
                            append(_new(FR, (KG[k], fpath, _HALLUCINATION, 0.0, cname,
                                             "not in gold", None, ev, None, KE[k1], sptr, wt,
                                             ri, rid)))
                        continue
                    gx, ex = gv, ev
                    try:
                        if fns:
                            for fn in fns:
                                gx = fn(gx)
                            for fn in fns:
                                ex = fn(ex)
                        sc = cmp(gx, ex)
                    except CompareVerdict as exc:  # judged, with a reason: not again
                        general(S.limited, nd, exc, gx, ex, KG[k], KG[k1], KE[k1])
                        continue
                    except Exception:
                        general(S.leaf, nd, gv, ev, KG[k], KG[k1], KE[k1])
                        continue
                    # Tallied as tally.fold does: the same operations in the same order, on
                    # the same slots (tally.SLOT, SCORE_SUM...: literals here for speed), with
                    # the status of results.leaf_status. test_specialized.py proves it.
                    t = PFg(fpath)
                    if t is None:
                        t = PF[fpath] = [0.0] * 11
                    if sc >= thr:
                        m += 1
                        t[0] += 1
                        st = _MATCH
                    else:
                        mm += 1
                        t[1] += 1
                        st = _MISMATCH
                    t[8] += sc
                    s += sc
                    if weighted:
                        t[9] += wt
                        w += wt
                        x = wt * sc
                        t[10] += x
                        ws += x
                    else:  # w and ws are derived at the end
                        t[9] += 1.0
                        t[10] += sc
                    append(_new(FR, (KG[k], fpath, st, sc, cname, None, gx, ex, KG[k1],
                                     KE[k1], sptr, wt, ri, rid)))
                elif kind == _OBJECT and type(gv) is dict and type(ev) is dict:
                    sub(gv, ev, KG, KE)
                elif kind == _ARRAY and type(gv) is list and type(ev) is list and (gv or ev):
                    sub(gv, ev)
                else:
                    general(S.child, nd, g, e, gv, ev, KG[k], KG[k1], KE[k1])
            if known is not None and not e.keys() <= known:
                extra = sorted(key for key in e if key not in known)
                general(S.extra_keys, node, e, extra, KG[at] + "." if KG[at] else "",
                        KE[at + 1], g, KG[at + 1])

        return score_object

    def array_scorer(node: SchemaNode, apath: str, aptr: str) -> Callable[..., None]:
        """Scores an array outside other arrays given both values are non-empty lists:
        align, score the paired items, expand the rest (as ``RecordScorer.array``)."""
        items = node.items
        assert items is not None
        rows: list[Row] = []
        index: dict[int, int] = {}
        item_object = None
        if _inline_object(items, 0):
            _layout(items, 0, 1, rows, index)
            item_object = object_scorer(items, 0, index, 1, None)
        locations = _Locations(apath, aptr, rows)
        align = ordered if node.align is None else node.align.run
        by_position = align is ordered

        def score_array(g: list[Any], e: list[Any]) -> None:
            K = locations.upto(max(len(g), len(e)))
            pairs: Any
            if by_position:
                n = min(len(g), len(e))
                pairs = zip(range(n), range(n), strict=True)
                gold_only: Any = range(n, len(g))
                extra: Any = range(n, len(e))
            else:
                try:
                    pairs, gold_only, extra = align(S, items, g, e)
                except AlignmentError as exc:
                    general(S.emit, node, apath, _ERROR, 0.0, g, e, aptr, aptr, str(exc))
                    return
            for i, j in pairs:
                gi, ei, KG, KE = g[i], e[j], K[i], K[j]
                if item_object is not None and type(gi) is dict and type(ei) is dict:
                    item_object(gi, ei, KG, KE)
                else:
                    general(S.node, items, gi, ei, KG[0], KG[1], KE[1])
            for i in gold_only:
                general(S.expand, items, g[i], K[i][0], K[i][1], _OMISSION)
            for n_extra, j in enumerate(extra, start=1):
                label = f"{apath}[-{n_extra}]" if S.policy.negative_extra_indices else K[j][0]
                general(S.expand, items, e[j], label, K[j][1], _HALLUCINATION)

        return score_array

    rows: list[Row] = []
    index: dict[int, int] = {}
    _layout(root, 0, 0, rows, index)
    static = _entry(path, pointer, rows)
    root_object = object_scorer(root, 0, index, 0, static)

    def score(g: Any, e: Any, record_index: int, record_id: Any,
              per_field: dict[str, list[float]]) -> Counts:
        nonlocal out, append, PF, PFg, C, m, mm, s, w, ws, ri, rid
        out = S.out
        append = out.append
        PF = per_field
        PFg = per_field.get
        C = [0] * 8
        m = mm = 0
        s = w = ws = 0.0
        ri, rid = record_index, record_id
        if type(g) is dict and type(e) is dict:
            root_object(g, e, static, static)
        else:
            general(S.node, root, g, e, path, pointer, pointer)
        if not weighted:
            # Every weight is 1.0: the weight sum counts the scored results, exactly, and
            # the weighted score sum is the score sum (1.0 * x is x), in the same order.
            w = float(m + mm + C[0] + C[1] + C[2] + C[3])
            ws = s
        counts: Counts = _new(Counts, (m + C[0], mm + C[1], C[2], C[3], C[4], C[5], C[6],
                                       C[7], s, w, ws))
        return counts

    return score
