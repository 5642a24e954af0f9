"""The parsed eval schema: a tree of nodes (``schema.node``) with bound comparators,
transforms and alignment strategies (``schema.bind``).

``check_eval_schema`` walks a schema once, collecting every located problem (for
the CLI's ``check`` and the language server); ``parse_eval_schema`` does the same
walk and raises one ``SchemaError`` listing them all, or returns the tree.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import regex as timed_re  # type: ignore[import-untyped]  # no stubs in the dev set
from jsonschema import Draft202012Validator

from evalschema.errors import Problem, ProblemWarning, SchemaError, Severity, did_you_mean
from evalschema.pointer import escape
from evalschema.pointer import join as ptr_join
from evalschema.results import ComparatorName
from evalschema.rules.keywords import KEYWORDS, SIMPLE_KEYWORDS
from evalschema.rules.registry import Registry, default_registry
from evalschema.safetext import nonfinite_pointer
from evalschema.schema.bind import Binder
from evalschema.schema.confidence import ConfidenceAt, resolve_at
from evalschema.schema.confidence import parse as parse_confidence
from evalschema.schema.extractbench import READING_NOTES, translate, unwrap
from evalschema.schema.node import NodeKind, SchemaNode, declared_types
from evalschema.schema.resolve import BRANCHES, Resolution, resolve


@cache
def _keyword_validator(key: str) -> Draft202012Validator:
    return Draft202012Validator(KEYWORDS[key].value_schema)


class _Builder(Binder):
    """Walks a resolved schema document into nodes (the structure); ``Binder`` binds
    what they name."""

    def __init__(self, res: Resolution, registry: Registry, defaults: bool) -> None:
        super().__init__(res, registry, defaults)
        #: Pointer forms of x-eval-confidence, by where written: (value, owning field).
        self.confidence_pointers: dict[str, tuple[str, str | None]] = {}

    # -- the walk -----------------------------------------------------------

    def build(self, schema: Any, *, name: str | None, path: str, inherited: dict[str, Any],
              root: bool = False) -> SchemaNode:
        pointer = self.res.origin(schema) if isinstance(schema, dict) else ""
        self.claim(schema)
        if not isinstance(schema, dict):
            if schema is not True:
                self.problem("bad-node", "a schema node must be an object", pointer)
            return self._leaf_any(name, path, pointer, inherited)
        types = declared_types(schema)
        self._check_type_keyword(schema)
        has_compare = "x-eval-compare" in schema
        props = schema.get("properties")
        items = schema.get("items")
        maps = _map_schemas(schema)
        if not has_compare and ((isinstance(props, dict) and props) or maps) and (
                "object" in types or not types):
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
        confidence = self._confidence(schema, kind, name, inherited)
        inherit.update(weight=weight, null=null_policy, confidence=confidence)
        skip = self._simple(schema, "x-eval-skip", False) is True
        node = SchemaNode(name, path, pointer, kind, types or frozenset(), skip=skip,
                          weight=float(weight), null_policy=null_policy,
                          seg="/" + escape(name) if name is not None else "")
        if kind == "leaf" and confidence is not None and isinstance(confidence[0], str):
            node.confidence = resolve_at(confidence[0], name, confidence[1],
                                         own="x-eval-confidence" in schema)
        if root:
            node.id_field = self._id_field(schema)
        if kind == "object":
            children = []
            ignored: set[str] = set()
            for key, sub in (props.items() if isinstance(props, dict) else ()):
                outer = self.owner
                self.owner = f"{path}.{key}" if path else key  # a field: it owns its problems
                child = self.build(sub, name=key, path=self.owner, inherited=inherit)
                self._sibling_confidence(child, props or {}, ignored)
                self.owner = outer
                if not isinstance(sub, dict) or not self.res.origin(sub):
                    child.pointer = ptr_join(ptr_join(pointer, "properties"), key)
                children.append(child)
            node.children = tuple(children)
            node.child_map = {c.name: c for c in children if c.name is not None}
            node.ignored = frozenset(ignored)
            node.values = self._map_values(maps, node, {**inherit, "repeated": True})
        elif kind == "leaf" and BRANCHES in schema and not has_compare:
            node.branches = tuple(
                (label, declared_types(alt), self._branch_node(alt, node, inherit))
                for label, alt in schema[BRANCHES])
        elif kind == "array":
            item_schema = items if isinstance(items, dict) else {}
            node.items = self.build(item_schema, name=None, path=f"{path}[]",
                                    inherited={**inherit, "repeated": True})
            if not node.items.pointer:
                node.items.pointer = ptr_join(pointer, "items")
            node.align = self._align(schema, item_schema)
        else:
            self._leaf(schema, node)
        if kind != "leaf":
            self._container_keys(schema, kind)
        if "x-eval-align" in schema and kind != "array":
            self.problem("align-not-array", "x-eval-align only applies to arrays with items; "
                         f"this node is {'a ' + kind if kind != 'leaf' else 'a leaf'}",
                         self.res.key_origin(schema, "x-eval-align"), target="key",
                         suggestion="remove x-eval-align, or declare \"type\": \"array\" with items")
        return node

    def _confidence(self, schema: dict[str, Any], kind: NodeKind, name: str | None,
                    inherited: dict[str, Any]) -> tuple[str | bool, str] | None:
        """The ``x-eval-confidence`` in force at this node, with where it is written: its
        own (checked: a bad one is an error and none is in force) or the inherited one."""
        if "x-eval-confidence" not in schema:
            return inherited.get("confidence")
        value = schema["x-eval-confidence"]
        where = self.res.key_origin(schema, "x-eval-confidence")
        why = parse_confidence(value, template=kind != "leaf",
                               repeated=bool(inherited.get("repeated")))
        if why is None and kind == "leaf" and name is None and isinstance(value, str) \
                and not value.startswith("/"):
            why = ("x-eval-confidence: a key form names a key beside the field, and array "
                   "items and map values have no name")
        if why is not None:
            self.problem("bad-confidence", why, where,
                         suggestion='e.g. "{key}_confidence" (a sibling key) or '
                         '"/confidence/{path}" (a parallel object)')
            return None
        if isinstance(value, str) and value.startswith("/"):
            self.confidence_pointers.setdefault(where, (value, self.owner))
        return value, where

    def _sibling_confidence(self, child: SchemaNode, props: dict[str, Any],
                            ignored: set[str]) -> None:
        """A child's sibling confidence key: not an extra key of its object, and never one
        of the object's declared properties."""
        at = child.confidence
        if at is None or at.key is None:
            return
        if at.key in props:
            self.problem("confidence-is-a-field", f"x-eval-confidence: {child.name!r}'s "
                         f"confidence key {at.key!r} is a property the schema scores",
                         at.where, suggestion="name a key the schema does not declare")
            return
        ignored.add(at.key)

    def confidence_parallel(self, root: SchemaNode) -> None:
        """Pointer forms: the first key on the way to their confidences that the schema
        does not declare is not an extra key (``SchemaNode.ignored``); a pointer into a
        declared field is an error."""
        for where, (value, owner) in self.confidence_pointers.items():
            node = root
            for seg in ConfidenceAt(pointer=value).fixed_prefix:
                child = node.child_map.get(seg) if node.kind == "object" else None
                if child is None:
                    node.ignored = node.ignored | {seg}
                    break
                node = child
            else:
                self.owner = owner
                self.problem("confidence-is-a-field", f"x-eval-confidence {value!r} points "
                             f"into {node.path or 'the record itself'}, which the schema "
                             "scores", where, suggestion="point at a key the schema does not "
                             'declare, e.g. "/confidence/{path}"')
        self.owner = None

    def _map_values(self, maps: list[tuple[str | None, Any]], node: SchemaNode,
                    inherit: dict[str, Any]) -> tuple[tuple[Any, SchemaNode], ...]:
        """The value nodes of a map (``SchemaNode.values``); a pattern that does not
        compile is reported and left out."""
        out: list[tuple[Any, SchemaNode]] = []
        for pattern, sub in maps:
            where = ptr_join(node.pointer, "additionalProperties") if pattern is None else \
                ptr_join(ptr_join(node.pointer, "patternProperties"), pattern)
            compiled: Any = None
            if pattern is not None:
                try:
                    compiled = timed_re.compile(pattern)
                except timed_re.error as exc:
                    self.problem("bad-pattern", f"patternProperties: {pattern!r} is not a "
                                 f"regular expression: {exc}", where, target="key",
                                 suggestion="fix the pattern (Python regex syntax)")
                    continue
            key = "{}" if len(maps) == 1 or pattern is None else "{/" + pattern + "/}"
            value = self.build(sub, name=None, path=node.path + key, inherited=inherit)
            if not value.pointer:
                value.pointer = where
            out.append((compiled, value))
        return tuple(out)

    def _branch_node(self, alt: dict[str, Any], union: SchemaNode,
                     inherit: dict[str, Any]) -> SchemaNode:
        """One branch of ``union``: its field path and record segment are the union's."""
        node = self.build(alt, name=union.name, path=union.path, inherited=inherit)
        node.seg = union.seg
        if "x-eval-null" in alt:
            self.problem("ignored-key", "x-eval-null has no effect here: a null is judged for "
                         "the union as a whole, before a branch is picked",
                         self.res.key_origin(alt, "x-eval-null"), target="key",
                         severity=Severity.WARNING,
                         suggestion="write x-eval-null on the union, next to anyOf/oneOf")
        return node

    def _container_keys(self, schema: dict[str, Any], kind: NodeKind) -> None:
        """Leaf-only keys on an object or array: they would judge nothing."""
        if "x-eval-transform" in schema:
            self.problem("transform-on-container", f"x-eval-transform on an {kind} has no "
                         "effect: transforms apply to leaves", self.res.key_origin(schema,
                         "x-eval-transform"), target="key",
                         suggestion="move it to the fields below, or add x-eval-compare to "
                         f"compare the {kind} as one value")
        if "x-eval-threshold" in schema:
            self.problem("threshold-on-container", f"x-eval-threshold on an {kind} has no "
                         "effect: a threshold applies to the leaf it is on, and is not "
                         "inherited", self.res.key_origin(schema, "x-eval-threshold"),
                         target="key", severity=Severity.WARNING,
                         suggestion="move it to the fields below, or add x-eval-compare to "
                         f"compare the {kind} as one value")

    def report_ignored(self, document: Any) -> None:
        """``ignored-key``: every x-eval-* key written in the schema document that no built
        node read, with why (``_key_sites``), so ``check`` never says ok for a key the
        engine ignores."""
        sites: list[tuple[str, str]] = []
        _key_sites(document, "", None, sites)
        for where, why in sites:
            if where not in self.used:
                key = where.rsplit("/", 1)[1]
                self.problem("ignored-key", f"{key} has no effect here: {why}", where,
                             target="key", severity=Severity.WARNING,
                             suggestion="move it to the field it should judge, or remove it")

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
            self.used.add(where)
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

#: Keywords whose subschemas describe no field of the record: nothing under them is scored.
_NOT_FIELDS = ("not", "if", "then", "else", "contains", "propertyNames", "dependentSchemas",
               "dependencies", "unevaluatedProperties", "unevaluatedItems", "additionalItems")
_OVERRIDDEN = ("another value of this key for the same field wins: allOf, a $ref's "
               "siblings and anyOf/oneOf object shapes merge into one node, the later key "
               "overriding the earlier")


def _key_sites(node: Any, ptr: str, why: str | None, out: list[tuple[str, str]]) -> None:
    """(pointer, why it would be ignored) of every x-eval-* key in the schema positions of
    a raw schema document; ``why`` is the outermost reason that applies."""
    if not isinstance(node, dict):
        return
    here = why
    if here is None:
        segs = ptr.split("/")
        here = _OVERRIDDEN if {"allOf", "anyOf", "oneOf"} & set(segs) else \
            "the node it stands in is not scored as a field"
    out.extend((ptr_join(ptr, k), here) for k in node if isinstance(k, str)
               and k.startswith("x-eval-"))
    below = why or (f"the node at {ptr or '/'} compares its whole value as one (its "
                    "x-eval-compare), so nothing below it is judged on its own"
                    if "x-eval-compare" in node else None)
    for k, v in node.items():
        p = ptr_join(ptr, k)
        if k in ("properties", "patternProperties", "$defs", "definitions") \
                and isinstance(v, dict):
            sub_why = below if k not in ("$defs", "definitions") else (
                below or "no $ref uses this definition, so it judges nothing")
            for name, sub in v.items():
                _key_sites(sub, ptr_join(p, name), sub_why, out)
        elif k == "prefixItems" or (k == "items" and isinstance(v, list)):
            tuple_why = below or ("tuple items (prefixItems, or items as a list) are not "
                                  "judged one by one: the array is compared as one value")
            for i, sub in enumerate(v if isinstance(v, list) else []):
                _key_sites(sub, ptr_join(p, i), tuple_why, out)
        elif k in ("allOf", "anyOf", "oneOf") and isinstance(v, list):
            for i, sub in enumerate(v):
                _key_sites(sub, ptr_join(p, i), below, out)
        elif k in ("items", "additionalProperties"):
            _key_sites(v, p, below, out)
        elif k in _NOT_FIELDS:
            not_why = below or (f"under {k}, which describes no field of the record, so "
                                "nothing under it is scored")
            if k == "dependentSchemas" and isinstance(v, dict):
                for name, sub in v.items():
                    _key_sites(sub, ptr_join(p, name), not_why, out)
            else:
                _key_sites(v, p, not_why, out)


def _map_schemas(schema: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """A map's value schemas: ``patternProperties`` (in order), then a schema-valued
    ``additionalProperties`` (``true``/``false`` only open or close the object)."""
    out: list[tuple[str | None, Any]] = []
    pats = schema.get("patternProperties")
    if isinstance(pats, dict):
        out.extend((k, v) for k, v in pats.items() if isinstance(v, dict) or v is True)
    addl = schema.get("additionalProperties")
    if isinstance(addl, dict):
        out.append((None, addl))
    return out


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
    for _, _, branch in node.branches:
        _finalize(branch, sptr)
    for _, value in node.values:
        _finalize(value, "")


@dataclass(frozen=True)
class SchemaCheck:
    """The outcome of checking an eval schema: the tree (when buildable) and every problem."""

    root: SchemaNode
    problems: tuple[Problem, ...]
    #: The errors that belong to one field (docs/schemas.md, "A schema with errors"):
    #: (the field's path, its errors), in schema order. Every other error is ``fatal``.
    field_errors: tuple[tuple[str, tuple[Problem, ...]], ...] = ()

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.ERROR)

    @property
    def fatal(self) -> tuple[Problem, ...]:
        """The errors no field owns (the root's, the file's): the schema cannot be scored."""
        owned = {_key(p) for _, probs in self.field_errors for p in probs}
        return tuple(p for p in self.errors if _key(p) not in owned)


def _key(p: Problem) -> tuple[Any, ...]:
    return (p.code, p.message, p.pointer, p.severity, p.target, p.source, p.line, p.column)


def distinct(problems: Iterable[Problem]) -> tuple[Problem, ...]:
    """Each problem once: a ``$defs`` entry used by several ``$ref``s is bound once per use,
    and a problem in it would otherwise be listed once per use, at the same place."""
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for p in problems:
        key = _key(p)
        if key not in seen:
            seen.add(key)
            kept.append(p)
    return tuple(kept)


def _field_errors(problems: list[Problem], owners: list[str | None]
                  ) -> tuple[tuple[str, tuple[Problem, ...]], ...]:
    """``SchemaCheck.field_errors``: each owned error under its field. A problem found
    both in a field and outside any (the same ``$defs`` entry used twice) stays fatal."""
    unowned = {_key(p) for p, o in zip(problems, owners, strict=True) if o is None}
    owned: dict[str, list[Problem]] = {}
    for p, owner in zip(problems, owners, strict=True):
        if owner is not None and p.severity is Severity.ERROR and _key(p) not in unowned:
            owned.setdefault(owner, []).append(p)
    return tuple((f, distinct(probs)) for f, probs in owned.items())


def check_eval_schema(schema: Any, *, registry: Registry | None = None,
                      base_uri: str | None = None, defaults: bool = True,
                      null_policy: str | None = None) -> SchemaCheck:
    """Resolve, validate and build in one pass; never raises on a bad schema."""
    reg = registry or default_registry
    try:
        inner, prefix, notes = unwrap(schema)
        read = translate(inner, prefix=prefix)
        res = resolve(read.schema, base_uri=base_uri)
        builder = _Builder(res, reg, defaults)
        if not isinstance(res.schema, dict):
            builder.problem("bad-node", "an eval schema must be a JSON object", "")
            return SchemaCheck(SchemaNode(None, "", "", "leaf", frozenset()),
                               tuple(builder.problems))
        inherited = {"null": null_policy} if null_policy else {}
        root = builder.build(res.schema, name=None, path="", inherited=inherited, root=True)
        builder.confidence_parallel(root)
    except RecursionError:
        return SchemaCheck(SchemaNode(None, "", "", "leaf", frozenset()), (Problem(
            "schema-too-deep", "the schema is nested too deeply to evaluate", "",
            "flatten it, or mark deep parts with x-eval-compare to compare them whole"),))
    _finalize(root, "")
    builder.report_ignored(schema)
    if root.kind == "leaf" and not root.types and "x-eval-compare" not in res.schema:
        builder.problem("root-is-leaf", "the schema root declares no type and no properties, so "
                        "each record is compared as one value", "", severity=Severity.WARNING,
                        suggestion='add "type": "object" and "properties"')
    problems = builder.problems
    if prefix or read.added:
        # Pointers into the file the user wrote: under the wrapper, and at the
        # evaluation_config an added x-eval key was read from.
        problems = [replace(p, pointer=prefix + read.relocate(p.pointer)) for p in problems]
        if prefix:
            for node in root.walk():
                node.pointer = prefix + node.pointer
    return SchemaCheck(root, distinct((*notes, *read.problems, *problems)),
                       _field_errors(problems, builder.owners))


def _checked(schema: Any, registry: Registry | None, base_uri: str | None, defaults: bool,
             null_policy: str | None) -> SchemaCheck:
    if null_policy not in (None, "value", "absent"):
        raise SchemaError([Problem("bad-value", f"null policy {null_policy!r} is not "
                                   "'value' or 'absent'")])
    return check_eval_schema(schema, registry=registry, base_uri=base_uri, defaults=defaults,
                             null_policy=null_policy)


def _ready(result: SchemaCheck, base_uri: str | None, fatal: tuple[Problem, ...]
           ) -> tuple[Problem, ...]:
    """The check's errors, each naming the schema's file when there is one; raises them
    all, ``fatal`` first, when it holds any, else warns the reading notes (what a run
    reads differently from what is written)."""
    errors = tuple(replace(p, source=p.source or base_uri) for p in result.errors)
    if fatal:
        first = [e for e, p in zip(errors, result.errors, strict=True) if p in fatal]
        raise SchemaError([*first, *(e for e in errors if e not in first)],
                          "the eval schema is invalid")
    for p in result.problems:
        if p.code in READING_NOTES:
            warnings.warn(ProblemWarning(replace(p, source=base_uri)), stacklevel=3)
    return errors


def parse_eval_schema(schema: Any, *, registry: Registry | None = None,
                      base_uri: str | None = None, defaults: bool = True,
                      null_policy: str | None = None) -> SchemaNode:
    """Build the scoring tree, or raise one SchemaError listing every problem."""
    if isinstance(schema, SchemaNode):
        return schema
    result = _checked(schema, registry, base_uri, defaults, null_policy)
    _ready(result, base_uri, result.errors)
    return result.root


@dataclass(frozen=True)
class PartialSchema:
    """A scoring tree built despite errors: each field that owns some is a broken leaf
    (``SchemaNode.broken``), scored as ``error``; ``tolerated`` lists every error."""

    root: SchemaNode
    tolerated: tuple[Problem, ...] = ()


def parse_partial(schema: Any, *, registry: Registry | None = None,
                  base_uri: str | None = None, defaults: bool = True,
                  null_policy: str | None = None) -> PartialSchema:
    """``parse_eval_schema`` that scores what it can: an error inside a field makes that
    field (the nearest property of an object at or above it, with all below it) an
    ``error`` in every record; only errors no field owns (``SchemaCheck.fatal``: the
    root's, a file that does not read) raise ``SchemaError``, listing every error."""
    if isinstance(schema, SchemaNode):
        return PartialSchema(schema)
    result = _checked(schema, registry, base_uri, defaults, null_policy)
    tolerated = _ready(result, base_uri, result.fatal)
    if result.field_errors:
        _break(result.root, {f: "schema error: " + "; ".join(
            p.message + (f" ({p.suggestion})" if p.suggestion else "") for p in probs)
            for f, probs in result.field_errors})
    return PartialSchema(result.root, tolerated)


def _break(node: SchemaNode, broken: dict[str, str]) -> None:
    """Each field of ``broken`` (path -> why) below ``node`` replaced by a broken leaf."""
    if node.children:
        node.children = tuple(_broken_leaf(c, broken[c.path]) if c.path in broken else c
                              for c in node.children)
        node.child_map = {c.name: c for c in node.children if c.name is not None}
    for child in node.children:
        if child.broken is None:
            _break(child, broken)
    if node.items is not None:
        _break(node.items, broken)
    for _, _, branch in node.branches:
        _break(branch, broken)
    for _, value in node.values:
        _break(value, broken)


def _broken_leaf(node: SchemaNode, why: str) -> SchemaNode:
    return SchemaNode(node.name, node.path, node.pointer, "leaf", node.types, weight=node.weight,
                      null_policy=node.null_policy, seg=node.seg, sptr=node.sptr, broken=why)
