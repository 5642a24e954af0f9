"""Agenta's built-in JSON evaluators (agenta 0.125.1, handlers ``*_v0``), reproduced.

Exact Match, Contains JSON, (deprecated) JSON Field Match, JSON Multi-Field
Match and JSON Diff Match. None of them parses leniently: JSON text goes through
strict ``json.loads``. Where a handler raises (invalid expected JSON, an invalid
threshold) we raise CompatInputError naming the Agenta error.

JSON Multi-Field Match resolves its paths the way Agenta's ``resolve_any`` does
(dot notation, JSON Pointer, JSONPath via python-jsonpath); the last section of
this module reproduces the three. Only a subset of JSONPath is implemented:
``$``, ``.name``, ``['name']``, ``[n]`` (an index on an object reads the key
``"n"``, as python-jsonpath does), ``[*]``, ``.*``, slices, unions and ``..``
descent. Filters, functions and the non-standard key selectors raise
CompatInputError instead of guessing.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

from evalschema.compat._explain import (
    CompatScore,
    Metric,
    Parts,
    field_at,
    guard_recursion,
    ignored_at,
    loads_strict,
    make_field,
    metric_options,
    short,
    to_pointer,
)
from evalschema.compat.errors import CompatInputError
from evalschema.results import FieldResult, Status

SYSTEM = "agenta"


# -- Exact Match ----------------------------------------------------------------------


@overload
def exact_match(correct_answer: Any, output: Any, *, explain: Literal[False] = False) -> bool: ...
@overload
def exact_match(correct_answer: Any, output: Any, *, explain: Literal[True]) -> CompatScore: ...
@guard_recursion(SYSTEM)
def exact_match(correct_answer: Any, output: Any, *, explain: bool = False) -> bool | CompatScore:
    """``auto_exact_match_v0``: string ``==``, or objects equal as ``json.dumps(sort_keys=True)``.

    Key order is ignored but ``1`` vs ``1.0`` and ``true`` vs ``1`` differ; any other
    type pairing (a JSON string against an equal object included) is False. With
    ``explain=True``: one root field; ``score`` is 1.0 or 0.0, ``details["success"]``.
    """
    if isinstance(output, str) and isinstance(correct_answer, str):
        success, how = output == correct_answer, "string_equality"
    elif isinstance(output, dict) and isinstance(correct_answer, dict):
        success, how = _dumps(output) == _dumps(correct_answer), "sorted_json_equality"
    else:
        success, how = False, "type_mismatch"
    if not explain:
        return success
    reason = f"{how.replace('_', ' ')}: {'equal' if success else 'different'}"
    return _boolean_result(success, (), how, reason, correct_answer, output)


def _dumps(value: dict[str, Any]) -> str:
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise CompatInputError(
            f"cannot serialise {short(value)}: {exc}", original="TypeError"
        ) from exc


# -- Contains JSON --------------------------------------------------------------------


@overload
def contains_json(output: Any, *, explain: Literal[False] = False) -> bool: ...
@overload
def contains_json(output: Any, *, explain: Literal[True]) -> CompatScore: ...
@guard_recursion(SYSTEM)
def contains_json(output: Any, *, explain: bool = False) -> bool | CompatScore:
    """``auto_contains_json_v0``: does the span from the first ``{`` to the last ``}`` parse?

    Only objects count (``'[1,2]'`` is False, ``'[{"a":1}]'`` is True); a dict output
    is always True. Outputs other than str/dict raise (InvalidOutputsV0Error).
    """
    if not isinstance(output, str | dict):
        raise CompatInputError(
            f"outputs must be a dict or a str, got {type(output).__name__}",
            original="InvalidOutputsV0Error",
        )
    text = output if isinstance(output, str) else _dumps(output)
    start, end = text.find("{"), text.rfind("}")
    success = start >= 0 and end >= 0 and _parses(text[start : end + 1])
    if not explain:
        return success
    reason = "the {…} span parses as JSON" if success else "no {…} span that parses as JSON"
    result = make_field(
        "",
        "",
        float(success),
        status=Status.MATCH if success else Status.MISMATCH,
        comparator=f"{SYSTEM}.contains_json",
        reason=reason,
        extracted=output,
        extracted_pointer="",
    )
    return CompatScore(float(success), {"scale": 1.0, "success": success}, (result,))


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


# -- JSON Field Match (deprecated) ------------------------------------------------------


@overload
def field_match(
    correct_answer: Any, output: Any, json_field: Any, *, explain: Literal[False] = False
) -> bool: ...
@overload
def field_match(
    correct_answer: Any, output: Any, json_field: Any, *, explain: Literal[True]
) -> CompatScore: ...
@guard_recursion(SYSTEM)
def field_match(
    correct_answer: Any, output: Any, json_field: Any, *, explain: bool = False
) -> bool | CompatScore:
    """``field_match_test_v0``: ``output[json_field] == correct_answer`` (top-level key only).

    ``"a.b"`` is a literal key. The output is a dict or JSON text; anything
    unreadable is simply False. Python equality: ``1 == 1.0``, ``True == 1``,
    ``"1" != 1``.
    """
    key = str(json_field)
    parsed = _object_or_none(output)
    present = parsed is not None and key in parsed
    value = parsed[key] if parsed is not None and present else None
    success = bool(present and value == correct_answer)
    if not explain:
        return success
    if parsed is None:
        reason = "output is not a JSON object"
    elif not present:
        reason = f"key {key!r} not in output"
    else:
        reason = "equal" if success else "different"
    return _boolean_result(
        success, (key,), "equality", reason, correct_answer, value, extracted_present=present
    )


def _object_or_none(output: Any) -> dict[str, Any] | None:
    """The output as an object, or None where Agenta quietly scores 0/False."""
    if isinstance(output, str):
        try:
            output = json.loads(output)
        except ValueError:  # but not RecursionError: Agenta lets that escape
            return None
    return output if isinstance(output, dict) else None


def _boolean_result(
    success: bool,
    parts: Parts,
    how: str,
    reason: str,
    gold: Any,
    extracted: Any,
    *,
    extracted_present: bool = True,
) -> CompatScore:
    result = field_at(
        parts,
        float(success),
        comparator=f"{SYSTEM}.{how}",
        reason=reason,
        gold=gold,
        extracted=extracted,
        extracted_present=extracted_present,
    )
    return CompatScore(float(success), {"scale": 1.0, "success": success}, (result,))


# -- JSON Multi-Field Match ---------------------------------------------------------------


@overload
def json_multi_field_match(
    correct_answer: Any, output: Any, fields: Sequence[str], *, explain: Literal[False] = False
) -> dict[str, float]: ...
@overload
def json_multi_field_match(
    correct_answer: Any, output: Any, fields: Sequence[str], *, explain: Literal[True]
) -> CompatScore: ...
@guard_recursion(SYSTEM)
def json_multi_field_match(
    correct_answer: Any, output: Any, fields: Sequence[str], *, explain: bool = False
) -> dict[str, float] | CompatScore:
    """``json_multi_field_match_v0``: 1.0 per path whose resolved values are ``==``.

    Returns ``{path: 1.0|0.0, ..., "aggregate_score": matches / len(fields)}``.
    A path that resolves on neither side is ``None == None``: a match. Duplicate
    paths collapse in the dict but count twice in the denominator; a path named
    ``"aggregate_score"`` is overwritten by the aggregate. An output that is not a
    JSON object scores 0.0 everywhere. With ``explain=True``: one field per entry
    of ``fields`` (duplicates included), weight 1; ``score == Σ score / len(fields)``.
    """
    paths = _check_fields(fields)
    expected = _expected_document(correct_answer)
    actual = _object_or_none(output)
    if actual is None:
        return _unreadable_output(paths, expected, explain)
    results: dict[str, float] = {}
    out: list[FieldResult] = []
    matches = 0
    for path in paths:
        ev, av = resolve_path(expected, path), resolve_path(actual, path)
        match = _value(ev) == _value(av)
        results[path] = 1.0 if match else 0.0
        matches += match
        if explain:
            out.append(_path_field(path, ev, av, match))
    results["aggregate_score"] = matches / len(paths)
    if not explain:
        return results
    return CompatScore(results["aggregate_score"], {"scale": 1.0, "result": results}, tuple(out))


def _check_fields(fields: Any) -> list[str]:
    if isinstance(fields, str) or not isinstance(fields, Sequence) or not fields:
        raise CompatInputError(
            f"fields must be a non-empty list, got {short(fields)}",
            original="InvalidConfigurationParameterV0Error",
        )
    for path in fields:
        if not isinstance(path, str):
            raise CompatInputError(
                f"field path {path!r} is not a string", original="AttributeError (.startswith)"
            )
    return list(fields)


def _expected_document(correct_answer: Any) -> Any:
    if isinstance(correct_answer, str):
        return loads_strict(correct_answer, what="correct answer", original="InvalidInputV0Error")
    if isinstance(correct_answer, dict):
        return correct_answer
    raise CompatInputError(
        f"correct answer must be a dict or a JSON string, got {type(correct_answer).__name__}",
        original="InvalidInputV0Error",
    )


def _unreadable_output(
    paths: list[str], expected: Any, explain: bool
) -> dict[str, float] | CompatScore:
    results = dict.fromkeys(paths, 0.0)
    results["aggregate_score"] = 0.0
    if not explain:
        return results
    out = []
    for path in paths:
        try:
            ev = resolve_path(expected, path)
        except CompatInputError:  # Agenta returns before resolving anything
            ev = None
        out.append(
            make_field(
                path,
                path,
                0.0,
                status=Status.OMISSION,
                comparator=f"{SYSTEM}.equality",
                reason="output is not a JSON object: every field scores 0",
                gold=_value(ev),
                gold_pointer=_pointer_of(ev),
            )
        )
    return CompatScore(0.0, {"scale": 1.0, "result": results}, tuple(out))


def _value(found: Found | None) -> Any:
    return None if found is None else found.value


def _pointer_of(found: Found | None) -> str | None:
    return None if found is None or found.parts is None else to_pointer(found.parts)


def _path_field(path: str, ev: Found | None, av: Found | None, match: bool) -> FieldResult:
    if ev is None and av is None:
        status, reason = Status.MATCH, "resolves on neither side: None == None counts as a match"
    elif av is None:
        status, reason = Status.OMISSION, "not found in output"
    elif ev is None:
        status, reason = Status.HALLUCINATION, "not found in the correct answer"
    else:
        status = Status.MATCH if match else Status.MISMATCH
        reason = "equal" if match else "different"
    return make_field(
        path,
        path,
        1.0 if match else 0.0,
        status=status,
        comparator=f"{SYSTEM}.equality",
        reason=reason,
        gold=_value(ev),
        extracted=_value(av),
        gold_pointer=_pointer_of(ev),
        extracted_pointer=_pointer_of(av),
    )


# -- JSON Diff Match ------------------------------------------------------------------------


@overload
def json_diff(
    correct_answer: Any,
    output: Any,
    *,
    compare_schema_only: bool = False,
    predict_keys: bool = False,
    case_insensitive_keys: bool = False,
    threshold: Any = None,
    explain: Literal[False] = False,
) -> dict[str, Any]: ...
@overload
def json_diff(
    correct_answer: Any,
    output: Any,
    *,
    compare_schema_only: bool = False,
    predict_keys: bool = False,
    case_insensitive_keys: bool = False,
    threshold: Any = None,
    explain: Literal[True],
) -> CompatScore: ...
@guard_recursion(SYSTEM)
def json_diff(
    correct_answer: Any,
    output: Any,
    *,
    compare_schema_only: bool = False,
    predict_keys: bool = False,
    case_insensitive_keys: bool = False,
    threshold: Any = None,
    explain: bool = False,
) -> dict[str, Any] | CompatScore:
    """``auto_json_diff_v0``: share of flattened expected leaves whose output value is ``==``.

    Both sides are flattened to dotted paths (``a.b.0``); empty objects and arrays
    give no leaves, so ``{}`` vs ``{}`` scores 0.0. A null on either side scores 0
    (null vs null too). ``predict_keys`` *adds* the output's paths (penalising
    extras, despite its docs); ``compare_schema_only`` compares ``type()`` only
    (int is not float); ``case_insensitive_keys`` lowercases whole paths.
    ``threshold`` must be a float in (0, 1]; a falsy one (None, 0.0) means 0.5.
    Returns ``{"score", "success"}``. With ``explain=True``: one weight-1 field per
    scored path, SKIPPED weight-0 fields for output paths not scored;
    ``score == Σ weight·score / Σ weight``, or 0.0 when nothing is weighted.
    """
    gt = _diff_document(correct_answer, "correct answer", "InvalidInputV0Error")
    out = _diff_document(output, "output", "InvalidOutputsV0Error")
    limit = _threshold(threshold)
    flat_gt = _flatten(gt, case_insensitive_keys)
    flat_out = _flatten(out, case_insensitive_keys)
    keys = (
        list(flat_gt) + [k for k in flat_out if k not in flat_gt] if predict_keys else list(flat_gt)
    )
    total = 0.0
    scored: list[FieldResult] = []
    for key in keys:
        key_score = _key_score(flat_gt.get(key), flat_out.get(key), compare_schema_only)
        total += key_score
        if explain:
            scored.append(_diff_field(key, flat_gt, flat_out, key_score, compare_schema_only))
    score = total / len(keys) if keys else 0.0
    if not explain:
        return {"score": score, "success": score >= limit}
    if not predict_keys:
        scored.extend(_unscored(flat_out, flat_gt))
    details = {"scale": 1.0, "success": score >= limit}
    return CompatScore(score, details, tuple(scored))


def _diff_document(value: Any, what: str, original: str) -> Any:
    if isinstance(value, str):
        return loads_strict(value, what=what, original=original)
    if isinstance(value, dict):
        return value
    raise CompatInputError(
        f"{what} must be a dict or a JSON string, got {type(value).__name__}", original=original
    )


def _threshold(threshold: Any) -> float:
    value = threshold or 0.5
    if not isinstance(value, float) or not 0.0 < value <= 1.0:
        raise CompatInputError(
            f"threshold must be a float in (0.0, 1.0], got {short(value)} "
            "(Agenta rejects ints such as 1 and strings such as '0.5')",
            original="InvalidConfigurationParameterV0Error",
        )
    return value


#: flattened path -> (value, location in the document)
_Flat = dict[str, tuple[Any, Parts]]


def _flatten(document: Any, lowercase: bool) -> _Flat:
    """Dotted paths to leaves; later duplicates (``a.b`` vs ``{"a":{"b"}}``) win, as in Agenta."""
    out: _Flat = {}
    _flatten_into(document, "", (), out)
    if not lowercase:
        return out
    return {key.lower(): entry for key, entry in out.items()}


def _flatten_into(node: Any, prefix: str, parts: Parts, out: _Flat) -> None:
    if isinstance(node, dict):
        items: list[tuple[str | int, str, Any]] = [
            (k, f"{prefix}.{k}" if prefix else k, v) for k, v in node.items()
        ]
    elif isinstance(node, list):
        items = [(i, f"{prefix}.{i}" if prefix else str(i), v) for i, v in enumerate(node)]
    else:
        return
    for part, key, value in items:
        if isinstance(value, dict | list):
            _flatten_into(value, key, (*parts, part), out)
        else:
            out[key] = (value, (*parts, part))


def _key_score(
    gt: tuple[Any, Parts] | None, out: tuple[Any, Parts] | None, schema_only: bool
) -> float:
    if gt is None or out is None or gt[0] is None or out[0] is None:
        return 0.0
    if schema_only:
        return 1.0 if type(gt[0]) is type(out[0]) else 0.0
    return 1.0 if gt[0] == out[0] else 0.0


def _diff_field(
    key: str, flat_gt: _Flat, flat_out: _Flat, score: float, schema_only: bool
) -> FieldResult:
    gt, out = flat_gt.get(key), flat_out.get(key)
    comparator = f"{SYSTEM}.{'type_equality' if schema_only else 'equality'}"
    if gt is None or out is None:
        where = "output" if out is None else "correct answer"
        anchor = gt or out
        assert anchor is not None
        return field_at(
            anchor[1],
            0.0,
            comparator=comparator,
            reason=f"path {key!r} not in {where}",
            gold=None if gt is None else gt[0],
            extracted=None if out is None else out[0],
            gold_present=gt is not None,
            extracted_present=out is not None,
        )
    if gt[0] is None or out[0] is None:
        reason = "null on either side scores 0 (null vs null too)"
    else:
        reason = "same type" if schema_only and score else "equal" if score else "different"
    return field_at(
        gt[1],
        score,
        comparator=comparator,
        reason=f"{key}: {reason}",
        gold=gt[0],
        extracted=out[0],
        extracted_parts=out[1],
    )


def _unscored(flat_out: _Flat, flat_gt: _Flat) -> list[FieldResult]:
    return [
        ignored_at(
            parts,
            side="extracted",
            value=value,
            system=SYSTEM,
            reason=f"path {key!r} not in the correct answer (scored only with predict_keys)",
        )
        for key, (value, parts) in flat_out.items()
        if key not in flat_gt
    ]


# -- path resolution (Agenta's resolve_any) ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Found:
    """A resolved value and where it is (``parts`` is None for multi-match lists)."""

    value: Any
    parts: Parts | None


def resolve_path(data: Any, expr: str) -> Found | None:
    """What ``_get_nested_value`` returns, with its location; None when it gives None."""
    if data is None:
        return None
    if expr.startswith("$"):
        return _resolve_jsonpath(data, expr)
    if expr.startswith("/"):
        return _resolve_pointer(data, expr)
    return _resolve_dots(data, expr)


# -- dot notation ----------------------------------------------------------------


def _resolve_dots(data: Any, expr: str) -> Found | None:
    if not expr or "[" in expr or "]" in expr:
        return None
    if isinstance(data, dict):
        if expr in data:
            return Found(data[expr], (expr,))
    elif not isinstance(data, list) or expr in data:
        # A string, number or bool root, or a list holding the path itself: Agenta's
        # ``expr in data`` / ``data[expr]`` raises there, which reads as no value.
        return None
    tokens = [t for t in expr.split(".") if t]
    if not tokens:
        return None
    node: Any = data
    parts: list[str | int] = []
    for token in tokens:
        if isinstance(node, list) and token.isdigit():
            try:
                index = int(token)
            except ValueError:  # str.isdigit() accepts digits int() rejects ("²")
                return None
            if index >= len(node):
                return None
            node = node[index]
            parts.append(index)
        elif isinstance(node, dict) and token in node:
            node = node[token]
            parts.append(token)
        else:
            return None
    return Found(node, tuple(parts))


# -- JSON Pointer (python-jsonpath's JSONPointer, non-standard parts included) --------

_MAX_INDEX = 2**53 - 1
_PROBABLY_MALFORMED = re.compile(r"[{}\[\]]")
_INDEX_POINTER = re.compile(r"#[1-9]\d*")


class _NoValue(Exception):
    """Resolution failed; Agenta turns every such failure into None."""


def _load_root(data: Any) -> Any:
    """python-jsonpath reads a string document as JSON text (a plain word stays a string)."""
    if not isinstance(data, str):
        return data
    try:
        return json.loads(data)
    except ValueError as exc:
        if _PROBABLY_MALFORMED.search(data):
            raise _NoValue from exc
        return data


def _resolve_pointer(data: Any, expr: str) -> Found | None:
    try:
        text = _unicode_unescape(expr).lstrip()
        if text and not text.startswith("/"):
            return None
        tokens = [p.replace("~1", "/").replace("~0", "~") for p in text.split("/")][1:]
        node: Any = _load_root(data)
        parts: list[str | int] | None = []
        for token in tokens:
            node, step = _pointer_step(node, token)
            parts = None if parts is None or step is None else [*parts, step]
    except (_NoValue, RecursionError):
        return None
    return Found(node, None if parts is None else tuple(parts))


def _unicode_unescape(text: str) -> str:
    """JSONPointer decodes backslash escapes (UTF-16 pairs included) before parsing."""
    try:
        return (
            codecs.decode(text.replace("\\/", "/"), "unicode-escape")
            .encode("utf-16", "surrogatepass")
            .decode("utf-16")
        )
    except (UnicodeError, ValueError) as exc:
        raise _NoValue from exc


def _pointer_step(node: Any, token: str) -> tuple[Any, str | int | None]:
    """One pointer step: (value, location part or None when the value is not at a location)."""
    if isinstance(node, list):
        index = _pointer_index(token)
        if index is not None:
            if index >= len(node):
                raise _NoValue
            return node[index], index
        return _sequence_quirk(node, token), None
    if isinstance(node, dict):
        if token in node:
            return node[token], token
        if token[:1] in ("~", "#") and token[1:] in node:
            return token[1:], None  # a "key pointer" yields the key itself
        raise _NoValue
    if isinstance(node, str):
        return _sequence_quirk(node, token), None
    raise _NoValue


def _pointer_index(token: str) -> int | None:
    if len(token) > 1 and token.startswith("0"):
        return None
    try:
        index = int(token)
    except ValueError:
        return None
    if index < 0 or index > _MAX_INDEX:
        raise _NoValue
    return index


def _sequence_quirk(node: list[Any] | str, token: str) -> int:
    """``#N`` on an array or string yields the index N itself; anything else fails."""
    if token != "-" and _INDEX_POINTER.match(token):
        try:
            index = int(token[1:])
        except ValueError as exc:
            raise _NoValue from exc
        if index < len(node):
            return index
    raise _NoValue


# -- JSONPath (subset) ---------------------------------------------------------------

_NAME = re.compile(r"[\u0080-\uFFFFa-zA-Z_][\u0080-\uFFFFa-zA-Z0-9_-]*")
_INT = r"-?(?:0|[1-9]\d*)"
_INDEX_OR_SLICE = re.compile(
    rf"(?P<start>{_INT})?\s*(?:(?P<c1>:)\s*(?P<stop>{_INT})?\s*(?:(?P<c2>:)\s*(?P<step>{_INT})?)?)?"
)
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\"}

Selector = tuple[Any, ...]  # ("name", str) | ("index", int) | ("wild",) | ("slice", a, b, c)


@dataclass(frozen=True, slots=True)
class _Segment:
    descendant: bool
    selectors: tuple[Selector, ...]


def _resolve_jsonpath(data: Any, expr: str) -> Found | None:
    if not (expr == "$" or expr.startswith("$.") or expr.startswith("$[")):
        return None  # Agenta's own prefix check raises ValueError: no value
    segments = _parse(expr)
    try:
        root = _load_root(data)
    except _NoValue:
        return None
    nodes: list[tuple[Any, Parts]] = [(root, ())]
    for segment in segments:
        nodes = _apply(segment, nodes)
    if not nodes:
        return None
    if len(nodes) == 1:
        return Found(nodes[0][0], nodes[0][1])
    return Found([value for value, _ in nodes], None)


def _syntax(expr: str, pos: int, what: str) -> CompatInputError:
    return CompatInputError(
        f"invalid JSONPath {expr!r} at {pos}: {what}", original="JSONPathSyntaxError"
    )


def _unsupported(expr: str, pos: int) -> CompatInputError:
    return CompatInputError(
        f"JSONPath {expr!r} uses syntax at {pos} that evalschema.compat does not implement "
        "(filters, functions, key selectors); use a dot path or a JSON Pointer"
    )


def _parse(expr: str) -> list[_Segment]:
    segments: list[_Segment] = []
    i, n = 1, len(expr)
    while True:
        while i < n and expr[i].isspace():
            i += 1
        if i >= n:
            return segments
        if expr.startswith("..", i):
            i += 2
            if i < n and expr[i] == "[":
                selectors, i = _parse_bracket(expr, i)
            else:
                selectors, i = _parse_shorthand(expr, i)
            segments.append(_Segment(True, selectors))
        elif expr[i] == ".":
            selectors, i = _parse_shorthand(expr, i + 1)
            segments.append(_Segment(False, selectors))
        elif expr[i] == "[":
            selectors, i = _parse_bracket(expr, i)
            segments.append(_Segment(False, selectors))
        else:
            raise _syntax(expr, i, "expected '.', '..' or '['")


def _parse_shorthand(expr: str, i: int) -> tuple[tuple[Selector, ...], int]:
    if expr.startswith("*", i):
        return (("wild",),), i + 1
    m = _NAME.match(expr, i)
    if m is None:
        if expr.startswith("~", i):
            raise _unsupported(expr, i)
        raise _syntax(expr, i, "expected a shorthand selector")
    return (("name", m.group()),), m.end()


def _parse_bracket(expr: str, i: int) -> tuple[tuple[Selector, ...], int]:
    selectors: list[Selector] = []
    i += 1
    while True:
        i = _skip_ws(expr, i)
        selector, i = _parse_selector(expr, i)
        selectors.append(selector)
        i = _skip_ws(expr, i)
        if expr.startswith("]", i):
            return tuple(selectors), i + 1
        if not expr.startswith(",", i):
            raise _syntax(expr, i, "expected ',' or ']'")
        i += 1


def _skip_ws(expr: str, i: int) -> int:
    while i < len(expr) and expr[i].isspace():
        i += 1
    return i


def _parse_selector(expr: str, i: int) -> tuple[Selector, int]:
    ch = expr[i : i + 1]
    if ch == "*":
        return ("wild",), i + 1
    if ch in ("'", '"'):
        name, i = _parse_string(expr, i)
        return ("name", name), i
    if ch and (ch.isdigit() or ch in "-:"):
        return _parse_index_or_slice(expr, i)
    if not ch:
        raise _syntax(expr, i, "unexpected end")
    raise _unsupported(expr, i)


def _parse_index_or_slice(expr: str, i: int) -> tuple[Selector, int]:
    m = _INDEX_OR_SLICE.match(expr, i)
    if m is None or m.end() == i:
        raise _syntax(expr, i, "bad index")
    nxt = _skip_ws(expr, m.end())
    if nxt < len(expr) and expr[nxt].isdigit():
        raise _syntax(expr, i, "leading zero in index selector")
    start, stop, step = (None if g is None else int(g) for g in m.group("start", "stop", "step"))
    if m.group("c1") is None:
        if start is None or m.group("start") == "-0":
            raise _syntax(expr, i, "bad index")
        return ("index", start), m.end()
    return ("slice", start, stop, step), m.end()


def _parse_string(expr: str, i: int) -> tuple[str, int]:
    quote, i = expr[i], i + 1
    out: list[str] = []
    while i < len(expr):
        ch = expr[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        esc = expr[i + 1 : i + 2]
        if esc == quote:
            out.append(quote)
            i += 2
        elif esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            i += 2
        elif esc == "u":
            char, i = _parse_unicode(expr, i)
            out.append(char)
        else:
            raise _syntax(expr, i, "invalid escape")
    raise _syntax(expr, i, "unterminated string")


def _parse_unicode(expr: str, i: int) -> tuple[str, int]:
    """``\\uXXXX``, joining a surrogate pair into one character."""
    code = _hex4(expr, i + 2)
    i += 6
    if 0xD800 <= code <= 0xDBFF and expr.startswith("\\u", i):
        low = _hex4(expr, i + 2)
        if 0xDC00 <= low <= 0xDFFF:
            return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), i + 6
    return chr(code), i


def _hex4(expr: str, i: int) -> int:
    digits = expr[i : i + 4]
    if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise _syntax(expr, i, "invalid \\u escape")
    return int(digits, 16)


def _apply(segment: _Segment, nodes: list[tuple[Any, Parts]]) -> list[tuple[Any, Parts]]:
    out: list[tuple[Any, Parts]] = []
    for node in nodes:
        visits = _descendants(node) if segment.descendant else [node]
        for value, parts in visits:
            for selector in segment.selectors:
                out.extend(_select(selector, value, parts))
    return out


def _descendants(node: tuple[Any, Parts]) -> list[tuple[Any, Parts]]:
    """The node and every node below it, in document pre-order."""
    out = [node]
    value, parts = node
    if isinstance(value, dict):
        for key, child in value.items():
            out.extend(_descendants((child, (*parts, key))))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out.extend(_descendants((child, (*parts, index))))
    return out


def _select(selector: Selector, value: Any, parts: Parts) -> list[tuple[Any, Parts]]:
    kind = selector[0]
    if kind == "wild":
        if isinstance(value, dict):
            return [(v, (*parts, k)) for k, v in value.items()]
        if isinstance(value, list):
            return [(v, (*parts, i)) for i, v in enumerate(value)]
        return []
    if kind == "name":
        name = selector[1]
        return [(value[name], (*parts, name))] if isinstance(value, dict) and name in value else []
    if kind == "index":
        return _select_index(selector[1], value, parts)
    if not isinstance(value, list | str) or selector[3] == 0:
        return []  # python-jsonpath slices any sequence, strings included
    indices = range(*slice(selector[1], selector[2], selector[3]).indices(len(value)))
    return [(value[i], (*parts, i)) for i in indices]


def _select_index(index: int, value: Any, parts: Parts) -> list[tuple[Any, Parts]]:
    if isinstance(value, dict):
        key = str(index)  # python-jsonpath (non-strict) reads an index on an object as a key
        return [(value[key], (*parts, key))] if key in value else []
    if isinstance(value, list):
        i = index + len(value) if index < 0 else index
        return [(value[i], (*parts, i))] if 0 <= i < len(value) else []
    return []


# -- METRICS adapters ---------------------------------------------------------------------


def _exact_match_metric(expected: Any, actual: Any, /, **options: Any) -> CompatScore:
    if metric_options("agenta.exact_match", options, frozenset()):
        return exact_match(expected, actual, explain=True)
    success = exact_match(expected, actual)
    return CompatScore(float(success), {"scale": 1.0, "success": success})


def _multi_field_metric(expected: Any, actual: Any, /, **options: Any) -> CompatScore:
    explain = metric_options("agenta.json_multi_field_match", options, frozenset({"fields"}))
    if "fields" not in options:
        raise CompatInputError(
            "agenta.json_multi_field_match needs the option fields=[...]",
            original="MissingConfigurationParameterV0Error",
        )
    if explain:
        return json_multi_field_match(expected, actual, options["fields"], explain=True)
    result = json_multi_field_match(expected, actual, options["fields"])
    return CompatScore(result["aggregate_score"], {"scale": 1.0, "result": result})


_DIFF_OPTIONS = frozenset(
    {"compare_schema_only", "predict_keys", "case_insensitive_keys", "threshold"}
)


def _json_diff_metric(expected: Any, actual: Any, /, **options: Any) -> CompatScore:
    if metric_options("agenta.json_diff", options, _DIFF_OPTIONS):
        return json_diff(expected, actual, **options, explain=True)
    result = json_diff(expected, actual, **options)
    return CompatScore(result["score"], {"scale": 1.0, "success": result["success"]})


#: Dotted metric names for ``evalschema eval --metric``.
METRICS: dict[str, Metric] = {
    "agenta.json_diff": _json_diff_metric,
    "agenta.exact_match": _exact_match_metric,
    "agenta.json_multi_field_match": _multi_field_metric,
}
