"""The JSON-RPC side of the server: how messages are read and which ones pygls leaves to us.

``Protocol`` is pygls's ``LanguageServerProtocol`` with three changes: open documents
live in our DocumentStore only, ``workspace/executeCommand`` runs in the request's own
task, and a message whose params do not fit its method is answered (a request) or logged
(a notification) instead of dropped. What it needs of pygls' private API is in
``pygls_internals``.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from typing import Any

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from .guard import log_to_client
from .pygls_internals import fail_request, keep_no_text_documents, send_error

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Unreadable:
    """A message whose params do not fit its method (or a response that fits no type):
    answered with InvalidParams when it is a request, logged when it is a notification."""

    jsonrpc: str
    method: str | None
    id: Any
    detail: str


class Protocol(LanguageServerProtocol):
    """Leaves open documents to our DocumentStore, and answers messages pygls cannot read.

    pygls applies incremental edits with ``str.splitlines`` and converts the change's
    range in place, so by the time a handler sees it the range is wrong for text
    holding ``\u2028`` or ``\x85``. We apply edits ourselves, from the range as sent,
    and pygls' workspace keeps no copy of the documents (reading one raises): a copy
    that never saw an edit would be stale.

    pygls raises from ``structure_message`` when a request's params do not fit its
    type; the read loop only logs that, so the request was never answered. Here such a
    message becomes an ``Unreadable``, which ``handle_message`` answers.
    """

    def __init__(self, server: LanguageServer, converter: cattrs.Converter) -> None:
        super().__init__(server, converter)
        self.language_server = server

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method")
            cause = exc.__cause__
            detail = "; ".join(cattrs.transform_error(cause)[:5]) \
                if isinstance(cause, cattrs.ClassValidationError) else str(cause or exc)
            msg_id = data.get("id")
            if method is None:
                # A response to one of our requests: fail that request rather than
                # leave its caller waiting for ever.
                fail_request(self, msg_id, exc)
            return Unreadable(str(data.get("jsonrpc")), method if isinstance(method, str)
                              else None, msg_id, detail)

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, Unreadable):
            super().handle_message(message)
            return
        where = f"{message.method!r}" if message.method else "a response"
        if message.method is not None and isinstance(message.id, str | int) \
                and not isinstance(message.id, bool):
            send_error(self, message.id, types.ResponseError(
                code=JsonRpcInvalidParams.CODE,
                message=f"invalid params for {where}: {message.detail}"))
            return
        text = f"evalschema: ignored {where} with invalid params: {message.detail}"
        log.warning(text)
        log_to_client(self.language_server, types.MessageType.Warning, text)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        """pygls' ``initialize``; then its workspace is made to keep no open documents."""
        result = yield from super().lsp_initialize(params)
        keep_no_text_documents(self.workspace)
        return result

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams
                                      ) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    async def lsp_workspace__execute_command(  # type: ignore[override]
            self, params: types.ExecuteCommandParams) -> Any:
        """Runs the command in the request's own task.

        pygls runs it in a task of its own that ``$/cancelRequest`` does not reach, so a
        cancelled ``runSuite`` was answered "cancelled" while its run went on to the end.
        Awaited here, the cancellation reaches the command (and the scheduler's ``run``).

        Every command is ``(ls, *args)`` and gets the arguments as sent (pygls' own
        preparation would read the handler's annotations at run time, which then could
        not name types imported for type checking only).
        """
        handler = self.fm.commands.get(params.command)
        if handler is None:
            raise JsonRpcInvalidParams.of(
                ValueError(f"Command name {params.command!r} is not defined"))
        result = handler(*(params.arguments or ()))
        return await result if inspect.isawaitable(result) else result
