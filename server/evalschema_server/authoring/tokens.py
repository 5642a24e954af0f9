"""Semantic tokens: x-eval-* keys stand out from plain JSON Schema."""

from __future__ import annotations

from .analysis import XEVAL_PREFIX, SchemaAnalysis

TOKEN_TYPES = ["keyword", "function"]
TOKEN_MODIFIERS: list[str] = []


def semantic_tokens(analysis: SchemaAnalysis) -> list[tuple[int, int, int]]:
    """(offset, length, token type index) for every x-eval key, in document order."""
    out: list[tuple[int, int, int]] = []
    root = analysis.doc.root
    if root is None:
        return out
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind == "property" and node.key_node is not None:
            key = node.key_node.value
            if isinstance(key, str) and key.startswith(XEVAL_PREFIX):
                out.append((node.key_node.offset, node.key_node.length, 0))
            if node.value_node is not None:
                stack.append(node.value_node)
        else:
            stack.extend(node.children)
    out.sort()
    return out
