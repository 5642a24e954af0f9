"""struct_extract_eval's ``evaluate``, reproduced with its quirks.

The native engine is struct_extract_eval's scoring model with a handful of
deliberate changes (``evalschema.policy``); this module switches them back and
adds what policy cannot express: equal-length record lists paired by position
(records of any JSON type; ``id_field`` only labels them), per-field results
keyed by instance path, numeric comparison without float slack, comparators
required on every leaf, unknown ``x-eval-*`` keys only tolerated, and its walk
where values are not what the schema says (``_SeedScorer``: wrong-typed
containers, one-sided values, dotted property names), which the native walk
handles on purpose otherwise. docs/compat.md lists each behaviour.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from evalschema.compat.errors import CompatInputError
from evalschema.errors import Problem, SchemaError
from evalschema.jsontypes import json_type
from evalschema.pointer import escape
from evalschema.pointer import resolve as resolve_pointer
from evalschema.policy import STRUCT_EXTRACT_EVAL
from evalschema.results import (
    Counts,
    FieldAggregation,
    FieldResult,
    RecordResult,
    RunResult,
    Status,
    count_results,
)
from evalschema.rules.builtins import builtin_registry
from evalschema.rules.registry import (
    ComparatorDef,
    Compare,
    CompareTypeError,
    PairF1,
    Registry,
)
from evalschema.run.accumulator import RunAccumulator
from evalschema.schema.node import SchemaNode
from evalschema.schema.tree import check_eval_schema
from evalschema.scoring.batches import run_batches
from evalschema.scoring.postprocess import PostProcessor
from evalschema.scoring.postprocess import reclassify_nulls as native_reclassify_nulls
from evalschema.scoring.walk import RecordScorer


def _seed_numeric(params: Mapping[str, Any]) -> Compare:
    """Their numeric: float() both sides, tolerances compared without slack."""
    tol = params.get("tolerance") or {}
    rel, abs_ = tol.get("rel"), tol.get("abs")

    def numeric(g: Any, e: Any) -> float:
        if g is None or e is None:
            if g is None and e is None:
                return 1.0
            raise CompareTypeError("type_error")
        try:
            gf, ef = float(g), float(e)
        except (TypeError, ValueError):
            raise CompareTypeError("type_error") from None
        if math.isnan(gf) or math.isnan(ef):
            if math.isnan(gf) and math.isnan(ef):
                return 1.0
            raise CompareTypeError("type_error")
        if rel is None and abs_ is None:
            return 1.0 if gf == ef else 0.0
        diff = abs(gf - ef)
        if rel is not None and diff / (abs(gf) if gf != 0.0 else 1.0) > rel:
            return 0.0
        if abs_ is not None and diff > abs_:
            return 0.0
        return 1.0

    return numeric


def compat_registry() -> Registry:
    """Built-ins, with numeric as struct_extract_eval computes it."""
    reg = builtin_registry()
    native = reg.comparators["numeric"]
    reg.comparators["numeric"] = ComparatorDef(
        native.name, native.doc, native.params, native.types, builtin=True,
        factory=_seed_numeric)
    return reg


class SeedCounts(Counts):
    """Counts with struct_extract_eval's figures: an empty denominator gives 1.0 and
    nothing judged gives F1 1.0, where the native engine says undefined (None)."""

    __slots__ = ()

    def metrics(self) -> tuple[float, float, float, float]:
        p, r, f1, w = Counts.metrics(self)
        return (1.0 if p is None else p, 1.0 if r is None else r,
                1.0 if f1 is None else f1, 1.0 if w is None else w)


class _SeedAccumulator(RunAccumulator):
    """A run accumulated with ``SeedCounts``: its records, fields, totals and means."""

    def add(self, record: RecordResult, *, counted: bool = True) -> None:
        super().add(record._replace(counts=SeedCounts(*record.counts)), counted=counted)

    def result(self) -> RunResult:
        run = super().result()
        return replace(
            run, totals=SeedCounts(*run.totals),
            per_field={k: FieldAggregation(k, SeedCounts(*a.counts))
                       for k, a in run.per_field.items()})


def _key_by_instance_path(results: list[FieldResult]) -> list[FieldResult]:
    return [r._replace(field=r.path) for r in results]


def _lookup(node: SchemaNode) -> str:
    """The key a property is read from: the last dot segment of its field path, as that
    package reads it (``"a.b"`` is read from ``record["b"]``)."""
    return node.path.rsplit(".", 1)[-1]


def _usable_key(elem: Any, key: str) -> Any:
    """The element's key value if key_field alignment can pair on it (a string or a
    number, not a boolean), else None."""
    if not isinstance(elem, dict):
        return None
    v = elem.get(key)
    return v if isinstance(v, str | int | float) and not isinstance(v, bool) else None


@dataclass
class _SeedScorer(RecordScorer):
    """struct_extract_eval's walk (``core/scoring.py``) where it parts from the native one.

    Records of any JSON type are scored (a record is the root object node); a container
    holding another type is one result, a match when ``==`` (so ``1`` vs ``true``); a
    value present on one side only expands into its schema children present in it, so
    ``{}``, a non-object under an object node and skipped fields give nothing; properties
    are read by the last dot segment of their path; a hallucinated object lists no keys
    the schema does not know.
    """

    #: By id of a container judged by a comparator (a leaf here): the tree of its own
    #: properties or items, which a value present on one side only expands into.
    judged: dict[int, SchemaNode] = field(default_factory=dict, repr=False, compare=False)

    def pair_f1(self, items: SchemaNode) -> PairF1:
        f1: PairF1 | None = self.helpers.get(id(items))
        if f1 is None:
            sub = _SeedScorer(items, self.policy, judged=self.judged)

            def f1(gv: Any, ev: Any) -> float:
                return SeedCounts(*count_results(sub.score(gv, ev))).metrics()[2]

            self.helpers[id(items)] = f1
        return f1

    def pair_f1_matrix(self, items: SchemaNode, g: Sequence[Any], e: Sequence[Any]
                       ) -> np.ndarray:
        f1 = self.pair_f1(items)
        return np.array([[f1(gv, ev) for ev in e] for gv in g], dtype=float).reshape(
            len(g), len(e))

    def node(self, node: SchemaNode, g: Any, e: Any, path: str, gp: str, ep: str) -> None:
        """A container is judged field by field only when both sides hold it (``skip`` is
        read by the parent object alone)."""
        if node.kind == "leaf":
            self.leaf(node, g, e, path, gp, ep)
            return
        want = dict if node.kind == "object" else list
        if not (isinstance(g, want) and isinstance(e, want)):
            self.type_error(node, g, e, path, gp, ep, want)
        elif isinstance(g, dict) and isinstance(e, dict):
            self.object(node, g, e, path, gp, ep)
        elif isinstance(g, list) and isinstance(e, list):
            self.array(node, g, e, path, gp, ep)

    def object(self, node: SchemaNode, g: dict[str, Any], e: dict[str, Any], path: str,
               gp: str, ep: str) -> None:
        if not g and not e:
            self.emit(node, path, Status.MATCH, 1.0, g, e, gp, ep)
            return
        prefix = path + "." if path else ""
        for child in node.children:
            key = _lookup(child)
            cpath, seg = prefix + (child.name or ""), "/" + escape(key)
            if child.skip:
                self.emit(child, cpath, Status.SKIPPED, 0.0, g.get(key), e.get(key),
                          gp + seg if key in g else None, ep + seg if key in e else None)
            elif key in g and key in e:
                self.node(child, g[key], e[key], cpath, gp + seg, ep + seg)
            elif key in g:
                self.expand(child, g[key], cpath, gp + seg, Status.OMISSION)
            elif key in e:
                self.expand(child, e[key], cpath, ep + seg, Status.HALLUCINATION)
        known = {_lookup(child) for child in node.children}
        extra = sorted(k for k in e if k not in known)
        if extra:
            self.extra_keys(node, e, extra, prefix, ep, g, gp)

    def array(self, node: SchemaNode, g: list[Any], e: list[Any], path: str, gp: str,
              ep: str) -> None:
        spec = node.align
        if spec is None or spec.strategy != "key_field" or not (g or e):
            super().array(node, g, e, path, gp, ep)
            return
        items = node.items
        assert items is not None
        pairs, gold_only, extra = spec.run(self, items, g, e)
        # In gold order, each gold element paired or omitted; then the extracted elements
        # left over: the first holder of each usable key, then the rest (keyless, bad keys,
        # repeats), each in list order.
        paired = dict(pairs)
        for gi in sorted([*paired, *gold_only]):
            if gi in paired:
                self.node(items, g[gi], e[paired[gi]], f"{path}[{gi}]", f"{gp}/{gi}",
                          f"{ep}/{paired[gi]}")
            else:
                self.expand(items, g[gi], f"{path}[{gi}]", f"{gp}/{gi}", Status.OMISSION)
        key, first = str(spec.params["key"]), set()
        seen: set[Any] = set()
        for j, elem in enumerate(e):
            kv = _usable_key(elem, key)
            if kv is not None and kv not in seen:
                seen.add(kv)
                first.add(j)
        left = [j for j in extra if j in first] + [j for j in extra if j not in first]
        for k, ej in enumerate(left, start=1):
            self.expand(items, e[ej], f"{path}[-{k}]", f"{ep}/{ej}", Status.HALLUCINATION)

    def type_error(self, node: SchemaNode, g: Any, e: Any, path: str, gp: str, ep: str,
                   expected: type) -> None:
        if g is not None and e is not None:
            if g == e:
                self.emit(node, path, Status.MATCH, 1.0, g, e, gp, ep, "type mismatch")
            else:
                self.emit(node, path, Status.MISMATCH, 0.0, g, e, gp, ep,
                          f"type mismatch: gold {json_type(g)}, extracted {json_type(e)}")
            return
        if g is None and e is None:
            return
        status, value, ptr = ((Status.OMISSION, g, gp) if g is not None
                              else (Status.HALLUCINATION, e, ep))
        if isinstance(value, expected):
            self.expand(node, value, path, ptr, status)
        else:
            self.one_sided(node, value, path, ptr, status)

    def expand(self, node: SchemaNode, value: Any, path: str, ptr: str, status: Status) -> None:
        if node.skip:
            return
        node = self.judged.get(id(node), node)
        if node.kind == "object":
            if isinstance(value, dict):
                prefix = path + "." if path else ""
                for child in node.children:
                    key = _lookup(child)
                    if key in value:
                        self.expand(child, value[key], prefix + (child.name or ""),
                                    ptr + "/" + escape(key), status)
            return
        if node.kind == "array" and isinstance(value, list) and value:
            assert node.items is not None
            for i, v in enumerate(value):
                label = i if status is Status.OMISSION else -1 - i
                self.expand(node.items, v, f"{path}[{label}]", f"{ptr}/{i}", status)
            return
        self.one_sided(node, value, path, ptr, status)

    def one_sided(self, node: SchemaNode, value: Any, path: str, ptr: str,
                  status: Status) -> None:
        """One omission or hallucination for the whole value."""
        if status is Status.OMISSION:
            self.emit(node, path, status, 0.0, value, None, ptr, None, "missing from extracted")
        else:
            self.emit(node, path, status, 0.0, None, value, None, ptr, "not in gold")


def _judged_containers(root: SchemaNode, document: Any, registry: Registry
                       ) -> tuple[dict[int, SchemaNode], list[Problem]]:
    """The trees under containers judged by a comparator, and their problems.

    That package builds and checks the children of such a container like any others
    (a leaf there without ``x-eval-compare`` is a SchemaError), judges the container
    whole when both sides hold it, and expands a one-sided value into those children.
    The native tree has no children there: each is built here from the container's own
    schema without its comparator, problems located at their place in ``document``.
    """
    out: dict[int, SchemaNode] = {}
    problems: list[Problem] = []

    def visit(tree: SchemaNode, doc: Any, base: str) -> None:
        for node in tree.walk():
            if node.kind != "leaf" or node.json_type not in ("object", "array"):
                continue
            raw = resolve_pointer(doc, node.pointer, None)
            if not isinstance(raw, dict) or not (
                    isinstance(raw.get("properties"), dict) or isinstance(raw.get("items"), dict)):
                continue
            sub = {k: v for k, v in raw.items() if k not in ("x-eval-compare", "x-eval-transform")}
            check = check_eval_schema(sub, registry=registry, defaults=False)
            problems.extend(replace(p, pointer=base + node.pointer + p.pointer)
                            for p in check.errors if p.code != "unknown-key")
            out[id(node)] = check.root
            visit(check.root, sub, base + node.pointer)

    visit(root, document, "")
    return out, problems


def _record_id(gold: Any, id_field: str | None, index: int) -> Any:
    """``gold[id_field]``, as that package reads it (it only labels: pairing is by position)."""
    if not id_field:
        return index
    try:
        return gold[id_field]
    except (KeyError, TypeError, IndexError) as exc:
        what = "an object without it" if isinstance(gold, dict) else f"a {json_type(gold)}"
        raise CompatInputError(
            f"gold record {index + 1} has no id field {id_field!r} (it is {what}): "
            "struct_extract_eval reads gold[id_field] as the record's label; give every gold "
            "record that key, or leave the id field out (records pair by position anyway)",
            original=type(exc).__name__, record=index) from exc


@dataclass(frozen=True)
class NullHandling:
    """That package's ``NullHandling``: which values mean absent, and what two absents are."""

    absent_values: list[Any] = field(default_factory=lambda: [None])
    both_absent_skip: bool = True


def _compared(r: FieldResult) -> tuple[Any, Any]:
    """The values that package's reclassify_nulls reads: those the comparator saw, and
    none (null) for a result no comparator produced."""
    return (r.gold, r.extracted) if r.comparator is not None else (None, None)


def reclassify_nulls(field_results: list[FieldResult], config: NullHandling
                     ) -> list[FieldResult]:
    """That package's ``reclassify_nulls``, for ``post_process``.

    It reads the values the comparator saw (after transforms); results no comparator
    produced (a container of the wrong type, ``{}`` vs ``{}``, ``[]`` vs ``[]``) have
    none there, so they count as both absent: skipped, or a match with
    ``both_absent_skip=False``. The native ``scoring.postprocess.reclassify_nulls``
    reads the values themselves.
    """
    return native_reclassify_nulls(config.absent_values, config.both_absent_skip,
                                   compared=_compared)(field_results)


def evaluate(gold: Sequence[Any], extracted: Sequence[Any], schema: Any, *,
             id_field: str | None = None,
             post_process: PostProcessor | Iterable[PostProcessor] | None = None,
             registry: Registry | None = None) -> RunResult:
    """Score as struct_extract_eval 0.1.0 (@6a51aa28) does; ``per_field`` keyed by instance path.

    Records pair by position, whatever their type (a string, a list or null in place of
    a record is scored as that package scores it); ``id_field`` only labels them
    (``record_id``), and the schema's ``x-eval-id`` is ignored, as that package ignores
    it. Raises CompatInputError where the original raises, in its order: lists of
    different length (its ValueError), a gold record without ``id_field`` (its KeyError,
    or TypeError for a record that is not an object), a transform meeting a value of the
    wrong type (its TypeError).
    """
    if len(gold) != len(extracted):
        raise CompatInputError(f"{len(gold)} gold and {len(extracted)} extracted records: "
                               "struct_extract_eval pairs records by position and requires "
                               "as many of each", original="ValueError")
    reg = registry or compat_registry()
    check = check_eval_schema(schema, registry=reg, defaults=False)
    # It only logs unknown x-eval keys.
    errors = [p for p in check.errors if p.code != "unknown-key"]
    judged, more = _judged_containers(check.root, schema, reg) if not errors else ({}, [])
    if errors or more:
        raise SchemaError([*errors, *more], "the eval schema is invalid")
    for node in [*check.root.walk(), *(n for t in judged.values() for n in t.walk())]:
        # A match is a score of exactly 1.0 there: x-eval-threshold is one of the keys it
        # does not know (as are x-eval-id, x-eval-null and x-eval-weight, which the walk
        # below never reads or which no figure it reports depends on).
        node.threshold = 1.0
    ids = [_record_id(g, id_field, i) for i, g in enumerate(gold)]
    pps: list[PostProcessor] = []
    if post_process is not None:
        pps.extend([post_process] if callable(post_process) else post_process)
    pps.append(_key_by_instance_path)
    scorer = _SeedScorer(check.root, STRUCT_EXTRACT_EVAL, judged=judged)
    acc = _SeedAccumulator()
    for i, (g, e) in enumerate(zip(gold, extracted, strict=True)):
        try:
            results = scorer.score(g, e, index=i, record_id=ids[i])
        except TypeError as exc:
            raise CompatInputError(
                f"record {i + 1}: a transform met a value it cannot take ({exc}); "
                "struct_extract_eval lets that TypeError out of evaluate()",
                original="TypeError", record=i) from exc
        if scorer.pending:
            results = run_batches(results, scorer.pending.values())
        for pp in pps:
            results = pp(results)
        acc.add(RecordResult(i, ids[i], tuple(results), acc.tally(results), i, i))
    return acc.result()


#: The metric as ``evalschema eval --metric struct_extract_eval.evaluate`` runs it.
RunMetric = Callable[..., RunResult]
METRICS: dict[str, RunMetric] = {"struct_extract_eval.evaluate": evaluate}
