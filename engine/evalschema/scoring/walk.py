"""Score one gold record against one extracted record under a schema tree.

The walk emits one ``FieldResult`` per judged field, each carrying its instance
path, field path, and pointers into gold, extracted and the schema. Bad extracted
data (wrong types, failing transforms) becomes a status with a reason; nothing
the extractor produced can make the walk raise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from sys import intern
from typing import TYPE_CHECKING, Any

from evalschema.jsontypes import json_type
from evalschema.pointer import escape
from evalschema.policy import NATIVE, ScoringPolicy
from evalschema.results import FieldResult, Status, count_results, leaf_status, show_value
from evalschema.rules.alignment import ordered
from evalschema.rules.registry import AlignmentError, CompareTypeError, CompareVerdict, PairF1
from evalschema.schema.node import SchemaNode
from evalschema.scoring.pair_f1 import make_pair_f1
from evalschema.scoring.pair_f1 import pair_f1_matrix as _pair_f1_matrix

if TYPE_CHECKING:
    import numpy as np

_MATCH = Status.MATCH
_MISMATCH = Status.MISMATCH
_OMISSION = Status.OMISSION
_HALLUCINATION = Status.HALLUCINATION
_SKIPPED = Status.SKIPPED
_ERROR = Status.ERROR
_PENDING = Status.PENDING

_ABSENT = object()
#: tuple.__new__ skips the NamedTuple's Python-level __new__ on the hot path.
_new = tuple.__new__


@dataclass
class PendingBatch:
    """Leaves judged by a batch comparator, waiting for one call per node and record."""

    node: SchemaNode
    indices: list[int] = field(default_factory=list)
    pairs: list[tuple[Any, Any]] = field(default_factory=list)


@dataclass
class RecordScorer:
    """Scores records under one schema tree; holds per-record state only while scoring."""

    root: SchemaNode
    policy: ScoringPolicy = NATIVE
    record_index: int = 0
    record_id: Any = None
    out: list[FieldResult] = field(default_factory=list)
    pending: dict[int, PendingBatch] = field(default_factory=dict)
    #: Per-node helpers built on first use (Hungarian pair F1 functions), by node id: the
    #: nodes are this scorer's own, alive as long as it is.
    helpers: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)

    def score(self, gold: Any, extracted: Any, *, index: int = 0,
              record_id: Any = None) -> list[FieldResult]:
        """All field results for one record pair; batch leaves are left pending."""
        self.begin(index, record_id)
        self.node(self.root, gold, extracted, "", "", "")
        return self.out

    def begin(self, index: int, record_id: Any) -> None:
        """Start a record: results and pending batches are per record."""
        self.record_index = index
        self.record_id = record_id
        self.out = []
        self.pending = {}

    # -- for alignment strategies (rules.registry.AlignContext) --------------

    def pair_f1(self, items: SchemaNode) -> PairF1:
        """The F1 of one element pair of ``items``, as this walk's results would give it
        (``pair_f1.make_pair_f1``); built once per items node."""
        f1: PairF1 | None = self.helpers.get(id(items))
        if f1 is None:
            sub = RecordScorer(items, self.policy)

            def walked(gv: Any, ev: Any) -> float:
                return count_results(sub.score(gv, ev)).pair_similarity()

            f1 = self.helpers[id(items)] = make_pair_f1(
                items, self.policy.shared_unknown_keys_skipped, walked)
        return f1

    def pair_f1_matrix(self, items: SchemaNode, g: Sequence[Any], e: Sequence[Any]
                       ) -> np.ndarray:
        """The pair F1 of every (gold, extracted) element pair (``pair_f1.pair_f1_matrix``)."""
        return _pair_f1_matrix(self, items, g, e)

    # -- emitting -----------------------------------------------------------

    def emit(self, node: SchemaNode, path: str, status: Status, score: float, g: Any, e: Any,
             gp: str | None, ep: str | None, reason: str | None = None) -> None:
        self.out.append(_new(FieldResult, (
            path, node.path, status, score,
            node.comparator, reason, g, e, gp, ep, node.pointer, node.weight,
            self.record_index, self.record_id,
        )))

    # -- the walk -----------------------------------------------------------

    def node(self, node: SchemaNode, g: Any, e: Any, path: str, gp: str, ep: str) -> None:
        kind = node.kind
        if kind == "leaf":
            self.leaf(node, g, e, path, gp, ep)
        elif node.skip:
            self.emit(node, path, _SKIPPED, 0.0, g, e, gp, ep)
        elif kind == "object":
            if type(g) is dict and type(e) is dict:
                self.object(node, g, e, path, gp, ep)
            else:
                self.type_error(node, g, e, path, gp, ep, dict)
        elif type(g) is list and type(e) is list:
            self.array(node, g, e, path, gp, ep)
        else:
            self.type_error(node, g, e, path, gp, ep, list)

    def object(self, node: SchemaNode, g: dict[str, Any], e: dict[str, Any], path: str,
               gp: str, ep: str) -> None:
        if not g and not e:
            self.emit(node, path, _MATCH, 1.0, g, e, gp, ep)
            return
        prefix = path + "." if path else ""
        append = self.out.append
        record_index, record_id = self.record_index, self.record_id
        # Outside arrays, instance paths and pointers are the schema's own: reuse them.
        static = path is node.path and gp is node.sptr and ep is gp
        for child in node.children:
            name = child.name
            seg = child.seg
            if static:
                cpath = child.path
                cgp = cep = child.sptr
            else:
                cpath = prefix + name  # type: ignore[operator]
                cgp = gp + seg
                cep = ep + seg
            gv = g.get(name, _ABSENT)  # type: ignore[arg-type]
            ev = e.get(name, _ABSENT)  # type: ignore[arg-type]
            if child.fast and gv is not _ABSENT and ev is not _ABSENT:
                # The hot path, inlined: a plain leaf, both values present. Its status is
                # results.leaf_status, inlined (test_properties: ..._status_of_their_score).
                try:
                    score = child.compare(gv, ev)  # type: ignore[misc]
                except Exception:
                    self.leaf(child, gv, ev, cpath, cgp, cep)
                    continue
                append(_new(FieldResult, (
                    cpath, child.path, _MATCH if score >= child.threshold else _MISMATCH,
                    score, child.comparator, None, gv, ev, cgp, cep,
                    child.pointer, child.weight, record_index, record_id)))
                continue
            if child.kind != "leaf" and gv is not None and ev is not None \
                    and gv is not _ABSENT and ev is not _ABSENT and not child.skip:
                # A container on both sides: straight down, one frame per level less than
                # through child(), so deep records stay within the recursion limit.
                self.node(child, gv, ev, cpath, cgp, cep)
                continue
            self.child(child, g, e, gv, ev, cpath, cgp, cep)
        if node.values:
            self.entries(node, g, e, path, gp, ep)
        elif node.closed:
            child_map = node.child_map
            extra = [k for k in e if k not in child_map]
            if extra and node.ignored:  # confidences (x-eval-confidence) are not data
                extra = [k for k in extra if k not in node.ignored]
            if extra:
                self.extra_keys(node, e, sorted(extra), prefix, ep, g, gp)

    def entries(self, node: SchemaNode, g: dict[str, Any], e: dict[str, Any], path: str,
                gp: str, ep: str) -> None:
        """A map's entries (``SchemaNode.values``), one key at a time: gold's keys in gold's
        order, then the extracted-only keys in theirs. The instance path holds the key
        (``skills{Languages}``), the pointers the exact key; keys no entry takes are
        extra keys, as in any closed object."""
        child_map = node.child_map
        ignored = node.ignored
        unknown = []
        for k, gv in g.items():
            if k in child_map or k in ignored:
                continue
            sub = node.value_node(k)
            if sub is None:
                continue  # a gold key outside the schema: never scored (extra_keys below)
            seg = "/" + escape(k)
            self.entry(sub, gv, e.get(k, _ABSENT), f"{path}{{{k}}}", gp + seg, ep + seg)
        for k, ev in e.items():
            if k in ignored:
                continue
            if k in child_map or k in g:
                if k not in child_map and node.value_node(k) is None:
                    unknown.append(k)
                continue
            sub = node.value_node(k)
            if sub is None:
                unknown.append(k)
                continue
            seg = "/" + escape(k)
            self.entry(sub, _ABSENT, ev, f"{path}{{{k}}}", gp + seg, ep + seg)
        if unknown and node.closed:
            self.extra_keys(node, e, sorted(unknown), path + "." if path else "", ep, g, gp)

    def entry(self, sub: SchemaNode, gv: Any, ev: Any, path: str, gp: str, ep: str) -> None:
        """One map entry: ``child`` without a name (``gv``/``ev`` may be ``_ABSENT``)."""
        if sub.skip:
            self.emit(sub, path, _SKIPPED, 0.0, None if gv is _ABSENT else gv,
                      None if ev is _ABSENT else ev, None if gv is _ABSENT else gp,
                      None if ev is _ABSENT else ep)
            return
        self.child(sub, {}, {}, gv, ev, path, gp, ep)

    def child(self, child: SchemaNode, g: dict[str, Any], e: dict[str, Any], gv: Any, ev: Any,
              cpath: str, cgp: str, cep: str) -> None:
        """One property of an object, off the hot path: skipped, null as absent, present
        on one side only, a leaf that is not plain, or a container. ``gv``/``ev`` are its
        values in ``g``/``e``, or ``_ABSENT``."""
        name = child.name
        if child.broken is not None:
            self.broken(child, gv, ev, cpath, cgp, cep)
            return
        if child.skip:
            self.emit(child, cpath, _SKIPPED, 0.0, g.get(name), e.get(name),  # type: ignore[arg-type]
                      cgp if name in g else None, cep if name in e else None)
            return
        if child.null_policy == "absent":
            if gv is None and ev is None:
                self.emit(child, cpath, _SKIPPED, 0.0, None, None, cgp, cep,
                          "null on both sides (null counts as absent)")
                return
            if gv is None:
                gv = _ABSENT
            if ev is None:
                ev = _ABSENT
        if gv is not _ABSENT:
            if ev is not _ABSENT:
                if child.kind == "leaf":
                    self.leaf(child, gv, ev, cpath, cgp, cep)
                else:
                    self.node(child, gv, ev, cpath, cgp, cep)
            else:
                self.expand(child, gv, cpath, cgp, _OMISSION)
        elif ev is not _ABSENT:
            self.expand(child, ev, cpath, cep, _HALLUCINATION)

    def broken(self, node: SchemaNode, gv: Any, ev: Any, path: str, gp: str | None,
               ep: str | None) -> None:
        """A field whose schema has errors (``SchemaNode.broken``): one ``error`` saying
        why, whatever the values (``gv``/``ev`` may be ``_ABSENT``)."""
        g_absent, e_absent = gv is _ABSENT, ev is _ABSENT
        self.emit(node, path, _ERROR, 0.0, None if g_absent else gv, None if e_absent else ev,
                  None if g_absent else gp, None if e_absent else ep, node.broken)

    def extra_keys(self, node: SchemaNode, e: dict[str, Any], keys: list[str], prefix: str,
                   ep: str, g: dict[str, Any] | None = None, gp: str = "") -> None:
        """Extracted keys the schema does not know: hallucinations, unless gold has them too.

        A key in both gold and extracted is data the schema does not cover; the
        extractor was right to return it, so it is skipped, not held against it.
        """
        field_prefix = node.path + "." if node.path else ""
        for k in keys:  # strings interned as ``expand``'s
            seg = "/" + escape(k)
            path, fpath = intern(prefix + k), intern(field_prefix + k)
            if g is not None and k in g and self.policy.shared_unknown_keys_skipped:
                self.out.append(_new(FieldResult, (
                    path, fpath, _SKIPPED, 0.0, None,
                    "in gold and extracted but not in the schema", g[k], e[k], intern(gp + seg),
                    intern(ep + seg), node.pointer, node.weight, self.record_index,
                    self.record_id)))
                continue
            self.out.append(_new(FieldResult, (
                path, fpath, _HALLUCINATION, 0.0, None, "not in the schema",
                None, e[k], None, intern(ep + seg), node.pointer, node.weight, self.record_index,
                self.record_id,
            )))

    def array(self, node: SchemaNode, g: list[Any], e: list[Any], path: str, gp: str,
              ep: str) -> None:
        if not g and not e:
            self.emit(node, path, _MATCH, 1.0, g, e, gp, ep)
            return
        items = node.items
        assert items is not None
        spec = node.align
        try:
            pairs, gold_only, extra = (ordered if spec is None else spec.run)(self, items, g, e)
        except AlignmentError as exc:
            self.emit(node, path, _ERROR, 0.0, g, e, gp, ep, str(exc))
            return
        for gi, ei in pairs:
            self.node(items, g[gi], e[ei], f"{path}[{gi}]", f"{gp}/{gi}", f"{ep}/{ei}")
        for gi in gold_only:
            self.expand(items, g[gi], f"{path}[{gi}]", f"{gp}/{gi}", _OMISSION)
        for k, ei in enumerate(extra, start=1):
            label = f"{path}[-{k}]" if self.policy.negative_extra_indices else f"{path}[{ei}]"
            self.expand(items, e[ei], label, f"{ep}/{ei}", _HALLUCINATION)

    def type_error(self, node: SchemaNode, g: Any, e: Any, path: str, gp: str, ep: str,
                   expected: type) -> None:
        """A container field whose value is not that container (or is null)."""
        if g is None and e is None:
            return
        if g is None:
            self.expand(node, e, path, ep, _HALLUCINATION)
        elif e is None:
            self.expand(node, g, path, gp, _OMISSION)
        elif g == e and type(g) is type(e):
            self.emit(node, path, _MATCH, 1.0, g, e, gp, ep, "type mismatch")
        else:
            want = "an object" if expected is dict else "an array"
            got = e if not isinstance(e, expected) else g
            side = "extracted" if got is e else "gold"
            self.emit(node, path, _MISMATCH, 0.0, g, e, gp, ep,
                      f"type mismatch: {side} value {show_value(got)} is {json_type(got)}, "
                      f"expected {want}")

    def expand(self, node: SchemaNode, value: Any, path: str, ptr: str, status: Status) -> None:
        """One omission/hallucination per leaf under a value present on one side only.

        The paths and pointers built here are interned: these results are the findings a
        run keeps, and without it the kept results of 10,000 records hold some 60,000
        copies of a few hundred strings (~6 MB in the language server)."""
        gold_side = status is _OMISSION
        if node.broken is not None:
            self.broken(node, value if gold_side else _ABSENT, _ABSENT if gold_side else value,
                        path, ptr, ptr)
            return
        if node.skip:
            self.emit(node, path, _SKIPPED, 0.0, value if gold_side else None,
                      None if gold_side else value, ptr if gold_side else None,
                      None if gold_side else ptr)
            return
        kind = node.kind
        if kind == "object" and type(value) is dict and value:
            prefix = path + "." if path else ""
            for child in node.children:
                name = child.name
                assert name is not None
                if name in value:
                    v = value[name]
                    if v is None and child.null_policy == "absent" and child.broken is None:
                        continue
                    self.expand(child, v, intern(prefix + name),
                                intern(ptr + (child.seg or "/" + escape(name))), status)
                elif child.broken is not None:  # an error wherever its parent is scored
                    self.broken(child, _ABSENT, _ABSENT, prefix + name, None, None)
            if node.values:
                unknown = []
                for k, v in value.items():
                    if k in node.child_map or k in node.ignored:
                        continue
                    sub = node.value_node(k)
                    if sub is None:
                        unknown.append(k)
                    elif not (v is None and sub.null_policy == "absent"):
                        self.expand(sub, v, intern(f"{path}{{{k}}}"),
                                    intern(ptr + "/" + escape(k)), status)
                if unknown and not gold_side and node.closed:
                    self.extra_keys(node, value, sorted(unknown), prefix, ptr)
            elif not gold_side and node.closed:
                extra = [k for k in value if k not in node.child_map and k not in node.ignored]
                if extra:
                    self.extra_keys(node, value, sorted(extra), prefix, ptr)
            return
        if kind == "array" and type(value) is list and value:
            items = node.items
            assert items is not None
            for i, v in enumerate(value):
                self.expand(items, v, intern(f"{path}[{i}]"), intern(f"{ptr}/{i}"), status)
            return
        if node.branches:
            picked = node.pick_branch(value)
            if picked is not None:
                n0 = len(self.out)
                self.expand(picked[1], value, path, ptr, status)
                self.tag(n0, picked[0])
                return
        reason = "missing from extracted" if gold_side else "not in gold"
        if gold_side:
            self.emit(node, path, status, 0.0, value, None, ptr, None, reason)
        else:
            self.emit(node, path, status, 0.0, None, value, None, ptr, reason)

    def branch(self, node: SchemaNode, g: Any, e: Any, path: str, gp: str, ep: str) -> None:
        """An ``anyOf``/``oneOf`` judged by the branch that takes gold's JSON type, else
        the extracted value's (``SchemaNode.pick_branch``); its results say which."""
        picked = node.pick_branch(g) if g is not None else None
        if picked is None:
            picked = node.pick_branch(e)
        if picked is None:
            if g is None and e is None:
                self.emit(node, path, _MATCH, 1.0, None, None, gp, ep)
                return
            combiner = node.branches[0][0].partition("/")[0]
            took = ", ".join(dict.fromkeys(t for _, ts, _ in node.branches for t in sorted(ts)))
            why = f"no {combiner} branch takes {json_type(g if g is not None else e)} " \
                  f"(they take {took})"
            same = type(g) is type(e) and g == e
            self.emit(node, path, _MATCH if same else _MISMATCH, 1.0 if same else 0.0, g, e,
                      gp, ep, why + ("; equal values match" if same else ""))
            return
        n0 = len(self.out)
        self.node(picked[1], g, e, path, gp, ep)
        self.tag(n0, picked[0])

    def tag(self, n0: int, label: str) -> None:
        """Prefix the reasons of the results from ``n0`` on with the branch that gave them.
        A mismatch's reason is made here rather than when shown (``explanation``): the
        label would otherwise stand in for it. Branches are rare; the hot path has none."""
        out = self.out
        for i in range(n0, len(out)):
            r = out[i]
            why = r.explanation
            out[i] = r._replace(reason=label if why is None else f"{label}: {why}")

    def limited(self, node: SchemaNode, exc: CompareVerdict, g: Any, e: Any, path: str,
                gp: str, ep: str) -> None:
        """A comparison that gave a verdict with a reason (a work limit, a date less precise
        than gold's): its score, with the reason, or ``error`` when nothing could be
        judged. Both walks report it here, so the comparison is never run a second time
        to find out."""
        if exc.score is None:
            self.emit(node, path, _ERROR, 0.0, g, e, gp, ep, exc.reason)
        else:
            self.emit(node, path, leaf_status(exc.score, node.threshold), exc.score, g, e, gp,
                      ep, exc.reason)

    def leaf(self, node: SchemaNode, g: Any, e: Any, path: str, gp: str, ep: str) -> None:
        if node.skip:
            self.emit(node, path, _SKIPPED, 0.0, g, e, gp, ep)
            return
        if node.transform_fns:
            try:
                for fn in node.transform_fns:
                    g = fn(g)
            except Exception as exc:
                if not self.policy.transform_errors_scored:
                    raise
                self.emit(node, path, _ERROR, 0.0, g, e, gp, ep,
                          f"transform failed on the gold value: {exc}")
                return
            try:
                for fn in node.transform_fns:
                    e = fn(e)
            except Exception as exc:
                if not self.policy.transform_errors_scored:
                    raise
                self.emit(node, path, _MISMATCH, 0.0, g, e, gp, ep,
                          f"transform failed on the extracted value: {exc}")
                return
        compare = node.compare
        if compare is None:
            if node.batch is not None:
                batch = self.pending.get(id(node))
                if batch is None:
                    batch = self.pending[id(node)] = PendingBatch(node)
                batch.indices.append(len(self.out))
                batch.pairs.append((g, e))
                self.emit(node, path, _PENDING, 0.0, g, e, gp, ep)
            elif node.branches:
                self.branch(node, g, e, path, gp, ep)
            else:
                self.emit(node, path, _ERROR, 0.0, g, e, gp, ep, "no comparator")
            return
        try:
            score = compare(g, e)
        except CompareVerdict as exc:
            self.limited(node, exc, g, e, path, gp, ep)
            return
        except CompareTypeError as exc:
            if self.policy.identical_values_match and type(g) is type(e) and g == e:
                self.emit(node, path, _MATCH, 1.0, g, e, gp, ep,
                          f"identical values ({node.comparator} cannot judge them: {exc})")
            else:
                self.emit(node, path, _MISMATCH, 0.0, g, e, gp, ep, f"{exc} ({node.label})")
            return
        except Exception as exc:
            self.emit(node, path, _ERROR, 0.0, g, e, gp, ep,
                      f"comparator {node.comparator} failed: {type(exc).__name__}: {exc}")
            return
        # The hot path: built inline, one FieldResult per judged leaf (its status is
        # results.leaf_status, inlined: see object()).
        self.out.append(_new(FieldResult, (
            path, node.path, _MATCH if score >= node.threshold else _MISMATCH, score,
            node.comparator, None, g, e, gp, ep, node.pointer, node.weight,
            self.record_index, self.record_id)))
