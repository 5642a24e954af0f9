"""Lenient reading of LLM answers."""

from __future__ import annotations

import pytest

from evalschema import LenientParseError, parse_lenient


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
