"""Lenient reading of LLM answers."""

from __future__ import annotations

import sys

import pytest

from evalschema import LenientParseError, parse_lenient
from evalschema.io.lenient import LenientResult, balanced_end, close_truncated, parses


@pytest.mark.parametrize(("text", "value", "method"), [
    ('{"a": 1}', {"a": 1}, "strict"),
    ('```json\n{"a": 1}\n```', {"a": 1}, "fence"),
    ('Sure! Here it is:\n```\n{"a": [1, 2]}\n```\nAnything else?', {"a": [1, 2]}, "fence"),
    ('The data is {"a": {"b": "}"}} as requested.', {"a": {"b": "}"}}, "embedded"),
    ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}, "repaired"),
    ("{'a': 'it\\'s', 'b': True, 'c': None}", {"a": "it's", "b": True, "c": None}, "repaired"),
    ('{"a": {"b": [1, 2', {"a": {"b": [1, 2]}}, "truncated"),
])
def test_recovers(text: str, value: object, method: str) -> None:
    got = parse_lenient(text)
    assert got.value == value
    assert got.method == method
    assert got.repaired is (method != "strict")


@pytest.mark.parametrize("text", ["I could not read the document.", "", "[1, 2]", "{{{"])
def test_unreadable(text: str) -> None:
    with pytest.raises(LenientParseError):
        parse_lenient(text)


def test_arrays_when_asked() -> None:
    assert parse_lenient("[1, 2]", want_object=False).value == [1, 2]


@pytest.mark.parametrize(("text", "value"), [
    ('{"a": "x \\"", "b": "cut', {"a": 'x "'}),
    ('{"a": ["x \\" y", "z"], "b": "cu', {"a": ['x " y', "z"]}),
])
def test_a_cut_after_an_escaped_quote_keeps_the_string_whole(text: str, value: object) -> None:
    """An escaped quote does not end a string: the cut is found after the real one."""
    got = parse_lenient(text)
    assert (got.value, got.method) == (value, "truncated")


def test_deep_unclosed_text_is_refused_in_linear_time() -> None:
    """300,000 open braces and a cut key: the truncation repair rebuilt the closers at
    every bracket, which took minutes (quadratic in the depth) and hung a run."""
    import time

    from hang_budget import HANG_SECONDS

    text = "{" * 300_000 + '"a'
    started = time.monotonic()
    with pytest.raises(LenientParseError):
        parse_lenient(text)
    assert time.monotonic() - started < HANG_SECONDS


def test_methods_and_the_first_readable_candidate() -> None:
    """Strict JSON is not "repaired"; an array is strict only when a value was asked for;
    a fence wins over an object in prose; a broken object is passed over for the next."""
    assert parse_lenient(" [1, 2] ", want_object=False) == LenientResult([1, 2], False, "strict")
    assert parse_lenient('"just text"', want_object=False).method == "strict"
    # An object was asked for: the first object inside the array.
    assert parse_lenient('[{"a": 1}, {"b": 2}]') == LenientResult({"a": 1}, True, "embedded")
    assert parse_lenient('{"b": 2} ```json\n{"a": 1}\n```').value == {"a": 1}
    assert parse_lenient('```JSON\r\n{"a": 1}```').method == "fence"
    assert parse_lenient('```json5 \n{"a": 1,}\n```') == LenientResult({"a": 1}, True, "repaired")
    assert parse_lenient('Note {x} then {"a": 1}') == LenientResult({"a": 1}, True, "embedded")
    assert parse_lenient('Note {x} then {"a": 1,}').value == {"a": 1}
    # Prose with capitals around the object or the array.
    assert parse_lenient('Invoice X-12: {"a": 1}') == LenientResult({"a": 1}, True, "embedded")
    assert parse_lenient('Invoice X-12: {"a": 1, "b": [2') == LenientResult(
        {"a": 1, "b": [2]}, True, "truncated")
    assert parse_lenient("Box X holds [1, 2] items", want_object=False).value == [1, 2]
    assert parse_lenient("Box X holds [1, 2", want_object=False).value == [1, 2]
    # Minified: nothing between a comma or a colon and what follows.
    assert parse_lenient('{"a":1,"b":[1,2,],}').value == {"a": 1, "b": [1, 2]}
    assert parse_lenient('{"a":1,"b":"c') == LenientResult({"a": 1}, True, "truncated")
    # Doubled braces, as template engines escape them: the inner object.
    assert parse_lenient('Answer: {{"a": 1}}').value == {"a": 1}
    assert parse_lenient('prose [1, {"a": [2, 3]}] more', want_object=False).value == [
        1, {"a": [2, 3]}]


def test_prose_is_searched_for_a_bounded_number_of_candidates() -> None:
    """16 places to try, fences and objects alike, so a long answer full of braces
    cannot make reading it slow: the 16th is read, the 17th not."""
    fifteen = "{x} " * 15 + '{"a": 1}'
    assert parse_lenient(fifteen).value == {"a": 1}
    with pytest.raises(LenientParseError):
        parse_lenient("{x} " + fifteen)
    with pytest.raises(LenientParseError):
        parse_lenient("```\nnope\n``` " + fifteen)


@pytest.mark.parametrize(("text", "message"), [
    ("I could not read the document.",
     "no JSON object found in 'I could not read the document.'"),
    ("x" * 60, f"no JSON object found in '{'x' * 60}'"),
    ("x" * 61, f"no JSON object found in '{'x' * 60}…'"),
])
def test_an_unreadable_answer_says_what_it_began_with(text: str, message: str) -> None:
    with pytest.raises(LenientParseError) as err:
        parse_lenient(text)
    assert str(err.value) == message


def test_the_errors_that_no_repair_can_fix_say_why() -> None:
    with pytest.raises(LenientParseError) as err:
        parse_lenient("no list here", want_object=False)
    assert str(err.value) == "no JSON value found in 'no list here'"
    with pytest.raises(LenientParseError) as err:
        parse_lenient("[" * 100_000 + "]" * 100_000, want_object=False)
    assert str(err.value) == "the text is nested too deeply to read"
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(5000)
    try:
        with pytest.raises(LenientParseError) as err:
            parse_lenient('{"n": ' + "1" * 5001 + "}")
    finally:
        sys.set_int_max_str_digits(limit)
    assert str(err.value) == "an integer has more than 5,000 digits, more than Python reads"


@pytest.mark.parametrize(("text", "value", "method"), [
    # Python's spelling of strings: the escapes that mean the character itself.
    ("{'path': 'C:\\\\', 'b': 1}", {"path": "C:\\", "b": 1}, "repaired"),
    ("{'a': 'say \\\"hi\\\"', 'b': 'it\\'s'}", {"a": 'say "hi"', "b": "it's"}, "repaired"),
    ("{'a': 'é', 'b': False}", {"a": "é", "b": False}, "repaired"),
    # A double-quoted string is JSON already: its escapes are kept as they are.
    ('{"a": "line 1\\nline 2 \\u00e9 \\"q\\"", "b": [1,],}',
     {"a": 'line 1\nline 2 é "q"', "b": [1]}, "repaired"),
    ("{'a': 1, 'b': 'cut", {"a": 1}, "truncated"),
    ("{'a': 1, 'b': 'cut\\'", {"a": 1}, "truncated"),
    ("{'a': 1, 'b': '", {"a": 1}, "truncated"),
    ('{"a": 1, "b": "cut', {"a": 1}, "truncated"),
    ('{"a": 1,', {"a": 1}, "truncated"),
    ('{"a": [1, 2],\n ', {"a": [1, 2]}, "truncated"),
    ('{"a": 1, "b": tr', {"a": 1}, "truncated"),
    ('{"a": 1, "b": True', {"a": 1, "b": True}, "truncated"),
])
def test_single_quotes_and_cuts(text: str, value: object, method: str) -> None:
    assert parse_lenient(text) == LenientResult(value, True, method)


@pytest.mark.parametrize(("text", "closed"), [
    ('{"a": 1, "b": [1, 2', '{"a": 1, "b": [1, 2]}'),
    ('[[1, [2', "[[1, [2]]]"),
    ('{"k": [{"a": 1}, {"b": 2', '{"k": [{"a": 1}, {"b": 2}]}'),
    # A key is dropped with its colon, a value cut short with its key.
    ('{"a": 1, "b"', '{"a": 1}'),
    ('{"a": 1, "b": ', '{"a": 1}'),
    ('{"a": {"b": 1}, "c"', '{"a": {"b": 1}}'),
    ('{"a": {"b": "x"}, "c": "cu', '{"a": {"b": "x"}}'),
    ('{"a": "x \\" y", "b": "c', '{"a": "x \\" y"}'),
    ('{"a": tr', "{}"),
    ('{"a": 1.', "{}"),
    ('{"a": -', "{}"),
    # A literal or a number at the very end is kept.
    ('{"a": true', '{"a": true}'),
    ('{"a": 12', '{"a": 12}'),
    ('{"a": [null', '{"a": [null]}'),
    # In an array every string is a value.
    ('["a", "b', '["a"]'),
    ('["a", "b", "c', '["a", "b"]'),
    # Space and commas before the cut are left out; space before the value is kept.
    ('{\n\t"a": 1,\r\n', '{\n\t"a": 1}'),
    (' {"a": 1', ' {"a": 1}'),
    ('{"a": 1 , "b": 2', '{"a": 1 , "b": 2}'),
])
def test_a_cut_is_closed_after_the_last_complete_member(text: str, closed: str) -> None:
    assert close_truncated(text) == (closed, True)
    assert parses(closed)


def test_only_the_cut_end_is_dropped_never_a_bad_value_inside() -> None:
    """A half-written literal is dropped only where the text was cut; one inside the text
    is a real error, and the answer is refused rather than read with the field lost."""
    assert close_truncated('{"a": nul, "b": 1') == ('{"a": nul, "b": 1}', True)
    with pytest.raises(LenientParseError):
        parse_lenient('{"a": nul, "b": 1')


@pytest.mark.parametrize("text", [
    "", "  , ", "}", "] {", "123", '"abc', ": 1", '{"a": 1}', '{"a": 1} and more', "[]"])
def test_text_that_is_not_an_open_container_comes_back_unchanged(text: str) -> None:
    assert close_truncated(text) == (text, False)


@pytest.mark.parametrize(("text", "begin", "limit", "end"), [
    ('{"a": 1}', 0, None, 7),
    ('xx{"a": 1}', 2, 8, 9),
    ('xx{"a": 1}', 2, 7, None),  # the closer is past the limit
    ('{"a": 1}', 0, 100, 7),
    ("{'a': '}'}", 0, None, 9),  # single-quoted strings are skipped too
    ('[{"a": [1]}, "]"] tail', 0, None, 16),
    ('[{"a": [1]}, "]"] tail', 1, None, 10),
    ('{"a": "x', 0, None, None),
    ('{"a": "x}', 0, None, None),
    ('{"a": [1}', 0, None, None),
    ('{"a": "\\\\"}', 0, None, 10),
])
def test_balanced_end(text: str, begin: int, limit: int | None, end: int | None) -> None:
    assert balanced_end(text, begin, limit) == end


def test_bare_words_are_never_quotes_or_brackets() -> None:
    """An unquoted word (``XL``, a model's slip) is text: it does not open a string, nest,
    or close anything, and a cut one is dropped whole, digits and all."""
    text = '{"size": XL, "n": [X]}'
    assert balanced_end(text, 0) == len(text) - 1
    assert close_truncated('{"a": 1, "b": X2') == ('{"a": 1}', True)
    assert close_truncated('{"size": XL, "b": "c') == ('{"size": XL}', True)
    with pytest.raises(LenientParseError):
        parse_lenient("{X'a'X: 1}")


def test_parses_is_strict_and_never_raises() -> None:
    assert parses('{"a": 1}') and parses("12") and parses('"x"')
    assert not parses("{'a': 1}") and not parses("") and not parses("1.")
    assert not parses("[" * 100_000 + "]" * 100_000)
