"""Stickler's evaluation models, read as eval schemas.

Stickler (awslabs/stickler, as stickler-eval 1.0 ships it) builds a model from a JSON
Schema with ``x-aws-stickler-*`` keys (``StructuredModel.from_json_schema``) or from its
own model configuration (``model_from_json``: ``{"model_name", "match_threshold",
"fields": {...}}``). Both are read here as Stickler reads them, its defaults made explicit
(a string field without keys is Levenshtein at threshold 0.5 there, ``exact`` here), and
become the same JSON Schema with ``x-eval-*`` keys. Whatever has no exact equivalent is
reported, located by JSON Pointer into the input, never dropped in silence;
``stickler_compare`` maps the comparators. ``evalschema import stickler`` and the language
server's code action call ``import_stickler``; docs/compat.md#stickler says how
Stickler's counts compare with ours.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from evalschema.errors import Problem, Severity
from evalschema.jsontypes import is_number
from evalschema.pointer import join, resolve, unescape
from evalschema.schema.stickler_compare import Mapped, Where, map_comparator

PREFIX = "x-aws-stickler-"
#: The prefix of Stickler's early demos: Stickler 1.0 refuses it.
WRONG_PREFIX = "x-stickler-"
JSON_SCHEMA = "json-schema"
MODEL_CONFIG = "model-config"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
HUNGARIAN = {"match_by": "hungarian"}
COUNTS = "docs/compat.md#stickler"

#: Each setting's key in either form.
_JSON_KEYS = {"comparator": PREFIX + "comparator", "config": PREFIX + "comparator-config",
              "threshold": PREFIX + "threshold", "weight": PREFIX + "weight",
              "clip": PREFIX + "clip-under-threshold", "match": PREFIX + "match-threshold",
              "name": PREFIX + "model-name", "infer": PREFIX + "infer-unspecified"}
_CONFIG_KEYS = {"comparator": "comparator", "config": "comparator_config",
                "threshold": "threshold", "weight": "weight",
                "clip": "clip_under_threshold", "match": "match_threshold",
                "name": "model_name", "infer": "infer_unspecified_fields"}
_AGGREGATE = PREFIX + "aggregate"  # accepted and ignored (removed in Stickler 1.0)
_FIELD_ONLY = frozenset(_JSON_KEYS[k] for k in ("comparator", "config", "threshold", "weight",
                                                "clip"))
_MODEL_ONLY = frozenset(_JSON_KEYS[k] for k in ("match", "name", "infer"))
#: What a model configuration's field may hold (``field_converter.py``).
_FIELD_KEYS = frozenset({"type", "comparator", "comparator_config", "threshold", "weight",
                         "clip_under_threshold", "required", "default", "description",
                         "alias", "examples", "fields", "match_threshold",
                         "infer_unspecified_fields"})
_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
_STRUCTURED = ("structured_model", "optional_structured_model", "list_structured_model")
#: JSON Schema keywords whose values are data, never schemas.
_DATA = frozenset({"enum", "const", "default", "examples", "required"})
_MAPS = ("properties", "fields", "definitions", "$defs")
#: String formats Stickler types (json_schema_to_pydantic): dates get DateComparator, the
#: others are compared exactly (threshold 1.0).
_DATE_FORMATS = frozenset({"date", "date-time"})
_EXACT_FORMATS = frozenset({"time", "uri", "uuid"})
_NO_EFFECT = "nothing to convert; remove it if it was meant to change the scores"


@dataclass(frozen=True)
class SticklerImport:
    """The eval schema a Stickler model becomes, and the report: what Stickler itself
    refuses (errors), what has no exact equivalent (warnings), notes (info)."""

    schema: dict[str, Any]
    problems: tuple[Problem, ...]
    form: str

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.ERROR)


def stickler_form(doc: Any) -> str | None:
    """``"model-config"``, ``"json-schema"`` or None (neither)."""
    if not isinstance(doc, dict):
        return None
    fields = doc.get("fields")
    if "properties" not in doc and isinstance(fields, dict) and fields and all(
            isinstance(f, dict) and isinstance(f.get("type"), str) for f in fields.values()):
        return MODEL_CONFIG
    return JSON_SCHEMA if isinstance(doc.get("properties"), dict) else None


def has_stickler_keys(doc: Any) -> bool:
    return any(key.startswith(PREFIX) for _, key in _keys(doc, ""))


def import_stickler(doc: Any) -> SticklerImport:
    """``doc`` (a Stickler JSON Schema or model configuration) as an eval schema."""
    form = stickler_form(doc)
    if form is None:
        return SticklerImport({}, (Problem(
            "not-stickler", "neither a JSON Schema with \"properties\" (Stickler's "
            "from_json_schema) nor a model configuration with \"fields\" (model_from_json)",
            "", "give the schema or configuration Stickler builds the model from"),), "")
    reader = _Reader(doc, form)
    return SticklerImport(reader.run(), tuple(reader.problems), form)


def _keys(node: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """Every (pointer of the object, key) of a schema, skipping data values and the names
    of properties (a property may be named like a key)."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _keys(item, join(pointer, i))
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        yield pointer, key
        if key in _DATA:
            continue
        at = join(pointer, key)
        if key in _MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from _keys(sub, join(at, name))
        else:
            yield from _keys(value, at)


def _nullable(node: dict[str, Any], ptr: str) -> tuple[dict[str, Any], str]:
    """A nullable union's non-null branch (``anyOf``/``oneOf`` with ``{"type": "null"}``)
    and its pointer, else the node itself: Stickler reads both as the branch, nullable."""
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
            i = 1 - branches.index({"type": "null"})
            if isinstance(branches[i], dict):
                return branches[i], join(join(ptr, key), i)
    return node, ptr


def _json_type(node: dict[str, Any]) -> Any:
    kind = node.get("type")
    if isinstance(kind, list):  # ["string", "null"]: nullable
        rest = [k for k in kind if k != "null"]
        kind = rest[0] if len(rest) == 1 else kind
    if kind is None and "properties" in node:
        return "object"
    return kind


@dataclass
class _Reader:
    """One walk of the input as Stickler walks it, writing the output as it goes."""

    doc: dict[str, Any]
    form: str
    problems: list[Problem] = field(default_factory=list)
    #: Pointers of the Stickler keys the walk read (the rest are reported as unread).
    read: set[str] = field(default_factory=set)
    #: Definitions already converted (a $ref'd one is converted once, where it is written).
    done: set[str] = field(default_factory=set)
    #: The model being read infers the comparators it is not given (Stickler's
    #: infer-unspecified): those fields keep evalschema's defaults.
    inferring: bool = False

    def __post_init__(self) -> None:
        self.names = _JSON_KEYS if self.form == JSON_SCHEMA else _CONFIG_KEYS
        self.out: dict[str, Any] = copy.deepcopy(self.doc) if self.form == JSON_SCHEMA else {}

    def report(self, code: str, message: str, pointer: str, suggestion: str,
               severity: Severity = Severity.WARNING) -> None:
        self.problems.append(Problem(code, message, pointer, suggestion, severity))

    def run(self) -> dict[str, Any]:
        self.report("stickler-counts", "Stickler counts TP, FD, FA and FN where evalschema "
                    "judges matches, mismatches, hallucinations and omissions: \"\", {} and "
                    "[] count as null there, an object also counts as a whole, a list pair "
                    "under the element's match threshold is one FD, and recall leaves FD "
                    "out", "", f"read {COUNTS} before comparing figures", Severity.INFO)
        if self.form == JSON_SCHEMA:
            self.scopes(self.doc, "", "model")
            self.model(self.doc, "", self.out, element=False)
            self.out.setdefault("x-eval-null", "absent")
            _strip(self.out)
        else:
            self.out = {"$schema": DRAFT}
            name = self.doc.get("model_name")
            if isinstance(name, str):
                self.out["title"] = name
            self.out.update(self.config_model(self.doc, "", element=False))
            self.out["x-eval-null"] = "absent"
        self.unread()
        return self.out

    # -- settings ---------------------------------------------------------------------

    def setting(self, node: dict[str, Any], ptr: str, which: str) -> tuple[bool, Any, str]:
        """Whether ``node`` has the setting, its value, and the pointer to report at (the
        key's, else the node's)."""
        key = self.names[which]
        if key not in node:
            return False, None, ptr
        at = join(ptr, key)
        self.read.add(at)
        return True, node[key], at

    def number(self, node: dict[str, Any], ptr: str, which: str, default: float,
               above_zero: bool = False, at_most_one: bool = True) -> Any:
        """The setting as written (a number), else ``default``; a bad value is an error."""
        has, value, at = self.setting(node, ptr, which)
        if not has:
            return default
        ok = is_number(value) and (value > 0 if above_zero else value >= 0) \
            and (value <= 1 or not at_most_one)
        if not ok:
            span = "a number > 0" if above_zero else (
                "a number between 0 and 1" if at_most_one else "a number >= 0")
            self.report("invalid-value", f"Stickler refuses {value!r}: it must be {span}", at,
                        f"write {span}; the default {default:g} was converted", Severity.ERROR)
            return default
        return value

    def flag(self, node: dict[str, Any], ptr: str, which: str, default: bool) -> bool:
        has, value, at = self.setting(node, ptr, which)
        if not has:
            return default
        if not isinstance(value, bool):
            self.report("invalid-value", f"Stickler refuses {value!r}: it must be true or "
                        "false", at, f"write true or false; the default ({str(default).lower()}"
                        ") was converted", Severity.ERROR)
            return default
        return value

    def weight(self, node: dict[str, Any], ptr: str) -> Any:
        return self.number(node, ptr, "weight", 1.0, above_zero=self.form == JSON_SCHEMA,
                           at_most_one=False)

    def no_effect(self, node: dict[str, Any], ptr: str, which: str, why: str) -> None:
        has, _, at = self.setting(node, ptr, which)
        if has:
            self.report("no-scoring-effect", why, at, _NO_EFFECT, Severity.INFO)

    # -- JSON Schema: where Stickler reads which key ----------------------------------

    def scopes(self, node: Any, ptr: str, scope: str) -> None:
        """Stickler 1.0 refuses the whole schema for an unknown or misplaced Stickler key
        (``_validate_supported_shapes``): field keys on a property, model keys on an
        object (the root, array items, definitions), both on an object property."""
        if isinstance(node, list):
            for i, item in enumerate(node):
                self.scopes(item, join(ptr, i), scope)
            return
        if not isinstance(node, dict):
            return
        for key in node:
            if isinstance(key, str) and key.startswith((PREFIX, WRONG_PREFIX)):
                self.misplaced(key, join(ptr, key), scope)
        for key, value in node.items():
            at = join(ptr, key)
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    both = isinstance(sub, dict) and _json_type(sub) == "object"
                    self.scopes(sub, join(at, name), "both" if both else "field")
            elif key in ("definitions", "$defs") and isinstance(value, dict):
                for name, sub in value.items():
                    self.scopes(sub, join(at, name), "model")
            elif key in ("items", "anyOf", "oneOf", "allOf"):
                self.scopes(value, at, "model")
            elif key not in _DATA:
                self.scopes(value, at, "none")

    def misplaced(self, key: str, at: str, scope: str) -> None:
        if scope == "none":
            return  # not a place Stickler looks at; unread() reports it
        if key.startswith(WRONG_PREFIX):
            right = PREFIX + key[len(WRONG_PREFIX):]
            self.report("unknown-stickler-key", f"Stickler refuses {key}: it reads "
                        f"{PREFIX}* keys, not {WRONG_PREFIX}*", at, f"rename it {right}",
                        Severity.ERROR)
            self.read.add(at)
        elif key != _AGGREGATE and key not in _FIELD_ONLY | _MODEL_ONLY:
            self.report("unknown-stickler-key", f"Stickler refuses {key}: not one of its "
                        "keys", at, "use one of " + ", ".join(sorted(_FIELD_ONLY | _MODEL_ONLY)),
                        Severity.ERROR)
            self.read.add(at)
        elif (scope == "model" and key in _FIELD_ONLY) or (scope == "field"
                                                           and key in _MODEL_ONLY):
            place = "a property" if scope == "model" else "an object"
            self.report("misplaced-stickler-key", f"Stickler refuses {key} here: it belongs "
                        f"on {place}", at, f"move it to {place}", Severity.ERROR)
            self.read.add(at)

    # -- JSON Schema models -----------------------------------------------------------

    def model_settings(self, node: dict[str, Any], ptr: str, element: bool) -> bool:
        """A model's name, match threshold (which gates list pairs) and whether it infers
        comparators (inherited by the models inside it)."""
        has, name, at = self.setting(node, ptr, "name")
        if has and not (isinstance(name, str) and name.isidentifier()):
            self.report("invalid-value", f"Stickler refuses the model name {name!r}: it must "
                        "be a Python identifier", at, "write a name such as Invoice",
                        Severity.ERROR)
        infer = self.flag(node, ptr, "infer", self.inferring)
        if infer and not self.inferring:
            self.report("no-equivalent-comparator", "Stickler infers a comparator for each "
                        "field without one from its type and name; evalschema does not guess: "
                        "those fields keep the defaults converted here", self.setting(
                            node, ptr, "infer")[2], "name each field's comparator")
        has, _, at = self.setting(node, ptr, "match")
        if not has:
            return infer
        self.number(node, ptr, "match", 0.7)
        if element:
            self.report("match-threshold", "Stickler counts a list pair whose similarity is "
                        "under this match threshold as one FD and does not judge its fields; "
                        "evalschema's hungarian alignment has no threshold: it judges the "
                        "fields of every pair it makes", at, "nothing equivalent to write; "
                        f"{COUNTS} says how the counts differ")
        else:
            self.no_effect(node, ptr, "match", "a model's match threshold is read only when "
                           "the model is a list's element")
        return infer

    def model(self, node: dict[str, Any], ptr: str, out: dict[str, Any], element: bool) -> None:
        """A JSON Schema object Stickler builds a model from."""
        outer, self.inferring = self.inferring, self.model_settings(node, ptr, element)
        props = node.get("properties")
        if not isinstance(props, dict):
            self.report("unsupported-type", "an object without \"properties\": Stickler "
                        "builds a model with no fields from it", ptr,
                        "give the object its properties")
        else:
            required = node.get("required", [])
            for name, sub in props.items():
                at = join(join(ptr, "properties"), name)
                self.prop(sub, at, out["properties"][name],
                          isinstance(required, list) and name in required)
        self.inferring = outer

    def deref(self, node: dict[str, Any], ptr: str) -> tuple[dict[str, Any], str] | None:
        """A local ``$ref`` (``#/definitions/N``, ``#/$defs/N``), as Stickler resolves it."""
        ref = node["$ref"]
        for where in ("definitions", "$defs"):
            prefix = f"#/{where}/"
            if isinstance(ref, str) and ref.startswith(prefix):
                name = unescape(ref[len(prefix):])
                target = self.doc.get(where, {})
                if isinstance(target, dict) and isinstance(target.get(name), dict):
                    return target[name], join(join("", where), name)
        self.report("unsupported-ref", f"Stickler resolves only #/definitions/NAME and "
                    f"#/$defs/NAME references to this document, not {ref!r}",
                    join(ptr, "$ref"), "inline the definition", Severity.ERROR)
        return None

    def prop(self, node: Any, ptr: str, out: Any, required: bool) -> None:
        """One property: its keys are read where they are written (beside ``$ref`` too),
        its shape from what it refers to."""
        if not isinstance(node, dict):
            self.report("unsupported-type", "not a schema object", ptr, "write an object "
                        "with a \"type\"", Severity.ERROR)
            return
        if node.get("default") is not None and not required:
            self.default_value(join(ptr, "default"))
        shape, shape_ptr = node, ptr
        if "$ref" in node:
            found = self.deref(node, ptr)
            if found is None:
                return
            shape, shape_ptr = found
        shape, shape_ptr = _nullable(shape, shape_ptr)
        shape_out = resolve(self.out, shape_ptr)
        kind = _json_type(shape)
        if kind == "object":
            if shape_ptr not in self.done:
                self.done.add(shape_ptr)
                self.model(shape, shape_ptr, shape_out, element=False)
            self.object_keys(node, ptr, out)
        elif kind == "array":
            self.array(node, ptr, out, shape, shape_ptr)
        elif kind in ("string", "number", "integer", "boolean") or kind is None:
            self.leaf(node, ptr, out, self.leaf_type(shape), self.default(shape))
            if kind is None:
                self.report("unsupported-type", "a property without a type: Stickler compares "
                            "its value as text, exactly", ptr, "give the property a type")
        else:
            self.report("unsupported-type", f"no evalschema equivalent for a property of "
                        f"type {kind!r} (unions other than X-or-null are not converted)", ptr,
                        "give the property one type, or write its x-eval keys by hand")

    def leaf_type(self, shape: dict[str, Any]) -> str | None:
        kind = _json_type(shape)
        if kind == "string" and shape.get("format") in _DATE_FORMATS:
            return "date"
        return kind if isinstance(kind, str) else None

    def default(self, shape: dict[str, Any]) -> tuple[str, float]:
        """Stickler's comparator and threshold for a field it has no key for."""
        kind = _json_type(shape)
        if "enum" in shape or "const" in shape or kind is None:
            return "ExactComparator", 1.0
        if kind == "string":
            fmt = shape.get("format")
            if fmt in _DATE_FORMATS:
                return "DateComparator", 1.0
            if fmt in _EXACT_FORMATS:
                return "ExactComparator", 1.0
            return "LevenshteinComparator", 0.5
        if kind in ("number", "integer"):
            return "NumericComparator", 0.5
        return "ExactComparator", 0.5

    def array(self, node: dict[str, Any], ptr: str, out: dict[str, Any],
              shape: dict[str, Any], shape_ptr: str) -> None:
        """A list: the keys on the property judge its items (or name no effect on a list
        of objects); the items' schema says which."""
        items = shape.get("items", {})
        items_ptr = join(shape_ptr, "items")
        if isinstance(items, dict) and "$ref" in items:
            found = self.deref(items, items_ptr)
            if found is None:
                return
            items, items_ptr = found
        if not isinstance(items, dict) or not items:
            self.report("unsupported-type", "Stickler builds no list without an items "
                        "schema", items_ptr, "give the array its items", Severity.ERROR)
            return
        items, items_ptr = _nullable(items, items_ptr)
        items_out = resolve(self.out, items_ptr)
        out["x-eval-align"] = dict(HUNGARIAN)
        if _json_type(items) == "object":
            if items_ptr not in self.done:
                self.done.add(items_ptr)
                self.model(items, items_ptr, items_out, element=True)
            for which in ("comparator", "config", "threshold"):
                self.no_effect(node, ptr, which, "Stickler pairs and judges a list of objects "
                               "by its elements' fields and match threshold, not by a "
                               "comparator or threshold on the list")
            self.pairing(ptr, objects=True)
        else:
            self.leaf(node, ptr, items_out, self.leaf_type(items), self.default(items),
                      list_items=True)
            self.pairing(ptr, objects=False)
        self.container(node, ptr, out, "a list")

    def object_keys(self, node: dict[str, Any], ptr: str, out: dict[str, Any]) -> None:
        """An object property's own keys: the object is also counted whole in Stickler."""
        threshold = self.number(node, ptr, "threshold", 0.7)
        has, _, at = self.setting(node, ptr, "threshold")
        if has:
            self.report("object-score", f"Stickler also counts the object as a whole: one "
                        f"TP when its weighted similarity reaches {threshold:g}, else one FD; "
                        "evalschema counts only its fields", at, "nothing equivalent to "
                        "write", Severity.INFO)
        for which in ("comparator", "config") if self.form == JSON_SCHEMA else ():
            self.no_effect(node, ptr, which, "Stickler judges an object by its fields, not by "
                           "a comparator")
        self.container(node, ptr, out, "an object")

    def container(self, node: dict[str, Any], ptr: str, out: dict[str, Any],
                  what: str) -> None:
        """An object's or a list's weight and clipping, and the ignored aggregate."""
        weight = self.weight(node, ptr)
        if weight != 1.0:
            out["x-eval-weight"] = weight
            self.report("object-weight", f"Stickler weighs {what} once, by its own mean "
                        "score; evalschema gives this weight to every field under it",
                        self.setting(node, ptr, "weight")[2], "nothing equivalent to write; "
                        "the weighted score differs from Stickler's overall score")
        if what == "an object":
            has, _, at = self.setting(node, ptr, "clip")
            if has:
                self.flag(node, ptr, "clip", True)
                self.report("object-score", "clipping applies to the object's own score in "
                            "Stickler; evalschema judges only its fields", at,
                            "nothing equivalent to write", Severity.INFO)
        self.aggregate(node, ptr)

    def aggregate(self, node: dict[str, Any], ptr: str) -> None:
        if self.form == JSON_SCHEMA and _AGGREGATE in node:
            at = join(ptr, _AGGREGATE)
            self.read.add(at)
            self.report("no-scoring-effect", "Stickler 1.0 accepts and ignores "
                        f"{_AGGREGATE} (removed: it had no effect)", at, _NO_EFFECT,
                        Severity.INFO)

    def pairing(self, ptr: str, objects: bool) -> None:
        how = ("by the weighted mean of the elements' field similarities, and a pair under "
               "the element's match threshold (0.7 by default) is one FD whose fields are "
               "not judged; evalschema pairs by the F1 of the elements' fields and judges "
               "the fields of every pair" if objects else
               "and a pair under the threshold is one FD; evalschema leaves a pair that "
               "scores 0 unpaired (an omission and a hallucination)")
        self.report("list-pairing", "Stickler pairs list elements with the Hungarian "
                    f"algorithm, as many pairs as the shorter list has elements, {how}", ptr,
                    f"converted to \"x-eval-align\": {{\"match_by\": \"hungarian\"}}; {COUNTS} "
                    "shows how the counts differ")

    def default_value(self, at: str) -> None:
        self.report("default-value", "a record without this field gets this default in "
                    "Stickler, which is then compared as if it had been written; evalschema "
                    "judges a missing field as missing", at, "nothing equivalent to write; "
                    "put the default in the records if it should be compared")

    # -- leaves -----------------------------------------------------------------------

    def leaf(self, node: dict[str, Any], ptr: str, out: dict[str, Any], kind: str | None,
             default: tuple[str, float], list_items: bool = False) -> None:
        """A field judged by a comparator (on a list: its items, with the list's keys)."""
        has, name, name_at = self.setting(node, ptr, "comparator")
        _, config, config_at = self.setting(node, ptr, "config")
        if not has and self.form == MODEL_CONFIG and not self.inferring:
            self.report("missing-comparator", "Stickler refuses a field of a primitive type "
                        "without a comparator", ptr, "add \"comparator\"; "
                        "LevenshteinComparator (model_from_json's default) was converted",
                        Severity.ERROR)
        if not has:
            name = default[0]
        mapped = Mapped({}) if not has and self.inferring else \
            map_comparator(name, config, kind, Where(name_at, config_at))
        self.problems.extend(mapped.problems)
        threshold = self.number(node, ptr, "threshold", default[1])
        clip = self.flag(node, ptr, "clip", True)
        for key, value in mapped.keys.items():
            out.setdefault(key, value)
        if mapped.continuous:
            out.setdefault("x-eval-threshold", threshold)
            if clip:
                self.report("partial-credit", f"Stickler scores a similarity under the "
                            f"threshold ({threshold:g}) as 0 (clip_under_threshold, true by "
                            "default); evalschema keeps it as partial credit in the weighted "
                            "score and in precision and recall", self.setting(
                                node, ptr, "clip")[2], "the match or mismatch is the same; "
                            "only the scores differ", Severity.INFO)
        elif mapped.keys and threshold == 0:
            out.setdefault("x-eval-threshold", 0)  # 0/1 scores: only 0 changes anything
        if not list_items:
            weight = self.weight(node, ptr)
            if weight != 1.0:
                out.setdefault("x-eval-weight", weight)
            self.aggregate(node, ptr)

    # -- model configurations ---------------------------------------------------------

    def config_model(self, cfg: dict[str, Any], ptr: str, element: bool) -> dict[str, Any]:
        outer, self.inferring = self.inferring, self.model_settings(cfg, ptr, element)
        try:
            return self.config_fields(cfg, ptr)
        finally:
            self.inferring = outer

    def config_fields(self, cfg: dict[str, Any], ptr: str) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "object", "properties": {}}
        fields = cfg.get("fields")
        fields_at = join(ptr, "fields")
        if not isinstance(fields, dict) or not fields:
            self.report("unsupported-type", "Stickler needs \"fields\": a non-empty object",
                        fields_at if "fields" in cfg else ptr, "list the model's fields",
                        Severity.ERROR)
            return out
        required: list[str] = []
        for name, fcfg in fields.items():
            at = join(fields_at, name)
            if not isinstance(fcfg, dict):
                self.report("unsupported-type", "a field's configuration must be an object",
                            at, "write {\"type\": ..., \"comparator\": ...}", Severity.ERROR)
                continue
            for key in fcfg:
                if key not in _FIELD_KEYS:
                    self.report("not-read-by-stickler", f"{key!r} is not a field setting "
                                "Stickler reads: it is ignored there", join(at, key),
                                "remove it, or use one of " + ", ".join(sorted(_FIELD_KEYS)))
            alias = fcfg.get("alias")
            prop = alias if isinstance(alias, str) and alias else name
            if prop != name:
                self.report("alias", f"Stickler reads this field from the key {alias!r} of "
                            "each record (its alias): the converted property is named so",
                            join(at, "alias"), "nothing to do", Severity.INFO)
            schema = self.config_field(fcfg, at)
            for key in ("description", "examples"):
                if key in fcfg:
                    schema[key] = fcfg[key]
            out["properties"][prop] = schema
            if fcfg.get("required") is True:
                required.append(prop)
            elif fcfg.get("default") is not None:
                self.default_value(join(at, "default"))
        if required:
            out["required"] = required
        return out

    def config_field(self, fcfg: dict[str, Any], ptr: str) -> dict[str, Any]:
        kind = fcfg.get("type")
        if kind in _STRUCTURED:
            if "comparator" in fcfg:
                self.report("invalid-value", f"Stickler refuses a comparator on a {kind} "
                            "field: its fields are compared one by one",
                            join(ptr, "comparator"), "remove it", Severity.ERROR)
            nested = self.config_model(fcfg, ptr, element=kind == "list_structured_model")
            if kind == "list_structured_model":
                self.no_effect(fcfg, ptr, "threshold", "Stickler pairs a list of objects by "
                               "the elements' match_threshold, not this threshold")
                out: dict[str, Any] = {"type": "array", "items": nested,
                                       "x-eval-align": dict(HUNGARIAN)}
                self.pairing(ptr, objects=True)
                self.container(fcfg, ptr, out, "a list")
                return out
            self.object_keys(fcfg, ptr, nested)
            return nested
        if "fields" in fcfg:
            self.report("invalid-value", f"Stickler refuses \"fields\" on a {kind!r} field",
                        join(ptr, "fields"), "use type structured_model", Severity.ERROR)
        self.no_effect(fcfg, ptr, "match", "match_threshold is read on structured_model "
                       "fields only")
        return self.config_leaf(fcfg, ptr, kind)

    def config_leaf(self, fcfg: dict[str, Any], ptr: str, kind: Any) -> dict[str, Any]:
        text = kind.replace(" ", "") if isinstance(kind, str) else ""
        if text.startswith("Optional[") and text.endswith("]"):
            text = text[len("Optional["):-1]  # null is handled as Stickler does (absent)
        item: str | None = None
        is_list = text in ("list", "List")
        if text.startswith(("List[", "list[")) and text.endswith("]"):
            item, is_list = text[5:-1], True
        default = ("LevenshteinComparator", 0.5)
        if is_list and (item is None or item in _TYPES):
            json_item = _TYPES[item] if item is not None else None
            items: dict[str, Any] = {"type": json_item} if json_item else {}
            out: dict[str, Any] = {"type": "array", "items": items}
            self.leaf(fcfg, ptr, items, json_item, default, list_items=True)
            out["x-eval-align"] = dict(HUNGARIAN)
            self.pairing(ptr, objects=False)
            self.container(fcfg, ptr, out, "a list")
            return out
        if text in _TYPES:
            leaf: dict[str, Any] = {"type": _TYPES[text]}
            self.leaf(fcfg, ptr, leaf, _TYPES[text], default)
            return leaf
        self.report("unsupported-type", f"no evalschema equivalent for Stickler's type "
                    f"{kind!r} (converted: str, int, float, bool, their lists and Optional, "
                    "and the structured_model types); the field is compared as one value",
                    join(ptr, "type"), "use one of those types")
        return {"x-eval-compare": "exact"}

    # -- what the walk did not read ---------------------------------------------------

    def unread(self) -> None:
        for ptr, key in _keys(self.doc, ""):
            at = join(ptr, key)
            if key.startswith((PREFIX, WRONG_PREFIX)) and at not in self.read:
                self.report("not-read-by-stickler", f"{key}: Stickler does not read it here "
                            "(in a definition no $ref uses, or on a node it builds no field "
                            "from); not converted", at, "move it to a property Stickler "
                            "reads, or remove it")


def _strip(node: Any) -> None:
    """Every ``x-aws-stickler-*`` and ``x-stickler-*`` key removed from the output."""
    if isinstance(node, list):
        for item in node:
            _strip(item)
    elif isinstance(node, dict):
        for key in [k for k in node if isinstance(k, str) and k.startswith((PREFIX,
                                                                            WRONG_PREFIX))]:
            del node[key]
        for key, value in node.items():
            if key in _MAPS and isinstance(value, dict):
                for sub in value.values():
                    _strip(sub)
            elif key not in _DATA:
                _strip(value)
