"""Agenta's built-in JSON evaluators (agenta 0.125.1, handlers ``*_v0``), reproduced.

Exact Match, Contains JSON, (deprecated) JSON Field Match, JSON Multi-Field
Match and JSON Diff Match. None of them parses leniently: JSON text goes through
strict ``json.loads``. Where a handler raises (invalid expected JSON, an invalid
threshold) we raise CompatInputError naming the Agenta error.

JSON Multi-Field Match resolves its paths the way Agenta's ``resolve_any`` does
(dot notation, JSON Pointer, JSONPath via python-jsonpath): ``agenta_paths``
reproduces the three.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
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
from evalschema.compat.agenta_paths import Found, resolve_path
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
