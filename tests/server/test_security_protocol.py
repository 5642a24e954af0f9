"""Hostile bytes on the wire: the server answers what it can, reports the rest, and
never goes silent or allocates what a header claims.

The server runs as a subprocess driven over stdio with raw bytes (a real LSP client
would refuse to send these). Every wait is bounded, so a regression fails instead of
hanging.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import SERVER

BUDGET = 15.0


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(msg_id: int, method: str, params: Any = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        msg["params"] = params
    return frame(msg)


def notification(method: str, params: Any) -> bytes:
    return frame({"jsonrpc": "2.0", "method": method, "params": params})


class Raw:
    """The server process and what it sent back."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.received: list[dict[str, Any]] = []
        self._stderr: list[bytes] = []
        assert proc.stderr is not None
        self._drain = asyncio.get_running_loop().create_task(self._read_stderr())

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(65536):
            self._stderr.append(chunk)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    async def _next(self) -> dict[str, Any]:
        out = self.proc.stdout
        assert out is not None
        length = None
        while True:
            line = await out.readline()
            if not line:
                raise AssertionError("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        assert length is not None
        got: dict[str, Any] = json.loads(await out.readexactly(length))
        self.received.append(got)
        return got

    async def response(self, msg_id: int) -> dict[str, Any]:
        """The response to request ``msg_id`` (notifications on the way are kept)."""
        async def wait() -> dict[str, Any]:
            while True:
                got = await self._next()
                if got.get("id") == msg_id and "method" not in got:
                    return got
        return await asyncio.wait_for(wait(), BUDGET)

    def logs(self) -> list[str]:
        return [m["params"]["message"] for m in self.received
                if m.get("method") == "window/logMessage"]

    async def initialize(self) -> None:
        self.send(request(1, "initialize", {"capabilities": {}, "rootUri": None}))
        assert "result" in await self.response(1)
        self.send(notification("initialized", {}))

    async def close(self) -> int:
        if self.proc.returncode is None:
            self.send(request(999, "shutdown"))
            with contextlib.suppress(AssertionError, TimeoutError):
                await self.response(999)
            self.send(frame({"jsonrpc": "2.0", "method": "exit"}))
        try:
            code = await asyncio.wait_for(self.proc.wait(), BUDGET)
        finally:
            if self.proc.returncode is None:
                self.proc.kill()
                await self.proc.wait()
            self._drain.cancel()
        return code


@pytest.fixture
async def raw(tmp_path: Path) -> AsyncIterator[Raw]:
    proc = await asyncio.create_subprocess_exec(
        *SERVER, cwd=tmp_path, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    server = Raw(proc)
    await server.initialize()
    yield server
    await server.close()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


# -- invalid params -----------------------------------------------------------

async def test_a_request_missing_a_param_gets_invalid_params(raw: Raw) -> None:
    raw.send(request(2, "textDocument/hover", {"textDocument": {"uri": "file:///a.json"}}))
    got = await raw.response(2)
    assert got["error"]["code"] == -32602
    assert "textDocument/hover" in got["error"]["message"]
    assert "position" in got["error"]["message"]


async def test_a_request_with_params_of_the_wrong_type_gets_invalid_params(raw: Raw) -> None:
    raw.send(request(3, "textDocument/hover", {"textDocument": {"uri": "file:///a.json"},
                                               "position": {"line": "top", "character": None}}))
    got = await raw.response(3)
    assert got["error"]["code"] == -32602
    assert "expected int @ $.params.position.line" in got["error"]["message"]
    raw.send(request(4, "textDocument/completion", []))
    assert (await raw.response(4))["error"]["code"] == -32602
    raw.send(request(5, "workspace/executeCommand", {"command": 7}))
    assert (await raw.response(5))["error"]["code"] == -32602


async def test_a_notification_with_invalid_params_is_logged_and_the_server_goes_on(
        raw: Raw) -> None:
    raw.send(notification("textDocument/didOpen", {"textDocument": {"uri": 12}}))
    raw.send(notification("textDocument/didChange", {"contentChanges": "x"}))
    raw.send(request(2, "textDocument/hover", {"textDocument": {"uri": "file:///a.json"},
                                               "position": {"line": 0, "character": 0}}))
    got = await raw.response(2)
    assert got["result"] is None
    logs = raw.logs()
    assert any("ignored 'textDocument/didOpen' with invalid params" in m for m in logs), logs
    assert any("ignored 'textDocument/didChange' with invalid params" in m for m in logs), logs


# -- framing ------------------------------------------------------------------

HOVER = {"textDocument": {"uri": "file:///a.json"}, "position": {"line": 0, "character": 0}}


@pytest.mark.parametrize(("garbage", "reported"), [
    (b"Content-Length: abc\r\n\r\n{}", "Content-Length 'abc' is not a number of bytes"),
    (b"Content-Length: -5\r\n\r\n{}", "Content-Length '-5' is not a number of bytes"),
    (b"Content-Type: application/vscode-jsonrpc\r\n\r\n{\"jsonrpc\": \"2.0\"}",
     "a message without a Content-Length header"),
    (b"hello there\r\n", "not an LSP header: 'hello there'"),
    (b"Content-Length: 5\r\nContent-Length: 5\r\n\r\n{}", "two Content-Length headers"),
    (b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n", "is over the limit of 67108864 bytes"),
    (b"X" * 20000 + b"\r\n", "a header line longer than 8192 bytes"),
])
async def test_a_malformed_header_is_reported_and_the_next_message_answered(
        raw: Raw, garbage: bytes, reported: str) -> None:
    raw.send(garbage)
    raw.send(request(2, "textDocument/hover", HOVER))
    got = await raw.response(2)
    assert got["result"] is None
    assert any(reported in m for m in raw.logs()), raw.logs()
    assert all(m.startswith("evalschema: malformed input from the client: ")
               for m in raw.logs())


async def test_a_body_that_is_not_json_is_reported_and_skipped(raw: Raw) -> None:
    raw.send(b"Content-Length: 9\r\n\r\n{not json")
    raw.send(b"Content-Length: 7\r\n\r\n[1,2,3]")
    raw.send(request(2, "textDocument/hover", HOVER))
    assert (await raw.response(2))["result"] is None
    logs = raw.logs()
    assert any("a message body that is not JSON" in m for m in logs), logs
    assert any("a message that is not JSON-RPC 2.0 ('[1,2,3]')" in m for m in logs), logs


async def test_a_huge_content_length_is_not_allocated(raw: Raw) -> None:
    before = rss_mb(raw.proc.pid)
    raw.send(b"Content-Length: 10000000000\r\n\r\n")
    raw.send(request(2, "textDocument/hover", HOVER))
    assert (await raw.response(2))["result"] is None
    assert any("Content-Length '10000000000' is over the limit" in m for m in raw.logs())
    assert rss_mb(raw.proc.pid) < before + 200


async def test_a_message_body_cut_by_the_end_of_input_is_reported_and_exits_with_1(
        raw: Raw) -> None:
    raw.send(b"Content-Length: 500\r\n\r\n{\"jsonrpc\": ")
    assert raw.proc.stdin is not None
    raw.proc.stdin.close()
    assert await asyncio.wait_for(raw.proc.wait(), BUDGET) == 1
    with contextlib.suppress(AssertionError):
        while True:
            await asyncio.wait_for(raw._next(), BUDGET)
    assert "evalschema: malformed input from the client: input ended inside a message (12 of " \
        "500 bytes)" in raw.logs()


async def test_exit_after_shutdown_exits_with_0(raw: Raw) -> None:
    assert await raw.close() == 0


async def test_a_response_that_fits_no_type_fails_the_request_waiting_for_it(
        tmp_path: Path) -> None:
    from eval_workspace import write_suite

    folder = tmp_path / "proj"
    write_suite(folder)
    proc = await asyncio.create_subprocess_exec(
        *SERVER, cwd=tmp_path, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    server = Raw(proc)
    try:
        server.send(request(1, "initialize", {
            "capabilities": {"workspace": {"configuration": True}},
            "rootUri": folder.as_uri(), "initializationOptions": {"runOnStartup": False}}))
        assert "result" in await server.response(1)
        server.send(notification("initialized", {}))

        async def configuration_request() -> dict[str, Any]:
            while True:
                got = await server._next()
                if got.get("method") == "workspace/configuration":
                    return got
        asked = await asyncio.wait_for(configuration_request(), BUDGET)
        server.send(frame({"jsonrpc": "2.0", "id": asked["id"], "result": 5}))
        # The server goes on to find the suites (it waited for ever for its answer).
        server.send(request(2, "workspace/executeCommand",
                            {"command": "evalschema.server.listSuites", "arguments": [{}]}))
        got = await server.response(2)
        assert [s["name"] for s in got["result"]["suites"]] == ["shop"]
    finally:
        await server.close()
