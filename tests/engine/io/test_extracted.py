"""Reading one extracted record (``evalschema.io.extracted``): what is rescued, what is an
unreadable record and why, and the id rules the pairing and the extracted-file index share."""

from __future__ import annotations

import pickle

from evalschema.io.extracted import (
    NO_RECORD,
    duplicate_id_problem,
    no_id_problem,
    read_extracted,
    usable_id,
)
from evalschema.io.records import NOT_UTF8, RawRecord, parse_line


def test_an_object_is_read_as_it_is() -> None:
    rec = {"id": "a"}
    assert read_extracted(RawRecord(rec)) == (rec, False, None)


def test_text_answers_are_rescued_and_marked_repaired() -> None:
    fenced = 'Here it is:\n```json\n{"id": "a", "v": 1,}\n```'
    assert read_extracted(RawRecord(fenced)) == ({"id": "a", "v": 1}, True, None)
    # A JSONL line that did not parse is rescued too, and counts as repaired.
    line = parse_line("{'id': 'a'}", "e.jsonl", 3, strict=False)
    assert line.unparsed
    assert read_extracted(line) == ({"id": "a"}, True, None)


def test_what_cannot_be_read_says_why() -> None:
    value, repaired, problem = read_extracted(RawRecord("I could not read the document."))
    assert value is NO_RECORD and not repaired
    assert problem is not None and problem.startswith("unreadable extracted record: ")
    assert read_extracted(RawRecord([1, 2])) == (
        NO_RECORD, False, "extracted record is array, not an object")
    bad = RawRecord(f"{NOT_UTF8}byte 0xff at column 3\x00ab\ufffd", "e.jsonl", 2, unparsed=True)
    assert read_extracted(bad)[2] == ("unreadable extracted record: line is not UTF-8 "
                                      "(byte 0xff at column 3)")


def test_no_record_survives_pickling_as_itself() -> None:
    assert pickle.loads(pickle.dumps(NO_RECORD)) is NO_RECORD
    assert repr(NO_RECORD) == "NO_RECORD"


def test_id_rules() -> None:
    assert usable_id("a") and usable_id(0) and usable_id(False) and usable_id(1.5)
    assert not usable_id(None) and not usable_id({"a": 1}) and not usable_id([1])
    assert no_id_problem("id") == "extracted record has no 'id'"
    assert duplicate_id_problem("a", 3) == "duplicate id 'a' (first at extracted record #4)"
