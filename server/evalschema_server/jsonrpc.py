"""The JSON-RPC side of the server: how messages are read and which ones pygls leaves to us.

``Protocol`` is pygls's ``LanguageServerProtocol`` with three changes: edits go to our
DocumentStore, ``workspace/executeCommand`` runs in the request's own task, and a message
whose params do not fit its method is answered (a request) or logged (a notification)
instead of dropped.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from typing import Any

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.language_server import _prepare_command_arguments

from .guard import log_to_client

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
    """Leaves edits to our DocumentStore, and answers messages pygls cannot read.

    pygls applies incremental edits with ``str.splitlines`` and converts the change's
    range in place, so by the time a handler sees it the range is wrong for text
    holding ``\u2028`` or ``\x85``. We apply edits ourselves, from the range as sent.

    pygls raises from ``structure_message`` when a request's params do not fit its
    type; the read loop only logs that, so the request was never answered. Here such a
    message becomes an ``Unreadable``, which ``handle_message`` answers.
    """

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method")
            cause = exc.__cause__
            detail = "; ".join(cattrs.transform_error(cause)[:5]) \
                if isinstance(cause, cattrs.ClassValidationError) else str(cause or exc)
            msg_id = data.get("id")
            if method is None and msg_id in self._request_futures:
                # A response to one of our requests: fail that request rather than
                # leave its caller waiting for ever.
                self._result_types.pop(msg_id, None)
                self._request_futures.pop(msg_id).set_exception(exc)
            return Unreadable(str(data.get("jsonrpc")), method if isinstance(method, str)
                              else None, msg_id, detail)

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, Unreadable):
            super().handle_message(message)
            return
        where = f"{message.method!r}" if message.method else "a response"
        if message.method is not None and isinstance(message.id, str | int) \
                and not isinstance(message.id, bool):
            self._send_response(message.id, error=types.ResponseError(
                code=JsonRpcInvalidParams.CODE,
                message=f"invalid params for {where}: {message.detail}"))
            return
        text = f"evalschema: ignored {where} with invalid params: {message.detail}"
        log.warning(text)
        log_to_client(self._server, types.MessageType.Warning, text)

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
        """
        handler = self.fm.commands.get(params.command)
        if handler is None:
            raise JsonRpcInvalidParams.of(
                ValueError(f"Command name {params.command!r} is not defined"))
        try:
            args, kwargs = _prepare_command_arguments(handler, params, self._converter)
        except Exception as exc:
            raise JsonRpcInvalidParams.of(exc) from exc
        result = handler(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result
