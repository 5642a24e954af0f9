"""Eval schemas as JSON with comments (``io.jsonc``): comments and trailing commas read,
errors still at the line and column written; gold and extracted data stay strict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalschema import InputError, evaluate
from evalschema.io.jsonc import blank_jsonc
from evalschema.io.jsontext import loads_document
from evalschema.io.records import load_json, load_records

SCHEMA_JSONC = """{
  // invoices: the fields we score
  "type": "object", /* the root */
  "properties": {
    "url": {"type": "string", "x-eval-compare": "exact"}, // "http://x" below is a value
    "note": {"type": "string", "description": "a // in a string, and a /* too */",},
    "total": {"type": "number",},
  },
}
"""


def test_comments_and_trailing_commas_become_spaces_in_place() -> None:
    blanked = blank_jsonc(SCHEMA_JSONC)
    assert len(blanked) == len(SCHEMA_JSONC)
    expected = SCHEMA_JSONC
    for comment in ("// invoices: the fields we score", "/* the root */",
                    '// "http://x" below is a value'):
        expected = expected.replace(comment, " " * len(comment))
    for trailing in ('*/",}', 'number",}', "},\n  },\n}"):
        expected = expected.replace(trailing, trailing.replace(",", " ", 1) if
                                    trailing != "},\n  },\n}" else "} \n  } \n}")
    assert blanked == expected
    assert json.loads(blanked)["properties"]["note"]["description"] == \
        "a // in a string, and a /* too */"


@pytest.mark.parametrize(("text", "kept"), [
    ('{"a": "http://x/*y*/", "b": "//"}', '{"a": "http://x/*y*/", "b": "//"}'),
    ('{"a": "say \\"/*hi*/\\" //"}', '{"a": "say \\"/*hi*/\\" //"}'),
    ("{,}", "{,}"),  # a comma after an opening bracket is no trailing comma
    ("[1,,]", "[1,,]"),
    ("[1, /* open", "[1, /* open"),
])
def test_strings_and_errors_are_left_for_the_parser(text: str, kept: str) -> None:
    assert blank_jsonc(text) == kept


def test_a_syntax_error_after_a_comment_is_located_where_it_is() -> None:
    text = '{\n  /* a comment\n     on two lines */ "a": 1, // and one\n  "b" 2\n}'
    with pytest.raises(InputError) as raised:
        loads_document(text, "s.eval.jsonc", "schema", jsonc=True)
    [p] = raised.value.problems
    assert (p.code, p.message, p.source, p.line, p.column, p.data) == (
        "invalid-json", "schema is not valid JSON: Expecting ':' delimiter", "s.eval.jsonc",
        4, 7, {"offset": text.index("2\n}")})


def test_strict_documents_stay_strict(tmp_path: Path) -> None:
    """Only eval schemas are JSONC: gold, extracted records and other JSON are strict."""
    with pytest.raises(InputError) as raised:
        loads_document('{"a": 1,}', "x.json", "file")
    assert raised.value.problems[0].message == \
        "file is not valid JSON: Expecting property name enclosed in double quotes"
    gold = tmp_path / "g.jsonl"
    gold.write_text('{"a": 1} // one\n', encoding="utf-8")
    with pytest.raises(InputError) as got:
        load_records(gold)
    assert got.value.problems[0].code == "invalid-json"


def test_a_jsonc_schema_file_scores_as_its_json_twin(tmp_path: Path) -> None:
    jsonc = tmp_path / "s.eval.jsonc"
    jsonc.write_text("\ufeff" + SCHEMA_JSONC, encoding="utf-8")
    plain = json.loads(blank_jsonc(SCHEMA_JSONC))
    assert load_json(jsonc, "schema", jsonc=True) == plain
    with pytest.raises(InputError):
        load_json(jsonc, "schema")
    gold = [{"url": "http://a", "note": "n", "total": 1}]
    ext = [{"url": "http://b", "note": "n", "total": 1}]
    assert evaluate(gold, ext, jsonc).to_dict() == evaluate(gold, ext, plain).to_dict()
