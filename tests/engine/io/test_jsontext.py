"""JSON text to values (``evalschema.io.jsontext``): located errors, repeated keys."""

from __future__ import annotations

import json
import sys
import warnings

import pytest

from evalschema.errors import ProblemWarning
from evalschema.io.jsontext import duplicate_keys, json_error, line_col, loads_warning_duplicates


def test_line_col_is_one_based() -> None:
    text = 'ab\ncd\n  x'
    assert line_col(text, 0) == (1, 1)
    assert line_col(text, 4) == (2, 2)
    assert line_col(text, text.index("x")) == (3, 3)


def test_json_error_names_syntax_errors_and_long_integers() -> None:
    with pytest.raises(ValueError) as info:
        json.loads('{"a": 1,,}')
    assert json_error('{"a": 1,,}', info.value) == (
        "invalid-json", "Expecting property name enclosed in double quotes", 8)
    digits = "1" * (sys.get_int_max_str_digits() + 1)
    text = f'{{"n": {digits}}}'
    with pytest.raises(ValueError) as info:
        json.loads(text)
    code, message, pos = json_error(text, info.value)
    assert (code, pos) == ("number-too-long", text.index(digits))
    assert "digits" in message


def test_repeated_keys_are_located_warnings_and_the_last_value_wins() -> None:
    text = '{"a": 1, "b": {"c": 1, "c": 2}, "a": 3}'
    assert duplicate_keys(text) == [("/b/c", "c", 15, 23), ("/a", "a", 1, 32)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = loads_warning_duplicates(text, "gold.jsonl", line=4, indent=2)
    assert value == {"a": 3, "b": {"c": 2}}
    found = [w.message.problem for w in caught if isinstance(w.message, ProblemWarning)]
    assert [(p.code, p.pointer, p.line, p.column) for p in found] == [
        ("duplicate-key", "/b/c", 4, 26), ("duplicate-key", "/a", 4, 35)]
    assert loads_warning_duplicates('{"a": 1}', None) == {"a": 1}


def test_repeated_keys_are_located_by_escaped_pointers() -> None:
    """RFC 6901: ``~`` and ``/`` in a key are escaped in its pointer (``pointer.join``)."""
    text = '{"a/b": [{"~x": 1, "~x": 2}]}'
    assert duplicate_keys(text) == [("/a~1b/0/~0x", "~x", 10, 19)]
