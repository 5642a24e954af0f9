"""Which open documents are eval schemas, and each one's analysis, kept per version.

Every feature of a schema reads the same ``SchemaAnalysis``; it is computed on first
use after an edit (or during the debounce, see ``EvalSchemaServer.warm``) and kept
while the text stays. A schema whose check may read files (``reads_files``) is checked
on a thread, one check at a time per document; ``checked`` is called when one is in.
"""

from __future__ import annotations

import fnmatch
import gc
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from evalschema.rules.registry import Registry

from .authoring.analysis import (
    FOREIGN_CONFIG_KEY,
    XEVAL_PREFIX,
    SchemaAnalysis,
    analyze,
    has_xeval_keys,
    reads_files,
    release,
)
from .document import JsonDocument
from .files import in_thread
from .settings import Settings
from .store import DocumentStore, OpenDocument
from .uris import uri_to_path

#: Language ids of documents that may be eval schemas: JSON, and the VS Code extension's own
#: "evalschema" (it opens ``*.eval.json`` in it so that VS Code's JSON support stays out).
JSON_LANGUAGES = frozenset({"json", "jsonc", "evalschema"})

Spawn = Callable[[Coroutine[Any, Any, None]], None]
Report = Callable[[str, BaseException], None]


class OpenSchemas:
    def __init__(self, documents: DocumentStore, registry: Registry,
                 settings: Callable[[], Settings], spawn: Spawn, report: Report,
                 checked: Callable[[str], None]) -> None:
        self.documents = documents
        self.registry = registry
        self._settings = settings
        self._spawn = spawn
        self._report = report
        self._checked = checked
        #: uri -> (version, analysis) of the last full parse.
        self.analyses: dict[str, tuple[int | None, SchemaAnalysis]] = {}
        #: Schemas that the workspace's evalschema.toml names (absolute paths).
        self.configured: set[str] = set()
        #: Documents whose schema check is running on a thread (see ``check_off_loop``).
        self.checking: set[str] = set()
        self.to_release: list[JsonDocument] = []

    # -- which documents ----------------------------------------------------

    def named_as_schema(self, doc: OpenDocument) -> bool:
        """By file name or by the project configuration, without reading the text."""
        path = uri_to_path(doc.uri)
        name = Path(path or urlparse(doc.uri).path).name
        if any(fnmatch.fnmatch(name, p) for p in self._settings().schema_patterns):
            return True
        return path is not None and str(Path(path).resolve()) in self.configured

    def too_large(self, doc: OpenDocument) -> bool:
        """Over ``maxDocumentSize``: no eval-schema features (never parsed here)."""
        limit = self._settings().max_document_size
        return bool(limit) and doc.size > limit

    def size_message(self, doc: OpenDocument) -> str:
        return (f"this document has {doc.size:,} characters, over evalschema.maxDocumentSize "
                f"({self._settings().max_document_size:,}): eval-schema checks, completion, "
                "hover and the outline are off for it (raise evalschema.maxDocumentSize to "
                "turn them on; evaluation of data files is not affected)")

    def might_be_schema(self, doc: OpenDocument) -> bool:
        """Cheap pre-check, so plain JSON files are never parsed."""
        if self.too_large(doc):
            return False
        return self.named_as_schema(doc) or (
            doc.language_id in JSON_LANGUAGES and (
                XEVAL_PREFIX in doc.text or FOREIGN_CONFIG_KEY in doc.text))

    def is_eval_schema(self, doc: OpenDocument, analysis: SchemaAnalysis | None = None) -> bool:
        if self.too_large(doc):
            return False
        if self.named_as_schema(doc):
            return True
        if not self.might_be_schema(doc):
            return False
        return has_xeval_keys((analysis or self.analysis(doc.uri)).doc)

    # -- analyses -----------------------------------------------------------

    def open_analysis(self, uri: str) -> SchemaAnalysis | None:
        """The analysis of an open document, or None when it is not open (or too large)."""
        doc = self.documents.get(uri)
        return self.analysis(uri) if doc is not None and not self.too_large(doc) else None

    def analysis(self, uri: str) -> SchemaAnalysis:
        doc = self.documents.get(uri)
        text = doc.text if doc is not None and not self.too_large(doc) else ""
        version = doc.version if doc else None
        cached = self.analyses.get(uri)
        if cached is not None and cached[0] == version and cached[1].text == text:
            return cached[1]
        result = analyze(text, self.registry, base_uri=uri_to_path(uri),
                         deferred=reads_files(text))
        if doc is not None:
            doc.edited_from = len(text)
        # Keep the collector from re-scanning the new tree on every later collection
        # (a 20,000-line schema is ~100,000 nodes); replaced trees are freed by
        # reference counting once ``release`` has cut their parent links.
        gc.freeze()
        self.analyses[uri] = (version, result)
        if cached is not None:
            self.release_later(cached[1].doc)
        if result.deferred and uri not in self.checking:
            self.checking.add(uri)
            self._spawn(self.check_off_loop(uri))
        return result

    def last(self, uri: str) -> SchemaAnalysis | None:
        """The last full parse of ``uri``, whatever text it was of."""
        cached = self.analyses.get(uri)
        return cached[1] if cached is not None else None

    async def check_off_loop(self, uri: str) -> None:
        """The engine's check of a schema that may read files (``reads_files``), on a
        thread: one at a time per document, always of its latest analysis."""
        try:
            while (cached := self.analyses.get(uri)) is not None and cached[1].deferred:
                analysis = cached[1]
                try:
                    check = await in_thread(analysis.run_check)
                except Exception as exc:
                    self._report("schema check", exc)
                    check = None
                analysis.set_check(check)
                if self.analyses.get(uri) is cached:
                    self._checked(uri)
        finally:
            self.checking.discard(uri)

    def forget(self, uri: str) -> None:
        """A closed document's analysis goes (its tree once diagnostics are out)."""
        old = self.analyses.pop(uri, None)
        if old is not None:
            self.release_later(old[1].doc)

    def release_later(self, doc: JsonDocument) -> None:
        """Free a replaced tree once the diagnostics it delays are out (see
        ``EvalSchemaServer.publish``)."""
        self.to_release.append(doc)
        if len(self.to_release) > 4:  # no publish coming (pull clients, tests): free now
            self.release_pending()

    def release_pending(self) -> None:
        while self.to_release:
            release(self.to_release.pop())
