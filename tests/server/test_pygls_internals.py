"""Every use of pygls' private API (pygls_internals.py), exercised against the installed pygls.

When a pygls upgrade renames or changes one of them, a test here fails, loudly and by
name, instead of a feature going quietly wrong in the editor. The server is driven in
process: messages go in through the protocol, and what it writes is read back.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

import pytest
from lsprotocol import types
from pygls.workspace import Workspace

from evalschema_server import pygls_internals
from evalschema_server.diagnostic_store import Encoded
from evalschema_server.guard import guarded
from evalschema_server.jsonrpc import Protocol
from evalschema_server.pygls_internals import (
    TextDocumentsNotKept,
    fail_request,
    send_error,
    send_json,
    send_text,
)
from evalschema_server.server import EvalSchemaServer, create_server


class Writer:
    """What the server writes, as JSON-RPC messages."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        pass

    def messages(self) -> list[dict[str, Any]]:
        out, rest = [], self.data
        while rest:
            head, _, rest = rest.partition(b"\r\n\r\n")
            length = int(head.split(b"\r\n")[0].split(b":")[1])
            out.append(json.loads(rest[:length]))
            rest = rest[length:]
        return out


def connected(server: EvalSchemaServer) -> Writer:
    writer = Writer()
    server.protocol.set_writer(writer)
    return writer


def receive(server: EvalSchemaServer, message: dict[str, Any]) -> None:
    """One message from the client, as the transport hands it over."""
    proto = server.protocol
    proto.handle_message(proto.structure_message({"jsonrpc": "2.0", **message}))


def test_send_json_writes_the_message_as_it_is() -> None:
    server = EvalSchemaServer()
    writer = connected(server)
    message = {"jsonrpc": "2.0", "method": "evalschema/x", "params": {"a": [1, "é"]}}
    send_json(server.protocol, message)
    assert writer.messages() == [message]
    assert writer.data.startswith(b"Content-Length: ")


def test_send_error_answers_a_request() -> None:
    server = EvalSchemaServer()
    writer = connected(server)
    send_error(server.protocol, 7, types.ResponseError(code=-32602, message="bad params"))
    assert writer.messages() == [{"jsonrpc": "2.0", "id": 7,
                                  "error": {"code": -32602, "message": "bad params"}}]


def test_fail_request_fails_our_pending_request_once() -> None:
    server = EvalSchemaServer()
    writer = connected(server)
    future = server.protocol.send_request(types.WORKSPACE_CONFIGURATION,
                                          types.ConfigurationParams(items=[]))
    [request] = writer.messages()
    exc = RuntimeError("a response that fits no type")
    assert fail_request(server.protocol, request["id"], exc) is True
    assert future.exception() is exc
    assert request["id"] not in server.protocol._result_types
    assert fail_request(server.protocol, request["id"], exc) is False
    assert fail_request(server.protocol, "never sent", exc) is False


def test_our_workspace_overrides_match_pygls_workspace() -> None:
    ours = pygls_internals._WorkspaceWithoutTextDocuments
    for name in ("put_text_document", "remove_text_document", "update_text_document",
                 "get_text_document"):
        assert list(inspect.signature(getattr(Workspace, name)).parameters) == \
            list(inspect.signature(getattr(ours, name)).parameters), name
    assert isinstance(inspect.getattr_static(Workspace, "text_documents"), property)


def test_our_protocol_methods_are_the_ones_pygls_dispatches() -> None:
    features = EvalSchemaServer().protocol.fm.builtin_features
    for method, name in ((types.INITIALIZE, "lsp_initialize"),
                         (types.TEXT_DOCUMENT_DID_CHANGE, "lsp_text_document__did_change"),
                         (types.WORKSPACE_EXECUTE_COMMAND, "lsp_workspace__execute_command")):
        assert features[method].__func__ is getattr(Protocol, name), method


SCHEMA = '{"description": "a\u2028b",\n "properties": {"a": {"x-eval-compare": "exct"}}}'


async def test_an_edited_document_is_current_and_pygls_copy_cannot_be_read() -> None:
    server = create_server()
    writer = connected(server)
    receive(server, {"id": 1, "method": "initialize",
                     "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    [answer] = writer.messages()
    assert answer["id"] == 1 and answer["result"]["capabilities"]["positionEncoding"] == \
        "utf-16"
    assert server.encoding == "utf-16"
    uri = "untitled:notes.eval.json"
    receive(server, {"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "json", "version": 1, "text": SCHEMA}}})
    col = SCHEMA.split("\n")[1].index('"exct"')
    await asyncio.sleep(0.05)  # the publish on open
    [opened] = [m["params"] for m in writer.messages()
                if m.get("method") == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
    assert [(d["code"], d["range"]) for d in opened["diagnostics"]] == [
        ("unknown-comparator", {"start": {"line": 1, "character": col},
                                "end": {"line": 1, "character": col + 6}})]
    # The range by LSP's rules: \u2028 breaks no line, so "exct" is on line 1.
    receive(server, {"method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": {"line": 1, "character": col},
                                      "end": {"line": 1, "character": col + 6}},
                            "text": '"exact"'}]}})
    edited = SCHEMA.replace('"exct"', '"exact"')
    doc = server.store.get(uri)
    assert doc is not None and doc.text == edited and doc.version == 2
    with pytest.raises(TextDocumentsNotKept):
        server.workspace.get_text_document(uri)
    with pytest.raises(TextDocumentsNotKept):
        _ = server.workspace.text_documents
    await asyncio.sleep(0.2)  # the debounced publish: the checks of the current text
    published = [m["params"] for m in writer.messages()
                 if m.get("method") == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
    assert published[-1] == {"uri": uri, "diagnostics": [], "version": 2}
    receive(server, {"id": 2, "method": "shutdown"})
    assert server.shutdown_requested
    await asyncio.gather(*server.background)


async def test_commands_get_their_arguments_as_sent_and_annotations_are_not_read() -> None:
    server = create_server()

    async def echo(ls: NotImportedAnywhere, *args: Any) -> Any:  # type: ignore[name-defined]  # noqa: F821
        return list(args)

    server.command("test.echo")(guarded()(echo))
    writer = connected(server)
    receive(server, {"id": 5, "method": "workspace/executeCommand",
                     "params": {"command": "test.echo", "arguments": [{"a": 1}, 2]}})
    receive(server, {"id": 6, "method": "workspace/executeCommand",
                     "params": {"command": "test.echo"}})
    for _ in range(100):
        if len(writer.messages()) == 2:
            break
        await asyncio.sleep(0.01)
    assert sorted((m["id"], m["result"]) for m in writer.messages()) == [
        (5, [{"a": 1}, 2]), (6, [])]


def test_send_text_frames_an_encoded_message_as_pygls_frames_its_own() -> None:
    server = EvalSchemaServer()
    writer = connected(server)
    message = {"jsonrpc": "2.0", "method": "evalschema/x", "params": {"a": [1, "é"]}}
    send_text(server.protocol, json.dumps(message, ensure_ascii=False))  # é: 2 bytes
    mine = writer.data
    writer.data = b""
    send_json(server.protocol, message)
    assert writer.messages() == [message]
    writer.data = mine
    assert writer.messages() == [message]
    assert mine.split(b"\r\n\r\n")[0].split(b"\r\n")[1] == b"Content-Type: " + \
        f"{server.protocol.CONTENT_TYPE}; charset={server.protocol.CHARSET}".encode()


def test_encoded_diagnostics_are_written_as_the_same_message() -> None:
    """A publish whose diagnostics come with their JSON (``diagnostic_store.Encoded``)
    is the message ``json.dumps`` would write."""
    server = EvalSchemaServer()
    writer = connected(server)
    items = [{"message": "a ≠ b", "range": {"start": {"line": 0, "character": 1}}}]
    encoded = Encoded(items)
    encoded.json = json.dumps(items)
    params = {"uri": "file:///a.jsonl", "diagnostics": encoded, "version": 3}
    server.send_raw(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)
    assert writer.messages() == [{"jsonrpc": "2.0", "params": {**params, "diagnostics": items},
                                  "method": types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS}]
