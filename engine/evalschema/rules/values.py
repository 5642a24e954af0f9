"""Reading the values comparators judge: the JSON type of a value, a date written in the
formats extractors emit, and a Levenshtein distance bounded for huge strings.

Apart from the comparators so that what else needs them (the schema checks read
``json_type``, the compat explanations ``capped_similarity``) does not import the
comparator table.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from rapidfuzz.distance import Levenshtein

from evalschema.rules.registry import CompareTypeError


def json_type(value: Any) -> str:
    """The JSON type name of a Python value (bool before int: bool is an int subclass)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


# -- dates ----------------------------------------------------------------------

_DATE_FORMATS_DAYFIRST = ("%d/%m/%Y", "%d.%m.%Y", "%d-%m-%Y", "%d/%m/%y", "%d.%m.%y")
_DATE_FORMATS_MONTHFIRST = ("%m/%d/%Y", "%m-%d-%Y", "%m/%d/%y")
_DATE_FORMATS_NAMED = (
    "%B %d, %Y", "%B %d %Y", "%b %d, %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y",
    "%d %B, %Y", "%d %b, %Y", "%Y/%m/%d", "%Y.%m.%d", "%Y%m%d", "%A, %B %d, %Y",
)


def parse_date(value: Any, *, dayfirst: bool = True) -> date:
    """Parse the date formats extractors commonly emit; raise CompareTypeError otherwise."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise CompareTypeError(f"{value!r} is not a date string")
    return _parse_date_text(value, dayfirst)


@lru_cache(maxsize=65536)
def _parse_date_text(value: str, dayfirst: bool) -> date:
    text = value.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text)
    numeric = _DATE_FORMATS_DAYFIRST + _DATE_FORMATS_MONTHFIRST
    if not dayfirst:
        numeric = _DATE_FORMATS_MONTHFIRST + _DATE_FORMATS_DAYFIRST
    for fmt in (*numeric, *_DATE_FORMATS_NAMED):
        try:
            return datetime.strptime(cleaned, fmt).date()
        except ValueError:
            continue
    raise CompareTypeError(f"{value!r} is not a recognised date")


# -- string distance, bounded --------------------------------------------------


def bounded_levenshtein(a: str, b: str, cap: int) -> int:
    """The Levenshtein distance when both strings have at most ``cap`` characters; past
    that, the distance of the first ``cap`` characters of each plus one edit per
    character after them. Never below the true distance, and O(cap²/64) work however
    long the strings are (1 MB against 1 MB exactly takes about a minute)."""
    if len(a) <= cap and len(b) <= cap:
        return int(Levenshtein.distance(a, b))
    # A common prefix and suffix cost no edits: strip them (exact), then cap the rest.
    head = _common_prefix(a, b)
    a, b = a[head:], b[head:]
    tail = _common_prefix(a[::-1], b[::-1])
    if tail:
        a, b = a[:-tail], b[:-tail]
    if len(a) <= cap and len(b) <= cap:
        return int(Levenshtein.distance(a, b))
    return int(Levenshtein.distance(a[:cap], b[:cap])) + max(len(a), len(b)) - cap


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, by bisection on slice equality (C speed)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def capped_similarity(a: str, b: str, cap: int) -> float:
    """Normalised Levenshtein similarity of values past ``cap`` characters, from
    ``bounded_levenshtein``: a lower bound, so a long value is never over-credited."""
    return max(0.0, 1.0 - bounded_levenshtein(a, b, cap) / max(len(a), len(b)))
