"""The stdio transport: LSP message framing, read with limits.

pygls's reader accepts any all-digit ``Content-Length`` (a 10 GB one is read into
memory), silently skips a header it cannot parse, and never finds the next message
after a malformed one: the server stayed alive and answered nothing. Here each header
block is checked; a bad one is reported (the server's log and ``window/logMessage``)
and the stream resynchronised at the next ``Content-Length`` header. Header lines and
message bodies are capped, so no input makes the server allocate more than
``MAX_MESSAGE_BYTES`` for one message.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

log = logging.getLogger(__name__)

#: The largest message body accepted (a 64 MB document is far past ``maxDocumentSize``).
MAX_MESSAGE_BYTES = 64 * 2**20
#: The longest header line; longer lines are not headers.
MAX_HEADER_LINE = 8192
#: Framing problems reported to the client, then only logged.
MAX_REPORTS = 20

_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*([^\r\n]*?)[ \t]*\r?\n\Z")
#: A Content-Length header at the end of a line (resynchronising: junk may precede it).
_RESYNC = re.compile(rb"Content-Length[ \t]*:[ \t]*([0-9]+)[ \t]*\r?\n\Z", re.IGNORECASE)
_TAIL = 64  # bytes of a cut line kept, so a header split across two reads is still found


class _Handler(Protocol):
    def structure_message(self, data: dict[str, Any]) -> Any: ...
    def handle_message(self, message: Any) -> None: ...


@dataclass
class Framing:
    """Header lines in, body lengths out: the state between two messages.

    ``feed`` takes one line (as ``readline(MAX_HEADER_LINE)`` returns it) and returns
    the body length once a valid header block is complete, else None; problems go to
    ``report``.
    """

    report: Callable[[str], None]
    length: int | None = None
    error: str | None = None
    headers: int = 0
    #: Looking for the next Content-Length header after a malformed message.
    resync: bool = False
    tail: bytes = b""
    #: The previous read stopped inside an over-long line.
    in_long_line: bool = False

    def feed(self, line: bytes) -> int | None:
        cut = not line.endswith(b"\n")
        if self.in_long_line or cut:
            return self._long(line, cut)
        if self.resync:
            return self._scan(line)
        if line in (b"\r\n", b"\n"):
            return self._end()
        m = _HEADER.match(line)
        if m is None or (m.group(1).lower() != b"content-length" and _RESYNC.search(line)):
            # Not a header, or junk glued to the front of the next message's header.
            self.report(f"not an LSP header: {_show(line)}; skipping to the next message")
            self._start_resync()
            return self._scan(line)
        self.headers += 1
        if m.group(1).lower() == b"content-length":
            self._length(m.group(2))
        return None

    def _length(self, value: bytes) -> None:
        if self.length is not None or self.error is not None:
            self.error = "two Content-Length headers"
        elif not value.isdigit():
            self.error = f"Content-Length {_show(value)} is not a number of bytes"
        elif len(value) > 12 or int(value) > MAX_MESSAGE_BYTES:
            self.error = (f"Content-Length {_show(value)} is over the limit of "
                          f"{MAX_MESSAGE_BYTES} bytes; the message is skipped")
        else:
            self.length = int(value)

    def _end(self) -> int | None:
        if not self.headers:  # blank lines between messages
            return None
        length, error = self.length, self.error
        self.length, self.error, self.headers = None, None, 0
        if error is None and length is None:
            error = "a message without a Content-Length header"
        if error is not None:
            self.report(f"{error}; skipping to the next message")
            self._start_resync()
            return None
        return length

    def _start_resync(self) -> None:
        self.resync = True
        self.length, self.error, self.headers, self.tail = None, None, 0, b""

    def _scan(self, line: bytes) -> int | None:
        """While resynchronising: a line ending in a Content-Length header starts the
        next message (the bytes before it are the rest of the skipped one)."""
        m = _RESYNC.search(self.tail + line)
        self.tail = b""
        if m is None:
            return None
        self.resync = False
        self.headers = 1
        self._length(m.group(1))
        return None

    def _long(self, line: bytes, cut: bool) -> int | None:
        """A line longer than ``MAX_HEADER_LINE`` (read in pieces): never a header."""
        if not self.in_long_line:
            self.in_long_line = True
            if not self.resync:
                self.report(f"a header line longer than {MAX_HEADER_LINE} bytes; skipping to "
                            "the next message")
                self._start_resync()
        if cut:
            self.tail = (self.tail + line)[-_TAIL:]
            return None
        self.in_long_line = False
        return self._scan(line)


class _Reader(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...
    def read(self, size: int = -1, /) -> bytes: ...


@dataclass
class StdioReader:
    """Blocking reads of a binary stream, run on a worker thread."""

    stream: BinaryIO | _Reader
    executor: Executor | None = None

    async def readline(self, limit: int) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(
            self.executor, self.stream.readline, limit)

    async def read(self, n: int) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(
            self.executor, self.stream.read, n)


async def serve(stop: threading.Event, reader: StdioReader, protocol: _Handler,
                report: Callable[[str], None]) -> None:
    """Read messages until end of input (or ``stop``) and hand each to ``protocol``."""
    reports = 0

    def bounded(message: str) -> None:
        nonlocal reports
        reports += 1
        log.warning("evalschema: %s", message)
        if reports <= MAX_REPORTS:
            report(message if reports < MAX_REPORTS else
                   f"{message} (further framing problems are only logged)")

    framing = Framing(bounded)
    while not stop.is_set():
        line = await reader.readline(MAX_HEADER_LINE)
        if not line:
            break
        length = framing.feed(line)
        if length is None:
            continue
        body = await reader.read(length) if length else b""
        if len(body) < length:
            bounded(f"input ended inside a message ({len(body)} of {length} bytes)")
            break
        try:
            message = json.loads(body, object_hook=protocol.structure_message)
        except (ValueError, RecursionError) as exc:
            bounded(f"a message body that is not JSON ({_show(str(exc))}); ignored")
            continue
        except Exception as exc:  # a response that fits no type, say: reported, go on
            bounded(f"a message that cannot be read ({_show(str(exc))}); ignored")
            continue
        if not hasattr(message, "jsonrpc"):
            bounded(f"a message that is not JSON-RPC 2.0 ({_show(body)}); ignored")
            continue
        try:
            protocol.handle_message(message)
        except Exception:
            log.exception("evalschema: unable to handle a message")


def _show(raw: bytes | str, limit: int = 60) -> str:
    text = (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw).strip()
    return repr(text if len(text) <= limit else text[:limit] + "…")
