"""Restricting a run to some fields (``fields=``) or to a sub-tree (``target=``)."""

from __future__ import annotations

from dataclasses import replace

from evalschema.errors import InputError, Problem
from evalschema.pointer import escape, field_path
from evalschema.schema.node import SchemaNode


def _unknown(path: list[str], root: SchemaNode) -> InputError:
    from evalschema.errors import did_you_mean

    known = [n.path for n in root.walk() if n.path]
    shown = field_path(path)
    guess = did_you_mean(shown, known)
    return InputError([Problem("unknown-field", f"no field {shown!r} in the schema",
                               suggestion=f"did you mean {guess!r}?" if guess else None)])


def select_target(root: SchemaNode, segments: list[str]) -> tuple[SchemaNode, str, str]:
    """The node at ``segments`` plus the pointer and path prefix that locate it in records."""
    node = root
    for seg in segments:
        child = node.child_map.get(seg) if node.kind == "object" else None
        if child is None:
            raise _unknown(segments, root) if seg != "[]" else InputError([Problem(
                "bad-target", "a target must be an object path, not inside an array",
                suggestion="use --field to select array fields")])
        node = child
    pointer = "".join("/" + escape(s) for s in segments)
    return node, pointer, field_path(segments)


def select_fields(root: SchemaNode, selections: list[list[str]]) -> SchemaNode:
    """A copy of the tree holding only the selected fields (and what lies below them)."""
    for sel in selections:
        if _find(root, sel) is None:
            raise _unknown(sel, root)
    return _prune(root, [s for s in selections if s], depth=0) or root


def _map_segment(seg: str) -> tuple[str, str] | None:
    """``skills{}`` -> (``skills``, ``{}``): a field name with a map's key part."""
    at = seg.find("{")
    return (seg[:at], seg[at:]) if at > 0 and seg.endswith("}") else None


def _find(node: SchemaNode, segs: list[str]) -> SchemaNode | None:
    if not segs:
        return node
    seg, rest = segs[0], segs[1:]
    # A union judged branch by branch (anyOf/oneOf with x-eval-* keys) holds its fields in
    # its branches, under the union's own path (``skills[]``, ``skills{}[]``).
    for here in (node, *(b for _, _, b in node.branches)):
        if seg == "[]":
            child = here.items
        else:
            child = here.child_map.get(seg)
            split = _map_segment(seg) if child is None else None
            if split is not None and split[0] in here.child_map:
                owner = here.child_map[split[0]]
                child = next((v for o in (owner, *(b for _, _, b in owner.branches))
                              for _, v in o.values if v.path == owner.path + split[1]), None)
        found = _find(child, rest) if child is not None else None
        if found is not None:
            return found
    return None


def _prune(node: SchemaNode, selections: list[list[str]], depth: int) -> SchemaNode | None:
    if any(len(s) == depth for s in selections):
        return node  # selected whole
    here = [s for s in selections if len(s) > depth]
    if not here:
        return None
    if node.kind == "object":
        children = []
        for c in node.children:
            if any((_map_segment(s[depth]) or ("",))[0] == c.name for s in here):
                children.append(c)  # a selection inside a map keeps the whole map
                continue
            keep = [s for s in here if s[depth] == c.name]
            pruned = _prune(c, keep, depth + 1) if keep else None
            if pruned is not None:
                children.append(pruned)
        return replace(node, children=tuple(children),
                       child_map={c.name: c for c in children if c.name is not None},
                       closed=False)
    if node.kind == "array" and node.items is not None:
        keep = [s for s in here if s[depth] == "[]"]
        items = _prune(node.items, keep, depth + 1) if keep else None
        return replace(node, items=items) if items is not None else None
    return node
