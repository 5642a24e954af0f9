"""What the server knows about one eval schema document, computed once per version.

Parsing (tolerant, offset-keeping) and the engine's schema check run together;
every feature (diagnostics, completion, hover, actions, symbols) reads the same
``SchemaAnalysis``. The engine speaks JSON Pointers; this module turns them into
text ranges through the document tree.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from evalschema.errors import Problem, Severity
from evalschema.pointer import escape
from evalschema.pointer import split as split_pointer
from evalschema.rules.registry import Registry
from evalschema.run.gcpause import gc_paused
from evalschema.schema.node import SchemaNode
from evalschema.schema.tree import SchemaCheck, check_eval_schema

from ..document import JsonDocument, Node, parse

XEVAL_PREFIX = "x-eval-"
#: extract-bench's per-field key: a schema holding it is an eval schema too (the engine
#: reads it as x-eval keys, evalschema.schema.extractbench).
FOREIGN_CONFIG_KEY = "evaluation_config"

#: Text that may make the engine's check read files: a ``$ref`` to another document, an
#: ``$id`` (which moves the base of every reference), or an escape that could spell
#: either. Such a schema is checked off the event loop (see ``open_schemas.OpenSchemas``):
#: a reference to a FIFO or a slow disk must not stop the server answering.
_READS_FILES = re.compile(r'\\u|"\$id"|"\$ref"\s*:\s*"(?!#)')


def reads_files(text: str) -> bool:
    return _READS_FILES.search(text) is not None


@dataclass(frozen=True)
class Located:
    """A problem with its text span (offsets into the document)."""

    problem: Problem
    start: int
    end: int


class SchemaAnalysis:
    """A parsed document; the engine's check runs on first use (completion never needs it)."""

    def __init__(self, text: str, doc: JsonDocument, registry: Registry,
                 base_uri: str | None = None, *, deferred: bool = False) -> None:
        self.text = text
        self.doc = doc
        self._registry = registry
        self._base_uri = base_uri
        self._check: SchemaCheck | None = None
        self._checked = False
        #: The check runs elsewhere (``run_check`` on a worker thread, then ``set_check``);
        #: until then there is none, and features work from the text alone.
        self.deferred = deferred
        self._located: list[Located] | None = None
        self._nodes: dict[str, SchemaNode] | None = None

    @property
    def check(self) -> SchemaCheck | None:
        if not self._checked and not self.deferred:
            self._checked = True
            with gc_paused():
                self._check = self.run_check()
        return self._check

    def run_check(self) -> SchemaCheck | None:
        """The engine's check of this document (may read the files ``$ref`` names)."""
        value = self.value()
        if not isinstance(value, dict):
            return None
        return check_eval_schema(value, registry=self._registry, base_uri=self._base_uri)

    def set_check(self, check: SchemaCheck | None) -> None:
        """The result of a deferred check."""
        self._check, self._checked, self.deferred = check, True, False
        self._located = self._nodes = None

    @property
    def located(self) -> list[Located]:
        """Syntax issues and schema problems, each with its text span."""
        if self._located is None:
            out = [Located(Problem(i.code, i.message, severity=Severity.WARNING
                                   if i.code == "duplicate-key" else Severity.ERROR),
                           i.offset, i.offset + max(i.length, 0)) for i in self.doc.issues]
            if self.check is not None:
                for problem in self.check.problems:
                    start, end = locate(self.doc, problem.pointer, problem.target)
                    out.append(Located(problem, start, end))
            self._located = out
        return self._located

    @property
    def nodes(self) -> dict[str, SchemaNode]:
        """Schema nodes by the JSON Pointer of the object that declares them."""
        if self._nodes is None:
            self._nodes = {}
            if self.check is not None:
                for node in self.check.root.walk():
                    self._nodes.setdefault(node.pointer, node)
        return self._nodes

    def value(self) -> Any:
        """The document's JSON value: the C parser when the text is valid, else best effort."""
        if not self.doc.issues:
            try:
                return json.loads(self.text)
            except (ValueError, RecursionError):
                pass
        return self.doc.value()

    def schema_node_for(self, obj: Node) -> SchemaNode | None:
        """The engine's node for a schema object in the text, if it is one."""
        return self.nodes.get(self.doc.pointer(obj))


def analyze(text: str, registry: Registry, *, base_uri: str | None = None,
            deferred: bool = False) -> SchemaAnalysis:
    # A parse allocates a node per token; collections triggered midway would scan
    # the whole live tree for nothing (the new tree is all reachable).
    with gc_paused():
        return SchemaAnalysis(text, parse(text, comments=True), registry, base_uri,
                              deferred=deferred)


def release(doc: JsonDocument) -> None:
    """Break a replaced tree's parent links so reference counting frees it at once.

    Nodes point at their parents and children: cycles that only the (slow, whole-heap)
    cyclic collector would otherwise reclaim, one per keystroke.
    """
    stack = [doc.root] if doc.root is not None else []
    while stack:
        node = stack.pop()
        node.parent = None
        stack.extend(node.children)
        if node.key_node is not None:
            node.key_node.parent = None
        if node.value_node is not None and node.kind == "property":
            stack.append(node.value_node)


def locate(doc: JsonDocument, pointer: str, target: str = "value") -> tuple[int, int]:
    """Text span for a pointer: the key or the value, else the nearest ancestor present.

    A missing property is reported on its parent's key (as vscode-json-languageservice
    does): the user sees where to add it.
    """
    try:
        segments = split_pointer(pointer)
    except ValueError:
        segments = []
    while True:
        ptr = "".join("/" + escape(s) for s in segments)
        if target == "key" and segments:
            prop = doc.property_at_pointer(ptr)
            if prop is not None and prop.key_node is not None:
                return prop.key_node.offset, prop.key_node.end
        node = doc.node_at_pointer(ptr)
        if node is not None:
            if node.kind in ("object", "array") and node.parent is not None \
                    and node.parent.kind == "property" and node.parent.key_node is not None:
                # A whole object: mark its key, not twenty lines.
                return node.parent.key_node.offset, node.parent.key_node.end
            if node.kind in ("object", "array"):
                return node.offset, min(node.end, node.offset + 1)
            return node.offset, node.end
        if not segments:
            return 0, min(1, len(doc.text))
        segments = segments[:-1]
        target = "key"


def has_xeval_keys(doc: JsonDocument) -> bool:
    """True when the document has an ``x-eval-*`` (or extract-bench ``evaluation_config``)
    key anywhere (keys only, not values)."""
    stack = [doc.root] if doc.root is not None else []
    while stack:
        node = stack.pop()
        if node.kind == "property":
            key = node.key_node.value if node.key_node is not None else None
            if isinstance(key, str) and (key.startswith(XEVAL_PREFIX)
                                         or key == FOREIGN_CONFIG_KEY):
                return True
            if node.value_node is not None:
                stack.append(node.value_node)
        else:
            stack.extend(node.children)
    return False
