"""Open, edit, save and close: the documents the editor holds, and who is told.

Edits go to our ``DocumentStore`` (see ``jsonrpc.Protocol``); each event schedules the
document's diagnostics and tells the evaluation service about the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from lsprotocol import types

from ..guard import guarded
from ..open_schemas import JSON_LANGUAGES
from ..store import OpenDocument
from ..uris import file_path

if TYPE_CHECKING:
    from ..server import EvalSchemaServer


def note_size(ls: EvalSchemaServer, doc: OpenDocument) -> None:
    """Log once when a JSON document goes over the limit (a data file, say: it shows
    no diagnostic, and the user may wonder why features are missing)."""
    schemas = ls.schemas
    if not schemas.too_large(doc):
        ls.large_noted.discard(doc.uri)
        return
    if doc.uri in ls.large_noted or not (
            doc.language_id in JSON_LANGUAGES or schemas.named_as_schema(doc)):
        return
    ls.large_noted.add(doc.uri)
    name = Path(urlparse(doc.uri).path).name or doc.uri
    ls.window_log_message(types.LogMessageParams(
        types.MessageType.Info, f"evalschema: {name}: {schemas.size_message(doc)}"))


def did_open(ls: EvalSchemaServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = ls.store.open(params.text_document)
    note_size(ls, doc)
    ls.schedule(doc.uri, immediate=True)
    if doc.path is not None:
        ls.evaluation.opened(doc.path)


def did_change(ls: EvalSchemaServer, params: types.DidChangeTextDocumentParams) -> None:
    note_size(ls, ls.store.change(params, ls.encoding))
    ls.schedule(params.text_document.uri)
    path = file_path(params.text_document.uri)
    if path is not None:
        ls.evaluation.changed(path)


def did_save(ls: EvalSchemaServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, immediate=True)
    path = file_path(params.text_document.uri)
    if path is not None:
        ls.evaluation.saved(path)


def did_close(ls: EvalSchemaServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    for timers in (ls.pending, ls.warming):
        handle = timers.pop(uri, None)
        if handle is not None:
            handle.cancel()
    ls.store.close(uri)
    ls.large_noted.discard(uri)
    ls.schemas.forget(uri)
    # The schema checks go; the evaluation's findings stay (they concern the file on disk).
    ls.diagnostics.publish(uri)


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(guarded()(did_open))
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(guarded()(did_change))
    server.feature(types.TEXT_DOCUMENT_DID_SAVE)(guarded()(did_save))
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(guarded()(did_close))
