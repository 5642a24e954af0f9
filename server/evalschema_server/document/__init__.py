"""The language server's document model: a tolerant JSON/JSONC parser and a line index.

``parse(text)`` always returns a :class:`JsonDocument` (tree of :class:`Node`, syntax
issues, comments, :class:`LineIndex`), whatever the text; ``parse_lines`` does the
same per line of a JSONL text.
"""

from .jsonparse import (
    ISSUE_CODES,
    Comment,
    JsonDocument,
    Node,
    NodeKind,
    SyntaxIssue,
    parse,
    parse_lines,
)
from .lines import ENCODINGS, LineIndex

__all__ = [
    "ENCODINGS",
    "ISSUE_CODES",
    "Comment",
    "JsonDocument",
    "LineIndex",
    "Node",
    "NodeKind",
    "SyntaxIssue",
    "parse",
    "parse_lines",
]
