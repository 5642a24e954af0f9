"""Built-in comparators and transforms, through the registry as the engine binds them."""

from __future__ import annotations

import math
from typing import Any

import pytest

from evalschema import CompareTypeError, CompareVerdict, default_registry


def cmp(name: str, params: dict[str, Any] | None = None) -> Any:
    d = default_registry.comparators[name]
    assert d.factory is not None
    return d.factory(params or {})


def tf(name: str, params: dict[str, Any] | None = None) -> Any:
    d = default_registry.transforms[name]
    assert d.factory is not None
    return d.factory(params or {})


@pytest.mark.parametrize(("g", "e", "score"), [
    ("a", "a", 1.0), (42, 42.0, 0.0), (True, 1, 0.0), (None, None, 1.0),
    ({"k": 1}, {"k": 1.0}, 1.0), ([1, 2], [2, 1], 0.0),
])
def test_exact(g: Any, e: Any, score: float) -> None:
    assert cmp("exact")(g, e) == score


@pytest.mark.parametrize(("params", "g", "e", "score"), [
    ({}, 42, "42", 1.0), ({}, 5, " 5 ", 1.0), ({}, 1000, "1e3", 1.0), ({}, 1, True, 1.0),
    ({}, None, None, 1.0), ({}, float("nan"), "nan", 1.0), ({}, 1.0, 1.01, 0.0),
    ({"tolerance": {"rel": 0.01}}, 100, 101, 1.0), ({"tolerance": {"rel": 0.01}}, 100, 101.5, 0.0),
    ({"tolerance": {"rel": 0.01}}, 0, 0.005, 1.0),
    ({"tolerance": {"abs": 0.01}}, 498.53, 498.54, 1.0),
    ({"tolerance": {"abs": 0.01, "rel": 0.5}}, 1, 1.02, 0.0),
    ({"tolerance": None}, 1, 1, 1.0),
    ({"tolerance": {"rel": 0.01}, "partial": True}, 100, 90, 0.9),
])
def test_numeric(params: dict[str, Any], g: Any, e: Any, score: float) -> None:
    assert cmp("numeric", params)(g, e) == pytest.approx(score)


@pytest.mark.parametrize(("g", "e"), [(1, None), (1, "abc"), ("abc", "abd"), (1, [1]),
                                      (float("nan"), 1)])
def test_numeric_type_errors(g: Any, e: Any) -> None:
    with pytest.raises(CompareTypeError):
        cmp("numeric")(g, e)


def test_oneof_ignores_gold() -> None:
    f = cmp("oneof", {"values": ["EUR", "USD"]})
    assert f("GBP", "USD") == 1.0
    assert f("EUR", "CHF") == 0.0


def test_levenshtein_is_continuous() -> None:
    f = cmp("levenshtein")
    assert f("kitten", "sitting") == pytest.approx(1 - 3 / 7)
    assert f("", "") == 1.0
    assert f(None, None) == 1.0
    with pytest.raises(CompareTypeError):
        f("a", 1)


def test_normalized() -> None:
    f = cmp("normalized")
    assert f("José  MÜLLER ", "jose muller") == 1.0
    assert f("Straße", "STRASSE") == 1.0
    assert f("a", "b") == 0.0


@pytest.mark.parametrize("text", ["2026-03-14", "14/03/2026", "14.03.2026", "March 14, 2026",
                                  "14 Mar 2026", "2026-03-14T10:00:00Z", "Mar 14th 2026",
                                  "2026/03/14"])
def test_date_formats(text: str) -> None:
    assert cmp("date")("2026-03-14", text) == 1.0


def test_date_mismatch_and_tolerance() -> None:
    assert cmp("date")("2026-03-14", "2026-03-15") == 0.0
    assert cmp("date", {"tolerance_days": 1})("2026-03-14", "2026-03-15") == 1.0
    assert cmp("date", {"dayfirst": False})("2026-03-04", "03/04/2026") == 1.0
    with pytest.raises(CompareTypeError):
        cmp("date")("2026-03-14", "soon")


@pytest.mark.parametrize(("gold", "extracted"), [
    ("2021-01", "January 2021"), ("2021-01", "Jan 2021"), ("January 2021", "2021-01"),
    ("Jan 2021", "2021-1"), ("2021", "2021"), ("2021", "January 2021"), ("2021", "2021-03-04"),
    ("2021-01", "2021-01-31"), ("2021-01", "31 January 2021"),
])
def test_date_partial_forms_match_at_the_gold_precision(gold: str, extracted: str) -> None:
    assert cmp("date")(gold, extracted) == 1.0


@pytest.mark.parametrize(("gold", "extracted"), [
    ("2021-01", "February 2021"), ("2021-01", "2021-02-01"), ("2021", "2022"),
    ("2021", "2022-01-01"), ("Jan 2021", "Jan 2022"),
])
def test_date_partial_forms_that_differ(gold: str, extracted: str) -> None:
    assert cmp("date")(gold, extracted) == 0.0


def test_date_tolerance_reaches_past_a_gold_month() -> None:
    assert cmp("date")("2021-01", "2021-02-01") == 0.0
    assert cmp("date", {"tolerance_days": 1})("2021-01", "2021-02-01") == 1.0


@pytest.mark.parametrize(("gold", "extracted", "precisions"), [
    ("2021-03-04", "2021", ("year", "day")), ("2021-03-04", "March 2021", ("month", "day")),
    ("2021-03", "2021", ("year", "month")),
])
def test_date_less_precise_than_gold_is_a_mismatch_saying_so(
        gold: str, extracted: str, precisions: tuple[str, str]) -> None:
    with pytest.raises(CompareVerdict) as got:
        cmp("date")(gold, extracted)
    assert got.value.score == 0.0
    assert got.value.reason == (f'"{extracted}" ≠ gold "{gold}" (date): the extracted value '
                                f"gives the {precisions[0]} only, gold the {precisions[1]}")


@pytest.mark.parametrize(("gold", "extracted", "score"), [
    ("2015-04-30T22:00:00.000Z", "2015-04-30", 1.0),
    ("2015-04-30", "2015-04-30T22:00:00.000Z", 1.0),
    ("2015-04-30", "2015-04-30T23:59:59+05:00", 1.0),
    # Both with offsets: the extracted moment's day in gold's offset.
    ("2015-05-01T00:00:00+02:00", "2015-04-30T22:00:00Z", 1.0),
    ("2015-04-30T22:00:00Z", "2015-05-01T00:00:00+02:00", 1.0),
    ("2015-04-30T10:00:00+00:00", "2015-05-01T01:00:00+14:00", 1.0),
    ("2015-04-30T10:00:00+00:00", "2015-05-01T15:00:00+14:00", 0.0),
    ("2015-04-30T22:00:00.000Z", "2015-05-01", 0.0),
])
def test_date_timestamps_count_by_calendar_day_in_the_gold_offset(
        gold: str, extracted: str, score: float) -> None:
    assert cmp("date")(gold, extracted) == score


@pytest.mark.parametrize(("gold", "shown"), [
    ("N/A", '"N/A" is not a date'), ("soon", '"soon" is not a date'),
    ("March", '"March" is not a date (it gives no year)'),
    (2021, "2021 is integer, not a date"), ({"y": 2021}, '{"y": 2021} is object, not a date'),
])
def test_date_gold_that_is_not_a_date_cannot_be_judged(gold: Any, shown: str) -> None:
    with pytest.raises(CompareVerdict) as got:
        cmp("date")(gold, "2021-01-01")
    assert got.value.score is None
    assert got.value.reason.startswith(f"gold value {shown}, so the date comparator cannot")


def test_date_gold_non_date_copied_exactly_matches() -> None:
    assert cmp("date")("N/A", "N/A") == 1.0


def test_date_gold_non_date_equal_only_across_json_types_is_not_a_copy() -> None:
    """``1 == True`` in Python, but an extracted ``true`` is no copy of gold's ``1``."""
    with pytest.raises(CompareVerdict) as got:
        cmp("date")(1, True)
    assert got.value.score is None


def test_date_tolerance_widens_a_gold_period_on_both_ends() -> None:
    """The extracted period must lie inside gold's, widened by ``tolerance_days`` at the
    start as at the end; a month reaching past that is not inside it."""
    within3 = cmp("date", {"tolerance_days": 3})
    assert within3("2021-02", "2021-01-30") == 1.0
    assert within3("2021-02", "2021-01-28") == 0.0
    assert cmp("date", {"tolerance_days": 5})("2021", "2022-01") == 0.0


@pytest.mark.parametrize(("gold", "extracted"), [
    ("2021", "2021-12-31"), ("2021", "December 2021"),
])
def test_date_gold_year_covers_to_its_last_day(gold: str, extracted: str) -> None:
    assert cmp("date")(gold, extracted) == 1.0


@pytest.mark.parametrize("gold", ["2021-13", "2021-00"])
def test_date_gold_month_out_of_range_cannot_be_judged(gold: str) -> None:
    with pytest.raises(CompareVerdict) as got:
        cmp("date")(gold, "2021-01-01")
    assert got.value.reason.startswith(f'gold value "{gold}" is not a date')


def test_date_two_digit_year_pivot_starts_at_69() -> None:
    assert cmp("date")("1969-03-14", "14 Mar 69") == 1.0
    assert cmp("date")("2068-03-14", "14 Mar 68") == 1.0


def test_date_year_written_with_punctuation_is_a_year() -> None:
    """dateutil reads ``2021.``: both defaults disagree on month and day, so it is a year."""
    assert cmp("date")("2021.", "2021-06-15") == 1.0


@pytest.mark.parametrize(("extracted", "message"), [
    ("soon", 'extracted value "soon" is not a date'),
    ("Tuesday", 'extracted value "Tuesday" is not a date (it gives no year)'),
    ([2021], "extracted value [2021] is array, not a date"),
    (None, "extracted value is null, not a date"),
])
def test_date_extracted_that_is_not_a_date_is_a_type_error(extracted: Any, message: str) -> None:
    with pytest.raises(CompareTypeError, match=None) as got:
        cmp("date")("2021-01-01", extracted)
    assert str(got.value) == message


def test_date_reading_is_deterministic() -> None:
    """Nothing is filled in from today: a two-digit year has a fixed pivot, and a text
    without a year (which dateutil would complete with today's) is not a date."""
    assert cmp("date")("1970-03-14", "14/03/70") == 1.0
    assert cmp("date")("2068-03-14", "14/03/68") == 1.0
    with pytest.raises(CompareTypeError):
        cmp("date")("2026-03-14", "14 March")


@pytest.mark.parametrize(("name", "params", "g", "e", "message"), [
    ("numeric", {}, 1, None, "extracted value is null, not a number"),
    ("numeric", {}, None, 1, "gold value is null, not a number"),
    ("numeric", {}, 1, "abc", 'extracted value "abc" is not a number'),
    ("numeric", {}, 1, {"a": 1}, 'extracted value {"a": 1} is not a number'),
    ("levenshtein", {}, "a", None, "extracted value null is null, not a string"),
    ("levenshtein", {}, "a", {"k": 1}, 'extracted value {"k": 1} is object, not a string'),
    ("normalized", {}, True, "a", "gold value true is boolean, not a string"),
    ("regex", {"pattern": "a"}, "a", ["a"], 'extracted value ["a"] is array, not a string'),
])
def test_type_errors_speak_json_types(name: str, params: dict[str, Any], g: Any, e: Any,
                                      message: str) -> None:
    with pytest.raises(CompareTypeError) as got:
        cmp(name, params)(g, e)
    assert str(got.value) == message
    for python in ("None", "NoneType", "dict", "list", "True", "'"):
        assert python not in message


def test_type_contains_regex() -> None:
    assert cmp("type")(1, 2.5) == 1.0
    assert cmp("type")(1, "1") == 0.0
    assert cmp("contains")("Acme", "ACME Corporation") == 1.0
    assert cmp("contains", {"case_sensitive": True})("Acme", "ACME Corp") == 0.0
    assert cmp("regex", {"pattern": r"DE\d{9}"})("x", "DE123456789") == 1.0
    assert cmp("regex", {"pattern": r"DE\d{9}"})("x", "DE12") == 0.0


@pytest.mark.parametrize(("name", "params", "value", "out"), [
    ("lowercase", {}, "ÀB", "àb"), ("casefold", {}, "Straße", "strasse"),
    ("strip", {}, "  a ", "a"), ("normalize_whitespace", {}, " a \n\t b ", "a b"),
    ("sort_tokens", {}, "Smith  John", "John Smith"), ("strip_accents", {}, "Müller", "Muller"),
    ("normalize_unicode", {}, "e\u0301", "é"), ("round_digits", {"digits": 2}, 2.675, 2.67),
    ("round_digits", {"digits": 0}, 2.5, 2.0), ("type_convert", {"to": "int"}, " 42 ", 42),
    ("type_convert", {"to": "int"}, 3.9, 3), ("type_convert", {"to": "float"}, "1.5", 1.5),
    ("type_convert", {"to": "str"}, True, "true"), ("type_convert", {"to": "bool"}, "Yes", True),
    ("type_convert", {"to": "bool"}, 0, False),
])
def test_transforms(name: str, params: dict[str, Any], value: Any, out: Any) -> None:
    assert tf(name, params)(value) == out


@pytest.mark.parametrize("name", ["lowercase", "strip", "round_digits", "type_convert"])
def test_transforms_pass_null(name: str) -> None:
    params = {"digits": 1} if name == "round_digits" else {"to": "int"} if name == \
        "type_convert" else {}
    assert tf(name, params)(None) is None


@pytest.mark.parametrize(("name", "params", "value"), [
    ("lowercase", {}, 5), ("round_digits", {"digits": 1}, "x"), ("round_digits", {"digits": 1}, True),
    ("type_convert", {"to": "int"}, "3.5"), ("type_convert", {"to": "bool"}, "maybe"),
    ("type_convert", {"to": "float"}, [1]),
])
def test_transform_type_errors(name: str, params: dict[str, Any], value: Any) -> None:
    with pytest.raises(CompareTypeError):
        tf(name, params)(value)


def test_matrix_forms_agree_with_per_pair() -> None:
    """The alignment cost matrices must give exactly what the per-pair comparator gives."""
    import random

    rng = random.Random(7)
    words = ["alpha", "alpah", "beta", "Béta", "gamma", None, "", "ALPHA"]
    numbers: list[Any] = [0, 1, 1.005, 100, 99.5, -3, None, "12", "x", True, 1e-9, 2.5]
    cases = [
        ("exact", {}, [*words, 1, 1.0, True]),
        ("levenshtein", {}, words),
        ("normalized", {}, words),
        ("numeric", {}, numbers),
        ("numeric", {"tolerance": {"rel": 0.01}}, numbers),
        ("numeric", {"tolerance": {"abs": 0.5, "rel": 0.2}, "partial": True}, numbers),
    ]
    for name, params, pool in cases:
        d = default_registry.comparators[name]
        assert d.factory is not None and d.matrix_factory is not None
        per_pair = d.factory(params)
        g = [rng.choice(pool) for _ in range(12)]
        e = [rng.choice(pool) for _ in range(9)]
        m = d.matrix_factory(params)(g, e)
        if m is None:
            continue
        for i, gv in enumerate(g):
            for j, ev in enumerate(e):
                try:
                    want = per_pair(gv, ev)
                except CompareTypeError:  # the scorer's rule: identical values still match
                    want = 1.0 if type(gv) is type(ev) and gv == ev else 0.0
                assert math.isclose(m[i, j], want, abs_tol=0), (name, params, gv, ev)


def test_date_numeric_fast_path_reads_as_dateutil_does() -> None:
    """``14/03/2026``-like dates skip dateutil (ten times faster); they must read the same,
    day-first or not, valid or not."""
    import random

    from evalschema.rules import values

    rng = random.Random(13)
    for _ in range(3000):
        a, b, year = rng.randint(0, 32), rng.randint(0, 32), rng.randint(1000, 2999)
        sep = rng.choice("/.-")
        text = f"{a:0{rng.choice([1, 2])}d}{sep}{b:02d}{sep}{year}"
        for dayfirst in (True, False):
            got: Any
            want: Any
            try:
                got = values._parse_date_text.__wrapped__(text, dayfirst)
            except CompareTypeError:
                got = None
            try:
                want = values._parse_written(text, text, dayfirst)
            except CompareTypeError:
                want = None
            assert got == want, (text, dayfirst)


def test_a_megabyte_of_text_is_not_read_as_a_date() -> None:
    """A runaway extracted value took dateutil 49 s per field; past DATE_MAX_CHARS the
    text is said not to be a date at once (and is not cached)."""
    import time

    from hang_budget import HANG_SECONDS

    from evalschema import evaluate
    from evalschema.rules.values import DATE_MAX_CHARS

    schema = {"type": "object", "properties": {"d": {"type": "string",
                                                     "x-eval-compare": "date"}}}
    started = time.monotonic()
    run = evaluate([{"d": "2021-01-05"}] * 3,
                   [{"d": "a" * 1_000_000}, {"d": "x" * (DATE_MAX_CHARS + 1)},
                    {"d": "Fri Jun 30 2017 23:00:00 GMT+0100 (British Summer Time)"}], schema)
    assert time.monotonic() - started < HANG_SECONDS
    statuses = [r.field_results[0] for r in run.records]
    assert [str(r.status) for r in statuses] == ["mismatch", "mismatch", "mismatch"]
    assert f"longer than {DATE_MAX_CHARS} characters" in (statuses[0].reason or "")
    assert f"longer than {DATE_MAX_CHARS} characters" in (statuses[1].reason or "")
    assert "longer than" not in (statuses[2].reason or "")  # read, just another day
