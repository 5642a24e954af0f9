"""The parsed document's nodes and lookups: node_at, pointers both ways, values, ranges.

Offsets below are Python string indices (code points).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalschema.pointer import escape as escape_pointer_segment
from evalschema.pointer import unescape as unescape_pointer_segment
from evalschema_server.document import parse

# -- nodes ------------------------------------------------------------------------


def test_node_repr_does_not_recurse() -> None:
    doc = parse('{"a": [1]}')
    assert doc.root is not None
    assert repr(doc.root) == "<Node object 0+10>"
    assert repr(doc.root.children[0]) == "<Node property 1+8 key='a'>"
    assert "JsonDocument" in repr(doc)


def test_leaf_children_are_read_only() -> None:
    doc = parse('{"a": 1}')
    assert doc.root is not None
    prop = doc.root.children[0]
    assert prop.children == [] and isinstance(prop.children, list)
    with pytest.raises(TypeError):
        prop.children.append(prop)
    assert prop.value_node is not None and prop.value_node.children == []


# -- lookup ----------------------------------------------------------------------


def test_node_at() -> None:
    text = '{"ab": [10, {"c": "xyz"}] }'
    doc = parse(text)
    kinds = {i: (n.kind if (n := doc.node_at(i)) else None) for i in range(len(text) + 1)}
    assert kinds[0] == "object"
    assert kinds[1] == kinds[3] == "string"  # on the key
    assert doc.node_at(2) is doc.root.children[0].key_node if doc.root else False
    assert kinds[5] == "property"  # the colon
    assert kinds[7] == "array"
    assert kinds[8] == "number" and kinds[9] == "number"
    assert kinds[10] == "array"  # the comma
    assert kinds[13] == "string" and kinds[19] == "string"
    assert kinds[25] == "object"  # whitespace before the closing brace
    assert kinds[len(text)] is None
    # right boundary: just after `10` and at the end of the text
    assert doc.node_at(10, include_right_boundary=True) is not None
    assert doc.node_at(10, include_right_boundary=True).kind == "number"  # type: ignore[union-attr]
    assert doc.node_at(len(text), include_right_boundary=True) is doc.root
    assert parse("").node_at(0) is None


def test_pointers_both_ways_with_slash_and_tilde() -> None:
    text = '{"a/b": {"~c": [10, {"": 1, "x~1y": 2}]}, "m~0n": null}'
    doc = parse(text)
    expected = {
        "": doc.root,
        "/a~1b": None,
        "/a~1b/~0c": None,
        "/a~1b/~0c/0": None,
        "/a~1b/~0c/1": None,
        "/a~1b/~0c/1/": None,
        "/a~1b/~0c/1/x~01y": None,
        "/m~00n": None,
    }
    data = json.loads(text)
    for ptr in expected:
        node = doc.node_at_pointer(ptr)
        assert node is not None, ptr
        assert doc.pointer(node) == ptr
        value: Any = data
        for seg in ptr.split("/")[1:]:
            seg = unescape_pointer_segment(seg)
            value = value[int(seg)] if isinstance(value, list) else value[seg]
        assert doc.value(node) == value, ptr
    # property nodes: the pointer of their value; property_at_pointer gives them back
    prop = doc.property_at_pointer("/a~1b/~0c")
    assert prop is not None and prop.kind == "property" and prop.key == "~c"
    assert doc.pointer(prop) == "/a~1b/~0c"
    assert prop.key_node is not None and doc.pointer(prop.key_node) == "/a~1b/~0c"
    assert prop.pointer_segment == "~0c"
    assert doc.property_at_pointer("/a~1b/~0c/0") is None  # array items have no property
    assert doc.property_at_pointer("") is None
    item = doc.node_at_pointer("/a~1b/~0c/1")
    assert item is not None and item.pointer_segment == "1"
    assert doc.root is not None and doc.root.pointer_segment is None
    assert doc.node_at_pointer("/nope") is None and doc.node_at_pointer("/a~1b/~0c/9") is None
    assert escape_pointer_segment("a/~b") == "a~1~0b"
    assert unescape_pointer_segment("a~1~0b") == "a/~b"
    assert unescape_pointer_segment("~01") == "~1"


def test_pointer_of_missing_value_and_duplicates() -> None:
    doc = parse('{"a": 1, "b": , "a": 2}')
    prop_b = doc.property_at_pointer("/b")
    assert prop_b is not None and prop_b.value_node is None
    assert doc.node_at_pointer("/b") is None  # no value to point at, but the key is there
    a = doc.node_at_pointer("/a")
    assert a is not None and a.value == 2  # the last duplicate wins, as in value()
    assert doc.value() == {"a": 2}


def test_range_in_each_encoding() -> None:
    text = '{"naïve 😀": "x", "b": 1}'
    doc = parse(text)
    assert doc.root is not None
    b = doc.root.children[1]
    assert b.key_node is not None
    assert b.key_node.offset == 17
    assert doc.range(b.key_node) == ((0, 18), (0, 21))  # UTF-16: the emoji counts 2
    assert doc.range(b.key_node, "utf-8") == ((0, 21), (0, 24))
    assert doc.range(b.key_node, "utf-32") == ((0, 17), (0, 20))
    assert doc.position_at(17) == (0, 18) and doc.offset_at(0, 18) == 17


def test_ranges_across_crlf_cr_and_u2028() -> None:
    text = '{\r\n  "a": "x\u2028y",\r  "b": 1\n}'
    doc = parse(text)
    assert doc.issues == []
    a = doc.node_at_pointer("/a")
    b = doc.property_at_pointer("/b")
    assert a is not None and b is not None
    assert doc.range(a) == ((1, 7), (1, 12))  # \u2028 inside the string: same line
    assert doc.range(b) == ((2, 2), (2, 8))
    assert doc.root is not None and doc.range(doc.root) == ((0, 0), (3, 1))
