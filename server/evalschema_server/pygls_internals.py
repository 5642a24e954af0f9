"""Every use of pygls' private API, in one place (written against pygls 2.1).

``tests/server/test_pygls_internals.py`` exercises each one against the installed pygls,
so an upgrade that renames or changes one fails there, loudly, rather than somewhere in
the editor. Everything else in the server uses pygls' public API only.

Why each is needed:

- ``send_json``: a notification whose params are plain JSON, written as they are;
  ``send_text``: a message already encoded (a large file's diagnostics, mostly encoded
  at an earlier publish: ``diagnostic_store.Encoded``).
  pygls' public ``notify`` converts the params through cattrs, which for a large data
  file's diagnostics costs more than building them (see ``evaluation/findings.py``).
- ``send_error``: the answer to a request whose params pygls could not read
  (``jsonrpc.Protocol``); pygls itself only logs those.
- ``fail_request``: fails one of our own pending requests whose response fits no type,
  instead of leaving its caller waiting for ever.
- ``keep_no_text_documents``: pygls' workspace keeps no copy of the open documents.
  The server applies edits itself (``store.DocumentStore``); a copy that never sees
  an edit would hand any handler that read it a stale text.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, NoReturn

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol
from pygls.workspace import TextDocument, Workspace


def send_json(protocol: JsonRPCProtocol, message: dict[str, Any]) -> None:
    """Write ``message`` (plain JSON) to the client as it is."""
    protocol._send_data(message)


def send_text(protocol: JsonRPCProtocol, body: str) -> None:
    """Write ``body``, a JSON-RPC message already encoded, framed as ``_send_data``
    frames the messages it encodes."""
    writer = protocol.writer
    if writer is None:
        return
    data = body.encode(protocol.CHARSET)
    if protocol._include_headers:
        data = (f"Content-Length: {len(data)}\r\nContent-Type: {protocol.CONTENT_TYPE}; "
                f"charset={protocol.CHARSET}\r\n\r\n").encode(protocol.CHARSET) + data
    res = writer.write(data)
    if inspect.isawaitable(res):  # an async writer (pygls' websocket one): kept till done
        task = asyncio.ensure_future(res)
        _writes.add(task)
        task.add_done_callback(_writes.discard)


#: Writes under way on an async writer (a task without a reference may be collected).
_writes: set[asyncio.Future[Any]] = set()


def send_error(protocol: JsonRPCProtocol, msg_id: int | str, error: types.ResponseError
               ) -> None:
    """Answer request ``msg_id`` with ``error``."""
    protocol._send_response(msg_id, error=error)


def fail_request(protocol: JsonRPCProtocol, msg_id: Any, exc: BaseException) -> bool:
    """Fail our pending request ``msg_id`` with ``exc``; False when there is none."""
    future = protocol._request_futures.pop(msg_id, None)
    if future is None:
        return False
    protocol._result_types.pop(msg_id, None)
    future.set_exception(exc)
    return True


class TextDocumentsNotKept(RuntimeError):
    """Raised when code asks pygls' workspace for an open document's text."""

    def __init__(self) -> None:
        super().__init__(
            "evalschema keeps the editor's documents in EvalSchemaServer.store (it applies "
            "edits by LSP's line rules); pygls' workspace holds no copy of them")


class _WorkspaceWithoutTextDocuments(Workspace):
    """pygls' workspace (folders, position encoding) minus its copy of open documents."""

    def put_text_document(self, text_document: types.TextDocumentItem,
                          notebook_uri: str | None = None) -> None:
        return None

    def remove_text_document(self, doc_uri: str) -> None:
        return None

    def update_text_document(self, text_doc: types.VersionedTextDocumentIdentifier,
                             change: types.TextDocumentContentChangeEvent) -> NoReturn:
        raise TextDocumentsNotKept

    def get_text_document(self, doc_uri: str) -> NoReturn:
        raise TextDocumentsNotKept

    @property
    def text_documents(self) -> dict[str, TextDocument]:
        raise TextDocumentsNotKept


def keep_no_text_documents(workspace: Workspace) -> None:
    """From now on ``workspace`` ignores opened and closed documents, and reading one
    raises ``TextDocumentsNotKept``."""
    workspace.__class__ = _WorkspaceWithoutTextDocuments
