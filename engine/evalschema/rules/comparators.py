"""Built-in comparators, each declared once with its parameters and doc.

A comparator factory binds parameters at schema-parse time and returns a fast
``(gold, extracted) -> score`` function; the engine turns scores into statuses. Each
whole-matrix form (alignment cost matrices) sits in this module beside its per-pair form,
which it must agree with; reading values (types, dates, bounded distances) is in
``rules.values``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import timedelta
from functools import lru_cache
from typing import Any

import regex as timed_re  # type: ignore[import-untyped]  # no stubs in the dev set
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from evalschema import limits
from evalschema.jsontypes import json_type
from evalschema.results import show_value
from evalschema.rules.registry import (
    ComparatorDef,
    Compare,
    CompareLimitError,
    CompareTypeError,
    CompareVerdict,
    MatrixCompare,
)
from evalschema.rules.values import capped_similarity, parse_date

_WS = re.compile(r"\s+")


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _WS.sub(" ", bare.casefold()).strip()


_fold_cached = lru_cache(maxsize=65536)(_fold)

#: Longer values are folded without the cache: 65,536 cached megabyte strings would
#: hold gigabytes after the records themselves are gone (streamed runs).
_CACHED_CHARS = 1024


def fold_text(text: str) -> str:
    """Accent-stripped, case-folded, whitespace-collapsed text."""
    return _fold_cached(text) if len(text) <= _CACHED_CHARS else _fold(text)


# -- exact -------------------------------------------------------------------


def _exact(_: Mapping[str, Any]) -> Compare:
    def exact(g: Any, e: Any) -> float:
        return 1.0 if type(g) is type(e) and g == e else 0.0

    return exact


# -- numeric -----------------------------------------------------------------


def _to_float(value: Any, side: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise CompareTypeError(f"{side} value {show_value(value)} is not a number") from None


#: Tolerances are widened by this factor so decimal slips stay inside them despite
#: binary floats (498.54 - 498.53 is 0.010000000000047748, which is "one cent").
_SLACK = 1.0 + 1e-9


def _tolerances(params: Mapping[str, Any]) -> tuple[float | None, float | None]:
    tol = params.get("tolerance") or {}
    rel, abs_ = tol.get("rel"), tol.get("abs")
    return (None if rel is None else rel * _SLACK), (None if abs_ is None else abs_ * _SLACK)


def _numeric(params: Mapping[str, Any]) -> Compare:
    rel, abs_ = _tolerances(params)
    partial = bool(params.get("partial"))

    def numeric(g: Any, e: Any) -> float:
        tg, te = type(g), type(e)
        if (tg is float or tg is int) and (te is float or te is int) and g == g and e == e:
            # Fast path: two real numbers (not bool, not NaN).
            if g == e:
                return 1.0
            diff = abs(g - e)
            if rel is None and abs_ is None:
                ok = False
            else:
                ok = (rel is None or diff / (abs(g) or 1.0) <= rel) and (
                    abs_ is None or diff <= abs_)
            if ok:
                return 1.0
            return max(0.0, 1.0 - diff / (abs(g) or 1.0)) if partial else 0.0
        if g is None or e is None:
            if g is None and e is None:
                return 1.0
            raise CompareTypeError(f"{'gold' if g is None else 'extracted'} value is null, "
                                   "not a number")
        if tg is te and g == e:
            return 1.0  # identical values match even when they are not numbers
        gf = _to_float(g, "gold")
        ef = _to_float(e, "extracted")
        if math.isnan(gf) or math.isnan(ef):
            if math.isnan(gf) and math.isnan(ef):
                return 1.0
            raise CompareTypeError("NaN against a number")
        diff = abs(gf - ef)
        if rel is None and abs_ is None:
            ok = gf == ef
        else:
            ok = (rel is None or diff / (abs(gf) or 1.0) <= rel) and (abs_ is None or diff <= abs_)
        if ok:
            return 1.0
        if partial:
            return max(0.0, 1.0 - diff / (abs(gf) or 1.0))
        return 0.0

    return numeric


def _describe_numeric(params: Mapping[str, Any]) -> str:
    tol = params.get("tolerance") or {}
    parts = ["numeric"]
    if tol.get("rel") is not None:
        parts.append(f"rel {tol['rel'] * 100:g}%")
    if tol.get("abs") is not None:
        parts.append(f"abs {tol['abs']:g}")
    if params.get("partial"):
        parts.append("partial")
    return ", ".join(parts)


# -- oneof -------------------------------------------------------------------


def _oneof(params: Mapping[str, Any]) -> Compare:
    values = list(params["values"])

    def oneof(_g: Any, e: Any) -> float:
        return 1.0 if e in values else 0.0

    return oneof


# -- string similarity -------------------------------------------------------


def _require_str(g: Any, e: Any) -> bool:
    """True when both are strings; both null is handled by the caller as a match."""
    if isinstance(g, str) and isinstance(e, str):
        return True
    if g is None and e is None:
        return False
    bad, side = (g, "gold") if not isinstance(g, str) else (e, "extracted")
    raise CompareTypeError(f"{side} value {show_value(bad)} is {json_type(bad)}, not a string")


def _capped_levenshtein(g: str, e: str, cap: int) -> CompareLimitError:
    score = capped_similarity(g, e, cap)
    return CompareLimitError(
        f"levenshtein compared the first {cap:,} characters only (values of {len(g):,} and "
        f"{len(e):,} characters; the rest counts as edits, so {score:.4f} is a lower bound; "
        "EVALSCHEMA_COMPARE_MAX_CHARS raises the limit)", score)


def _levenshtein(_: Mapping[str, Any]) -> Compare:
    sim = Levenshtein.normalized_similarity
    cap = limits.current().compare_max_chars

    def levenshtein(g: Any, e: Any) -> float:
        if not (type(g) is str and type(e) is str) and not _require_str(g, e):
            return 1.0
        if len(g) <= cap and len(e) <= cap:
            return float(sim(g, e))
        if g == e:
            return 1.0
        raise _capped_levenshtein(g, e, cap)

    return levenshtein


def _normalized(_: Mapping[str, Any]) -> Compare:
    fold, short = _fold_cached, _CACHED_CHARS  # fold_text, inlined: this is a hot path

    def normalized(g: Any, e: Any) -> float:
        if not _require_str(g, e):
            return 1.0
        fg = fold(g) if len(g) <= short else _fold(g)
        return 1.0 if fg == (fold(e) if len(e) <= short else _fold(e)) else 0.0

    return normalized


def _contains(params: Mapping[str, Any]) -> Compare:
    case_sensitive = bool(params.get("case_sensitive"))

    def contains(g: Any, e: Any) -> float:
        if not _require_str(g, e):
            return 1.0
        if case_sensitive:
            return 1.0 if g in e else 0.0
        return 1.0 if fold_text(g) in fold_text(e) else 0.0

    return contains


def _regex(params: Mapping[str, Any]) -> Compare:
    source = params["pattern"]
    re.compile(source)  # Python's own syntax and error messages; the schema check shows them
    try:
        pattern = timed_re.compile(source, timed_re.V0)
    except timed_re.error as exc:
        raise ValueError(f"pattern not supported by the regex engine: {exc}") from None
    lim = limits.current()
    budget = lim.regex_timeout
    timeouts = 0

    def regex(_g: Any, e: Any) -> float:
        nonlocal budget, timeouts
        if not isinstance(e, str):
            raise CompareTypeError(f"extracted value {show_value(e)} is {json_type(e)}, "
                                   "not a string")
        try:
            return 1.0 if pattern.fullmatch(e, timeout=budget) else 0.0
        except TimeoutError:
            pass
        timeouts += 1
        reason = (f"regex {source!r} took longer than {budget:g} s on a {len(e):,}-character "
                  "value; the field is not judged (EVALSCHEMA_REGEX_TIMEOUT sets the budget)")
        if timeouts >= lim.regex_timeouts_before_throttle:
            budget = lim.regex_timeout / 50
        raise CompareLimitError(reason)

    return regex


# -- type --------------------------------------------------------------------


def _type(_: Mapping[str, Any]) -> Compare:
    def same_type(g: Any, e: Any) -> float:
        tg, te = json_type(g), json_type(e)
        numeric = {"integer", "number"}
        return 1.0 if tg == te or (tg in numeric and te in numeric) else 0.0

    return same_type


# -- date --------------------------------------------------------------------

def _date(params: Mapping[str, Any]) -> Compare:
    dayfirst = bool(params.get("dayfirst", True))
    tolerance_days = int(params.get("tolerance_days", 0))
    slack = timedelta(days=tolerance_days)

    def date_cmp(g: Any, e: Any) -> float:
        if g is None or e is None:
            if g is None and e is None:
                return 1.0
            raise CompareTypeError(f"{'gold' if g is None else 'extracted'} value is null, "
                                   "not a date")
        try:
            gd = parse_date(g, dayfirst=dayfirst)
        except CompareTypeError as exc:
            if type(g) is type(e) and g == e:
                return 1.0  # the extractor copied gold's non-date exactly
            raise CompareVerdict(f"gold value {exc}, so the date comparator cannot judge "
                                 "this field (fix the gold value)") from None
        try:
            ed = parse_date(e, dayfirst=dayfirst)
        except CompareTypeError as exc:
            raise CompareTypeError(f"extracted value {exc}") from None
        gfirst, _, gprec, gmoment = gd  # unpacked: attribute reads cost on this path
        efirst, _, eprec, emoment = ed
        if gprec == "day":
            if eprec == "day":
                if gmoment is not None and emoment is not None:
                    # Both timestamps with offsets: the extracted moment's day in gold's.
                    efirst = emoment.astimezone(gmoment.tzinfo).date()
                return 1.0 if abs((efirst - gfirst).days) <= tolerance_days else 0.0
        elif ed.rank >= gd.rank:
            # Gold names a month or a year: any date inside it (within the tolerance).
            return 1.0 if gd.first - slack <= ed.first and ed.last <= gd.last + slack else 0.0
        raise CompareVerdict(
            f"{show_value(e)} ≠ gold {show_value(g)} (date): the extracted value gives the "
            f"{ed.precision} only, gold the {gd.precision}", 0.0)

    return date_cmp


# -- whole-matrix versions (alignment cost matrices) --------------------------
# Each must give exactly what its per-pair comparator gives, CompareTypeError as 0.
# numpy is imported by the functions that use it: a run that builds no cost matrix never
# loads it (~20 MB of memory and ~0.1 s at every start of the CLI and the server).


def _null_fix(out: Any, g: Sequence[Any], e: Sequence[Any]) -> Any:
    """Both null is 1, one null is 0 (as the per-pair comparators say)."""
    import numpy as np

    gn = np.fromiter((v is None for v in g), bool)
    en = np.fromiter((v is None for v in e), bool)
    if gn.any() or en.any():
        out[gn[:, None] | en[None, :]] = 0.0
        out[gn[:, None] & en[None, :]] = 1.0
    return out


def _codes(values: Sequence[Any], table: dict[Any, int]) -> Any:
    import numpy as np

    return np.fromiter((table.setdefault(v, len(table)) for v in values), np.int64)


def _exact_matrix(_: Mapping[str, Any]) -> MatrixCompare:
    def matrix(g: Sequence[Any], e: Sequence[Any]) -> Any:
        table: dict[Any, int] = {}
        try:
            gc = _codes([(type(v), v) for v in g], table)
            ec = _codes([(type(v), v) for v in e], table)
        except TypeError:  # unhashable values: per-pair path
            return None
        return (gc[:, None] == ec[None, :]).astype(float)

    return matrix


def _strings_or_null(values: Sequence[Any]) -> bool:
    return all(v is None or type(v) is str for v in values)


def _levenshtein_matrix(_: Mapping[str, Any]) -> MatrixCompare:
    cap = limits.current().compare_max_chars

    def matrix(g: Sequence[Any], e: Sequence[Any]) -> Any:
        if not (_strings_or_null(g) and _strings_or_null(e)):
            return None
        if any(v is not None and len(v) > cap for v in (*g, *e)):
            return None  # capped values: the per-pair path says so on each result
        import numpy as np

        # One worker (rapidfuzz's default): runs are parallel already, by record chunks.
        out = cdist([v or "" for v in g], [v or "" for v in e],
                    scorer=Levenshtein.normalized_similarity, dtype=np.float64)
        return _null_fix(out, g, e)

    return matrix


def _normalized_matrix(_: Mapping[str, Any]) -> MatrixCompare:
    def matrix(g: Sequence[Any], e: Sequence[Any]) -> Any:
        if not (_strings_or_null(g) and _strings_or_null(e)):
            return None
        table: dict[Any, int] = {}
        gc = _codes([fold_text(v) if v is not None else None for v in g], table)
        ec = _codes([fold_text(v) if v is not None else None for v in e], table)
        return _null_fix((gc[:, None] == ec[None, :]).astype(float), g, e)

    return matrix


def _floats(values: Sequence[Any]) -> tuple[Any, Any] | None:
    """Floats and a mask of unreadable values; None when a real NaN needs the per-pair rules."""
    import numpy as np

    out = np.zeros(len(values))
    bad = np.zeros(len(values), bool)
    for i, v in enumerate(values):
        if v is None:
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            bad[i] = True
            continue
        if math.isnan(f):
            return None
        out[i] = f
    return out, bad


def _numeric_matrix(params: Mapping[str, Any]) -> MatrixCompare:
    rel, abs_ = _tolerances(params)
    partial = bool(params.get("partial"))

    def matrix(g: Sequence[Any], e: Sequence[Any]) -> Any:
        gp, ep = _floats(g), _floats(e)
        if gp is None or ep is None:
            return None
        (gf, gbad), (ef, ebad) = gp, ep
        import numpy as np

        diff = np.abs(gf[:, None] - ef[None, :])
        denom = np.where(gf == 0.0, 1.0, np.abs(gf))[:, None]
        if rel is None and abs_ is None:
            ok = gf[:, None] == ef[None, :]
        else:
            ok = np.ones(diff.shape, bool) if rel is None else diff / denom <= rel
            if abs_ is not None:
                ok &= diff <= abs_
        out = np.where(ok, 1.0, np.maximum(0.0, 1.0 - diff / denom)) if partial \
            else ok.astype(float)
        out[gbad, :] = 0.0
        out[:, ebad] = 0.0
        for i in np.flatnonzero(gbad).tolist():
            for j in np.flatnonzero(ebad).tolist():
                if type(g[i]) is type(e[j]) and g[i] == e[j]:
                    out[i, j] = 1.0  # identical values match (ScoringPolicy)
        return _null_fix(out, g, e)

    return matrix


# -- declarations ------------------------------------------------------------

_STRING_TYPES = frozenset({"string", "null"})
_NUMBER_TYPES = frozenset({"number", "integer", "string", "boolean", "null"})


def _props(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties,
                              "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


_UNIT = {"type": "number", "minimum": 0, "maximum": 1}

BUILTIN_COMPARATORS: tuple[ComparatorDef, ...] = (
    ComparatorDef(
        "exact",
        "Strict equality: same JSON type and same value (42 and 42.0 differ, true and 1 "
        "differ; nested objects compare by value). The default for strings, booleans, "
        "and whole objects or arrays compared as one value.",
        factory=_exact, matrix_factory=_exact_matrix, builtin=True,
    ),
    ComparatorDef(
        "numeric",
        "Numbers equal within a tolerance: `rel` (relative to gold; gold 0 uses 1) and/or "
        "`abs`; with both, both must hold. Numeric strings (\"42\", \"1e3\") and booleans are "
        "read as numbers; null equals null; NaN equals NaN. With `partial: true` a value "
        "outside the tolerance still earns 1 - |gold - extracted| / |gold| credit. Each "
        "tolerance is widened by one part in 10^9, so amounts written one cent apart stay "
        "within `abs: 0.01` despite binary floats (498.54 - 498.53 is 0.0100000000000477).\n\n"
        "The default for number and integer fields.",
        params=_props({
            "tolerance": {"type": ["object", "null"], "properties": {
                "rel": {"type": "number", "minimum": 0,
                        "description": "largest |gold - extracted| / |gold| that matches"},
                "abs": {"type": "number", "minimum": 0,
                        "description": "largest |gold - extracted| that matches"},
            }, "additionalProperties": False, "minProperties": 1,
                "description": "`rel` and/or `abs` (both must hold); null: exact"},
            "partial": {"type": "boolean",
                        "description": "credit 1 - |gold - extracted| / |gold| outside the "
                        "tolerance"},
        }),
        types=_NUMBER_TYPES, factory=_numeric, describe=_describe_numeric,
        matrix_factory=_numeric_matrix, builtin=True,
    ),
    ComparatorDef(
        "oneof",
        "The extracted value is one of `values` (gold is not consulted): for fields where "
        "several answers are equally right.",
        params=_props({"values": {"type": "array", "minItems": 1,
                                  "description": "the accepted values"}}, ["values"]),
        factory=_oneof, builtin=True,
    ),
    ComparatorDef(
        "levenshtein",
        "Normalized Levenshtein similarity of two strings (rapidfuzz): 1 - edits / longer "
        "length, a continuous partial score. With `threshold`, a similarity at or above it "
        "counts as a match (the score stays the similarity).\n\n"
        "Values longer than 10,000 characters (`EVALSCHEMA_COMPARE_MAX_CHARS`) are compared "
        "exactly on their first 10,000 characters, after any common prefix and suffix, and "
        "every character past them counts as an edit: a lower bound of the similarity, with a "
        "reason on the result saying so. This keeps one huge value from stalling a run "
        "(exactly, 1 MB against 1 MB takes about a minute).",
        params=_props({"threshold": {**_UNIT, "description": "similarity that counts as a "
                                                        "match (default 1)"}}),
        types=_STRING_TYPES, factory=_levenshtein, threshold_param="threshold",
        matrix_factory=_levenshtein_matrix, builtin=True,
    ),
    ComparatorDef(
        "normalized",
        "Equality after Unicode NFKD accent stripping, case folding and whitespace "
        "collapsing: \"José  MÜLLER\" equals \"jose muller\".",
        types=_STRING_TYPES, factory=_normalized, matrix_factory=_normalized_matrix,
        builtin=True,
    ),
    ComparatorDef(
        "date",
        "The same calendar date, whatever the format: ISO 8601 (with or without time), "
        "14/03/2026 (day first unless `dayfirst: false`), 14.03.2026, \"March 14, 2026\", "
        "\"14 Mar 2026\". `tolerance_days` accepts dates that far apart.\n\n"
        "Partial dates are read at their precision: a month (`2021-01`, `Jan 2021`, "
        "`January 2021`) or a year (`2021`). A gold month or year matches any extracted "
        "date inside it (`2021` matches `2021-03-04`); an extracted value less precise "
        "than gold is a mismatch whose reason says so (`2021` against gold `2021-03-04`). "
        "A timestamp counts by its calendar day, in the gold timestamp's offset when both "
        "have one (`2015-04-30T22:00:00.000Z` matches `2015-04-30`). Nothing is filled in "
        "from today: text without a year is not a date, and two-digit years read "
        "69-99 as 19xx and 00-68 as 20xx.\n\n"
        "A gold value that is not a date makes the field an `error` with the reason (the "
        "extractor is not charged); an extracted value that is not a date is a mismatch.",
        params=_props({"dayfirst": {"type": "boolean"},
                       "tolerance_days": {"type": "integer", "minimum": 0}}),
        types=_STRING_TYPES, factory=_date, builtin=True,
    ),
    ComparatorDef(
        "type",
        "Only the JSON types must agree (integer and number agree): for schema-only checks "
        "where the value itself is not judged.",
        factory=_type, builtin=True,
    ),
    ComparatorDef(
        "contains",
        "The gold string occurs inside the extracted string (accent- and case-insensitive "
        "unless `case_sensitive: true`): for free text where extra words are fine.",
        params=_props({"case_sensitive": {"type": "boolean", "description": "compare case and "
                                         "accents (default false)"}}),
        types=_STRING_TYPES, factory=_contains, builtin=True,
    ),
    ComparatorDef(
        "regex",
        "The extracted string fully matches `pattern` (Python regular expression); gold is "
        "not consulted. For format checks such as IDs and codes.\n\n"
        "Patterns are checked with Python's `re` and matched with the `regex` package under a "
        "time budget: a match taking longer than 0.5 s (`EVALSCHEMA_REGEX_TIMEOUT`) makes that "
        "field an `error` with the reason, and after 5 such timeouts a pattern gets 0.01 s per "
        "match, so a catastrophic pattern such as `(a|aa)+` never stalls a run.",
        params=_props({"pattern": {"type": "string", "format": "regex", "description":
                               "Python regular expression the whole value must match"}},
                     ["pattern"]),
        types=_STRING_TYPES, factory=_regex, builtin=True,
    ),
)

