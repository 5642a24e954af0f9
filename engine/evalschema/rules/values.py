"""Reading the values comparators judge: a date written in the formats extractors emit,
and a Levenshtein distance bounded for huge strings.

Apart from the comparators so that what else needs them (the schema checks read dates,
the compat explanations ``capped_similarity``) does not import the comparator table.
"""

from __future__ import annotations

import calendar
import re
import warnings
from datetime import date, datetime
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from dateutil.parser import parse as dateutil_parse
from dateutil.parser import parserinfo
from rapidfuzz.distance import Levenshtein

from evalschema.jsontypes import json_type
from evalschema.results import show_value
from evalschema.rules.registry import CompareTypeError

# -- dates ----------------------------------------------------------------------
# Written forms are read by dateutil, made deterministic: a part the text does not give
# is never filled from today (each text is parsed against two different defaults, and a
# part that follows the default was not written), and two-digit years use a fixed pivot.

Precision = Literal["year", "month", "day"]
_PRECISION_RANK = {"year": 0, "month": 1, "day": 2}


class DateValue(NamedTuple):
    """A date as written, at its precision: the period it names (``first`` to ``last``,
    one day for a day) and, for a timestamp with an offset, the moment (whose calendar
    day depends on the offset it is seen in)."""

    first: date
    last: date
    precision: Precision
    moment: datetime | None = None

    @property
    def rank(self) -> int:
        """0 for a year, 1 for a month, 2 for a day: larger is more precise."""
        return _PRECISION_RANK[self.precision]


class _FixedPivot(parserinfo):
    """Two-digit years as POSIX strptime reads them (69-99 -> 19xx, 00-68 -> 20xx), not
    relative to today's year as dateutil's default does."""

    def convertyear(self, year: int, century_specified: bool = False) -> int:
        if year < 100 and not century_specified:
            return year + (1900 if year >= 69 else 2000)
        return year


_INFO = {True: _FixedPivot(dayfirst=True), False: _FixedPivot(dayfirst=False)}
#: Two defaults that differ in year, month and day, every day of either valid in every
#: month of the other's year pairs: what the text gave is what both parses agree on.
_DEFAULTS = (datetime(2000, 1, 1), datetime(2001, 3, 2))
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_YEAR_MONTH = re.compile(r"(\d{4})-(\d{1,2})")
_YEAR = re.compile(r"\d{4}")
_NUMERIC_DAY = re.compile(r"(\d{1,2})([/.-])(\d{1,2})\2(\d{4})")


#: Text longer than this is not read as a date: the longest written forms (a JavaScript
#: ``Date.toString()`` with its zone name) are about 60 characters, and dateutil takes
#: seconds on a megabyte of text, which a hostile or runaway value would cost per field
#: (and each parsed text is cached).
DATE_MAX_CHARS = 200


def parse_date(value: Any, *, dayfirst: bool = True) -> DateValue:
    """A date, partial date (``2021``, ``2021-01``, ``Jan 2021``) or timestamp as
    extractors write it; ``CompareTypeError`` (its message names the JSON type or says
    why) for anything else, including text without a year."""
    if type(value) is str:  # the common case first: this runs once per date field
        if len(value) > DATE_MAX_CHARS:
            raise CompareTypeError(f"{show_value(value)} is not a date (longer than "
                                   f"{DATE_MAX_CHARS} characters)")
        return _parse_date_text(value, dayfirst)
    if isinstance(value, datetime):
        d = value.date()
        return DateValue(d, d, "day", value if value.tzinfo is not None else None)
    if isinstance(value, date):
        return DateValue(value, value, "day")
    if not isinstance(value, str):
        raise CompareTypeError(f"{show_value(value)} is {json_type(value)}, not a date")
    return _parse_date_text(value, dayfirst)


@lru_cache(maxsize=65536)
def _parse_date_text(value: str, dayfirst: bool) -> DateValue:
    text = value.strip()
    if _ISO_DAY.match(text):  # the common case, without dateutil
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            d = moment.date()
            return DateValue(d, d, "day", moment if moment.tzinfo is not None else None)
    if _YEAR.fullmatch(text):
        year = int(text)
        if year >= 1:
            return DateValue(date(year, 1, 1), date(year, 12, 31), "year")
    ym = _YEAR_MONTH.fullmatch(text)
    if ym and 1 <= int(ym[2]) <= 12 and int(ym[1]) >= 1:
        return _month(int(ym[1]), int(ym[2]))
    nd = _NUMERIC_DAY.fullmatch(text)
    if nd:  # 14/03/2026, 03.14.2026: what dateutil reads them as, at a tenth of the cost
        a, b, year = int(nd[1]), int(nd[3]), int(nd[4])
        for day, month in ((a, b), (b, a)) if dayfirst else ((b, a), (a, b)):
            if 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]:
                d = date(year, month, day)
                return DateValue(d, d, "day")
    return _parse_written(value, text, dayfirst)


def _parse_written(value: str, text: str, dayfirst: bool) -> DateValue:
    info = _INFO[dayfirst]
    try:
        with warnings.catch_warnings():  # unknown time zone names: read as no offset
            warnings.simplefilter("ignore")
            a = dateutil_parse(text, parserinfo=info, default=_DEFAULTS[0])
            b = dateutil_parse(text, parserinfo=info, default=_DEFAULTS[1])
    except (ValueError, OverflowError, TypeError):
        raise CompareTypeError(f"{show_value(value)} is not a date") from None
    if a.year != b.year:
        raise CompareTypeError(f"{show_value(value)} is not a date (it gives no year)")
    if a.month != b.month:
        if a.day != b.day:
            return DateValue(date(a.year, 1, 1), date(a.year, 12, 31), "year")
        raise CompareTypeError(f"{show_value(value)} is not a date (a day without a month)")
    if a.day != b.day:
        return _month(a.year, a.month)
    return DateValue(a.date(), a.date(), "day", a if a.tzinfo is not None else None)


def _month(year: int, month: int) -> DateValue:
    return DateValue(date(year, month, 1),
                     date(year, month, calendar.monthrange(year, month)[1]), "month")


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
