"""evaluation/goldfix.py: one change to a gold record, and exactly the file it leaves.

Each case applies the edit to a whole file and compares the result with the file expected,
character for character: the other records, the line endings and the layout stay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from evalschema_server.authoring.actions import TextEdit
from evalschema_server.document import LineIndex
from evalschema_server.evaluation.datafile import SliceParser
from evalschema_server.evaluation.goldfix import REMOVE, GoldFixError, gold_edits
from evalschema_server.ranges import range_json


def apply(text: str, edits: list[TextEdit]) -> str:
    for e in sorted(edits, key=lambda e: -e.start):
        text = text[:e.start] + e.new_text + text[e.end:]
    return text


def fix(text: str, record: int, pointer: str, new: Any, *, name: str = "g.jsonl",
        value_text: str | None = None, order: Sequence[str] = ()) -> str:
    data = SliceParser().read(name, text, strict=True)
    edits = gold_edits(text, data.records[record], pointer, new, value_text=value_text,
                       key_order=lambda at: order)
    assert len(edits) == 1
    return apply(text, edits)


JSONL = ('{"id": "a", "price": 12.5, "currency": "EUR"}\n'
         '{"id": "b", "price": 3.0, "vendor": {"name": "Acme"}, "tags": ["x", "y", "z"]}\n')

PRETTY = """[
  {
    "id": "a",
    "price": 12.5,
    "vendor": {
      "name": "Acme"
    }
  },
  {
    "id": "b",
    "price": 3.0
  }
]
"""


# -- replace ------------------------------------------------------------------------------

def test_replace_a_value_in_a_jsonl_record_touches_only_it() -> None:
    assert fix(JSONL, 1, "/price", 4.25) == JSONL.replace('"price": 3.0', '"price": 4.25')


def test_replace_keeps_the_extracted_spelling_of_a_scalar() -> None:
    assert fix(JSONL, 0, "/price", 1.5, value_text="1.50") == \
        JSONL.replace("12.5", "1.50")


def test_replace_a_nested_object_in_pretty_json_is_indented_like_the_file() -> None:
    got = fix(PRETTY, 0, "/vendor", {"name": "Acme Ltd", "city": "Paris"}, name="g.json")
    assert got == PRETTY.replace('''    "vendor": {
      "name": "Acme"
    }''', '''    "vendor": {
      "name": "Acme Ltd",
      "city": "Paris"
    }''')


def test_replace_a_nested_object_in_a_jsonl_record_stays_on_its_line() -> None:
    got = fix(JSONL, 1, "/vendor", {"name": "Acme Ltd", "city": "Paris"})
    assert got == JSONL.replace('{"name": "Acme"}', '{"name": "Acme Ltd", "city": "Paris"}')


def test_replace_an_array_element() -> None:
    assert fix(JSONL, 1, "/tags/1", "w") == JSONL.replace('"y"', '"w"')


# -- insert -------------------------------------------------------------------------------

def test_insert_into_a_one_line_record_goes_inline_after_its_predecessor() -> None:
    got = fix(JSONL, 0, "/color", "red", order=["id", "price", "color", "currency"])
    assert got == JSONL.replace('"price": 12.5, ', '"price": 12.5, "color": "red", ')


def test_insert_without_an_order_goes_last_and_first_when_the_order_says_so() -> None:
    assert fix(JSONL, 0, "/color", "red") == \
        JSONL.replace('"EUR"}', '"EUR", "color": "red"}')
    assert fix(JSONL, 0, "/color", "red", order=["color", "id"]) == \
        JSONL.replace('{"id": "a"', '{"color": "red", "id": "a"')


def test_insert_follows_a_record_written_without_spaces() -> None:
    text = '{"id":"a","price":1}\n'
    assert fix(text, 0, "/tags", ["x", "y"]) == '{"id":"a","price":1,"tags":["x","y"]}\n'


def test_insert_into_pretty_json_is_a_new_line_at_the_siblings_indentation() -> None:
    got = fix(PRETTY, 1, "/currency", "USD", name="g.json")
    assert got == PRETTY.replace('''    "price": 3.0
  }''', '''    "price": 3.0,
    "currency": "USD"
  }''')
    first = fix(PRETTY, 1, "/code", "B-1", name="g.json", order=["code", "id"])
    assert first == PRETTY.replace('''    "id": "b",''', '''    "code": "B-1",
    "id": "b",''')


def test_insert_with_a_missing_parent_object_creates_it() -> None:
    assert fix(JSONL, 0, "/vendor/address/city", "Paris") == JSONL.replace(
        '"EUR"}', '"EUR", "vendor": {"address": {"city": "Paris"}}}')
    got = fix(PRETTY, 1, "/vendor/city", "Paris", name="g.json")
    assert got == PRETTY.replace('''    "price": 3.0
  }''', '''    "price": 3.0,
    "vendor": {
      "city": "Paris"
    }
  }''')


def test_insert_into_an_existing_parent_object() -> None:
    got = fix(PRETTY, 0, "/vendor/city", "Paris", name="g.json")
    assert got == PRETTY.replace('''      "name": "Acme"
''', '''      "name": "Acme",
      "city": "Paris"
''')
    assert fix(JSONL, 1, "/vendor/city", "Paris") == \
        JSONL.replace('{"name": "Acme"}', '{"name": "Acme", "city": "Paris"}')


def test_insert_into_an_empty_object_and_under_a_null() -> None:
    text = '{"id": "a", "vendor": {}, "owner": null}\n'
    assert fix(text, 0, "/vendor/name", "Acme") == \
        '{"id": "a", "vendor": {"name": "Acme"}, "owner": null}\n'
    assert fix(text, 0, "/owner/name", "Bo") == \
        '{"id": "a", "vendor": {}, "owner": {"name": "Bo"}}\n'


def test_set_a_key_gold_holds_as_null_replaces_the_null() -> None:
    text = '{"id": "a", "note": null}\n'
    assert fix(text, 0, "/note", "x") == '{"id": "a", "note": "x"}\n'


# -- remove -------------------------------------------------------------------------------

@pytest.mark.parametrize(("pointer", "expected"), [
    ("/id", '{"price": 12.5, "currency": "EUR"}\n'),
    ("/price", '{"id": "a", "currency": "EUR"}\n'),
    ("/currency", '{"id": "a", "price": 12.5}\n'),
])
def test_remove_the_first_middle_or_last_key_with_exactly_one_comma(pointer: str,
                                                                    expected: str) -> None:
    assert fix(JSONL, 0, pointer, REMOVE) == expected + JSONL.splitlines(True)[1]


def test_remove_in_pretty_json_takes_the_whole_line() -> None:
    assert fix(PRETTY, 1, "/price", REMOVE, name="g.json") == PRETTY.replace(
        '''    "id": "b",
    "price": 3.0
''', '''    "id": "b"
''')
    assert fix(PRETTY, 0, "/id", REMOVE, name="g.json") == PRETTY.replace(
        '''    "id": "a",
''', "", 1)


def test_remove_the_only_key_leaves_an_empty_object() -> None:
    assert fix(PRETTY, 0, "/vendor/name", REMOVE, name="g.json") == PRETTY.replace(
        '''{
      "name": "Acme"
    }''', "{}")


def test_remove_an_array_element() -> None:
    assert fix(JSONL, 1, "/tags/0", REMOVE) == JSONL.replace('["x", "y", "z"]', '["y", "z"]')
    assert fix(JSONL, 1, "/tags/1", REMOVE) == JSONL.replace('["x", "y", "z"]', '["x", "z"]')
    assert fix(JSONL, 1, "/tags/2", REMOVE) == JSONL.replace('["x", "y", "z"]', '["x", "y"]')


# -- line endings and non-ASCII text -------------------------------------------------------

def test_crlf_files_keep_crlf() -> None:
    crlf = PRETTY.replace("\n", "\r\n")
    got = fix(crlf, 1, "/vendor", {"name": "Zed", "tags": ["a"]}, name="g.json")
    assert got == PRETTY.replace('''    "price": 3.0
  }''', '''    "price": 3.0,
    "vendor": {
      "name": "Zed",
      "tags": [
        "a"
      ]
    }
  }''').replace("\n", "\r\n")
    jsonl = JSONL.replace("\n", "\r\n")
    assert fix(jsonl, 0, "/currency", REMOVE) == jsonl.replace(', "currency": "EUR"', "")
    assert fix(jsonl, 1, "/price", 4) == jsonl.replace('"price": 3.0', '"price": 4')


def test_non_ascii_text_is_kept_and_ranges_are_in_utf16() -> None:
    text = ('{"id": "a", "name": "Crème 🍮", "price": 1}\n'
            '{"id": "b", "name": "日本 🍣", "price": 2}\n')
    data = SliceParser().read("g.jsonl", text, strict=True)
    [edit] = gold_edits(text, data.records[1], "/price", 2.5)
    assert text[edit.start:edit.end] == "2"
    # 🍣 is two UTF-16 code units: the column counts it twice (one code point in Python).
    col = len('{"id": "b", "name": "日本 🍣", "price": '.encode("utf-16-le")) // 2
    assert range_json(LineIndex(text), edit.start, edit.end, "utf-16") == {
        "start": {"line": 1, "character": col}, "end": {"line": 1, "character": col + 1}}
    assert col == text.splitlines()[1].index("2}") + 1
    assert apply(text, [edit]) == text.replace('"price": 2}', '"price": 2.5}')
    got = fix(text, 0, "/name", "Crème brûlée 🍮")
    assert got == text.replace('"Crème 🍮"', '"Crème brûlée 🍮"')


# -- what cannot be written ----------------------------------------------------------------

@pytest.mark.parametrize(("pointer", "new", "why"), [
    ("/tags/3", "w", "gold has an array at /tags, not an object to add '3' to"),
    ("/id/x", 1, "gold has a string at /id, not an object to add 'x' to"),
    ("/nothing", REMOVE, "gold has no value at /nothing to remove"),
    ("", REMOVE, "gold has no value at the record to remove"),
    ("/price", float("nan"), "the value is not valid JSON (NaN or Infinity)"),
])
def test_what_cannot_be_written_says_why(pointer: str, new: Any, why: str) -> None:
    with pytest.raises(GoldFixError) as err:
        fix(JSONL, 1, pointer, new)
    assert str(err.value) == why


def test_a_broken_record_is_not_edited() -> None:
    class Broken:
        start = 0
        text = '{"id": "a", "price": }'

    with pytest.raises(GoldFixError, match="not valid JSON"):
        gold_edits(Broken.text, Broken(), "/price", 1)
