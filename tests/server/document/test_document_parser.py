"""The tolerant JSON/JSONC parser: exact trees, recovery, half-typed and hostile text, JSONL.

Offsets below are Python string indices (code points); ``issues(doc)`` lists
``(code, offset, length)`` sorted by offset, as the parser reports them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hang_budget import HANG_SECONDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalschema.pointer import unescape as unescape_pointer_segment
from evalschema_server.document import (
    ISSUE_CODES,
    JsonDocument,
    Node,
    SyntaxIssue,
    parse,
    parse_lines,
)

SCHEMAS = sorted(str(p) for p in (Path(__file__).resolve().parents[2] / "data" / "extract-bench").glob("*/*/*-schema.json"))


def issues(doc: JsonDocument) -> list[tuple[str, int, int]]:
    return [(i.code, i.offset, i.length) for i in doc.issues]


def walk(doc: JsonDocument) -> list[Node]:
    """Every node reachable from the root (keys and values of properties included)."""
    out: list[Node] = []
    stack = [doc.root] if doc.root is not None else []
    while stack:
        node = stack.pop()
        out.append(node)
        if node.kind == "property":
            assert node.key_node is not None
            stack.append(node.key_node)
            if node.value_node is not None:
                stack.append(node.value_node)
        stack.extend(node.children)
    return out


def check_invariants(doc: JsonDocument) -> None:
    """Spans inside the text (and the window), children inside and pointing at parents."""
    lo, hi = doc.start, doc.end
    for node in walk(doc):
        assert lo <= node.offset <= node.offset + node.length <= hi, node
        subs = list(node.children)
        if node.kind == "property":
            subs += [n for n in (node.key_node, node.value_node) if n is not None]
            assert node.colon_offset == -1 or node.offset < node.colon_offset < node.end
        for child in subs:
            assert child.parent is node, (child, node)
            assert node.offset <= child.offset and child.end <= node.end, (child, node)
        offsets = [c.offset for c in node.children]
        assert offsets == sorted(offsets)
    for issue in doc.issues:
        assert lo <= issue.offset <= issue.end <= hi, issue
    assert [i.offset for i in doc.issues] == sorted(i.offset for i in doc.issues)


def text_of(doc: JsonDocument, node: Node) -> str:
    return doc.text[node.offset : node.end]


# -- valid documents: exact trees ------------------------------------------------


def test_exact_tree_of_a_valid_document() -> None:
    text = '{"a": [1, true], "b" : {"c": null}, "d": -2.5e3, "e": "x\\ny"}'
    doc = parse(text)
    assert doc.issues == []
    root = doc.root
    assert root is not None
    assert (root.kind, root.offset, root.length, root.parent) == ("object", 0, len(text), None)
    a, b, d, e = root.children
    assert [p.kind for p in root.children] == ["property"] * 4
    assert [p.key for p in root.children] == ["a", "b", "d", "e"]
    # "a": [1, true]
    assert (a.offset, a.length, a.colon_offset) == (1, 14, 4)
    assert a.key_node is not None and a.value_node is not None
    assert (a.key_node.kind, a.key_node.offset, a.key_node.length) == ("string", 1, 3)
    assert a.key_node.value == "a" and a.key_node.parent is a
    arr = a.value_node
    assert (arr.kind, arr.offset, arr.length, arr.parent) == ("array", 6, 9, a)
    one, true = arr.children
    assert (one.kind, one.offset, one.length, one.value) == ("number", 7, 1, 1)
    assert (true.kind, true.offset, true.length, true.value) == ("boolean", 10, 4, True)
    assert one.parent is arr and true.parent is arr
    # "b" : {"c": null}   (whitespace before the colon)
    assert (b.offset, b.colon_offset, b.end) == (17, 21, 34)
    obj = b.value_node
    assert obj is not None and (obj.kind, obj.offset, obj.length) == ("object", 23, 11)
    (c,) = obj.children
    assert c.value_node is not None
    assert (c.value_node.kind, c.value_node.offset, c.value_node.value) == ("null", 29, None)
    # numbers and strings
    assert d.value_node is not None and d.value_node.value == -2500.0
    assert text_of(doc, d.value_node) == "-2.5e3"
    assert e.value_node is not None and e.value_node.value == "x\ny"
    assert text_of(doc, e.value_node) == '"x\\ny"'
    assert doc.value() == json.loads(text)


# -- recovery --------------------------------------------------------------------

RECOVERY = [
    # (text, expected issues, expected value)
    ('{"a": 1 "b": 2}', [("missing-comma", 8, 3)], {"a": 1, "b": 2}),
    ("[1 2]", [("missing-comma", 3, 1)], [1, 2]),
    ("[1 true]", [("missing-comma", 3, 4)], [1, True]),
    ('{"a" 1}', [("missing-colon", 5, 1)], {"a": 1}),
    ('{"a" , "b": 1}', [("missing-colon", 5, 1)], {"b": 1}),
    ('{"a" "b": 2}', [("missing-colon", 5, 3)], {"b": 2}),
    ('{"a": , "b": 1}', [("value-expected", 6, 1)], {"b": 1}),
    ('{"a": }', [("value-expected", 6, 1)], {}),
    ('{"a": tru}', [("value-expected", 6, 3)], {}),
    ('{"a": True, "b": None}', [("value-expected", 6, 4), ("value-expected", 17, 4)], {}),
    ("[NaN, 1]", [("value-expected", 1, 3)], [1]),
    ("[1,,2]", [("value-expected", 3, 1)], [1, 2]),
    ("{,}", [("property-expected", 1, 1)], {}),
    ('{:1, "b": 2}', [("property-expected", 1, 1)], {"b": 2}),
    ('{1: 2, "b": 3}', [("property-expected", 1, 1)], {"b": 3}),
    ('{"a":: 1}', [("unexpected-token", 5, 1)], {"a": 1}),
    ("{a: 1}", [("unquoted-key", 1, 1)], {"a": 1}),
    ('{"a": [1, 2}', [("missing-close-bracket", 6, 1)], {"a": [1, 2]}),
    ('[{"a": 1]', [("missing-close-brace", 1, 1)], [{"a": 1}]),
    ('{"a": 1}}', [("end-of-file-expected", 8, 1)], {"a": 1}),
    ('{"a": 1} {"b": 2}', [("end-of-file-expected", 9, 1)], {"a": 1}),
    ("[1, 2] ]", [("end-of-file-expected", 7, 1)], [1, 2]),
    ('Here is: {"a": 1}', [("value-expected", 0, 4)], {"a": 1}),
    ('{"a": "abc\n, "b": 1}', [("unterminated-string", 6, 4)], {"a": "abc", "b": 1}),
    ('{"a": "abc\\\n, "b": 1}', [("unterminated-string", 6, 5)], {"a": "abc", "b": 1}),
    ('"a\\qb"', [("invalid-escape", 2, 2)], "a\\qb"),
    ('"\\u12"', [("invalid-escape", 1, 2)], "\\u12"),
    ('"\\ud83d\\ude00\\q"', [("invalid-escape", 13, 2)], "😀\\q"),
    ('"tab\there"', [("invalid-character", 4, 1)], "tab\there"),
    ('"nul\x00"', [("invalid-character", 4, 1)], "nul\x00"),
    ('\ufeff{"a": 1}', [("invalid-character", 0, 1)], {"a": 1}),
    ('{"a":\xa01}', [("invalid-character", 5, 1)], {"a": 1}),
    ('{"a": 1.}', [("invalid-number", 6, 2)], {"a": 1.0}),
    (
        "[01, 1., .5, +1, -, 1e, 1e+5, -0.0]",
        [
            ("invalid-number", 1, 2),
            ("invalid-number", 5, 2),
            ("invalid-number", 9, 2),
            ("invalid-number", 13, 2),
            ("value-expected", 17, 1),
            ("invalid-number", 20, 2),
        ],
        [1, 1.0, 0.5, 1, 1, 100000.0, -0.0],
    ),
    (
        '{"a": 1, "a": 2, "a": 3}',
        [("duplicate-key", 1, 3), ("duplicate-key", 9, 3), ("duplicate-key", 17, 3)],
        {"a": 3},
    ),
    ('{"a": 1} /* open', [("unterminated-comment", 9, 7)], {"a": 1}),
    ("", [], None),
    ("  \n ", [], None),
    ("hello", [("value-expected", 0, 5)], None),
]


@pytest.mark.parametrize(("text", "expected", "value"), RECOVERY)
def test_recovery(text: str, expected: list[tuple[str, int, int]], value: Any) -> None:
    doc = parse(text)
    assert issues(doc) == expected
    assert doc.value() == value
    check_invariants(doc)
    for issue in doc.issues:
        assert isinstance(issue, SyntaxIssue) and issue.message
        assert issue.code in ISSUE_CODES


def test_missing_comma_keeps_parsing_the_next_property() -> None:
    text = '{\n  "a": 1\n  "b": {"c": 2}\n  "d": [3]\n}'
    doc = parse(text)
    assert issues(doc) == [("missing-comma", 13, 3), ("missing-comma", 29, 3)]
    assert text[13:16] == '"b"' and text[29:32] == '"d"'
    assert doc.value() == {"a": 1, "b": {"c": 2}, "d": [3]}
    assert doc.lines.position(doc.issues[0].offset) == (2, 2)


def test_broken_value_keeps_the_property() -> None:
    doc = parse('{"a": ], "b": 2}')
    assert doc.root is not None
    a, b = doc.root.children
    assert (a.key, a.value_node, a.colon_offset) == ("a", None, 4)
    assert b.value_node is not None and b.value_node.value == 2
    assert issues(doc) == [("value-expected", 6, 1)]


def test_trailing_commas_and_comments_by_mode() -> None:
    text = '// head\n{"a": [1,], /* mid */ "b": 2,}'
    lenient = parse(text)
    assert lenient.issues == [] and lenient.value() == {"a": [1], "b": 2}
    assert [(c.offset, c.length, c.block) for c in lenient.comments] == [
        (0, 7, False),
        (20, 9, True),
    ]
    strict = parse(text, comments=False, trailing_commas=False)
    assert issues(strict) == [
        ("comment-not-allowed", 0, 7),
        ("trailing-comma", 16, 1),
        ("comment-not-allowed", 20, 9),
        ("trailing-comma", 36, 1),
    ]
    assert strict.value() == lenient.value()
    # comments between a key, its colon and its value
    doc = parse('{"a" /*c*/ : /*d*/ 2 // e\n}')
    assert doc.issues == [] and doc.value() == {"a": 2}
    assert doc.root is not None and doc.root.children[0].colon_offset == 11


# -- half-typed text (what completion sees) ---------------------------------------


def test_half_typed_value_after_colon() -> None:
    doc = parse('{"a": ')
    assert issues(doc) == [("missing-close-brace", 0, 1), ("value-expected", 6, 0)]
    root = doc.root
    assert root is not None and (root.offset, root.length) == (0, 6)
    (prop,) = root.children
    assert (prop.key, prop.colon_offset, prop.value_node) == ("a", 4, None)
    assert (prop.offset, prop.end) == (1, 6)  # reaches the cursor at the end
    assert doc.node_at(6, include_right_boundary=True) is prop
    assert doc.value() == {}


def test_half_typed_key() -> None:
    doc = parse('{"a"')
    assert issues(doc) == [("missing-close-brace", 0, 1), ("missing-colon", 4, 0)]
    assert doc.root is not None
    (prop,) = doc.root.children
    assert (prop.key, prop.colon_offset, prop.value_node, prop.offset, prop.length) == (
        "a",
        -1,
        None,
        1,
        3,
    )
    doc = parse('{"a')
    assert issues(doc) == [
        ("missing-close-brace", 0, 1),
        ("unterminated-string", 1, 2),
        ("missing-colon", 3, 0),
    ]
    assert doc.root is not None and doc.root.children[0].key == "a"


def test_half_typed_nested_string_value() -> None:
    text = '{"a": {"x-eval-compare": "lev'
    doc = parse(text)
    assert issues(doc) == [
        ("missing-close-brace", 0, 1),
        ("missing-close-brace", 6, 1),
        ("unterminated-string", 25, 4),
    ]
    assert doc.value() == {"a": {"x-eval-compare": "lev"}}
    leaf = doc.node_at_pointer("/a/x-eval-compare")
    assert leaf is not None and (leaf.kind, leaf.offset, leaf.length) == ("string", 25, 4)
    assert doc.node_at(len(text), include_right_boundary=True) is leaf
    outer = doc.node_at_pointer("/a")
    assert outer is not None and outer.end == len(text)
    assert doc.property_at_pointer("/a") is not None
    assert doc.property_at_pointer("/a").end == len(text)  # type: ignore[union-attr]


def test_half_typed_array() -> None:
    doc = parse('{"a": [1, 2')
    assert issues(doc) == [("missing-close-brace", 0, 1), ("missing-close-bracket", 6, 1)]
    arr = doc.node_at_pointer("/a")
    assert arr is not None and (arr.kind, arr.offset, arr.end) == ("array", 6, 11)
    assert [c.value for c in arr.children] == [1, 2]
    doc = parse('{"a": [1, {"b": ')
    assert issues(doc) == [
        ("missing-close-brace", 0, 1),
        ("missing-close-bracket", 6, 1),
        ("missing-close-brace", 10, 1),
        ("value-expected", 16, 0),
    ]
    assert doc.value() == {"a": [1, {}]}


def test_empty_object_with_comma() -> None:
    doc = parse("{,}")
    assert doc.root is not None and (doc.root.kind, doc.root.length) == ("object", 3)
    assert doc.root.children == []


# -- hostile input ----------------------------------------------------------------


def test_deep_nesting_does_not_recurse() -> None:
    depth = 10_000
    doc = parse("[" * depth)
    assert len(doc.issues) == depth
    assert {i.code for i in doc.issues} == {"missing-close-bracket"}
    check_invariants(doc)
    closed = parse("[" * depth + "]" * depth)
    assert closed.issues == []
    value = closed.value()
    for _ in range(depth - 1):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == []
    deepest = closed.node_at(depth - 1)
    assert deepest is not None and deepest.offset == depth - 1
    assert closed.pointer(deepest) == "/0" * (depth - 1)
    assert closed.node_at_pointer("/0" * (depth - 1)) is deepest
    objs = parse('{"a":' * depth + "1" + "}" * depth)
    assert objs.issues == [] and objs.node_at_pointer("/a" * depth) is not None


@pytest.mark.parametrize(
    "text",
    [
        "\ud800",
        '"\ud800"',
        '{"\udfff": 1}',
        "\x00",
        '"\x00',
        "[\x00]",
        "/",
        "/*",
        "//",
        '"\\',
        "\\",
        "-",
        "+",
        ".",
        "e",
        "\u2028",
        "[" + "\r" * 3 + "]",
    ],
)
def test_odd_characters_never_raise(text: str) -> None:
    doc = parse(text)
    check_invariants(doc)
    doc.value()
    for enc in ("utf-16", "utf-8", "utf-32"):
        doc.lines.position(len(text), enc)


def test_large_schema_parses_quickly() -> None:
    """A loose sanity bound (the benchmark is bench/server_parser.py)."""
    props = {
        f"field_{i}": {
            "type": "string",
            "description": f"the field number {i}",
            "x-eval-compare": "levenshtein",
            "enum": ["a", "b"],
        }
        for i in range(2500)
    }
    text = json.dumps({"type": "object", "properties": props}, indent=2)
    assert text.count("\n") > 20_000
    parse(text)
    t0 = time.perf_counter()
    doc = parse(text)
    assert time.perf_counter() - t0 < HANG_SECONDS  # speed: bench/server_parser.py
    assert doc.issues == [] and doc.value() == json.loads(text)


# -- JSONL ---------------------------------------------------------------------------


def test_parse_lines() -> None:
    text = '{"a": 1}\r\n\n   \t\n{"b": [2, 3]}\r{"c": \n"x😀" \n'
    docs = parse_lines(text)
    assert [line for line, _ in docs] == [0, 3, 4, 5]
    (_, d0), (_, d1), (_, d2), (_, d3) = docs
    assert d0 is not None and d1 is not None and d2 is not None and d3 is not None
    assert d0.value() == {"a": 1} and d0.issues == []
    assert d1.value() == {"b": [2, 3]} and d1.issues == []
    assert d0.lines is d1.lines is d2.lines is d3.lines
    # offsets are relative to the whole text
    b = d1.node_at_pointer("/b/1")
    assert b is not None and text[b.offset : b.end] == "3"
    assert d1.range(b) == ((3, 10), (3, 11))
    # a broken line ends at its own line end, not in the next line
    assert issues(d2) == [("missing-close-brace", d2.start, 1), ("value-expected", d2.end, 0)]
    assert d2.end == text.index("\n", d2.start)
    assert d2.value() == {}
    assert d3.value() == "x😀" and issues(d3) == []
    assert d3.root is not None and d3.range(d3.root) == ((5, 0), (5, 5))  # emoji: 2 units
    for _, d in docs:
        assert d is not None
        check_invariants(d)
    assert parse_lines("") == [] and parse_lines("\n \n") == []


# -- property-based ----------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=25,
)
JSON_TEXT = st.builds(
    lambda v, indent, ascii_: json.dumps(v, indent=indent, ensure_ascii=ascii_),
    JSON_VALUES,
    st.sampled_from([None, 0, 2]),
    st.booleans(),
)
NOISE = st.text(
    alphabet=st.sampled_from(list('{}[],:"\\/*tfnrue0123456789.-+eE ab\n\r\t\u2028😀\x00\ud800')),
    max_size=40,
)
HSETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@HSETTINGS
@given(st.one_of(st.text(max_size=60), NOISE))
def test_random_text_never_raises(text: str) -> None:
    for comments in (True, False):
        doc = parse(text, comments=comments, trailing_commas=comments)
        check_invariants(doc)
        doc.value()
    for _, line_doc in parse_lines(text):
        assert line_doc is not None
        check_invariants(line_doc)


@HSETTINGS
@given(JSON_TEXT)
def test_valid_json_round_trips(text: str) -> None:
    doc = parse(text)
    assert doc.issues == []
    assert doc.value() == json.loads(text)
    check_invariants(doc)
    for node in walk(doc):
        if node.kind == "property":
            continue
        if (
            node.parent is not None
            and node.parent.kind == "property"
            and node is node.parent.key_node
        ):
            continue
        ptr = doc.pointer(node)
        assert doc.node_at_pointer(ptr) is node


@HSETTINGS
@given(JSON_TEXT, st.data())
def test_edited_json_never_raises(text: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(text)))
    check_invariants(parse(text[:cut]))
    start = data.draw(st.integers(0, len(text)))
    stop = data.draw(st.integers(start, len(text)))
    insert = data.draw(NOISE)
    edited = text[:start] + insert + text[stop:]
    doc = parse(edited)
    check_invariants(doc)
    doc.value()


# -- the extract-bench schemas ------------------------------------------------------


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: Path(p).name)
def test_extract_bench_schema_pointers_round_trip(path: str) -> None:
    text = Path(path).read_text(encoding="utf-8")
    doc = parse(text)
    assert doc.issues == []
    data = json.loads(text)
    assert doc.value() == data
    count = 0
    for node in walk(doc):
        parent = node.parent
        if node.kind == "property" or (
            parent is not None and parent.kind == "property" and node is parent.key_node
        ):
            continue
        ptr = doc.pointer(node)
        assert doc.node_at_pointer(ptr) is node, ptr
        if parent is not None and parent.kind == "property":
            assert doc.property_at_pointer(ptr) is parent
        value: Any = data
        for seg in ptr.split("/")[1:]:
            seg = unescape_pointer_segment(seg)
            value = value[int(seg)] if isinstance(value, list) else value[seg]
        assert doc.value(node) == value
        count += 1
    assert count > 50


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: Path(p).name)
def test_extract_bench_schema_truncations(path: str) -> None:
    text = Path(path).read_text(encoding="utf-8")
    stride = 97
    for cut in range(0, len(text), stride):
        check_invariants(parse(text[:cut]))
        # and the same offset with one character deleted (an edit mid-document)
        check_invariants(parse(text[:cut] + text[cut + 1 :]))
