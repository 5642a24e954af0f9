"""Built-in transforms, applied to gold and extracted values before comparing.

Every transform passes null through unchanged (so a missing value stays missing)
and raises ``CompareTypeError`` on a type it cannot handle; the engine scores
that as an outcome, never a crash.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from evalschema.results import show_value
from evalschema.rules.registry import CompareTypeError, Transform, TransformDef

_WS = re.compile(r"\s+")


def _string_transform(name: str, fn: Callable[[str], str]) -> Callable[[Mapping[str, Any]], Transform]:
    def factory(_: Mapping[str, Any]) -> Transform:
        def apply(value: Any) -> Any:
            if value is None:
                return None
            if not isinstance(value, str):
                raise CompareTypeError(f"{name} needs a string, got {show_value(value)}")
            return fn(value)

        return apply

    return factory


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


def _round_digits(params: Mapping[str, Any]) -> Transform:
    digits = int(params["digits"])  # required by the parameter schema

    def apply(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CompareTypeError(f"round_digits needs a number, got {show_value(value)}")
        return round(value, digits)

    return apply


_TRUE = {"1", "true", "yes"}
_FALSE = {"0", "false", "no"}


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        folded = value.strip().lower()
        if folded in _TRUE:
            return True
        if folded in _FALSE:
            return False
    raise CompareTypeError(f"cannot convert {show_value(value)} to bool")


def _to_int(value: Any) -> int:
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise CompareTypeError(f"cannot convert {show_value(value)} to int") from None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        raise CompareTypeError(f"cannot convert {show_value(value)} to int") from None


def _to_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise CompareTypeError(f"cannot convert {show_value(value)} to float") from None


def _to_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "float": _to_float,
    "int": _to_int,
    "str": _to_str,
    "bool": _to_bool,
}


def _type_convert(params: Mapping[str, Any]) -> Transform:
    convert = _CONVERTERS[params["to"]]

    def apply(value: Any) -> Any:
        return None if value is None else convert(value)

    return apply


def _normalize_unicode(params: Mapping[str, Any]) -> Transform:
    form = params.get("form", "NFC")
    return _string_transform("normalize_unicode", lambda s: unicodedata.normalize(form, s))(params)


_STR = frozenset({"string", "null"})
_NO_PARAMS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

BUILTIN_TRANSFORMS: tuple[TransformDef, ...] = (
    TransformDef("lowercase", "Lower-case a string (str.lower).", types=_STR, builtin=True,
                 factory=_string_transform("lowercase", str.lower)),
    TransformDef("casefold", "Case-fold a string (str.casefold: also folds ß to ss), stronger "
                 "than lowercase for caseless matching.", types=_STR, builtin=True,
                 factory=_string_transform("casefold", str.casefold)),
    TransformDef("strip", "Remove leading and trailing whitespace.", types=_STR, builtin=True,
                 factory=_string_transform("strip", str.strip)),
    TransformDef("normalize_whitespace", "Collapse every run of whitespace to one space and "
                 "strip the ends.", types=_STR, builtin=True,
                 factory=_string_transform("normalize_whitespace",
                                           lambda s: _WS.sub(" ", s).strip())),
    TransformDef("sort_tokens", "Split on whitespace, sort the tokens, join with single "
                 "spaces: word order stops mattering (\"Smith John\" = \"John Smith\").",
                 types=_STR, builtin=True,
                 factory=_string_transform("sort_tokens", lambda s: " ".join(sorted(s.split())))),
    TransformDef("strip_accents", "Remove diacritics (NFKD, drop combining marks, NFC): "
                 "\"Müller\" becomes \"Muller\".", types=_STR, builtin=True,
                 factory=_string_transform("strip_accents", strip_accents)),
    TransformDef("normalize_unicode", "Unicode normalization to `form` (NFC by default), so "
                 "composed and decomposed accents compare equal.",
                 params={"type": "object", "properties": {
                     "form": {"enum": ["NFC", "NFD", "NFKC", "NFKD"],
                              "description": "the normalization form (default NFC)"}},
                     "additionalProperties": False},
                 types=_STR, factory=_normalize_unicode, builtin=True),
    TransformDef("round_digits", "Round a number to `digits` decimals (Python round: "
                 "banker's rounding on binary floats).",
                 params={"type": "object", "properties": {"digits": {
                         "type": "integer", "description": "decimals kept"}},
                         "required": ["digits"], "additionalProperties": False},
                 types=frozenset({"number", "integer", "null"}), factory=_round_digits,
                 builtin=True),
    TransformDef("type_convert", "Convert to `to` (float, int, str or bool) before comparing: "
                 "\"42\" and 42 agree after {\"to\": \"int\"}. bool accepts true/false, 1/0, "
                 "yes/no.",
                 params={"type": "object", "properties": {
                     "to": {"enum": ["float", "int", "str", "bool"],
                            "description": "the type both values become"}},
                     "required": ["to"], "additionalProperties": False},
                 factory=_type_convert, builtin=True),
)

