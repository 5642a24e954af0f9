"""The parser's tokens: numbers (and their Python types), literals, string escapes, surrogates.

Through ``parse``, as the scanner has no public entry of its own; the issues it
reports on broken tokens are in the recovery table of ``test_document_parser``.
"""

from __future__ import annotations

import json

from evalschema_server.document import parse


def test_scalars_at_the_root_and_number_types() -> None:
    for text, value in [
        ("0", 0),
        ("-0", 0),
        ("12", 12),
        ("1.0", 1.0),
        ("1e2", 100.0),
        ("-0.0", -0.0),
        ('"s"', "s"),
        ("true", True),
        ("false", False),
        ("null", None),
        ("  7  ", 7),
    ]:
        doc = parse(text)
        assert doc.issues == [] and doc.root is not None, text
        assert doc.value() == value and type(doc.value()) is type(value), text
    assert parse("1e999").value() == float("inf")  # as json.loads
    big = parse("9" * 5000)  # past Python's int-from-str digit limit: still exact
    assert big.issues == [] and big.value() == 10**5000 - 1


def test_string_escapes_and_surrogate_pairs() -> None:
    text = r'["\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t", "\ud83d", "\ude00\ud83d\ud83d\ude00"]'
    doc = parse(text)
    assert doc.issues == []
    assert doc.value() == json.loads(text)
    assert doc.value()[0] == 'é😀"\\/\b\f\n\r\t'


def test_lone_surrogate_in_a_string_is_kept() -> None:
    doc = parse('["\ud800", "\\ud800"]')
    assert doc.issues == [] and doc.value() == ["\ud800", "\ud800"]
