"""From JSON Pointers in a record or a schema to offsets in its text, and back
(evaluation/locate.py)."""

from __future__ import annotations

from evalschema_server.document import parse
from evalschema_server.evaluation.locate import RecordLocator, key_span

RECORD = '{"id": "a", "a/b": {"~k": [10, {"x": 1}]}, "name": "Crème 🍮"}'


def at(needle: str, length: int | None = None) -> tuple[int, int]:
    start = RECORD.index(needle)
    return start, start + (len(needle) if length is None else length)


def test_value_and_key_spans_with_escaped_segments() -> None:
    loc = RecordLocator()
    assert loc.value(RECORD, "/a~1b/~0k/0") == at("10")
    assert loc.value(RECORD, "/name") == at('"Crème 🍮"')
    assert loc.key(RECORD, "/a~1b/~0k") == at('"~k"')
    assert loc.key(RECORD, "/a~1b/~0k/1") == at('{"x": 1}')  # an item has no key: its value
    assert loc.value(RECORD, "/nope") is None
    assert loc.value(RECORD, None) is None and loc.key(RECORD, None) is None


def test_nearest_present_parent_of_something_missing() -> None:
    loc = RecordLocator()
    assert loc.nearest(RECORD, "/a~1b/~0k/1/y") == (at('{"x": 1}'), "/a~1b/~0k/1")
    assert loc.nearest(RECORD, "/a~1b/missing/deeper") == (at('"a/b"'), "/a~1b")
    # No parent present: the record's first key, not a one-character brace.
    assert loc.nearest(RECORD, "/currency") == (at('"id"'), "")
    assert loc.nearest("{}", "/currency") == ((0, 1), "")  # no key at all: the brace
    assert loc.nearest("[1, 2]", "/currency") == ((0, 1), "")  # not an object: its first character
    assert loc.nearest("", "/x") is None
    assert loc.nearest(RECORD, None) is None


def test_pointer_at_an_offset() -> None:
    loc = RecordLocator()
    assert loc.pointer_at(RECORD, RECORD.index("10") + 1) == "/a~1b/~0k/0"
    assert loc.pointer_at(RECORD, RECORD.index('"~k"') + 1) == "/a~1b/~0k"
    assert loc.pointer_at(RECORD, RECORD.index("10") + 2) == "/a~1b/~0k/0"  # right edge
    assert loc.pointer_at(RECORD, 0) == ""
    assert loc.pointer_at(' {"a": 1}', 0) is None  # before the record's value: nothing


def test_the_last_few_records_stay_parsed() -> None:
    loc = RecordLocator(size=2)
    a, b, c = '{"a": 1}', '{"b": 1}', '{"c": 1}'
    doc_a, doc_b = loc.doc(a), loc.doc(b)
    assert loc.doc(a) is doc_a  # used again: now the most recent
    loc.doc(c)  # evicts b, the least recently used
    assert loc.doc(a) is doc_a
    assert loc.doc(b) is not doc_b  # parsed again


def test_key_span_of_a_schema_node() -> None:
    schema = '{"properties": {"price": {"type": "number"}, "xs": {"items": {"type": "string"}}}}'
    doc = parse(schema)
    start = schema.index('"price"')
    assert key_span(doc, "/properties/price") == (start, start + 7)
    assert key_span(doc, "/properties/xs/items") == (schema.index('"items"'),
                                                     schema.index('"items"') + 7)
    assert key_span(doc, "") == (0, 1)  # the root: its first character
    assert key_span(doc, "/properties/nope") is None


def test_sixty_four_records_stay_parsed_by_default() -> None:
    """Hovers come in runs over the records of a screen: 64 are kept, the least recently
    used is parsed again."""
    loc = RecordLocator()
    texts = [f'{{"n": {i}}}' for i in range(65)]
    docs = [loc.doc(t) for t in texts[:64]]
    assert all(loc.doc(t) is d for t, d in zip(texts[:64], docs, strict=True))
    loc.doc(texts[64])  # one more: the first goes
    assert loc.doc(texts[1]) is docs[1]
    assert loc.doc(texts[0]) is not docs[0]


def test_a_record_with_comments_and_trailing_commas_is_located() -> None:
    text = '{"a": 1, /* note */ "b": [2, 3,], // end\n}'
    loc = RecordLocator()
    assert loc.value(text, "/b/1") == (text.index("3"), text.index("3") + 1)
    assert loc.key(text, "/b") == (text.index('"b"'), text.index('"b"') + 3)


def test_nearest_of_a_missing_top_level_field_in_a_record_after_prose() -> None:
    """A record dug out of prose: the first key of its value, not the text's start."""
    text = 'Sure: {"id": "z"}'
    assert RecordLocator().nearest(text, "/price") == ((7, 11), "")


def test_near_is_always_somewhere() -> None:
    """``nearest``'s place, else the text's first character (none in an empty text)."""
    loc = RecordLocator()
    assert loc.near(RECORD, "/a~1b/missing") == at('"a/b"')
    assert loc.near(RECORD, None) == at('"id"'), "the record itself: its first key"
    assert loc.near('"{\\"id\\": 1}"', "/id") == (0, 1), "a JSON string: its first character"
    assert loc.near("", "/x") == (0, 0)
