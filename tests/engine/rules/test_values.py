"""Reading values (``evalschema.rules.values``): dates at their precision, and the
Levenshtein distance bounded for huge strings.

The date comparator's verdicts are in test_comparators.py; here what ``parse_date`` reads
(the period, its precision, the moment) and the bounded distance against the exact one.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest
from rapidfuzz.distance import Levenshtein

from evalschema import CompareTypeError
from evalschema.rules.values import (
    DATE_MAX_CHARS,
    DateValue,
    bounded_levenshtein,
    capped_similarity,
    parse_date,
)

D = date


@pytest.mark.parametrize(("text", "first", "last", "precision"), [
    ("2021", D(2021, 1, 1), D(2021, 12, 31), "year"),
    ("2021.", D(2021, 1, 1), D(2021, 12, 31), "year"),
    ("Monday 2021", D(2021, 1, 1), D(2021, 12, 31), "year"),
    ("2021-02", D(2021, 2, 1), D(2021, 2, 28), "month"),
    ("2020-2", D(2020, 2, 1), D(2020, 2, 29), "month"),
    ("Feb 2020", D(2020, 2, 1), D(2020, 2, 29), "month"),
    ("December 1999", D(1999, 12, 1), D(1999, 12, 31), "month"),
    ("Jan of 70", D(1970, 1, 1), D(1970, 1, 31), "month"),
])
def test_parse_date_reads_the_period_and_its_precision(
        text: str, first: date, last: date, precision: str) -> None:
    got = parse_date(text)
    assert (got.first, got.last, got.precision, got.moment) == (first, last, precision, None)


@pytest.mark.parametrize(("text", "day"), [
    ("2026-03-14", D(2026, 3, 14)),
    ("  2026-03-14  ", D(2026, 3, 14)),
    ("14 Mar 2026", D(2026, 3, 14)),
    ("03/04/2026", D(2026, 4, 3)),  # day first by default
    ("31.12.2021", D(2021, 12, 31)),
    # Two-digit years pivot at 69; from three digits on a year is as written.
    ("14 Mar 69", D(1969, 3, 14)),
    ("14 Mar 99", D(1999, 3, 14)),
    ("14 Mar 68", D(2068, 3, 14)),
    ("14 Mar 00", D(2000, 3, 14)),
    ("14 Jan of 100", D(100, 1, 14)),
    ("14 Mar 0100", D(100, 3, 14)),
])
def test_parse_date_reads_a_day(text: str, day: date) -> None:
    got = parse_date(text)
    assert (got.first, got.last, got.precision, got.moment) == (day, day, "day", None)


@pytest.mark.parametrize("today", [datetime(2000, 1, 1), datetime(2001, 3, 2)])
@pytest.mark.parametrize(("text", "first", "last", "precision"), [
    ("Friday 2031", D(2031, 1, 1), D(2031, 12, 31), "year"),
    ("Sep 2033", D(2033, 9, 1), D(2033, 9, 30), "month"),
    ("14 Jun 2035", D(2035, 6, 14), D(2035, 6, 14), "day"),
])
def test_parse_date_never_fills_a_missing_part_from_today(
        today: datetime, text: str, first: date, last: date, precision: str) -> None:
    """Whatever today is (even the very day a fixed default names), a year or a month
    stays a period: dateutil is never left to fill the missing parts from the clock."""
    import time_machine

    from evalschema.rules.values import _parse_date_text

    _parse_date_text.cache_clear()
    try:
        with time_machine.travel(today, tick=False):
            got = parse_date(text)
    finally:
        _parse_date_text.cache_clear()
    assert (got.first, got.last, got.precision) == (first, last, precision)


def test_parse_date_dayfirst_false_reads_month_first() -> None:
    assert parse_date("03/04/2026", dayfirst=False).first == D(2026, 3, 4)
    assert parse_date("03 04 2026", dayfirst=False).first == D(2026, 3, 4)
    assert parse_date("03 04 2026").first == D(2026, 4, 3)


def test_parse_date_keeps_the_moment_of_a_timestamp_with_an_offset() -> None:
    plus2 = timezone(timedelta(hours=2))
    for text in ("2021-03-14T23:30:00+02:00", "Mar 14 2021 23:30 +02:00"):
        got = parse_date(text)
        assert (got.first, got.last, got.precision) == (D(2021, 3, 14), D(2021, 3, 14), "day")
        assert got.moment == datetime(2021, 3, 14, 23, 30, tzinfo=plus2), text
    for text in ("2021-03-14T23:30:00", "Mar 14 2021 23:30"):
        assert parse_date(text).moment is None, text


def test_parse_date_takes_python_dates_and_datetimes() -> None:
    aware = datetime(2021, 3, 14, 23, 30, tzinfo=UTC)
    got = parse_date(aware)
    assert (got.first, got.last, got.precision, got.moment) == (
        D(2021, 3, 14), D(2021, 3, 14), "day", aware)
    got = parse_date(datetime(2021, 3, 14, 23, 30))
    assert (got.first, got.last, got.precision, got.moment) == (
        D(2021, 3, 14), D(2021, 3, 14), "day", None)
    got = parse_date(D(2021, 3, 14))
    assert (got.first, got.last, got.precision, got.moment) == (
        D(2021, 3, 14), D(2021, 3, 14), "day", None)


@pytest.mark.parametrize(("value", "message"), [
    (2021, "2021 is integer, not a date"),
    (None, "null is null, not a date"),
    (["2021"], '["2021"] is array, not a date'),
    ("soon", '"soon" is not a date'),
    ("June 5th", '"June 5th" is not a date (it gives no year)'),
    ("2021-13", '"2021-13" is not a date'),
    ("x" * (DATE_MAX_CHARS + 1),
     f'"{"x" * 58}… is not a date (longer than {DATE_MAX_CHARS} characters)'),
])
def test_parse_date_says_why_a_value_is_not_a_date(value: Any, message: str) -> None:
    with pytest.raises(CompareTypeError) as got:
        parse_date(value)
    assert str(got.value) == message


def test_parse_date_reads_text_up_to_the_length_limit() -> None:
    padded = "2021-03-14".ljust(DATE_MAX_CHARS)
    assert parse_date(padded).first == D(2021, 3, 14)
    with pytest.raises(CompareTypeError):
        parse_date(padded + " ")


# -- bounded Levenshtein ------------------------------------------------------------


def test_bounded_levenshtein_is_exact_within_the_cap() -> None:
    assert bounded_levenshtein("kitten", "sitting", 7) == 3
    assert bounded_levenshtein("abcd", "xbcd", 4) == 1
    assert bounded_levenshtein("", "", 0) == 0


@pytest.mark.parametrize(("a", "b", "cap", "distance"), [
    # No common prefix or suffix: the first `cap` characters exactly, then one edit per
    # character of the longer value past them.
    ("xabcdefy", "zabcdefwq", 4, 1 + 9 - 4),
    ("zabcdefwq", "xabcdefy", 4, 1 + 9 - 4),
    ("abcde", "vwxyz", 4, 4 + 1),
    ("aaaaa", "b", 4, 4 + 1),
    # One value within the cap is no exception: a bound (3), though the distance is 2.
    ("ba", "abX", 2, 2 + 1),
    ("abX", "ba", 2, 2 + 1),
    ("PREba", "PREabX", 2, 2 + 1),
    # A common prefix and suffix cost nothing: what is left fits in the cap, exactly.
    ("PREFIXab" + "SUFFIX", "PREFIXba" + "SUFFIX", 4, 2),
    ("PREFIXab", "PREFIXba", 4, 2),
    ("abSUFFIX", "baSUFFIX", 4, 2),
    ("same-value", "same-value", 3, 0),
    ("abcdef", "abcdefgh", 3, 2),
    ("abcdefgh", "abcdef", 3, 2),
    ("ghabcdef", "abcdef", 3, 2),
    ("abcdef", "ghabcdef", 3, 2),
    # Left over past the cap after stripping: a bound again.
    ("PRE" + "abcdef" + "POST", "PRE" + "uvwxyz" + "POST", 4, 4 + 2),
])
def test_bounded_levenshtein_past_the_cap(a: str, b: str, cap: int, distance: int) -> None:
    assert bounded_levenshtein(a, b, cap) == distance
    assert distance >= Levenshtein.distance(a, b)


def test_bounded_levenshtein_never_underestimates_and_is_exact_when_the_middle_fits() -> None:
    rng = random.Random(11)
    for _ in range(400):
        head = "".join(rng.choice("ab") for _ in range(rng.randint(0, 40)))
        tail = "".join(rng.choice("ab") for _ in range(rng.randint(0, 40)))
        mid_a = "".join(rng.choice("abc") for _ in range(rng.randint(0, 12)))
        mid_b = "".join(rng.choice("abc") for _ in range(rng.randint(0, 12)))
        a, b = head + mid_a + tail, head + mid_b + tail
        exact = Levenshtein.distance(a, b)
        for cap in (0, 1, 3, 12, 100):
            got = bounded_levenshtein(a, b, cap)
            assert got >= exact, (a, b, cap)
            if max(len(mid_a), len(mid_b)) <= cap:
                assert got == exact, (a, b, cap)
            # Never more than one edit per character of the longer value.
            assert got <= max(len(a), len(b)), (a, b, cap)


def test_capped_similarity_is_one_minus_the_bounded_distance_over_the_longer_length() -> None:
    assert capped_similarity("xabcdefy", "zabcdefwq", 4) == pytest.approx(1 - 6 / 9)
    assert capped_similarity("zabcdefwq", "xabcdefy", 4) == pytest.approx(1 - 6 / 9)
    assert capped_similarity("abcde", "vwxyz", 4) == 0.0
    assert capped_similarity("PREFIXab", "PREFIXba", 4) == pytest.approx(1 - 2 / 8)
    assert capped_similarity("same", "same", 2) == 1.0


def test_a_day_without_a_month_is_refused_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    """No text we know of makes dateutil give a day and a year but no month; if one ever
    does, the date is refused (naming the value) rather than read as a whole year."""
    from evalschema.rules import values

    def day_without_month(text: str, *, parserinfo: Any, default: datetime) -> datetime:
        return default.replace(year=2026, day=15)

    monkeypatch.setattr(values, "dateutil_parse", day_without_month)
    with pytest.raises(CompareTypeError) as raised:
        parse_date("the 15th, 2026 (unseen)")
    assert str(raised.value) == '"the 15th, 2026 (unseen)" is not a date (a day without a month)'


def test_a_string_subclass_is_read_like_its_text() -> None:
    """numpy's ``str_`` (what a pandas or Arrow column hands over) is a str subclass: it is
    read as the text it holds, day first unless told otherwise."""
    import numpy as np

    assert parse_date(np.str_("03/04/2026")) == parse_date("03/04/2026") \
        == DateValue(D(2026, 4, 3), D(2026, 4, 3), "day")
    assert parse_date(np.str_("03/04/2026"), dayfirst=False).first == D(2026, 3, 4)
