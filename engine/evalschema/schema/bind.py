"""Binding what a schema names in the registry to its nodes: comparators, transforms and
alignment strategies, each with its parameters checked, then bound (``factory(params)``)
once, at parse time.

The seam with ``schema.tree``: the tree walks the document's structure (node kinds,
inherited settings, the ``x-eval-`` keys themselves); ``Binder``, which the tree's builder
extends, resolves names against a ``Registry`` and reports every problem it finds, located.
"""

from __future__ import annotations

import math
import re
from typing import Any

from evalschema.errors import Problem, Severity, did_you_mean
from evalschema.pointer import join as ptr_join
from evalschema.rules.registry import ComparatorDef, Entry, Registry
from evalschema.schema.node import AlignSpec, SchemaNode, declared_types
from evalschema.schema.resolve import Resolution

#: Default comparator by JSON type for leaves without ``x-eval-compare``.
TYPE_DEFAULTS: dict[str, str] = {
    "string": "exact",
    "number": "numeric",
    "integer": "numeric",
    "boolean": "exact",
}


def entry_ref(raw: Any) -> tuple[str, Any] | None:
    """``"name"`` or ``{"name": {...params}}`` -> (name, params); None when malformed."""
    if isinstance(raw, str):
        return raw, {}
    if isinstance(raw, dict) and len(raw) == 1:
        name, params = next(iter(raw.items()))
        return name, params
    return None


class Binder:
    """Binds registry entries to nodes, collecting problems (see the module docstring)."""

    def __init__(self, res: Resolution, registry: Registry, defaults: bool) -> None:
        self.res = res
        self.reg = registry
        self.defaults = defaults
        self.problems: list[Problem] = list(res.problems)
        #: Where each x-eval-* key read by a built node was written (``ignored-key``).
        self.used: set[str] = set()
        #: The path of the field whose node is being built (None: the root's own keys).
        self.owner: str | None = None
        #: Per problem, the field it makes unusable (``owner`` when it was found; None
        #: for the root's and for the resolution's, until a field claims them).
        self.owners: list[str | None] = [None] * len(self.problems)

    def problem(self, code: str, message: str, pointer: str, *, suggestion: str | None = None,
                target: str = "value", severity: Severity = Severity.ERROR,
                data: dict[str, Any] | None = None) -> None:
        self.problems.append(Problem(code, message, pointer, suggestion, severity, target,
                                     data=data or {}))
        self.owners.append(self.owner)

    def claim(self, schema: Any) -> None:
        """The field being built owns the problem of the ``$ref`` that ``schema`` stands
        in for (``Resolution.failed``), if it does stand in for one."""
        index = self.res.failed.get(id(schema))
        if index is not None:
            self.owners[index] = self.owner

    # -- leaves: a comparator, transforms, a threshold ---------------------

    def _leaf(self, schema: dict[str, Any], node: SchemaNode) -> None:
        if "x-eval-compare" in schema:
            where = self.res.key_origin(schema, "x-eval-compare")
            ref = entry_ref(schema["x-eval-compare"])
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
            self._bind_comparator(node, name, {}, None, node.pointer)
        else:
            self.problem("missing-compare", "leaf has no x-eval-compare", node.pointer,
                         suggestion="run annotate_xeval (evalschema infer/annotate) or add one")
        if "x-eval-transform" in schema:
            self._transforms(schema, node)
        if "x-eval-threshold" in schema and isinstance(schema["x-eval-threshold"], int | float) \
                and not isinstance(schema["x-eval-threshold"], bool) \
                and 0 <= schema["x-eval-threshold"] <= 1:
            node.threshold = float(schema["x-eval-threshold"])

    def _bind_comparator(self, node: SchemaNode, name: str, params: Any,
                         schema: dict[str, Any] | None, where: str) -> None:
        """``schema`` is the node's schema when its ``x-eval-compare`` names ``name``; None
        when nothing written does (a type default, a fallback)."""
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
        refused = bool(missing)
        if d.params_valid(params):
            return not refused
        for err in d.param_validator().iter_errors(params):
            if err.validator == "required" and not err.absolute_path:
                continue  # reported above, with its fix
            refused = True
            path = list(err.absolute_path)
            ptr = where
            for seg in path:
                ptr = ptr_join(ptr, seg)
            if err.validator == "additionalProperties" and isinstance(err.instance, dict):
                self._unknown_params(d, kind, err.instance, err.schema, path, ptr)
            else:
                self.problem("bad-param", f"{d.name}: {'/'.join(map(str, path)) or 'params'}: "
                             f"{err.message}", ptr)
        return not refused

    def _unknown_params(self, d: Entry, kind: str, given: dict[str, Any], schema: Any,
                        path: list[Any], where: str) -> None:
        """One problem per key the parameter schema does not know, at any depth, with the
        closest known key (``tolerance.rell`` -> ``rel``)."""
        known = schema.get("properties", {})  # ``schema`` holds the additionalProperties
        patterns = schema.get("patternProperties", {})
        dotted = ".".join(map(str, path))
        for extra in given:
            if extra in known or any(re.search(p, extra) for p in patterns):
                continue
            guess = did_you_mean(extra, known)
            name = f"{dotted}.{extra}" if dotted else extra
            self.problem("unknown-param", f"{kind} {d.name!r} has no parameter {name!r}",
                         ptr_join(where, extra), target="key",
                         suggestion=f"did you mean {guess!r}?" if guess else
                         (f"{dotted or 'parameters'}: " + ", ".join(known) if known else
                          "it takes no parameters"),
                         data={"replacements": [guess] if guess else []})

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
            ref = entry_ref(item)
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
            if concrete and d.types and not concrete <= d.types:
                self.problem("transform-type", f"transform {name!r} does not apply to "
                             f"{'/'.join(sorted(concrete))} values", item_ptr,
                             severity=Severity.WARNING,
                             suggestion="it takes " + ", ".join(sorted(d.types - {'null'})))
            assert d.factory is not None
            specs.append((name, params))
            fns.append(d.factory(params))
        node.transforms = tuple(specs)
        node.transform_fns = tuple(fns)

    # -- arrays: an alignment strategy --------------------------------------

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
        item_types = declared_types(items)
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
        if strategy == "set" and "object" in item_types:  # properties alone imply object
            self.problem("align-set-objects", "set alignment compares scalars; these items "
                         "are objects", ptr_join(where, "match_by"), severity=Severity.WARNING,
                         suggestion='use {"match_by": "hungarian"} or "key_field"')
        if d.factory is None:
            self.problem("strategy-no-function", f"alignment strategy {strategy!r} has no "
                         "function in the registry, so it cannot run", ptr_join(where,
                         "match_by"), suggestion="register it with register_strategy(name, fn)")
            return AlignSpec("ordered")
        try:
            return AlignSpec(strategy, params, d.factory(params))
        except Exception as exc:  # a user factory rejecting its parameters
            self.problem("bad-param", f"{strategy}: {exc}", where)
            return AlignSpec("ordered")


def _suggest_for_types(reg: Registry, types: frozenset[str]) -> str:
    concrete = types - {"null"}
    fits = [d.name for d in reg.comparators.values() if concrete <= d.types and not d.is_batch]
    return "comparators for this type: " + ", ".join(fits) if fits else ""
