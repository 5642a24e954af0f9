"""The nodes of a parsed eval schema: one per field, ready to score.

Built by ``schema.tree`` (the document's structure) and ``schema.bind`` (what each node
names in the registry), then only read: by the scorers, the reports and the editors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from evalschema import limits
from evalschema.jsontypes import json_type
from evalschema.rules.alignment import ordered
from evalschema.rules.registry import Align, BatchCompare, Compare, MatrixCompare, Transform
from evalschema.schema.confidence import ConfidenceAt

NodeKind = Literal["object", "array", "leaf"]
NullPolicy = Literal["value", "absent"]


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
    #: An ``anyOf``/``oneOf`` whose branches carry x-eval-* keys: (label such as
    #: ``"anyOf/1"``, the JSON types the branch takes, its node), in the schema's order.
    #: Such a node is a leaf with no comparator; the scorer judges the value with the first
    #: branch that takes gold's JSON type, else the extracted value's (``pick_branch``).
    branches: tuple[tuple[str, frozenset[str], SchemaNode], ...] = ()
    #: A map (``patternProperties``, ``additionalProperties``): (the key pattern, or None
    #: for additionalProperties, the value's node), patterns first. The keys that no
    #: property names are judged one by one with the first entry that takes them
    #: (``value_node``); the value nodes' paths hold ``{}`` for the key (``skills{}[]``).
    values: tuple[tuple[Any, SchemaNode], ...] = ()
    #: A field whose schema has errors, tolerated (``tree.parse_partial``): why, as every
    #: result of the field says it. Such a node is a leaf with nothing bound; the scorer
    #: gives it status ``error`` wherever its parent object is scored.
    broken: str | None = None
    #: Where this leaf's confidence sits in an extracted record (``x-eval-confidence``).
    confidence: ConfidenceAt | None = None
    #: Keys of this object in extracted records that hold confidences, not data: never
    #: extra keys (``x-eval-confidence``; the schema declares none of them).
    ignored: frozenset[str] = frozenset()

    @property
    def json_type(self) -> str:
        """struct_extract_eval's name: the single type, or "multi"."""
        concrete = sorted(self.types - {"null"})
        if len(concrete) == 1:
            return concrete[0]
        return "multi" if concrete else "null"

    def walk(self) -> list[SchemaNode]:
        """This node and every node below it (branches included), depth first."""
        out = [self]
        for c in self.children:
            out.extend(c.walk())
        if self.items is not None:
            out.extend(self.items.walk())
        for _, _, b in self.branches:
            out.extend(b.walk())
        for _, v in self.values:
            out.extend(v.walk())
        return out

    def value_node(self, key: str) -> SchemaNode | None:
        """The node judging a map entry ``key`` (see ``values``); None if none takes it.
        A pattern that runs out of time (``limits.regex_timeout``) does not take it."""
        for pattern, node in self.values:
            if pattern is None:
                return node
            try:
                if pattern.search(key, timeout=limits.value("regex_timeout")):
                    return node
            except TimeoutError:
                continue
        return None

    def pick_branch(self, value: Any) -> tuple[str, SchemaNode] | None:
        """The first branch that takes ``value``'s JSON type, with the reason's tag: the
        branch and the type of it that took the value (``"anyOf/1 (integer)"``). An
        integer fits a ``number`` branch, and a whole float an ``integer`` branch when no
        ``number`` branch takes it."""
        t = json_type(value)
        for label, types, node in self.branches:
            if not types or t in types:
                return f"{label} ({t})", node
            if t == "integer" and "number" in types:
                return f"{label} (number)", node
        if t == "number" and float(value).is_integer():
            for label, types, node in self.branches:
                if "integer" in types:
                    return f"{label} (integer)", node
        return None

    def find(self, path: str) -> SchemaNode | None:
        for n in self.walk():
            if n.path == path:
                return n
        return None


def declared_types(schema: Mapping[str, Any]) -> frozenset[str]:
    """The JSON types a schema object declares (``SchemaNode.types``): its ``type``, else
    what ``properties``, ``items``, ``const`` or ``enum`` imply."""
    return frozenset(declared_type_list(schema))


def declared_type_list(schema: Mapping[str, Any]) -> list[str]:
    """``declared_types`` in the order the schema writes them (a merged union lists its
    types in that order)."""
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return list(dict.fromkeys(x for x in t if isinstance(x, str)))
    if isinstance(schema.get("properties"), dict):
        return ["object"]
    if "items" in schema:
        return ["array"]
    if "const" in schema:
        return [json_type(schema["const"])]
    if isinstance(schema.get("enum"), list):
        return list(dict.fromkeys(json_type(v) for v in schema["enum"]))
    return []
