"""Two realistic bugs in the lenient reader that once passed every other test: a trailing
comma followed by whitespace before the closer, and bracket matching that forgets
backslash escapes inside strings. Each is pinned here directly."""

from __future__ import annotations

import pytest

from evalschema import parse_lenient
from evalschema.io.lenient import balanced_end


@pytest.mark.parametrize(("text", "value"), [
    ('{"a": 1, }', {"a": 1}),
    ('{"a": 1,\n}', {"a": 1}),
    ('{\n  "a": [1, 2,\n  ],\n  "b": {"c": 3,\t\r\n}\n}', {"a": [1, 2], "b": {"c": 3}}),
    ('Here you are:\n{\n  "a": [1, 2 ,\n\n  ],\n}\nThanks!', {"a": [1, 2]}),
])
def test_a_trailing_comma_before_whitespace_and_the_closer_is_dropped(
        text: str, value: object) -> None:
    assert parse_lenient(text).value == value


@pytest.mark.parametrize(("text", "value"), [
    # An escaped quote does not end the string, so the "}" inside it is text.
    ('Sure: {"a": "say \\"}\\" now", "b": 2} -- done', {"a": 'say "}" now', "b": 2}),
    # An escaped backslash does end before the quote: the string closes there.
    ('Result {"a": "C:\\\\", "b": [1]} ok', {"a": "C:\\", "b": [1]}),
    ('x {"a": "\\\\\\"{", "b": {"c": "]"}} y', {"a": '\\"{', "b": {"c": "]"}}),
])
def test_embedded_objects_are_matched_past_escaped_quotes(text: str, value: object) -> None:
    got = parse_lenient(text)
    assert got.value == value and got.method == "embedded"
    begin = text.index("{")
    assert balanced_end(text, begin) == text.rindex("}")
