"""Reading a JSONL file again after an edit (evaluation/datafile.py): the lines before and
after the changed part keep their reads, moved by the edit's length, and the result is
exactly a fresh read's."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalschema.errors import ProblemWarning
from evalschema_server.document import LineIndex
from evalschema_server.evaluation import datafile
from evalschema_server.evaluation.datafile import DataFile, SliceParser, _unchanged


def _slices(data: DataFile) -> list[tuple[Any, ...]]:
    return [(r.index, r.start, r.end, r.text, r.head, r.repaired, r.problem, r.strict,
             r.key) for r in data.records]


def _check(old: str, new: str, strict: bool = False) -> DataFile:
    parser = SliceParser(("id",))
    parser.read("f.jsonl", old, strict=strict)
    again = parser.read("f.jsonl", new, strict=strict)
    fresh = SliceParser(("id",)).read("f.jsonl", new, strict=strict)
    assert _slices(again) == _slices(fresh)
    assert again.text is new or again.text == new
    # Line starts as the editor counts lines, found while reading (not without "\r").
    for data in (again, fresh):
        assert data.line_starts == (None if "\r" in new else LineIndex(new).line_starts)
    return again


LINES = st.lists(st.sampled_from([
    '{"id": 1, "v": "a"}', '{"id": 2, "v": "é ü"}', '  {"id": 3}  ', "", "   ", "not json",
    '{"id": 4, "v": [1, 2]}', '{"id": "x"}\r', '{"id": 5, "v": "\u2028"}', '[1, 2]',
    '{"id": 6', '{"id": 7, "v": null}']), max_size=12)


@settings(max_examples=300, deadline=None)
@given(LINES, LINES, st.integers(0, 12), st.integers(0, 12), st.booleans(), st.booleans())
def test_a_read_after_any_edit_is_a_fresh_read(before: list[str], middle: list[str], cut: int,
                                               keep: int, strict: bool, newline: bool) -> None:
    """Any run of lines replaced by any other (the edit's lines may equal the old ones,
    the texts may end with or without a line break): the same slices as a fresh read."""
    cut = min(cut, len(before))
    end = min(len(before), cut + keep)
    old = "\n".join(before) + ("\n" if newline else "")
    new = "\n".join(before[:cut] + middle + before[end:]) + ("\n" if not newline else "")
    _check(old, new, strict)
    _check(new, old, strict)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\n{}", max_size=40), st.text(alphabet="ab\n{}", max_size=40))
def test_where_two_texts_differ_is_whole_lines_that_leave_the_rest_equal(a: str, b: str
                                                                          ) -> None:
    head, tail, delta = _unchanged(a, b)
    assert delta == len(b) - len(a)
    assert head <= tail <= len(b)
    assert b[:head] == a[:head] and b[tail:] == a[tail - delta:]
    assert head == 0 or b[head - 1] == "\n"
    assert tail == len(b) or (b[tail - 1] == "\n" and a[tail - delta - 1] == "\n")


def test_only_the_edited_line_is_parsed_again(monkeypatch: Any) -> None:
    """A one-line edit in a 2,000-line file parses one line; the others keep their heads
    (the same objects), whether the edit made the line longer or not."""
    lines = [json.dumps({"id": i, "v": "x" * (i % 7)}) for i in range(2000)]
    parser = SliceParser(("id",))
    first = parser.read("f.jsonl", "\n".join(lines) + "\n", strict=False)
    parsed: list[str] = []
    real = datafile._parse_record

    def counting(text: str, strict: bool) -> Any:
        parsed.append(text)
        return real(text, strict)

    monkeypatch.setattr(datafile, "_parse_record", counting)
    for edited in ('{"id": 700, "v": "longer than it was"}', '{"id": 700}'):
        lines[700] = edited
        parsed.clear()
        again = parser.read("f.jsonl", "\n".join(lines) + "\n", strict=False)
        assert parsed == [edited]
        assert all(a.head is b.head for a, b in zip(first.records, again.records, strict=True)
                   if a.index != 700)
        assert again.records[1999].start == sum(len(x) + 1 for x in lines[:1999])
        assert again.records[700].text == edited


def test_a_line_whose_hash_and_length_match_another_text_is_parsed() -> None:
    """A hash collision (the same hash and length, another text) is told apart by
    comparing the texts: the line is parsed, not given the other line's read."""
    line = '{"id": 1}'
    other = datafile.RecordSlice(0, 0, '{"id": 2}', datafile.Head(id=2), length=9,
                                 digest=hash(line))
    records: list[datafile.RecordSlice] = []
    SliceParser(("id",))._lines_of(line + "\n", 0, len(line) + 1, False, records, (other,))
    assert [r.head for r in records] == [{"id": 1}]


def test_a_gold_record_parsed_again_to_be_scored_is_the_value_read_without_a_second_warning(
) -> None:
    """A gold record is read strictly (its repeated keys warned about), then parsed again
    each time it is scored: to the same value (the last of repeated keys, as the strict
    read keeps), and without warning again on every re-score."""
    text = '{"id": 1, "total": 1.5, "total": 2.5, "lines": [{"a": 1, "a": 2}]}\n'
    with pytest.warns(ProblemWarning):
        data = SliceParser(("id",)).read("g.jsonl", text, strict=True)
    [rec] = data.records
    assert isinstance(rec.head, datafile.Head) and rec.head == {"id": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rec.value == {"id": 1, "total": 2.5, "lines": [{"a": 2}]}
