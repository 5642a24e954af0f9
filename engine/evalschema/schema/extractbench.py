"""extract-bench's schema conventions, read instead of misread.

extract-bench (ContextualAI) wraps a JSON Schema as ``{"name", "description",
"schema_definition": {...}}`` and says how each field is scored with its own
``evaluation_config`` key: a preset name (``"string_fuzzy"``) or
``{"metrics": [{"metric_id": ..., "params": {...}}]}``. Unread, the wrapper makes a whole
résumé one exact field and every ``evaluation_config`` is silently dropped. Here the
wrapper is unwrapped and each ``evaluation_config`` becomes the equivalent ``x-eval-*``
keys (an ``x-eval-*`` key written on the node wins); those with no equivalent are
reported, never dropped in silence. ``check_eval_schema`` applies this at load time,
``annotate`` writes the same keys into the file.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from evalschema.errors import Problem, Severity
from evalschema.pointer import escape
from evalschema.pointer import join as ptr_join

WRAPPER_KEY = "schema_definition"
CONFIG_KEY = "evaluation_config"
#: The notes a run shows (``parse_eval_schema`` warns them): what is read differently
#: from what the file literally says.
READING_NOTES = frozenset({"extract-bench-wrapper", "evaluation-config-untranslated",
                           "wrapper-key-ignored"})
#: Where the wrapped schema's pointers start in the file.
WRAPPED_PREFIX = "/" + WRAPPER_KEY

#: Keys that make an object a schema itself rather than extract-bench's wrapper.
_SCHEMA_KEYS = ("type", "properties", "items", "$ref", "anyOf", "oneOf", "allOf", "enum",
                "const")
#: Keys whose value is one schema / a map of schemas / a list of schemas.
_SUB_SCHEMA = ("items", "additionalProperties", "not", "contains", "if", "then", "else")
_SUB_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SUB_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_URL_FORMATS = frozenset({"uri", "url", "iri"})
_URL = "protocol, www and a trailing slash ignored"
#: extract-bench's string metrics compare ``str(value)``: 1 and "1" agree.
_AS_TEXT = {"type_convert": {"to": "str"}}

_LLM = ("an LLM judge: evalschema's equivalent, the `semantic` comparator, sends values to a "
        "judge you configure, so it is not chosen for you; the field is scored with its "
        "type's default comparator (add \"x-eval-compare\": \"semantic\" to use the judge)")


@dataclass(frozen=True)
class Reading:
    """What one ``evaluation_config`` value means here: the ``x-eval-*`` keys it becomes
    (None: no equivalent, ``why`` says what happens instead) and how close they are."""

    keys: dict[str, Any] | None
    why: str = ""


def _metric(metric_id: str, params: dict[str, Any], fmt: Any) -> Reading:
    """One extract-bench metric (its presets' defaults as extract-bench sets them)."""
    if metric_id == "string_exact" and fmt in _URL_FORMATS:
        # extract-bench upgrades string_exact on URL formats
        return Reading(None, f"on a \"format\": {json.dumps(fmt)} field extract-bench "
                       f"compares URLs normalised ({_URL}); no equivalent, compared exactly")
    if metric_id == "string_exact":
        return Reading({"x-eval-compare": "exact", "x-eval-transform": [_AS_TEXT]})
    if metric_id == "boolean_exact":
        return Reading({"x-eval-compare": "exact"})
    if metric_id in ("number_exact", "integer_exact"):
        return Reading({"x-eval-compare": "numeric"})
    if metric_id == "string_case_insensitive":
        return Reading({"x-eval-compare": "exact", "x-eval-transform": [_AS_TEXT, "casefold"]})
    if metric_id == "number_tolerance":
        tol = params.get("tolerance", 1e-6)
        if not isinstance(tol, int | float) or isinstance(tol, bool) or tol < 0:
            return Reading(None, f"tolerance {tol!r} is not a number >= 0")
        return Reading({"x-eval-compare": {"numeric": {"tolerance": {"abs": tol}}}},
                       "the same pass rule (|gold - extracted| <= tolerance); a value outside "
                       "it scores 0, not extract-bench's partial credit")
    if metric_id == "string_fuzzy":
        threshold = params.get("threshold", 0.8)
        if not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
            return Reading(None, f"threshold {threshold!r} is not a number in [0, 1]")
        keys: dict[str, Any] = {"x-eval-compare": {"levenshtein": {"threshold": threshold}}}
        keys["x-eval-transform"] = [_AS_TEXT] if params.get("case_sensitive") is True \
            else [_AS_TEXT, "lowercase"]
        return Reading(keys, "approximately: extract-bench's similarity is difflib's ratio, "
                       "evalschema's the normalized Levenshtein similarity")
    if metric_id == "skip":
        return Reading({"x-eval-skip": True})
    if metric_id in ("string_semantic", "string_llm"):
        return Reading(None, _LLM)
    if metric_id == "array_llm":
        return Reading(None, "an LLM judges the whole array at once; evalschema scores the "
                       "array element by element (x-eval-align chooses how elements pair)")
    if metric_id == "string_url":
        return Reading(None, f"a URL-normalised match ({_URL}) has no equivalent; the "
                       "field is compared exactly")
    return Reading(None, f"{metric_id!r} is not an extract-bench metric evalschema knows; "
                   "the field is scored with its type's default comparator")


def reading(value: Any, fmt: Any = None) -> Reading:
    """The ``x-eval-*`` equivalent of one ``evaluation_config`` value on a node whose
    ``format`` is ``fmt``."""
    if isinstance(value, str):
        return _metric(value, {}, fmt)
    metrics = value.get("metrics") if isinstance(value, dict) else None
    if not isinstance(metrics, list):
        return Reading(None, "neither a preset name nor {\"metrics\": [...]}")
    if not metrics:
        return Reading({"x-eval-skip": True})
    if len(metrics) > 1:
        return Reading(None, "several metrics on one field; evalschema judges a field with "
                       "one comparator (write the x-eval-compare you want)")
    [m] = metrics
    metric_id = m.get("metric_id") if isinstance(m, dict) else None
    params = m.get("params") if isinstance(m, dict) else None
    if not isinstance(metric_id, str):
        return Reading(None, "a metric without a metric_id")
    return _metric(metric_id, params if isinstance(params, dict) else {}, fmt)


def is_wrapped(doc: Any) -> bool:
    """True for ``{"name", "description", "schema_definition": {...}}`` (no schema keys
    of its own)."""
    return isinstance(doc, dict) and isinstance(doc.get(WRAPPER_KEY), dict) and not any(
        k in doc for k in _SCHEMA_KEYS)


def schema_nodes(node: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object of a JSON Schema document with its pointer (keywords' values
    only: a property *named* evaluation_config is a field, not a setting)."""
    if not isinstance(node, dict):
        return
    yield pointer, node
    for key in _SUB_SCHEMA:
        if isinstance(node.get(key), dict):
            yield from schema_nodes(node[key], ptr_join(pointer, key))
    for key in _SUB_MAPS:
        sub = node.get(key)
        if isinstance(sub, dict):
            for name, child in sub.items():
                yield from schema_nodes(child, ptr_join(ptr_join(pointer, key), name))
    for key in _SUB_LISTS:
        sub = node.get(key)
        if isinstance(sub, list):
            for i, child in enumerate(sub):
                yield from schema_nodes(child, ptr_join(ptr_join(pointer, key), i))


@dataclass
class Translation:
    """The outcome of reading a document's ``evaluation_config`` keys."""

    #: The document with the x-eval-* keys added (the input itself when nothing was).
    schema: Any
    #: Pointers (in ``schema``) of the objects that received keys.
    added: set[str] = field(default_factory=set)
    #: One note per distinct value and outcome.
    problems: list[Problem] = field(default_factory=list)

    def relocate(self, pointer: str) -> str:
        """A pointer at an added ``x-eval-*`` key points at the ``evaluation_config`` that
        the key was read from (the text the user wrote)."""
        at = pointer.find("/x-eval-")
        if at >= 0 and pointer[:at] in self.added:
            return ptr_join(pointer[:at], CONFIG_KEY)
        return pointer


def translate(schema: Any, *, prefix: str = "", in_place: bool = False) -> Translation:
    """``schema`` with each ``evaluation_config`` read as ``x-eval-*`` keys (on a copy
    unless ``in_place``: ``annotate`` writes them), and the notes saying what was read and
    what has no equivalent. ``prefix`` is where ``schema`` sits in its file
    (``/schema_definition``), for the notes' pointers."""
    found = [(p, n) for p, n in schema_nodes(schema) if CONFIG_KEY in n]
    if not found:
        return Translation(schema)
    out = Translation(schema if in_place else copy.deepcopy(schema))
    targets = dict(schema_nodes(out.schema))
    groups: dict[tuple[str, str], list[str]] = {}
    readings: dict[tuple[str, str], Reading] = {}
    for pointer, node in found:
        if "x-eval-compare" in node or node.get("x-eval-skip") is True:
            continue  # an x-eval key written on the node says how it is judged
        r = reading(node[CONFIG_KEY], node.get("format"))
        shown = json.dumps(node[CONFIG_KEY], ensure_ascii=False, sort_keys=True)
        key = (shown, json.dumps(r.keys, sort_keys=True))
        groups.setdefault(key, []).append(prefix + ptr_join(pointer, CONFIG_KEY))
        readings[key] = r
        if r.keys is not None:
            target = targets[pointer]
            for k, v in r.keys.items():
                target.setdefault(k, copy.deepcopy(v))
            out.added.add(pointer)
    for (shown, _), pointers in groups.items():
        r = readings[(shown, _)]
        n = len(pointers)
        where = f"({n} field{'s' if n > 1 else ''})"
        data = {"pointers": pointers, "keys": r.keys, "evaluation_config": json.loads(shown)}
        if r.keys is not None:
            keys = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in r.keys.items())
            out.problems.append(Problem(
                "evaluation-config-read", f"extract-bench's evaluation_config {shown} {where} "
                f"is read as {keys}" + (f" ({r.why})" if r.why else ""), pointers[0],
                "evalschema annotate writes these keys into the schema",
                Severity.INFO, data=data))
        else:
            out.problems.append(Problem(
                "evaluation-config-untranslated", f"extract-bench's evaluation_config {shown} "
                f"{where} has no x-eval equivalent: {r.why}", pointers[0],
                "write the x-eval-* keys you want next to it", Severity.WARNING, data=data))
    return out


def unwrap(doc: Any) -> tuple[Any, str, list[Problem]]:
    """The JSON Schema in ``doc``, where it sits (``/schema_definition`` or ``""``) and
    the notes saying so."""
    if not is_wrapped(doc):
        return doc, "", []
    notes = [Problem("extract-bench-wrapper", "read the JSON Schema under "
                     "\"schema_definition\" (extract-bench's {\"name\", \"description\", "
                     "\"schema_definition\"} wrapper)", WRAPPED_PREFIX, severity=Severity.INFO,
                     target="key")]
    for key in doc:
        if isinstance(key, str) and key.startswith("x-eval-"):
            notes.append(Problem("wrapper-key-ignored", f"{key} beside \"schema_definition\" "
                                 "is not read", "/" + escape(key),
                                 "move it into schema_definition", Severity.WARNING, "key"))
    return doc[WRAPPER_KEY], WRAPPED_PREFIX, notes
