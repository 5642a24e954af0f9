"""The framing state machine on its own: header lines in, body lengths out, problems
reported once per malformed message, and the next message always found."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalschema_server.transport import MAX_HEADER_LINE, Framing, StdioReader, serve


def frame(n: int) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "method": "m", "params": {"n": n}}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Collect:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    def structure_message(self, data: dict[str, Any]) -> Any:
        return type("Msg", (), {"jsonrpc": data.get("jsonrpc"), "data": data})() \
            if "jsonrpc" in data else data

    def handle_message(self, message: Any) -> None:
        self.messages.append(message.data["params"]["n"])


def run(stream: bytes) -> tuple[list[int], list[str]]:
    reports: list[str] = []
    proto = Collect()
    asyncio.run(serve(threading.Event(), StdioReader(io.BufferedReader(io.BytesIO(stream))),
                      proto, reports.append))
    return proto.messages, reports


def test_lines_in_lengths_out() -> None:
    reports: list[str] = []
    f = Framing(reports.append)
    assert f.feed(b"Content-Length: 12\r\n") is None
    assert f.feed(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n") is None
    assert f.feed(b"\r\n") == 12
    assert f.feed(b"content-length:3\n") is None  # any case, bare \n: accepted
    assert f.feed(b"\n") == 3
    assert reports == []


@pytest.mark.parametrize("cut", [0, 1, 7, 14, 16])
def test_a_header_cut_across_two_reads_is_found_when_resynchronising(cut: int) -> None:
    """The long line is read in pieces of MAX_HEADER_LINE bytes: the piece boundary falls
    ``cut`` bytes into the Content-Length header after the junk."""
    junk = b"x" * (2 * MAX_HEADER_LINE - cut)
    messages, reports = run(junk + b"Content-Length: 5\r\n\r\n{}{}x" + frame(1) + frame(2))
    assert messages == [1, 2]
    assert reports == [f"a header line longer than {MAX_HEADER_LINE} bytes; skipping to "
                       "the next message", "a message body that is not JSON ('Extra data: "
                       "line 1 column 3 (char 2)'); ignored"]


def test_junk_before_a_header_is_skipped() -> None:
    messages, reports = run(frame(1) + b"trailing junk" + frame(2) + frame(3))
    # "trailing junkContent-Length: …" is one line: the junk is reported, the header kept.
    assert messages == [1, 2, 3]
    length = len(frame(2).split(b"\r\n\r\n")[1])
    assert reports == [f"not an LSP header: 'trailing junkContent-Length: {length}'; skipping "
                       "to the next message"]


def test_one_report_per_malformed_stretch_and_twenty_at_most() -> None:
    messages, reports = run(b"Content-Length: x\r\n\r\n" * 30 + frame(1))
    assert messages == [1]
    assert reports == ["Content-Length 'x' is not a number of bytes; skipping to the next "
                       "message"]
    messages, reports = run(b"".join(b"Content-Length: x\r\n\r\n" + frame(i)
                                     for i in range(30)))
    assert messages == list(range(30))
    assert len(reports) == 20
    assert reports[-1].endswith("(further framing problems are only logged)")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=40).filter(lambda b: b":" not in b), max_size=5))
def test_junk_between_messages_never_costs_a_message(garbage: list[bytes]) -> None:
    # Without a colon the junk can hold no header: every message after it is found.
    stream = b"".join(frame(i) + g for i, g in enumerate(garbage)) + frame(100) + frame(101)
    messages, reports = run(stream)
    assert messages == [*range(len(garbage)), 100, 101]
    assert len(reports) <= len(garbage)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=5))
def test_any_garbage_ends_in_a_message_or_a_report(garbage: list[bytes]) -> None:
    stream = b"".join(frame(i) + g for i, g in enumerate(garbage)) + frame(100) + frame(101)
    messages, reports = run(stream)
    assert messages[-1] == 101 or reports, (messages, reports)
