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


# -- numeric: tolerance bounds, gold 0, messages, labels ----------------------------------


def test_numeric_tolerance_bounds_are_inclusive() -> None:
    """A difference of exactly the tolerance matches (``<=``), on the fast path (numbers)
    and the general one (numeric strings). Gold 0 puts the difference itself against the
    bound; the bounds carry the float slack, so that is the value at the edge."""
    from evalschema.rules.comparators import _SLACK

    edge = 0.01 * _SLACK
    for params in ({"tolerance": {"rel": 0.01}}, {"tolerance": {"abs": 0.01}}):
        f = cmp("numeric", params)
        assert f(0, edge) == 1.0, params
        assert f(0.0, -edge) == 1.0, params
        assert f("0", str(edge)) == 1.0, params
        assert f(0, edge * (1 + 1e-9)) == 0.0, params
    # A zero tolerance still accepts the same number written differently.
    for params in ({"tolerance": {"rel": 0}}, {"tolerance": {"abs": 0}}):
        assert cmp("numeric", params)("100", "100.0") == 1.0, params
        assert cmp("numeric", params)("100", "100.5") == 0.0, params


@pytest.mark.parametrize(("g", "e"), [(0, 0.015), ("0", 0.015), (0.0, "0.015"), (False, 0.015)])
def test_numeric_relative_tolerance_against_gold_zero_divides_by_one(g: Any, e: Any) -> None:
    """``rel`` against gold 0 is read relative to 1 (as documented), not to 2 or to 0."""
    assert cmp("numeric", {"tolerance": {"rel": 0.02}})(g, e) == 1.0
    assert cmp("numeric", {"tolerance": {"rel": 0.01}})(g, e) == 0.0
    partial = cmp("numeric", {"tolerance": {"rel": 0.01}, "partial": True})
    assert partial(g, e) == pytest.approx(0.985)


@pytest.mark.parametrize(("g", "e", "score"), [
    (100, 40, 0.4), ("100", "40", 0.4), (100, 250, 0.0), ("100", "250", 0.0), (-10, -8, 0.8),
])
def test_numeric_partial_credit_outside_the_tolerance(g: Any, e: Any, score: float) -> None:
    f = cmp("numeric", {"tolerance": {"abs": 1}, "partial": True})
    assert f(g, e) == pytest.approx(score)
    # Without partial (and by default) a value outside the tolerance earns nothing.
    assert cmp("numeric", {"tolerance": {"abs": 1}})(g, e) == 0.0
    assert cmp("numeric", {"tolerance": {"abs": 1}, "partial": False})(g, e) == 0.0
    assert cmp("numeric")(g, e) == 0.0


def test_numeric_both_tolerances_must_hold() -> None:
    both = cmp("numeric", {"tolerance": {"rel": 0.01, "abs": 0.5}})
    assert both(100, 100.5) == 1.0
    assert both(100, 100.9) == 0.0   # within rel (0.9%), not within abs
    assert both(1, 1.4) == 0.0       # within abs, not within rel (40%)
    assert both("1", "1.4") == 0.0


def test_numeric_identical_non_numbers_match() -> None:
    """An extractor that copies gold's non-number ("n/a") exactly is right; different
    types that compare equal in Python are read as numbers."""
    f = cmp("numeric")
    assert f("n/a", "n/a") == 1.0
    assert f([1, 2], [1, 2]) == 1.0
    assert f(1, True) == 1.0
    assert f("1", 1.0) == 1.0
    with pytest.raises(CompareTypeError):
        f("n/a", "N/A")


@pytest.mark.parametrize(("g", "e", "message"), [
    ("n/a", 1, 'gold value "n/a" is not a number'),
    ([1], 1, "gold value [1] is not a number"),
    (1, "n/a", 'extracted value "n/a" is not a number'),
    (1, float("nan"), "NaN against a number"),
    (float("nan"), 1, "NaN against a number"),
    ("nan", 2.5, "NaN against a number"),
])
def test_numeric_type_error_messages(g: Any, e: Any, message: str) -> None:
    with pytest.raises(CompareTypeError) as got:
        cmp("numeric", {"tolerance": {"rel": 0.5}, "partial": True})(g, e)
    assert str(got.value) == message


@pytest.mark.parametrize(("params", "label"), [
    ({}, "numeric"),
    ({"tolerance": None}, "numeric"),
    ({"tolerance": {"rel": 0.015}}, "numeric, rel 1.5%"),
    ({"tolerance": {"abs": 0.5}}, "numeric, abs 0.5"),
    ({"tolerance": {"rel": 0.01, "abs": 2}, "partial": True}, "numeric, rel 1%, abs 2, partial"),
    ({"partial": False}, "numeric"),
    ({"partial": True}, "numeric, partial"),
])
def test_numeric_label_names_the_tolerances(params: dict[str, Any], label: str) -> None:
    """The label is what a reason shows of the comparator ("numeric, rel 1%")."""
    assert default_registry.comparators["numeric"].label(params) == label


# -- string comparators ---------------------------------------------------------------


def test_levenshtein_type_errors_name_the_side() -> None:
    f = cmp("levenshtein")
    with pytest.raises(CompareTypeError) as got:
        f(1, "a")
    assert str(got.value) == "gold value 1 is integer, not a string"
    with pytest.raises(CompareTypeError) as got:
        f(None, "a")
    assert str(got.value) == "gold value null is null, not a string"


def test_levenshtein_past_the_cap_is_a_lower_bound_with_a_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Values of at most ``EVALSCHEMA_COMPARE_MAX_CHARS`` characters are compared exactly;
    past it (on either side) the score is a lower bound that says so, unless equal."""
    from evalschema.rules.registry import CompareLimitError

    monkeypatch.setenv("EVALSCHEMA_COMPARE_MAX_CHARS", "4")
    f = cmp("levenshtein")
    assert f("abcd", "abce") == pytest.approx(0.75)  # at the cap: exact
    assert f("xabcdefy", "xabcdefy") == 1.0
    for g, e in (("xabcdefy", "zabc"), ("zabc", "xabcdefy")):
        with pytest.raises(CompareLimitError):
            f(g, e)
    with pytest.raises(CompareLimitError) as got:
        f("xabcdefy", "zabcdefwq")
    # No common prefix or suffix: 1 edit in the first 4 characters, then one per
    # character past them (9 - 4): 6 edits over 9 characters, against a true 3.
    assert got.value.score == pytest.approx(1 - 6 / 9)
    assert str(got.value) == (
        "levenshtein compared the first 4 characters only (values of 8 and 9 characters; "
        "the rest counts as edits, so 0.3333 is a lower bound; EVALSCHEMA_COMPARE_MAX_CHARS "
        "raises the limit)")


def test_normalized_and_contains_fold_long_values_too() -> None:
    """Values past the fold cache's length limit are folded the same way, uncached."""
    long_g = "José  MÜLLER " * 200
    long_e = "jose muller " * 200
    assert len(long_g) > 1024
    assert cmp("normalized")(long_g, long_e) == 1.0
    assert cmp("normalized")(long_g, long_e + "x") == 0.0
    assert cmp("normalized")("jose muller", long_e) == 0.0
    assert cmp("contains")("MÜLLER", long_e) == 1.0
    assert cmp("contains")(long_g, "x" + long_e) == 1.0


def test_only_short_values_are_kept_in_the_fold_cache() -> None:
    """A streamed run must not keep megabyte values alive in the fold cache: up to 1,024
    characters a folded value is cached, past that it is not (whichever path folds it)."""
    from evalschema.rules.comparators import _fold_cached, fold_text

    at, over = "A" * 1023 + "É", "A" * 1024 + "É"
    _fold_cached.cache_clear()
    fold_text(over)
    assert _fold_cached.cache_info().currsize == 0
    fold_text(at)
    assert _fold_cached.cache_info().currsize == 1
    normalized = cmp("normalized")
    for g, e in ((over, "x"), ("x", over)):  # each side of the normalized comparator
        _fold_cached.cache_clear()
        normalized(g, e)
        assert _fold_cached.cache_info().currsize == 1, (len(g), len(e))  # only "x"
        normalized(g.replace(over, at), e.replace(over, at))
        assert _fold_cached.cache_info().currsize == 2, (len(g), len(e))
    assert fold_text(over) == "a" * 1024 + "e"


def test_contains_scores() -> None:
    insensitive, sensitive = cmp("contains"), cmp("contains", {"case_sensitive": True})
    assert insensitive("Acme", "Globex Corp") == 0.0
    assert insensitive("acme", "THE ÀCME CORP") == 1.0
    assert insensitive(None, None) == 1.0
    assert sensitive("Acme", "The Acme Corp") == 1.0
    assert sensitive("Acme", "The ACME Corp") == 0.0
    assert sensitive(None, None) == 1.0
    assert cmp("contains", {"case_sensitive": False})("Acme", "ACME") == 1.0


# -- regex: the time budget -----------------------------------------------------------


def test_regex_pattern_the_regex_engine_refuses_is_a_value_error() -> None:
    """Python's ``re`` reads ``x{d`` as literal text; the timed engine refuses it."""
    with pytest.raises(ValueError) as got:
        cmp("regex", {"pattern": "x{d"})
    assert str(got.value) == "pattern not supported by the regex engine: expected } at position 3"


def test_regex_timeouts_are_errors_and_throttle_after_five(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each catastrophic match costs the budget and is a ``CompareLimitError`` whose reason
    names it; after five timeouts the pattern gets a fiftieth of it."""
    from evalschema.rules.registry import CompareLimitError

    monkeypatch.setenv("EVALSCHEMA_REGEX_TIMEOUT", "0.2")
    f = cmp("regex", {"pattern": "(a|aa)+"})
    assert f("x", "aaaa") == 1.0
    reasons = []
    for i in range(7):
        with pytest.raises(CompareLimitError) as got:
            f("x", "a" * 40 + "b" * (i + 1))
        assert got.value.score is None
        reasons.append(str(got.value))
    assert reasons[0] == ("regex '(a|aa)+' took longer than 0.2 s on a 41-character value; "
                          "the field is not judged (EVALSCHEMA_REGEX_TIMEOUT sets the budget)")
    budgets = [r.split("took longer than ", 1)[1].split(" s ")[0] for r in reasons]
    assert budgets == ["0.2"] * 5 + ["0.004"] * 2


# -- date: defaults and nulls ---------------------------------------------------------


def test_date_reads_day_first_by_default_and_on_both_sides() -> None:
    assert cmp("date")("2026-04-03", "03/04/2026") == 1.0
    assert cmp("date")("03/04/2026", "2026-04-03") == 1.0
    assert cmp("date", {"dayfirst": True})("03/04/2026", "2026-04-03") == 1.0
    assert cmp("date", {"dayfirst": False})("03/04/2026", "2026-03-04") == 1.0
    assert cmp("date", {"dayfirst": False})("03/04/2026", "2026-04-03") == 0.0


def test_date_nulls() -> None:
    f = cmp("date")
    assert f(None, None) == 1.0
    with pytest.raises(CompareTypeError) as got:
        f(None, "2021-01-01")
    assert str(got.value) == "gold value is null, not a date"


def test_date_gold_that_is_not_a_date_reason_in_full() -> None:
    with pytest.raises(CompareVerdict) as got:
        cmp("date")("soon", "2021-01-01")
    assert got.value.reason == ('gold value "soon" is not a date, so the date comparator '
                                "cannot judge this field (fix the gold value)")


# -- whole-matrix forms: every pair, and when they decline --------------------------------


def _edge() -> float:
    from evalschema.rules.comparators import _SLACK

    return 0.5 * _SLACK


#: Values for the matrix forms, every pair of which is compared: nulls, empty strings,
#: accents and case, numbers at a tolerance's edge (gold 0 against ``_edge()``), numeric
#: strings, unreadable values (equal and different), booleans.
MATRIX_CASES: list[tuple[str, dict[str, Any], list[Any]]] = [
    ("exact", {}, ["alpha", "ALPHA", "", None, 1, 1.0, True, "1"]),
    ("levenshtein", {}, ["alpha", "alpah", "", None, "Béta", "beta"]),
    ("normalized", {}, ["alpha", "ALPHA", "", None, "Béta", "beta ", "x"]),
    ("numeric", {}, [0, 1, 1.0, "1", True, None, "x", "y", 2.5, -3]),
    ("numeric", {"tolerance": {"abs": 0.5}}, [0, 0.5, _edge(), 1, 1.4, None, "x", "y"]),
    ("numeric", {"tolerance": {"rel": 0.5}}, [0, 0.5, _edge(), 1, 1.4, 100, None, "x"]),
    ("numeric", {"tolerance": {"abs": 0.5, "rel": 0.01}},
     [0, _edge(), 1, 1.4, 100, 100.4, 100.9, "x", None]),
    ("numeric", {"tolerance": {"abs": 0.5, "rel": 0.2}, "partial": True},
     [0, 0.25, _edge(), 1, 2.5, 4, -3, None, "12", "x", "y", False]),
]


def _per_pair(name: str, params: dict[str, Any], gv: Any, ev: Any) -> float:
    d = default_registry.comparators[name]
    assert d.factory is not None
    try:
        return float(d.factory(params)(gv, ev))
    except CompareTypeError:  # the scorer's rule: identical values still match
        return 1.0 if type(gv) is type(ev) and gv == ev else 0.0


@pytest.mark.parametrize(("name", "params", "pool"), MATRIX_CASES)
def test_matrix_forms_give_every_pair_what_the_per_pair_form_gives(
        name: str, params: dict[str, Any], pool: list[Any]) -> None:
    """Strings, numbers and nulls are what the matrix forms are for: they must not
    decline (alignment would fall back to the slow path), and every cell must agree."""
    d = default_registry.comparators[name]
    assert d.matrix_factory is not None
    g, e = pool, pool[::-1]
    m = d.matrix_factory(params)(g, e)
    assert m is not None
    assert m.shape == (len(g), len(e))
    for i, gv in enumerate(g):
        for j, ev in enumerate(e):
            assert m[i, j] == _per_pair(name, params, gv, ev), (gv, ev)


def test_matrix_forms_decline_what_needs_the_per_pair_rules(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A matrix form returns None (the per-pair path then judges) for values it cannot
    read: non-strings under a string comparator, a NaN, unhashables, values past the cap."""
    def matrix(name: str, g: list[Any], e: list[Any], params: dict[str, Any] | None = None
               ) -> Any:
        factory = default_registry.comparators[name].matrix_factory
        assert factory is not None
        return factory(params or {})(g, e)

    for name in ("levenshtein", "normalized"):
        assert matrix(name, ["a", 1], ["a"]) is None
        assert matrix(name, ["a"], [None, ["a"]]) is None
        assert matrix(name, [1], [1]) is None
    for g, e in (([float("nan")], [1]), ([1], [1, "nan"]), ([float("nan")], [float("nan")])):
        assert matrix("numeric", g, e) is None
        assert matrix("numeric", g, e, {"tolerance": {"abs": 1}}) is None
    assert matrix("exact", [[1]], [[1]]) is None
    assert matrix("exact", [1], [{"a": 1}]) is None
    monkeypatch.setenv("EVALSCHEMA_COMPARE_MAX_CHARS", "4")
    assert matrix("levenshtein", ["abcd", None], ["abce", ""]) is not None
    assert matrix("levenshtein", ["abcde"], ["abcd"]) is None
    assert matrix("levenshtein", ["abcd"], ["abcde"]) is None


def test_parameter_schemas_are_closed_objects() -> None:
    """A misspelt parameter (``tolerence``) must be refused, not ignored: each built-in's
    parameter schema is a closed object listing its required parameters."""
    from evalschema.rules.comparators import BUILTIN_COMPARATORS, _props

    prop = {"type": "integer"}
    assert _props({"n": prop}) == {"type": "object", "properties": {"n": prop},
                                   "additionalProperties": False}
    assert _props({"n": prop}, ["n"]) == {"type": "object", "properties": {"n": prop},
                                          "additionalProperties": False, "required": ["n"]}
    for d in BUILTIN_COMPARATORS:
        if d.params is not None:
            assert d.params == _props(d.params["properties"], d.params.get("required")), d.name
