"""The built-in transforms (``evalschema.rules.transforms``) through the registry: what each
makes of a value, and the reasons a user reads when a value cannot be transformed.

The common cases (one value per transform) are in test_comparators.py; here the edges.
"""

from __future__ import annotations

from typing import Any

import pytest

from evalschema import CompareTypeError, default_registry, evaluate


def tf(name: str, params: dict[str, Any] | None = None) -> Any:
    d = default_registry.transforms[name]
    assert d.factory is not None
    return d.factory(params or {})


@pytest.mark.parametrize(("name", "params", "value", "out"), [
    ("normalize_unicode", {}, "e\u0301", "\u00e9"),
    ("normalize_unicode", {"form": "NFC"}, "e\u0301", "\u00e9"),
    ("normalize_unicode", {"form": "NFD"}, "\u00e9", "e\u0301"),
    ("normalize_unicode", {"form": "NFKC"}, "\ufb01ne", "fine"),
    ("normalize_unicode", {"form": "NFKD"}, "\ufb01\u00e9", "fie\u0301"),
    # Accents go; compatibility forms are folded; what NFKD splits that is not an accent
    # (Hangul syllables into letters) is put back together.
    ("strip_accents", {}, "Ça coûte\u00a0\ufb01n", "Ca coute fin"),
    ("strip_accents", {}, "한국어", "한국어"),
    ("round_digits", {"digits": 1}, 2.25, 2.2),
    ("round_digits", {"digits": -2}, 1234, 1200),
    ("round_digits", {"digits": 0}, 7, 7),
])
def test_transform_results(name: str, params: dict[str, Any], value: Any, out: Any) -> None:
    got = tf(name, params)(value)
    assert got == out
    assert type(got) is type(out)


@pytest.mark.parametrize(("to", "value", "out"), [
    ("bool", True, True), ("bool", False, False), ("bool", 1, True), ("bool", 0.0, False),
    ("bool", 1.0, True), ("bool", "  TRUE ", True), ("bool", "No", False), ("bool", "1", True),
    ("bool", "0", False), ("bool", "yes", True), ("bool", "false", False),
    ("int", "-7", -7), ("int", 2.0, 2), ("int", True, 1),
    ("float", " 2.5 ", 2.5), ("float", 3, 3.0),
    ("str", False, "false"), ("str", True, "true"), ("str", 5, "5"), ("str", 1.5, "1.5"),
    ("str", "x", "x"),
])
def test_type_convert(to: str, value: Any, out: Any) -> None:
    got = tf("type_convert", {"to": to})(value)
    assert got == out
    assert type(got) is type(out)


@pytest.mark.parametrize(("name", "params", "value", "message"), [
    ("normalize_unicode", {}, 5, "normalize_unicode needs a string, got 5"),
    ("lowercase", {}, {"a": None}, 'lowercase needs a string, got {"a": null}'),
    ("strip", {}, True, "strip needs a string, got true"),
    ("round_digits", {"digits": 1}, "2.5", 'round_digits needs a number, got "2.5"'),
    ("round_digits", {"digits": 1}, False, "round_digits needs a number, got false"),
    ("type_convert", {"to": "bool"}, 2, "cannot convert 2 to bool"),
    ("type_convert", {"to": "bool"}, "maybe", 'cannot convert "maybe" to bool'),
    ("type_convert", {"to": "bool"}, [True], "cannot convert [true] to bool"),
    ("type_convert", {"to": "int"}, "3.5", 'cannot convert "3.5" to int'),
    ("type_convert", {"to": "int"}, [1], "cannot convert [1] to int"),
    ("type_convert", {"to": "int"}, float("inf"), "cannot convert Infinity to int"),
    ("type_convert", {"to": "float"}, "x", 'cannot convert "x" to float'),
    ("type_convert", {"to": "float"}, {"v": 1}, 'cannot convert {"v": 1} to float'),
])
def test_transform_errors_show_the_value_as_json(name: str, params: dict[str, Any], value: Any,
                                                 message: str) -> None:
    """Reasons spell values as JSON (``null``, ``true``, ``"a"``), never Python's repr."""
    with pytest.raises(CompareTypeError) as got:
        tf(name, params)(value)
    assert str(got.value) == message


@pytest.mark.parametrize("name", ["normalize_unicode", "strip_accents", "sort_tokens",
                                  "casefold", "normalize_whitespace"])
def test_string_transforms_pass_null(name: str) -> None:
    assert tf(name)(None) is None


def test_a_failed_transform_is_a_mismatch_whose_reason_shows_json() -> None:
    schema = {"type": "object", "properties": {
        "n": {"type": "string", "x-eval-transform": ["lowercase"]},
        "b": {"x-eval-transform": [{"type_convert": {"to": "bool"}}]}}}
    run = evaluate([{"n": "a", "b": True}], [{"n": {"a": None}, "b": "maybe"}], schema)
    reasons = {str(f.path): f.reason for f in run.records[0].field_results}
    assert reasons == {
        "n": 'transform failed on the extracted value: lowercase needs a string, got {"a": null}',
        "b": 'transform failed on the extracted value: cannot convert "maybe" to bool'}
