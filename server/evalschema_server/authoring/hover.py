"""Hover: docs for x-eval keys and registry names; a field's effective evaluation config."""

from __future__ import annotations

from evalschema.rules.keywords import KEYWORDS
from evalschema.rules.registry import Registry
from evalschema.schema.node import SchemaNode

from ..document import Node
from .analysis import SchemaAnalysis
from .context import key_of, param_doc, param_entry, parent_property, role_of


def hover(analysis: SchemaAnalysis, offset: int, registry: Registry
          ) -> tuple[str, int, int] | None:
    """Markdown and the span it is about, or None."""
    node = analysis.doc.node_at(offset)
    if node is None or node.kind != "string":
        return None
    prop = node.parent if node.parent is not None and node.parent.kind == "property" else None
    name = node.value if isinstance(node.value, str) else ""
    if prop is not None and prop.key_node is node:
        return _on_key(analysis, prop, name, registry, node)
    return _on_value(analysis, node, name, registry)


def _on_key(analysis: SchemaAnalysis, prop: Node, name: str, registry: Registry,
            node: Node) -> tuple[str, int, int] | None:
    span = (node.offset, node.end)
    if name in KEYWORDS:
        kw = KEYWORDS[name]
        return f"**{name}**\n\n{kw.doc}", *span
    owner = prop.parent
    holder = parent_property(owner) if owner is not None else None
    if key_of(holder) == "x-eval-compare" and name in registry.comparators:
        return f"**comparator `{name}`**\n\n{registry.comparators[name].doc}", *span
    if (key_of(holder) in ("properties", "patternProperties") or (name == "additionalProperties"
            and owner is not None and role_of(owner, registry).role == "schema")) \
            and prop.value_node is not None and prop.value_node.kind == "object":
        field = analysis.schema_node_for(prop.value_node)
        if field is not None:
            return effective_config(field), *span
    if owner is not None and owner.kind == "object":
        role = role_of(owner, registry)
        entry = param_entry(role, registry)
        spec = entry.param_spec((*role.path, name)) if entry is not None else None
        if entry is not None and spec is not None:
            return param_doc(".".join((*role.path, name)), spec, entry), *span
    if owner is not None and owner.parent is not None and owner.parent.kind == "array" \
            and name in registry.transforms:
        return f"**transform `{name}`**\n\n{registry.transforms[name].doc}", *span
    return None


def _on_value(analysis: SchemaAnalysis, node: Node, name: str,
              registry: Registry) -> tuple[str, int, int] | None:
    span = (node.offset, node.end)
    parent = node.parent
    if parent is None:
        return None
    if parent.kind == "property":
        key = key_of(parent)
        if key == "x-eval-compare" and name in registry.comparators:
            return f"**comparator `{name}`**\n\n{registry.comparators[name].doc}", *span
        if key == "match_by" and name in registry.strategies:
            return f"**alignment `{name}`**\n\n{registry.strategies[name].doc}", *span
        if key == "x-eval-null" or key == "x-eval-id":
            return f"**{key}**\n\n{KEYWORDS[key].doc}", *span
    if parent.kind == "array" and key_of(parent_property(parent)) == "x-eval-transform" \
            and name in registry.transforms:
        return f"**transform `{name}`**\n\n{registry.transforms[name].doc}", *span
    owner = parent.parent if parent.kind == "property" else None
    if owner is not None and role_of(owner, registry).role == "schema" and key_of(parent) == "$ref":
        return None
    return None


def effective_config(field: SchemaNode) -> str:
    """The field's evaluation after defaults and inheritance, as markdown."""
    lines = [f"**{field.path or '(record)'}**: {field.kind}"
             + (f" ({', '.join(sorted(field.types))})" if field.types else "")]
    if field.skip:
        lines.append("- skipped (`x-eval-skip`)")
    elif field.kind == "leaf" and not field.branches:
        lines.append(f"- comparator: `{field.label or field.comparator}`")
        if field.transforms:
            lines.append("- transforms: " + " → ".join(f"`{n}`" for n, _ in field.transforms))
        if field.threshold != 1.0:
            lines.append(f"- match at score ≥ {field.threshold:g}")
    elif field.kind == "array" and field.align is not None:
        params = ", ".join(f"{k}: {v}" for k, v in field.align.params.items())
        lines.append(f"- alignment: `{field.align.strategy}`" + (f" ({params})" if params else ""))
    elif field.kind == "object":
        lines.append(f"- {len(field.children)} fields")
    if field.values:
        lines.append("- a map: each key judged on its own, as "
                     + ", ".join(f"`{v.path}`" for _, v in field.values))
    if field.branches:
        lines.append("- judged by the first branch taking gold's JSON type (else the "
                     "extracted value's): " + "; ".join(
                         f"{label} ({'/'.join(sorted(types)) or 'any'}): "
                         f"`{b.label or b.comparator or b.kind}`"
                         for label, types, b in field.branches))
    lines.append(f"- weight: {field.weight:g}")
    lines.append(f"- null: {'an ordinary value' if field.null_policy == 'value' else 'absent'}")
    return "\n".join(lines)
