"""The parsed eval schema: a tree of nodes (``schema.node``) with bound comparators,
transforms and alignment strategies (``schema.bind``).

``check_eval_schema`` walks a schema once, collecting every located problem (for
the CLI's ``check`` and the language server); ``parse_eval_schema`` does the same
walk and raises one ``SchemaError`` listing them all, or returns the tree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from evalschema.errors import Problem, SchemaError, Severity, did_you_mean
from evalschema.pointer import escape
from evalschema.pointer import join as ptr_join
from evalschema.results import ComparatorName
from evalschema.rules.keywords import KEYWORDS, SIMPLE_KEYWORDS
from evalschema.rules.registry import Registry, default_registry
from evalschema.safetext import nonfinite_pointer
from evalschema.schema.bind import Binder
from evalschema.schema.node import NodeKind, SchemaNode, declared_types
from evalschema.schema.resolve import resolve


@cache
def _keyword_validator(key: str) -> Draft202012Validator:
    return Draft202012Validator(KEYWORDS[key].value_schema)


class _Builder(Binder):
    """Walks a resolved schema document into nodes (the structure); ``Binder`` binds
    what they name."""

    # -- the walk -----------------------------------------------------------

    def build(self, schema: Any, *, name: str | None, path: str, inherited: dict[str, Any],
              root: bool = False) -> SchemaNode:
        pointer = self.res.origin(schema) if isinstance(schema, dict) else ""
        if not isinstance(schema, dict):
            if schema is not True:
                self.problem("bad-node", "a schema node must be an object", pointer)
            return self._leaf_any(name, path, pointer, inherited)
        types = declared_types(schema)
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

def _finalize(node: SchemaNode, sptr: str) -> None:
    """Hot-path caches: which leaves are plain, and static record pointers; the comparator's
    name with what a mismatch's reason needs (``results.ComparatorName``)."""
    if node.comparator is not None:
        node.comparator = ComparatorName(node.comparator, node.label, node.threshold)
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

