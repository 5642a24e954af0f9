"""The parsed eval schema: a tree of nodes with bound comparators and transforms.

``check_eval_schema`` walks a schema once, collecting every located problem (for
the CLI's ``check`` and the language server); ``parse_eval_schema`` does the same
walk and raises one ``SchemaError`` listing them all, or returns the tree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

from jsonschema import Draft202012Validator

from evalschema.errors import Problem, SchemaError, Severity, did_you_mean
from evalschema.pointer import escape
from evalschema.pointer import join as ptr_join
from evalschema.rules.alignment import ordered
from evalschema.rules.keywords import KEYWORDS, SIMPLE_KEYWORDS
from evalschema.rules.registry import (
    Align,
    BatchCompare,
    ComparatorDef,
    Compare,
    Entry,
    MatrixCompare,
    Registry,
    Transform,
    default_registry,
)
from evalschema.safetext import nonfinite_pointer
from evalschema.schema.resolve import Resolution, resolve

NodeKind = Literal["object", "array", "leaf"]
NullPolicy = Literal["value", "absent"]

#: Default comparator by JSON type for leaves without ``x-eval-compare``.
TYPE_DEFAULTS: dict[str, str] = {
    "string": "exact",
    "number": "numeric",
    "integer": "numeric",
    "boolean": "exact",
}


@dataclass(frozen=True, slots=True)
class AlignSpec:
    strategy: str
    params: Mapping[str, Any] = field(default_factory=dict)
    #: The strategy's algorithm, bound to ``params`` at parse time (as comparators are).
    run: Align = field(default=ordered, compare=False, repr=False)


@dataclass(eq=False, slots=True)
class SchemaNode:
    """One field of the eval schema, ready to score.

    ``path`` is the field path (``line_items[].price``), ``pointer`` the JSON Pointer
    of the node in the schema document. Comparators and transforms are bound to
    their parameters here, once, so scoring a field is a plain function call.
    """

    name: str | None
    path: str
    pointer: str
    kind: NodeKind
    types: frozenset[str]
    children: tuple[SchemaNode, ...] = ()
    items: SchemaNode | None = None
    comparator: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""
    compare: Compare | None = None
    #: The comparator's whole-matrix form, when it has one (alignment cost matrices).
    matrix: MatrixCompare | None = None
    batch: BatchCompare | None = None
    transforms: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    transform_fns: tuple[Transform, ...] = ()
    align: AlignSpec | None = None
    skip: bool = False
    weight: float = 1.0
    threshold: float = 1.0
    null_policy: NullPolicy = "value"
    id_field: str | None = None
    #: Report extracted keys that the schema does not know as hallucinations.
    closed: bool = True
    child_map: dict[str, SchemaNode] = field(default_factory=dict)
    #: "/" + the escaped name: this node's pointer segment in a record (hot-path cache).
    seg: str = ""
    #: A plain leaf the scorer may judge inline: one comparator call, nothing else.
    fast: bool = False
    #: The node's pointer in a record when no array lies above it (hot-path cache).
    sptr: str = ""

    @property
    def json_type(self) -> str:
        """struct_extract_eval's name: the single type, or "multi"."""
        concrete = sorted(self.types - {"null"})
        if len(concrete) == 1:
            return concrete[0]
        return "multi" if concrete else "null"

    def walk(self) -> list[SchemaNode]:
        """This node and every node below it, depth first."""
        out = [self]
        for c in self.children:
            out.extend(c.walk())
        if self.items is not None:
            out.extend(self.items.walk())
        return out

    def find(self, path: str) -> SchemaNode | None:
        for n in self.walk():
            if n.path == path:
                return n
        return None


@cache
def _keyword_validator(key: str) -> Draft202012Validator:
    return Draft202012Validator(KEYWORDS[key].value_schema)


def _types(schema: Mapping[str, Any]) -> frozenset[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return frozenset({t})
    if isinstance(t, list):
        return frozenset(x for x in t if isinstance(x, str))
    if isinstance(schema.get("properties"), dict):
        return frozenset({"object"})
    if "items" in schema:
        return frozenset({"array"})
    from evalschema.rules.comparators import json_type

    if "const" in schema:
        return frozenset({json_type(schema["const"])})
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return frozenset(json_type(v) for v in schema["enum"])
    return frozenset()


def _entry_ref(raw: Any) -> tuple[str, Any] | None:
    """``"name"`` or ``{"name": {...params}}`` -> (name, params); None when malformed."""
    if isinstance(raw, str):
        return raw, {}
    if isinstance(raw, dict) and len(raw) == 1:
        name, params = next(iter(raw.items()))
        return name, params
    return None


class _Builder:
    def __init__(self, res: Resolution, registry: Registry, defaults: bool) -> None:
        self.res = res
        self.reg = registry
        self.defaults = defaults
        self.problems: list[Problem] = list(res.problems)

    def problem(self, code: str, message: str, pointer: str, *, suggestion: str | None = None,
                target: str = "value", severity: Severity = Severity.ERROR,
                data: dict[str, Any] | None = None) -> None:
        self.problems.append(Problem(code, message, pointer, suggestion, severity, target,
                                     data=data or {}))

    # -- the walk -----------------------------------------------------------

    def build(self, schema: Any, *, name: str | None, path: str, inherited: dict[str, Any],
              root: bool = False) -> SchemaNode:
        pointer = self.res.origin(schema) if isinstance(schema, dict) else ""
        if not isinstance(schema, dict):
            if schema is not True:
                self.problem("bad-node", "a schema node must be an object", pointer)
            return self._leaf_any(name, path, pointer, inherited)
        types = _types(schema)
        self._check_type_keyword(schema)
        has_compare = "x-eval-compare" in schema
        props = schema.get("properties")
        items = schema.get("items")
        if not has_compare and isinstance(props, dict) and props and ("object" in types or not types):
            kind: NodeKind = "object"
        elif not has_compare and isinstance(items, dict | bool) and items is not False and (
            "array" in types or not types
        ):
            kind = "array"
        else:
            kind = "leaf"
        self._check_keys(schema, kind, root)
        inherit = dict(inherited)
        weight = self._simple(schema, "x-eval-weight", inherited.get("weight", 1.0))
        null_policy = self._simple(schema, "x-eval-null", inherited.get("null", "value"))
        inherit.update(weight=weight, null=null_policy)
        skip = self._simple(schema, "x-eval-skip", False) is True
        node = SchemaNode(name, path, pointer, kind, types or frozenset(), skip=skip,
                          weight=float(weight), null_policy=null_policy,
                          seg="/" + escape(name) if name is not None else "")
        if root:
            node.id_field = self._id_field(schema)
        if kind == "object":
            assert isinstance(props, dict)
            children = []
            for key, sub in props.items():
                child = self.build(sub, name=key, path=f"{path}.{key}" if path else key,
                                   inherited=inherit)
                if not isinstance(sub, dict) or not self.res.origin(sub):
                    child.pointer = ptr_join(ptr_join(pointer, "properties"), key)
                children.append(child)
            node.children = tuple(children)
            node.child_map = {c.name: c for c in children if c.name is not None}
            if "x-eval-transform" in schema:
                self.problem("transform-on-container", "x-eval-transform on an object has no "
                             "effect: transforms apply to leaves", self.res.key_origin(schema,
                             "x-eval-transform"), target="key",
                             suggestion="move it to the fields below, or add x-eval-compare to "
                             "compare the object as one value")
        elif kind == "array":
            item_schema = items if isinstance(items, dict) else {}
            node.items = self.build(item_schema, name=None, path=f"{path}[]", inherited=inherit)
            if not node.items.pointer:
                node.items.pointer = ptr_join(pointer, "items")
            node.align = self._align(schema, item_schema)
        else:
            self._leaf(schema, node)
        if "x-eval-align" in schema and kind != "array":
            self.problem("align-not-array", "x-eval-align only applies to arrays with items; "
                         f"this node is {'a ' + kind if kind != 'leaf' else 'a leaf'}",
                         self.res.key_origin(schema, "x-eval-align"), target="key",
                         suggestion="remove x-eval-align, or declare \"type\": \"array\" with items")
        return node

    def _leaf_any(self, name: str | None, path: str, pointer: str,
                  inherited: dict[str, Any]) -> SchemaNode:
        node = SchemaNode(name, path, pointer, "leaf", frozenset(),
                          seg="/" + escape(name) if name is not None else "",
                          weight=float(inherited.get("weight", 1.0)),
                          null_policy=inherited.get("null", "value"))
        self._bind_comparator(node, "exact", {}, None, pointer)
        return node

    # -- keys ---------------------------------------------------------------

    def _check_keys(self, schema: dict[str, Any], kind: NodeKind, root: bool) -> None:
        for key in schema:
            if not isinstance(key, str) or not key.startswith("x-eval-"):
                continue
            kw = KEYWORDS.get(key)
            where = self.res.key_origin(schema, key)
            bad = nonfinite_pointer(schema[key], where)
            if bad is not None:
                self.problem("not-finite", f"{key}: a number here is not finite (NaN or an "
                             "infinity, e.g. 1e999); weights, thresholds, tolerances and every "
                             "other parameter must be finite numbers", bad,
                             suggestion="use a finite number (JSON has no NaN or Infinity)")
            if kw is None:
                guess = did_you_mean(key, KEYWORDS)
                self.problem("unknown-key", f"unknown key {key!r}", where, target="key",
                             suggestion=f"did you mean {guess!r}?" if guess else
                             "known keys: " + ", ".join(KEYWORDS),
                             data={"replacements": [guess] if guess else []})
            elif key == "x-eval-id" and not root:
                self.problem("id-not-root", "x-eval-id only applies at the schema root", where,
                             target="key", suggestion="move it to the root object")
            elif key in SIMPLE_KEYWORDS:
                self._validate_value(schema[key], kw.value_schema, where, key)

    def _validate_value(self, value: Any, value_schema: dict[str, Any], where: str,
                        key: str) -> bool:
        errors = list(_keyword_validator(key).iter_errors(value))
        for err in errors:
            self.problem("bad-value", f"{key}: {err.message}", where)
        return not errors

    def _simple(self, schema: dict[str, Any], key: str, default: Any) -> Any:
        if key not in schema:
            return default
        value = schema[key]
        if isinstance(value, float) and not math.isfinite(value):
            return default  # reported as not-finite by _check_keys
        return value if _keyword_validator(key).is_valid(value) else default

    def _check_type_keyword(self, schema: dict[str, Any]) -> None:
        t = schema.get("type")
        valid = {"string", "number", "integer", "boolean", "null", "object", "array"}
        bad = [x for x in ([t] if isinstance(t, str) else t if isinstance(t, list) else [])
               if x not in valid]
        if t is not None and not isinstance(t, str | list):
            bad = [repr(t)]
        for b in bad:
            guess = did_you_mean(str(b), valid)
            self.problem("bad-type", f"unknown JSON type {b!r}", ptr_join(self.res.origin(schema),
                         "type"), suggestion=f"did you mean {guess!r}?" if guess else None)

    def _id_field(self, schema: dict[str, Any]) -> str | None:
        value = schema.get("x-eval-id")
        if not isinstance(value, str) or not value:
            return None
        props = schema.get("properties")
        if isinstance(props, dict) and value not in props:
            guess = did_you_mean(value, props)
            self.problem("id-unknown", f"x-eval-id names {value!r}, which is not a property of "
                         "the root", self.res.key_origin(schema, "x-eval-id"),
                         suggestion=f"did you mean {guess!r}?" if guess else None,
                         data={"replacements": [guess] if guess else []})
        return value

    # -- leaves -------------------------------------------------------------

    def _leaf(self, schema: dict[str, Any], node: SchemaNode) -> None:
        threshold_ptr = self.res.key_origin(schema, "x-eval-threshold")
        if "x-eval-compare" in schema:
            where = self.res.key_origin(schema, "x-eval-compare")
            ref = _entry_ref(schema["x-eval-compare"])
            if ref is None or not isinstance(ref[0], str):
                self.problem("compare-shape", "x-eval-compare must be a comparator name or an "
                             "object with exactly one key (the name) holding its parameters",
                             where, suggestion='e.g. {"numeric": {"tolerance": {"rel": 0.01}}}')
                self._bind_comparator(node, "exact", {}, None, where)
            else:
                name, params = ref
                self._bind_comparator(node, name, params, schema, where)
        elif node.skip:
            pass
        elif self.defaults:
            concrete = node.types - {"null"}
            name = TYPE_DEFAULTS.get(next(iter(concrete)), "exact") if len(concrete) == 1 \
                else "exact"
            self._bind_comparator(node, name, {}, schema, node.pointer)
        else:
            self.problem("missing-compare", "leaf has no x-eval-compare", node.pointer,
                         suggestion="run annotate_xeval (evalschema infer/annotate) or add one")
        if "x-eval-transform" in schema:
            self._transforms(schema, node)
        if "x-eval-threshold" in schema and isinstance(schema["x-eval-threshold"], int | float) \
                and not isinstance(schema["x-eval-threshold"], bool) \
                and 0 <= schema["x-eval-threshold"] <= 1:
            node.threshold = float(schema["x-eval-threshold"])
        del threshold_ptr

    def _bind_comparator(self, node: SchemaNode, name: str, params: Any,
                         schema: dict[str, Any] | None, where: str) -> None:
        d = self.reg.comparators.get(name)
        if d is None:
            guess = did_you_mean(name, self.reg.comparators)
            self.problem("unknown-comparator", f"unknown comparator {name!r}",
                         ptr_join(where, name) if isinstance(schema and schema.get(
                             "x-eval-compare"), dict) else where,
                         target="key" if isinstance(schema and schema.get("x-eval-compare"),
                                                    dict) else "value",
                         suggestion=f"did you mean {guess!r}?" if guess else
                         "known comparators: " + ", ".join(self.reg.comparators),
                         data={"replacements": [guess] if guess else [],
                               "kind": "comparator"})
            return
        params_ptr = ptr_join(where, name) if schema is not None and isinstance(
            schema.get("x-eval-compare"), dict) else where
        if d.vet is not None and isinstance(params, dict) and self._vetted(d, params,
                                                                           params_ptr):
            return
        if not self._check_params(d, params, params_ptr, "comparator"):
            return
        if node.types and d.types and not (node.types - {"null"}) <= d.types and \
                node.kind == "leaf" and schema is not None and "x-eval-compare" in schema:
            wrong = sorted(node.types - {"null"} - d.types)
            self.problem("comparator-type", f"comparator {name!r} does not judge "
                         f"{'/'.join(wrong)} values (it takes {', '.join(sorted(d.types))})",
                         where, suggestion=_suggest_for_types(self.reg, node.types))
        node.comparator = name
        node.params = params
        node.label = d.label(params)
        try:
            if d.batch_factory is not None:
                node.batch = d.batch_factory(params)
            elif d.factory is not None:
                node.compare = d.factory(params)
                if d.matrix_factory is not None:
                    node.matrix = d.matrix_factory(params)
        except Exception as exc:  # a user factory rejecting its parameters
            self.problem("bad-param", f"{name}: {exc}", params_ptr)
            return
        if d.threshold_param and isinstance(params.get(d.threshold_param), int | float) \
                and math.isfinite(params[d.threshold_param]):
            node.threshold = float(params[d.threshold_param])

    def _vetted(self, d: ComparatorDef, params: dict[str, Any], where: str) -> bool:
        """Report what the comparator's own check refuses; True when it refused."""
        assert d.vet is not None
        issues = d.vet(params)
        for i in issues:
            self.problem(i.code, f"{d.name}: {i.message}", ptr_join(where, i.key),
                         target=i.target, suggestion=i.suggestion)
        return bool(issues)

    def _check_params(self, d: Entry, params: Any, where: str, kind: str) -> bool:
        if not isinstance(params, dict):
            self.problem("bad-param", f"parameters of {kind} {d.name!r} must be an object",
                         where)
            return False
        missing = [p for p in d.required_params if p not in params]
        if missing:
            self.problem("missing-param", f"{kind} {d.name!r} needs parameter(s) "
                         + ", ".join(repr(m) for m in missing), where,
                         suggestion="add " + ", ".join(f'"{m}"' for m in missing),
                         data={"missing": missing, "name": d.name, "kind": kind})
        ok = not missing
        known = d.params.get("properties", {})
        if not params or d.params_valid(params):
            return ok
        for err in d.param_validator().iter_errors(params):
            if err.validator == "required":
                continue
            ok = False
            path = list(err.absolute_path)
            ptr = where
            for seg in path:
                ptr = ptr_join(ptr, seg)
            if err.validator == "additionalProperties":
                extras = [k for k in params if k not in known]
                for extra in extras:
                    guess = did_you_mean(extra, known)
                    self.problem("unknown-param", f"{kind} {d.name!r} has no parameter "
                                 f"{extra!r}", ptr_join(where, extra), target="key",
                                 suggestion=f"did you mean {guess!r}?" if guess else
                                 ("parameters: " + ", ".join(known) if known else
                                  "it takes no parameters"),
                                 data={"replacements": [guess] if guess else []})
            else:
                self.problem("bad-param", f"{d.name}: {'/'.join(map(str, path)) or 'params'}: "
                             f"{err.message}", ptr)
        return ok

    def _transforms(self, schema: dict[str, Any], node: SchemaNode) -> None:
        raw = schema["x-eval-transform"]
        where = self.res.key_origin(schema, "x-eval-transform")
        if not isinstance(raw, list):
            self.problem("transform-shape", "x-eval-transform must be a list of transforms",
                         where, suggestion='e.g. ["strip", "lowercase"]')
            return
        specs, fns = [], []
        for i, item in enumerate(raw):
            item_ptr = ptr_join(where, i)
            ref = _entry_ref(item)
            if ref is None or not isinstance(ref[0], str):
                self.problem("transform-shape", "a transform is a name or a one-key object "
                             "holding its parameters", item_ptr)
                continue
            name, params = ref
            d = self.reg.transforms.get(name)
            if d is None:
                guess = did_you_mean(name, self.reg.transforms)
                self.problem("unknown-transform", f"unknown transform {name!r}",
                             ptr_join(item_ptr, name) if isinstance(item, dict) else item_ptr,
                             target="key" if isinstance(item, dict) else "value",
                             suggestion=f"did you mean {guess!r}?" if guess else
                             "known transforms: " + ", ".join(self.reg.transforms),
                             data={"replacements": [guess] if guess else [],
                                   "kind": "transform"})
                continue
            params_ptr = ptr_join(item_ptr, name) if isinstance(item, dict) else item_ptr
            if not self._check_params(d, params, params_ptr, "transform"):
                continue
            concrete = node.types - {"null"}
            if concrete and d.types and not concrete <= d.types and not (
                "string" in d.types and concrete <= {"string"}
            ):
                self.problem("transform-type", f"transform {name!r} does not apply to "
                             f"{'/'.join(sorted(concrete))} values", item_ptr,
                             severity=Severity.WARNING,
                             suggestion="it takes " + ", ".join(sorted(d.types - {'null'})))
            assert d.factory is not None
            specs.append((name, params))
            fns.append(d.factory(params))
        node.transforms = tuple(specs)
        node.transform_fns = tuple(fns)

    # -- arrays -------------------------------------------------------------

    def _align(self, schema: dict[str, Any], items: dict[str, Any]) -> AlignSpec:
        if "x-eval-align" not in schema:
            return AlignSpec("ordered")
        raw = schema["x-eval-align"]
        where = self.res.key_origin(schema, "x-eval-align")
        if isinstance(raw, str):
            raw = {"match_by": raw}
        if not isinstance(raw, dict):
            self.problem("align-shape", "x-eval-align must be an object such as "
                         '{"match_by": "hungarian"}', where)
            return AlignSpec("ordered")
        if raw.get("ordered") is True and "match_by" not in raw:
            return AlignSpec("ordered")
        if "ordered" in raw and not isinstance(raw["ordered"], bool):
            self.problem("align-shape", "'ordered' must be true or false", ptr_join(where,
                         "ordered"))
        strategy = raw.get("match_by")
        if strategy is None:
            self.problem("align-shape", "x-eval-align needs \"match_by\" (or \"ordered\": true)",
                         where, suggestion="strategies: " + ", ".join(self.reg.strategies),
                         data={"missing": ["match_by"], "kind": "align"})
            return AlignSpec("ordered")
        if not isinstance(strategy, str) or strategy not in self.reg.strategies:
            guess = did_you_mean(str(strategy), self.reg.strategies)
            self.problem("unknown-strategy", f"unknown alignment strategy {strategy!r}",
                         ptr_join(where, "match_by"),
                         suggestion=f"did you mean {guess!r}?" if guess else
                         "strategies: " + ", ".join(self.reg.strategies),
                         data={"replacements": [guess] if guess else [], "kind": "strategy"})
            return AlignSpec("ordered")
        d = self.reg.strategies[strategy]
        params = {k: v for k, v in raw.items() if k not in ("match_by", "ordered")}
        if not self._check_params(d, params, where, "alignment strategy"):
            return AlignSpec("ordered")
        item_types = _types(items)
        if strategy == "key_field":
            props = items.get("properties")
            if (item_types and "object" not in item_types) or not isinstance(props, dict):
                self.problem("align-items-not-object", "key_field alignment needs items that "
                             "are objects with properties", ptr_join(where, "match_by"),
                             suggestion='use {"match_by": "hungarian"} or "set" for scalars')
            elif params["key"] not in props:
                guess = did_you_mean(str(params["key"]), props)
                self.problem("align-key-unknown", f"key {params['key']!r} is not a property of "
                             "the items", ptr_join(where, "key"),
                             suggestion=f"did you mean {guess!r}?" if guess else
                             "properties: " + ", ".join(props),
                             data={"replacements": [guess] if guess else list(props)})
        if strategy == "set" and "object" in item_types | ({"object"} if isinstance(
                items.get("properties"), dict) else set()):
            self.problem("align-set-objects", "set alignment compares scalars; these items "
                         "are objects", ptr_join(where, "match_by"), severity=Severity.WARNING,
                         suggestion='use {"match_by": "hungarian"} or "key_field"')
        if d.factory is None:
            return AlignSpec(strategy, params)
        try:
            return AlignSpec(strategy, params, d.factory(params))
        except Exception as exc:  # a user factory rejecting its parameters
            self.problem("bad-param", f"{strategy}: {exc}", where)
            return AlignSpec("ordered")


def _suggest_for_types(reg: Registry, types: frozenset[str]) -> str:
    concrete = types - {"null"}
    fits = [d.name for d in reg.comparators.values() if concrete <= d.types and not d.is_batch]
    return "comparators for this type: " + ", ".join(fits) if fits else ""


def _finalize(node: SchemaNode, sptr: str) -> None:
    """Hot-path caches: which leaves are plain, and static record pointers."""
    node.fast = (node.kind == "leaf" and not node.skip and not node.transform_fns
                 and node.compare is not None and node.null_policy == "value")
    node.sptr = sptr
    for child in node.children:
        _finalize(child, sptr + child.seg)
    if node.items is not None:
        _finalize(node.items, "")


@dataclass(frozen=True)
class SchemaCheck:
    """The outcome of checking an eval schema: the tree (when buildable) and every problem."""

    root: SchemaNode
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.ERROR)


def check_eval_schema(schema: Any, *, registry: Registry | None = None,
                      base_uri: str | None = None, defaults: bool = True,
                      null_policy: str | None = None) -> SchemaCheck:
    """Resolve, validate and build in one pass; never raises on a bad schema."""
    reg = registry or default_registry
    try:
        res = resolve(schema, base_uri=base_uri)
        builder = _Builder(res, reg, defaults)
        if not isinstance(res.schema, dict):
            builder.problem("bad-node", "an eval schema must be a JSON object", "")
            return SchemaCheck(SchemaNode(None, "", "", "leaf", frozenset()),
                               tuple(builder.problems))
        inherited = {"null": null_policy} if null_policy else {}
        root = builder.build(res.schema, name=None, path="", inherited=inherited, root=True)
    except RecursionError:
        return SchemaCheck(SchemaNode(None, "", "", "leaf", frozenset()), (Problem(
            "schema-too-deep", "the schema is nested too deeply to evaluate", "",
            "flatten it, or mark deep parts with x-eval-compare to compare them whole"),))
    _finalize(root, "")
    if root.kind == "leaf" and not root.types and "x-eval-compare" not in res.schema:
        builder.problem("root-is-leaf", "the schema root declares no type and no properties, so "
                        "each record is compared as one value", "", severity=Severity.WARNING,
                        suggestion='add "type": "object" and "properties"')
    return SchemaCheck(root, tuple(builder.problems))


def parse_eval_schema(schema: Any, *, registry: Registry | None = None,
                      base_uri: str | None = None, defaults: bool = True,
                      null_policy: str | None = None) -> SchemaNode:
    """Build the scoring tree, or raise one SchemaError listing every problem."""
    if isinstance(schema, SchemaNode):
        return schema
    if null_policy not in (None, "value", "absent"):
        raise SchemaError([Problem("bad-value", f"null policy {null_policy!r} is not "
                                   "'value' or 'absent'")])
    result = check_eval_schema(schema, registry=registry, base_uri=base_uri, defaults=defaults,
                               null_policy=null_policy)
    if result.errors:
        raise SchemaError(result.errors, "the eval schema is invalid")
    return result.root

