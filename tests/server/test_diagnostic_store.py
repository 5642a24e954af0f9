"""One store of diagnostics, one publisher (diagnostic_store.py): sources merge in a fixed
order, findings of another text stay hidden, and a failing computed source sends nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from lsprotocol import types

from evalschema_server import diagnostic_store
from evalschema_server.diagnostic_store import DiagnosticStore, Encoded
from evalschema_server.store import DocumentStore

URI = "file:///tmp/w/a.jsonl"


def diag(code: str) -> dict[str, Any]:
    return {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "code": code, "source": "evalschema", "message": code}


class Sent:
    def __init__(self) -> None:
        self.params: list[dict[str, Any]] = []
        self.errors: list[tuple[str, BaseException]] = []

    def send(self, method: str, params: dict[str, Any]) -> None:
        assert method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        self.params.append(params)

    def report(self, where: str, exc: BaseException) -> None:
        self.errors.append((where, exc))

    def codes(self) -> list[str]:
        return [d["code"] for d in self.params[-1]["diagnostics"]]


def store() -> tuple[DiagnosticStore, DocumentStore, Sent]:
    docs, sent = DocumentStore(), Sent()
    return DiagnosticStore(sent.send, docs, sent.report), docs, sent


def test_computed_sources_first_then_the_others_in_the_order_first_set() -> None:
    s, _, sent = store()
    s.set_diagnostics("suite:b", URI, [diag("b")])
    s.set_diagnostics("configuration", URI, [diag("c")])
    s.computed("schema", lambda uri: [diag("schema")])
    s.set_diagnostics("suite:b", URI, [diag("b2")])  # replaced in place: keeps its place
    s.publish(URI)
    assert sent.params == [{"uri": URI, "diagnostics": [diag("schema"), diag("b2"), diag("c")]}]
    assert s.clear_diagnostics("suite:b") == {URI}  # dropped with its place
    s.set_diagnostics("suite:b", URI, [diag("b3")])
    s.publish(URI)
    assert sent.codes() == ["schema", "c", "b3"]


def test_clearing_one_uri_or_a_whole_source() -> None:
    s, _, sent = store()
    other = "file:///tmp/w/b.jsonl"
    s.set_diagnostics("suite:a", URI, [diag("x")])
    s.set_diagnostics("suite:a", other, [])
    assert s.uris("suite:a") == {URI, other}  # empty lists count: they are published too
    assert s.clear_diagnostics("suite:a", other) == {other}
    assert s.clear_diagnostics("suite:a", other) == set()
    assert s.clear_diagnostics("suite:a") == {URI}
    assert s.clear_diagnostics("nothing") == set()
    s.publish(URI)
    assert sent.params == [{"uri": URI, "diagnostics": []}]


def test_findings_of_another_text_are_hidden_while_the_document_holds_it() -> None:
    s, docs, sent = store()
    s.set_diagnostics("suite:a", URI, [diag("mismatch")], text="old")
    s.set_diagnostics("configuration", URI, [diag("always")])
    assert [d["code"] for d in s.items(URI)] == ["mismatch", "always"]  # not open: shown
    docs.open(types.TextDocumentItem(URI, "jsonl", 7, "new"))
    s.publish(URI)
    assert sent.params[-1] == {"uri": URI, "diagnostics": [diag("always")], "version": 7}
    doc = docs.get(URI)
    assert doc is not None
    doc.text = "old"
    s.publish(URI)
    assert sent.codes() == ["mismatch", "always"]


def test_a_failing_computed_source_is_reported_and_nothing_is_sent() -> None:
    s, _, sent = store()

    def broken(uri: str) -> list[dict[str, Any]]:
        raise ValueError("boom")

    s.computed("schema", broken)
    s.publish(URI)
    assert sent.params == []
    [(where, exc)] = sent.errors
    assert where == "diagnostics" and str(exc) == "boom"


def test_a_publish_encodes_only_the_items_its_uri_did_not_send_last_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The diagnostics go out with their JSON (``Encoded``); an item sent in the URI's
    last publish (the same object) is not encoded again, a new or other one is."""
    encoded: list[str] = []
    real = diagnostic_store.encode

    def counting(item: dict[str, Any]) -> str:
        encoded.append(item["code"])
        return real(item)

    monkeypatch.setattr(diagnostic_store, "encode", counting)
    s, _, sent = store()
    kept, gone = diag("kept"), diag("gone")
    s.set_diagnostics("suite:a", URI, [kept, gone])
    s.publish(URI)
    s.set_diagnostics("suite:a", URI, [kept, diag("new"), diag("kept")])  # an equal copy
    s.publish(URI)
    assert encoded == ["kept", "gone", "new", "kept"]
    last = sent.params[-1]["diagnostics"]
    assert isinstance(last, Encoded) and json.loads(last.json) == last
    assert last == [kept, diag("new"), kept] and last.json == json.dumps(list(last))
    # Withdrawn while the file is edited, then back: not encoded again.
    s.set_diagnostics("suite:a", URI, [])
    s.publish(URI)
    assert sent.params[-1]["diagnostics"].json == "[]"
    s.set_diagnostics("suite:a", URI, [kept])
    s.publish(URI)
    assert encoded == ["kept", "gone", "new", "kept"]
    # Gone from every source: forgotten.
    s.clear_diagnostics("suite:a", URI)
    s.set_diagnostics("suite:a", URI, [kept])
    s.publish(URI)
    assert encoded[-1] == "kept" and len(encoded) == 5


def test_a_publish_after_typing_joins_no_text_of_another_length() -> None:
    """A publish follows every edit (findings of the old text withdrawn): comparing a
    50 MB document's text with the run's would join its lines each keystroke."""
    s, docs, sent = store()
    text = '{"id": 1}\n{"id": 2}\n'
    doc = docs.open(types.TextDocumentItem(URI, "jsonl", 1, text))
    s.set_diagnostics("suite:a", URI, [diag("a")], text=text)
    docs.change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version=2, uri=URI),
        [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(0, 7), types.Position(0, 8)), text="10")]),
        "utf-16")
    s.publish(URI)
    assert sent.codes() == []  # another text: hidden
    assert doc._text is None  # and its lines were not joined to tell
