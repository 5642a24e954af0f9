"""Every diagnostic the server shows, by who produced it, and the one place they are published.

Producers put their diagnostics in with ``set_diagnostics(source, uri, items)``: the
evaluation service one source per suite, the suite search one for the configuration.
The schema checks are a *computed* source: worked out from the document's current text
whenever its URI is published (the analysis is cached per version, so that is cheap).
``publish(uri)`` merges every source's diagnostics of ``uri`` into one
``textDocument/publishDiagnostics`` (as esbonio does).

Diagnostics are plain JSON: a large data file's findings are built as dicts, and
converting them to lsprotocol objects and back would cost more than building them (see
``evaluation/findings.py``).

A large file's publish is mostly the same diagnostics as its last one (a save changes
the findings of the edited record): each item's JSON is kept from the last publish of
its URI while the item is the same object, and the list goes out as ``Encoded`` (the
items, and their JSON joined), which the server writes as it is. Items are therefore
never changed once set.

Results must never be shown at positions of another text: an entry may name the
``text`` it was computed from, and while the document is open with a different text it
is left out (it comes back if the text does, after an undo).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from .store import DocumentStore

#: The ``source`` field of every diagnostic the server sends (and the pull identifier).
DIAGNOSTIC_SOURCE = "evalschema"

#: A diagnostic as plain JSON (``Diagnostic`` unstructured).
Item = dict[str, Any]
Send = Callable[[str, dict[str, Any]], None]
Report = Callable[[str, BaseException], None]


class Encoded(list[Item]):
    """Diagnostics, and their JSON array as ``json.dumps`` would write it (``.json``)."""

    json: str = "[]"


def encode(item: Item) -> str:
    return json.dumps(item)


@dataclass(frozen=True, slots=True)
class Entry:
    items: list[Item]
    #: The text ``items`` were computed from, when they hold positions of that text only.
    text: str | None = None


class DiagnosticStore:
    """Diagnostics by (source, URI); ``publish`` sends a URI's, all sources merged.

    Sources merge in a fixed order: computed sources first, then the others in the
    order they were first set (a source keeps its place until ``clear_diagnostics``
    drops all of it).
    """

    def __init__(self, send: Send, documents: DocumentStore, report: Report) -> None:
        self._send = send
        self._documents = documents
        self._report = report
        self._computed: dict[str, Callable[[str], list[Item]]] = {}
        self._sources: dict[str, dict[str, Entry]] = {}
        #: URI -> id of each item of its last publish with items -> (the item, its JSON);
        #: dropped when no source has diagnostics of the URI any more.
        self._sent: dict[str, dict[int, tuple[Item, str]]] = {}

    def computed(self, source: str, compute: Callable[[str], list[Item]]) -> None:
        """A source whose diagnostics of a URI are computed each time it is published."""
        self._computed[source] = compute

    def set_diagnostics(self, source: str, uri: str, items: list[Item], *,
                        text: str | None = None) -> None:
        """``source``'s diagnostics of ``uri`` (shown only while an open document's text
        is ``text``, when given). Not sent until ``publish``."""
        self._sources.setdefault(source, {})[uri] = Entry(items, text)

    def clear_diagnostics(self, source: str, uri: str | None = None) -> set[str]:
        """Forget ``source``'s diagnostics of ``uri`` (of every URI when None); returns
        the URIs that had some, to publish."""
        if uri is None:
            gone = set(self._sources.pop(source, {}))
        else:
            entries = self._sources.get(source, {})
            gone = {uri} if entries.pop(uri, None) is not None else set()
        for u in gone:
            if not any(u in entries for entries in self._sources.values()):
                self._sent.pop(u, None)
        return gone

    def uris(self, source: str) -> set[str]:
        """The URIs ``source`` has diagnostics of (empty lists included)."""
        return set(self._sources.get(source, {}))

    def items(self, uri: str) -> list[Item]:
        """What ``publish`` would send for ``uri`` (computed sources raise through)."""
        out: list[Item] = []
        for compute in self._computed.values():
            out.extend(compute(uri))
        doc = self._documents.get(uri)
        for entries in self._sources.values():
            entry = entries.get(uri)
            if entry is None or not entry.items:
                continue
            if entry.text is not None and doc is not None and not doc.has_text(entry.text):
                continue  # computed from another text: its positions are wrong here
            out.extend(entry.items)
        return out

    def publish(self, uri: str) -> None:
        """Send ``uri``'s diagnostics, with the open document's version. A computed
        source that fails is reported and nothing is sent."""
        try:
            items = self.items(uri)
        except Exception as exc:
            self._report("diagnostics", exc)
            return
        doc = self._documents.get(uri)
        params: dict[str, Any] = {"uri": uri, "diagnostics": self._encoded(uri, items)}
        if doc is not None and doc.version is not None:
            params["version"] = doc.version
        self._send(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)

    def _encoded(self, uri: str, items: list[Item]) -> Encoded:
        """``items`` with their JSON, each item's kept from the URI's last publish."""
        last = self._sent.get(uri, {})
        sent: dict[int, tuple[Item, str]] = {}
        parts = []
        for item in items:
            got = last.get(id(item))
            if got is None or got[0] is not item:
                got = (item, encode(item))
            sent[id(item)] = got
            parts.append(got[1])
        if sent:  # an empty publish (findings withdrawn while a file is edited) keeps them
            self._sent[uri] = sent
        out = Encoded(items)
        out.json = "[" + ", ".join(parts) + "]"
        return out
