"""Stickler's evaluation models, read as eval schemas.

Stickler (awslabs/stickler) builds a model from a JSON Schema with ``x-aws-stickler-*``
keys (``StructuredModel.from_json_schema``) or from its own JSON model configuration
(``model_from_json``: ``{"model_name", "match_threshold", "fields": {...}}``). Both are
read here as Stickler reads them, with its defaults made explicit (a string field with no
key is Levenshtein at threshold 0.5 there, ``exact`` here), and turned into the same
JSON Schema with ``x-eval-*`` keys. Whatever has no exact equivalent is reported, located
by JSON Pointer into the input, never dropped in silence; ``stickler_compare`` maps the
comparators. ``evalschema import stickler`` and the language server's code action call
``import_stickler``; docs/compat.md says how Stickler's counts compare with ours.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from evalschema.errors import Problem, Severity
from evalschema.pointer import join, resolve, unescape
from evalschema.schema.stickler_compare import DEFAULTS, Where, map_comparator

PREFIX = "x-aws-stickler-"
#: The prefix Stickler's own demo writes by mistake: Stickler never reads it.
WRONG_PREFIX = "x-stickler-"
JSON_SCHEMA = "json-schema"
MODEL_CONFIG = "model-config"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
HUNGARIAN = {"match_by": "hungarian"}
COUNTS = "docs/compat.md#stickler"

#: Each setting's key in either form.
_JSON_KEYS = {"comparator": PREFIX + "comparator", "config": PREFIX + "comparator-config",
              "threshold": PREFIX + "threshold", "weight": PREFIX + "weight",
              "clip": PREFIX + "clip-under-threshold", "aggregate": PREFIX + "aggregate",
              "match": PREFIX + "match-threshold", "name": PREFIX + "model-name"}
_CONFIG_KEYS = {"comparator": "comparator", "config": "comparator_config",
                "threshold": "threshold", "weight": "weight",
                "clip": "clip_under_threshold", "aggregate": "aggregate",
                "match": "match_threshold", "name": "model_name"}
#: What a model configuration's field may hold (``field_converter.py``).
_FIELD_KEYS = frozenset({"type", "comparator", "comparator_config", "threshold", "weight",
                         "clip_under_threshold", "aggregate", "required", "default",
                         "description", "alias", "examples", "fields", "match_threshold"})
_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
_STRUCTURED = ("structured_model", "optional_structured_model", "list_structured_model")
#: JSON Schema keywords whose values are data, never schemas.
_DATA = frozenset({"enum", "const", "default", "examples", "required"})


@dataclass(frozen=True)
class SticklerImport:
    """The eval schema a Stickler model becomes, and the report: everything that has no
    exact equivalent (warnings), what Stickler itself refuses (errors), notes (info)."""

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
    return any(key.startswith(PREFIX) for _, key, _ in _keys(doc, ""))


def import_stickler(doc: Any) -> SticklerImport:
    """``doc`` (a Stickler JSON Schema or model configuration) as an eval schema."""
    form = stickler_form(doc)
    if form is None:
        return SticklerImport({}, (Problem(
            "not-stickler", "neither a JSON Schema with \"properties\" (read by Stickler's "
            "from_json_schema) nor a model configuration with \"fields\" (model_from_json)",
            "", "give the schema or configuration Stickler builds the model from"),), "")
    reader = _Reader(doc, form)
    schema = reader.run()
    return SticklerImport(schema, tuple(reader.problems), form)


def _keys(node: Any, pointer: str) -> Iterator[tuple[str, str, Any]]:
    """Every (pointer of the object, key, value) of a schema, skipping data values and
    the names of properties (a property may be named like a key)."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _keys(item, join(pointer, i))
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        yield pointer, key, value
        if key in _DATA:
            continue
        at = join(pointer, key)
        if key in ("properties", "fields", "definitions", "$defs") and isinstance(value, dict):
            for name, sub in value.items():
                yield from _keys(sub, join(at, name))
        else:
            yield from _keys(value, at)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


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

    def __post_init__(self) -> None:
        self.names = _JSON_KEYS if self.form == JSON_SCHEMA else _CONFIG_KEYS
        self.out: dict[str, Any] = copy.deepcopy(self.doc) if self.form == JSON_SCHEMA else {}

    def report(self, code: str, message: str, pointer: str, suggestion: str,
               severity: Severity = Severity.WARNING) -> None:
        self.problems.append(Problem(code, message, pointer, suggestion, severity))

    def run(self) -> dict[str, Any]:
        self.report("stickler-counts", "Stickler counts TP, FD, FA and FN where evalschema "
                    "judges matches, mismatches, hallucinations and omissions: \"\" and [] "
                    "count as null there, an object is also counted as a whole, a list "
                    "pair under the element's match threshold is one FD, and recall leaves "
                    "FD out", "", f"read {COUNTS} before comparing figures", Severity.INFO)
        if self.form == JSON_SCHEMA:
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
               low: float = 0.0, high: float = 1.0, above_low: bool = False) -> Any:
        """The setting as written (a number), else ``default``; a bad value is an error."""
        has, value, at = self.setting(node, ptr, which)
        if not has:
            return default
        ok = _is_number(value) and (value > low if above_low else value >= low) \
            and value <= high
        if not ok:
            span = f"a number > {low:g}" if above_low else (
                f"a number between {low:g} and {high:g}" if high != float("inf")
                else f"a number >= {low:g}")
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

    def weight(self, node: dict[str, Any], ptr: str) -> float:
        if self.form == JSON_SCHEMA:
            return self.number(node, ptr, "weight", 1.0, 0.0, float("inf"), above_low=True)
        return self.number(node, ptr, "weight", 1.0, 0.0, float("inf"))

    def no_effect(self, node: dict[str, Any], ptr: str, which: str, why: str) -> None:
        has, _, at = self.setting(node, ptr, which)
        if has:
            self.report("no-scoring-effect", why, at, "nothing to convert; remove it if it "
                        "was meant to change the scores", Severity.INFO)

    # -- models -----------------------------------------------------------------------

    def model_settings(self, node: dict[str, Any], ptr: str, element: bool) -> None:
        """A model's name and match threshold (the threshold gates list pairs only)."""
        has, name, at = self.setting(node, ptr, "name")
        if has and not (isinstance(name, str) and name.isidentifier()):
            self.report("invalid-value", f"Stickler refuses the model name {name!r}: it must "
                        "be a Python identifier", at, "write a name such as Invoice",
                        Severity.ERROR)
        has, _, at = self.setting(node, ptr, "match")
        if not has:
            return
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

    def model(self, node: dict[str, Any], ptr: str, out: dict[str, Any], element: bool) -> None:
        """A JSON Schema object Stickler builds a model from."""
        self.model_settings(node, ptr, element)
        props = node.get("properties")
        if not isinstance(props, dict):
            self.report("unsupported-type", "Stickler needs \"properties\" on every object it "
                        "builds a model from", ptr, "give the object its properties",
                        Severity.ERROR)
            return
        required = node.get("required", [])
        for name, sub in props.items():
            at = join(join(ptr, "properties"), name)
            self.prop(sub, at, out["properties"][name],
                      isinstance(required, list) and name in required)

    def deref(self, node: dict[str, Any], ptr: str) -> tuple[dict[str, Any], str] | None:
        """A ``$ref`` as Stickler resolves it: ``#/definitions/N`` or ``#/$defs/N`` only,
        replacing the node (keys beside it are not read)."""
        ref = node["$ref"]
        for where in ("definitions", "$defs"):
            prefix = f"#/{where}/"
            if isinstance(ref, str) and ref.startswith(prefix):
                name = unescape(ref.split("/")[-1])
                target = self.doc.get(where, {})
                if isinstance(target, dict) and isinstance(target.get(name), dict):
                    return target[name], join(join("", where), name)
        self.report("unsupported-ref", f"Stickler resolves only #/definitions/NAME and "
                    f"#/$defs/NAME references to this document, not {ref!r}",
                    join(ptr, "$ref"), "inline the definition", Severity.ERROR)
        return None

    def prop(self, node: Any, ptr: str, out: Any, required: bool) -> None:
        if isinstance(node, dict) and "$ref" in node:
            found = self.deref(node, ptr)
            if found is None or found[1] in self.done:
                return
            node, ptr = found
            self.done.add(ptr)
            out = resolve(self.out, ptr)
        if not isinstance(node, dict):
            self.report("unsupported-type", "not a schema object", ptr, "write an object "
                        "with a \"type\"", Severity.ERROR)
            return
        if node.get("default") is not None:
            self.default_value(join(ptr, "default"))
        kind = node.get("type")
        if kind == "object":
            self.model(node, ptr, out, element=False)
            self.container(node, ptr, out, "an object")
        elif kind == "array":
            self.array(node, ptr, out)
        elif isinstance(kind, str) and kind in DEFAULTS:
            self.leaf(node, ptr, out, kind)
        else:
            self.report("unsupported-type", f"Stickler builds no field from type {kind!r} "
                        "(it takes string, number, integer, boolean, object and array; "
                        "anyOf, oneOf and type lists are refused)", ptr,
                        "give the property one of those types", Severity.ERROR)

    def array(self, node: dict[str, Any], ptr: str, out: dict[str, Any]) -> None:
        items = node.get("items", {})
        items_ptr, items_out = join(ptr, "items"), out.get("items")
        if isinstance(items, dict) and "$ref" in items:
            found = self.deref(items, items_ptr)
            if found is None:
                return
            items, items_ptr = found
            items_out = resolve(self.out, items_ptr)
        kind = items.get("type") if isinstance(items, dict) else None
        out["x-eval-align"] = dict(HUNGARIAN)
        if kind == "object" and isinstance(items, dict) and isinstance(items_out, dict):
            if items_ptr not in self.done:
                self.done.add(items_ptr)
                self.model(items, items_ptr, items_out, element=True)
            for which in ("comparator", "config", "threshold"):
                self.no_effect(node, ptr, which, "Stickler pairs and judges a list of objects "
                               "by its elements' fields and match threshold, not by a "
                               "comparator or threshold on the list")
            self.pairing(ptr, objects=True)
        elif isinstance(kind, str) and kind in DEFAULTS and isinstance(items_out, dict):
            self.leaf(node, ptr, items_out, kind, list_items=True)
            self.pairing(ptr, objects=False)
        else:
            self.report("unsupported-type", f"Stickler builds no list from items of type "
                        f"{kind!r}", items_ptr, "give the items a type", Severity.ERROR)
            return
        self.container(node, ptr, out, "a list")

    def container(self, node: dict[str, Any], ptr: str, out: dict[str, Any],
                  what: str) -> None:
        """An object's or a list's weight (and, for an object, what has no effect)."""
        weight = self.weight(node, ptr)
        if weight != 1.0:
            out["x-eval-weight"] = weight
            self.report("object-weight", f"Stickler weighs {what} once, by its own mean "
                        "score; evalschema gives this weight to every field under it",
                        self.setting(node, ptr, "weight")[2], "nothing equivalent to write; "
                        "the weighted score differs from Stickler's overall score")
        if what == "an object" and self.form == JSON_SCHEMA:
            for which in ("comparator", "config", "threshold"):
                self.no_effect(node, ptr, which, "Stickler reads no comparator or threshold "
                               "for an object property: it judges the object by its fields "
                               "(and counts it whole at threshold 0.7)")
        has, _, at = self.setting(node, ptr, "clip")
        if has and what == "a list":
            self.no_effect(node, ptr, "clip", "Stickler never clips a list's score")
        elif has:
            self.flag(node, ptr, "clip", True)
            self.report("object-score", "Stickler also scores the object as a whole; "
                        "evalschema judges only its fields", at, "nothing equivalent to write",
                        Severity.INFO)
        self.no_effect(node, ptr, "aggregate", "aggregate only shapes Stickler's output "
                       "(and is deprecated)")

    def pairing(self, ptr: str, objects: bool) -> None:
        how = ("by the weighted mean of the elements' raw field similarities, and a pair "
               "under the element's match threshold (0.7 by default) is one FD whose fields "
               "are not judged; evalschema pairs by the F1 of the elements' fields and judges "
               "the fields of every pair" if objects else
               "and a pair under the threshold is one FD; evalschema leaves a pair that "
               "scores 0 unpaired (an omission and a hallucination)")
        self.report("list-pairing", "Stickler pairs list elements with the Hungarian "
                    f"algorithm, min(gold, extracted) pairs, {how}", ptr,
                    f"converted to \"x-eval-align\": {{\"match_by\": \"hungarian\"}}; {COUNTS} "
                    "shows how the counts differ")

    def default_value(self, at: str) -> None:
        self.report("default-value", "a record without this field gets this default in "
                    "Stickler, which is then compared as if it had been written; evalschema "
                    "judges a missing field as missing", at, "nothing equivalent to write; "
                    "put the default in the records if it should be compared")

    # -- leaves -----------------------------------------------------------------------

    def leaf(self, node: dict[str, Any], ptr: str, out: dict[str, Any], kind: str | None,
             list_items: bool = False) -> None:
        """A field judged by a comparator (on a list: its items, with the list's keys)."""
        has, name, name_at = self.setting(node, ptr, "comparator")
        has_config, config, config_at = self.setting(node, ptr, "config")
        if not has:
            if self.form == MODEL_CONFIG:
                self.report("missing-comparator", "Stickler refuses a field of a primitive "
                            "type without a comparator", ptr, "add \"comparator\"; "
                            "LevenshteinComparator (model_from_json's default) was converted",
                            Severity.ERROR)
                name = "LevenshteinComparator"
            else:
                name = DEFAULTS[kind] if kind in DEFAULTS else "LevenshteinComparator"
            if has_config and self.form == JSON_SCHEMA:
                self.report("comparator-config-ignored", "Stickler reads the configuration "
                            "only with x-aws-stickler-comparator", config_at, "name the "
                            "comparator too; the default comparator was converted")
                config = None
        mapped = map_comparator(name, config, kind, Where(name_at, config_at, list_items))
        self.problems.extend(mapped.problems)
        threshold = self.number(node, ptr, "threshold", 0.5)
        clip = self.flag(node, ptr, "clip", True)
        for key, value in mapped.keys.items():
            out.setdefault(key, value)
        if mapped.continuous:
            out.setdefault("x-eval-threshold", threshold)
            if clip and not list_items:
                self.report("partial-credit", f"Stickler scores a similarity under the "
                            f"threshold ({threshold:g}) as 0 (clip_under_threshold, true by "
                            "default); evalschema keeps it as partial credit in the weighted "
                            "score and in precision and recall", self.setting(
                                node, ptr, "clip")[2], "the match or mismatch is the same; "
                            "only the scores differ", Severity.INFO)
        elif mapped.keys and threshold == 0.0:
            out.setdefault("x-eval-threshold", 0)  # 0/1 scores: only 0 changes anything
        if not list_items:
            weight = self.weight(node, ptr)
            if weight != 1.0:
                out.setdefault("x-eval-weight", weight)
        self.no_effect(node, ptr, "aggregate", "aggregate only shapes Stickler's output (and "
                       "is deprecated)")

    # -- model configurations ---------------------------------------------------------

    def config_model(self, cfg: dict[str, Any], ptr: str, element: bool) -> dict[str, Any]:
        self.model_settings(cfg, ptr, element)
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
                                "Stickler reads", join(at, key), "remove it, or use one of "
                                + ", ".join(sorted(_FIELD_KEYS)))
            alias = fcfg.get("alias")
            prop = alias if isinstance(alias, str) and alias else name
            if prop != name:
                self.report("alias", f"Stickler reads this field from the key {alias!r} of "
                            "each record (its Pydantic alias): the converted property is "
                            "named so", join(at, "alias"), "nothing to do", Severity.INFO)
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
            if "threshold" in fcfg:
                self.number(fcfg, ptr, "threshold", 0.7)
                self.report("object-score", "Stickler also counts the object as a whole: one "
                            "TP when its weighted similarity reaches this threshold, else one "
                            "FD; evalschema counts only its fields", join(ptr, "threshold"),
                            "nothing equivalent to write", Severity.INFO)
            self.container(fcfg, ptr, nested, "an object")
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
        if is_list and (item is None or item in _TYPES):
            json_item = _TYPES[item] if item is not None else None
            items: dict[str, Any] = {"type": json_item} if json_item else {}
            out: dict[str, Any] = {"type": "array", "items": items}
            self.leaf(fcfg, ptr, items, json_item, list_items=True)
            out["x-eval-align"] = dict(HUNGARIAN)
            self.pairing(ptr, objects=False)
            self.container(fcfg, ptr, out, "a list")
            return out
        if text in _TYPES:
            leaf: dict[str, Any] = {"type": _TYPES[text]}
            self.leaf(fcfg, ptr, leaf, _TYPES[text])
            return leaf
        self.report("unsupported-type", f"no evalschema equivalent for Stickler's type "
                    f"{kind!r} (converted: str, int, float, bool, their lists and Optional, "
                    "and the structured_model types); the field is compared as one value",
                    join(ptr, "type"), "use one of those types")
        return {"x-eval-compare": "exact"}

    # -- what the walk did not read ---------------------------------------------------

    def unread(self) -> None:
        for ptr, key, _ in _keys(self.doc, ""):
            at = join(ptr, key)
            if key.startswith(WRONG_PREFIX):
                right = PREFIX + key[len(WRONG_PREFIX):]
                self.report("not-read-by-stickler", f"Stickler reads {PREFIX}* keys, not "
                            f"{WRONG_PREFIX}*: this key has no effect there, so none here",
                            at, f"rename it {right} if Stickler should read it, then convert "
                            "again")
            elif key.startswith(PREFIX) and at not in self.read:
                known = key in _JSON_KEYS.values()
                why = ("Stickler does not read it here (beside a $ref, in a definition no "
                       "$ref uses, or on a node it does not build a field from)" if known
                       else "it is not one of Stickler's keys (" + ", ".join(
                           _JSON_KEYS.values()) + ")")
                self.report("not-read-by-stickler", f"{key}: {why}; not converted", at,
                            "move it to a property Stickler reads, or remove it")


def _strip(node: Any) -> None:
    """Every ``x-aws-stickler-*`` key removed from the output, read or not."""
    if isinstance(node, list):
        for item in node:
            _strip(item)
    elif isinstance(node, dict):
        for key in [k for k in node if isinstance(k, str) and k.startswith(PREFIX)]:
            del node[key]
        for key, value in node.items():
            if key in ("properties", "definitions", "$defs") and isinstance(value, dict):
                for sub in value.values():
                    _strip(sub)
            elif key not in _DATA:
                _strip(value)
