"""The document store applies edits on a list of lines (cheap on a 50 MB document):
every edit gives exactly the text that applying it to the whole string gives."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from evalschema_server.document import LineIndex
from evalschema_server.store import DocumentStore, split_lines

ALPHABET = st.sampled_from(["a", "é", "🍮", "\n", "\r", "\r\n", "\u2028", "\x85", " "])
TEXT = st.lists(ALPHABET, max_size=30).map("".join)
POS = st.tuples(st.integers(-1, 8), st.integers(-1, 8))


def reference(text: str, rng: types.Range, new: str, encoding: str) -> str:
    lines = LineIndex(text)
    start = lines.offset(rng.start.line, rng.start.character, encoding)
    end = lines.offset(rng.end.line, rng.end.character, encoding)
    return text[:start] + new + text[max(start, end):]


def change(uri: str, version: int, rng: types.Range, new: str
           ) -> types.DidChangeTextDocumentParams:
    return types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version=version, uri=uri),
        [types.TextDocumentContentChangePartial(range=rng, text=new)])


@settings(max_examples=400, deadline=None)
@given(TEXT, st.lists(st.tuples(POS, POS, TEXT), max_size=6),
       st.sampled_from(["utf-16", "utf-8", "utf-32"]))
def test_edits_match_applying_them_to_the_whole_text(
        text: str, edits: list[tuple[tuple[int, int], tuple[int, int], str]],
        encoding: str) -> None:
    store = DocumentStore()
    doc = store.open(types.TextDocumentItem("file:///t.json", "json", 0, text))
    expected = text
    lowest = len(text)  # the lowest offset an edit touched: the text before is unchanged
    for version, ((l0, c0), (l1, c1), new) in enumerate(edits, 1):
        rng = types.Range(types.Position(max(l0, 0), max(c0, 0)),
                          types.Position(max(l1, 0), max(c1, 0)))
        lowest = min(lowest, LineIndex(expected).offset(rng.start.line, rng.start.character,
                                                        encoding))
        expected = reference(expected, rng, new, encoding)
        store.change(change(doc.uri, version, rng, new), encoding)
        assert doc.size == len(expected)
        assert doc.edited_from == lowest
        if version % 2:  # sometimes read the text between edits, sometimes not
            assert doc.text == expected
    assert doc.text == expected
    assert "".join(split_lines(expected)) == expected
    assert len(split_lines(expected)) == LineIndex(expected).line_count


@pytest.mark.parametrize(("text", "edits", "want"), [
    # a "\n" typed after a line ending in "\r": one line break, so "b" is line 1
    ("a\rb", [((1, 0), (1, 0), "\n"), ((1, 0), (1, 0), "X")], "a\r\nXb"),
    ("a\rb", [((1, 0), (1, 1), "\nc"), ((1, 1), (1, 1), "Y")], "a\r\ncY"),
    ("a\r\rb", [((2, 0), (2, 0), "\n"), ((2, 0), (2, 0), "Z")], "a\r\r\nZb"),
])
def test_a_line_break_joined_across_an_edit_counts_once(
        text: str, edits: list[tuple[tuple[int, int], tuple[int, int], str]],
        want: str) -> None:
    store = DocumentStore()
    doc = store.open(types.TextDocumentItem("file:///t.json", "json", 0, text))
    expected = text
    for version, ((l0, c0), (l1, c1), new) in enumerate(edits, 1):
        rng = types.Range(types.Position(l0, c0), types.Position(l1, c1))
        expected = reference(expected, rng, new, "utf-16")
        store.change(change(doc.uri, version, rng, new), "utf-16")
    assert expected == want
    assert doc.text == want


LINE = '{"id": "r%07d", "name": "some value here", "price": 12.5, "notes": "lorem"}\n'


def _per_edit_seconds(lines: int) -> tuple[float, DocumentStore, str, str]:
    """Best of three batches of 200 one-character edits in the middle of a document of
    ``lines`` lines: seconds per edit, with the store, the uri and the original text."""
    text = "".join(LINE % i for i in range(lines))
    store = DocumentStore()
    doc = store.open(types.TextDocumentItem("file:///big.jsonl", "jsonl", 0, text))
    store.change(change(doc.uri, 1, types.Range(types.Position(0, 0), types.Position(0, 0)),
                        " "), "utf-16")  # the first edit splits the text into lines
    best, version = float("inf"), 2
    for _ in range(3):
        t0 = time.perf_counter()
        for i in range(200):
            at = types.Position(lines // 2 + i, 10)
            store.change(change(doc.uri, version, types.Range(at, at),
                                "x\n" if i % 7 == 0 else "y"), "utf-16")
            version += 1
        best = min(best, (time.perf_counter() - t0) / 200)
    return best, store, doc.uri, text


def test_an_edit_costs_the_same_in_a_50_mb_document_as_in_a_50_kb_one() -> None:
    """Edits touch lines, not the whole text: a copy of 50 MB per edit would make the big
    document's edits hundreds of times dearer than the small one's. Both are timed in the
    same run, so a loaded machine slows both alike (speed: bench/server_evaluation.py)."""
    big, store, uri, text = _per_edit_seconds(650_000)
    small, _, _, _ = _per_edit_seconds(650)
    assert len(text) > 50_000_000
    assert big / small < 20, f"{big * 1e6:.0f} µs per edit at 50 MB, {small * 1e6:.0f} at 50 KB"
    doc = store.get(uri)
    assert doc is not None
    assert doc.size == len(text) + 1 + 600 + 3 * 29
    assert doc.text.count("\n") == text.count("\n") + 3 * 29


def test_open_documents_by_file_path(tmp_path: Path) -> None:
    store = DocumentStore()
    path = tmp_path / "a.jsonl"
    link = tmp_path / "link.jsonl"
    path.write_text("{}\n", encoding="utf-8")
    link.symlink_to(path)
    assert store.text_at(path) is None and store.uri_of(path) == path.as_uri()
    doc = store.open(types.TextDocumentItem(link.as_uri(), "jsonl", 1, "unsaved\n"))
    assert doc.path == path  # resolved, as suites name files
    assert store.text_at(path) == "unsaved\n" and store.uri_of(path) == link.as_uri()
    untitled = store.open(types.TextDocumentItem("untitled:1", "json", 1, "{}"))
    assert untitled.path is None
    store.close(link.as_uri())
    assert store.text_at(path) is None and store.uri_of(path) == path.as_uri()


def test_a_file_open_under_two_uris_is_read_from_the_latest(tmp_path: Path) -> None:
    """The same file open twice (its path and a link to it): the evaluation reads the text
    opened last, and closing the other URI does not forget it."""
    store = DocumentStore()
    path = tmp_path / "a.jsonl"
    link = tmp_path / "link.jsonl"
    path.write_text("{}\n", encoding="utf-8")
    link.symlink_to(path)
    store.open(types.TextDocumentItem(path.as_uri(), "jsonl", 1, "first\n"))
    store.open(types.TextDocumentItem(link.as_uri(), "jsonl", 1, "second\n"))
    assert store.text_at(path) == "second\n" and store.uri_of(path) == link.as_uri()
    store.close(path.as_uri())
    assert store.text_at(path) == "second\n" and store.uri_of(path) == link.as_uri()
    store.close(link.as_uri())
    assert store.text_at(path) is None and store.uri_of(path) == path.as_uri()


def test_a_document_shares_an_equal_text_and_keeps_its_own_otherwise() -> None:
    store = DocumentStore()
    text = '{"id": 1}\n{"id": 2}\n'
    doc = store.open(types.TextDocumentItem("file:///d.jsonl", "jsonl", 0, text))
    lines = doc.line_index
    copy = "".join(list(text))
    assert copy is not text
    doc.share(copy)
    assert doc.text is copy and doc.line_index is lines and lines.text is copy
    doc.share('{"id": 3}\n{"id": 4}\n')  # another text: not taken
    assert doc.text is copy
    store.change(change(doc.uri, 1, types.Range(types.Position(0, 7), types.Position(0, 8)),
                        "1"), "utf-16")  # an edit that changes nothing
    fresh = "".join(list(text))
    doc.share(fresh)  # edited since: its lines are not joined to be compared
    assert doc._text is None
    assert doc.text == text and doc.text is not fresh


def test_a_shared_text_is_held_without_its_lines_and_edits_still_apply() -> None:
    """The run holds the text the document was joined to: the lines it was joined from
    are a second copy (11 MB at 10,000 records), dropped; the next edit splits again."""
    store = DocumentStore()
    doc = store.open(types.TextDocumentItem("file:///d.jsonl", "jsonl", 0, '{"id": 1}\n'))
    store.change(change(doc.uri, 1, types.Range(types.Position(1, 0), types.Position(1, 0)),
                        '{"id": 2}\r\n{"id": 3}'), "utf-16")
    assert doc._lines is not None
    joined = doc.text  # what a run reads, and shares back
    doc.share(joined)
    assert doc._lines is None and doc.text is joined
    store.change(change(doc.uri, 2, types.Range(types.Position(1, 7), types.Position(2, 8)),
                        "9"), "utf-16")
    assert doc.text == '{"id": 1}\n{"id": 9}'
    assert doc.size == len(doc.text)
    doc.share("".join(list(doc.text)))  # an equal copy: taken, and still no lines
    assert doc._lines is None and doc.text == '{"id": 1}\n{"id": 9}'


def test_has_text_joins_no_edited_text_of_another_length() -> None:
    store = DocumentStore()
    text = '{"id": 1}\n{"id": 2}\n'
    doc = store.open(types.TextDocumentItem("file:///d.jsonl", "jsonl", 0, text))
    store.change(change(doc.uri, 1, types.Range(types.Position(0, 7), types.Position(0, 8)),
                        "10"), "utf-16")
    assert not doc.has_text(text)
    assert doc._text is None  # still lines: nothing was joined (a 50 MB join per keystroke)
    assert doc.has_text(text.replace("1", "10", 1))
    store.change(change(doc.uri, 2, types.Range(types.Position(0, 7), types.Position(0, 9)),
                        "1"), "utf-16")
    assert doc.has_text(text)  # undone: the same length, compared
    assert not doc.has_text(text.replace("2", "3"))
