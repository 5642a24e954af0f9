"""The language server's document model: a tolerant JSON/JSONC parser and a line index.

``parse(text)`` always returns a :class:`JsonDocument` (tree of :class:`Node`, syntax
issues, comments, :class:`LineIndex`), whatever the text; ``parse_lines`` does the
same per line of a JSONL text. Read bottom-up: ``lines`` (offsets to positions),
``tree`` (what a parse returns, and the lookups on it), ``scanner`` (token
patterns, rare-token decoding), ``parser`` (the one-pass, never-failing parse).
"""

from .lines import ENCODINGS, LineIndex
from .parser import parse, parse_lines
from .tree import ISSUE_CODES, Comment, JsonDocument, Node, NodeKind, SyntaxIssue

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
