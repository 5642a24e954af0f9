"""A real HTTP server on 127.0.0.1 (port 0) that records what reaches it and answers as
a test tells it to: the judge attack tests run against it."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


#: (listener, handler, request) -> None: writes the whole answer.
Behaviour = Callable[["Listener", BaseHTTPRequestHandler, Seen], None]


def judge_answer(scores: list[float], content: str | None = None) -> bytes:
    text = content if content is not None else json.dumps({"scores": scores})
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()


def overlap_scores(seen: Seen) -> list[float]:
    """1 for each numbered pair whose words overlap, else 0 (a plausible judge)."""
    out = []
    for line in seen.json["messages"][1]["content"].splitlines():
        gold, ext = line.split(" | extracted: ")
        g = set(json.loads(gold.split("gold: ", 1)[1]).lower().split())
        e = set(json.loads(ext).lower().split())
        out.append(1.0 if g & e else 0.0)
    return out


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes = b"",
         headers: dict[str, str] | None = None) -> None:
    handler.send_response(status)
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def ok(listener: Listener, handler: BaseHTTPRequestHandler, seen: Seen) -> None:
    send(handler, 200, judge_answer(overlap_scores(seen)))


@dataclass
class Listener:
    behaviour: Behaviour = ok
    requests: list[Seen] = field(default_factory=list)
    connections: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    #: Set when a client closed a connection the server was still holding.
    closed_by_client: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def start(self) -> Listener:
        listener = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body are two writes: with Nagle's algorithm the body waits for
            # the client's delayed ACK (40 ms a request).
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()},
                            self.rfile.read(length))
                with listener.lock:
                    listener.requests.append(seen)
                    listener.in_flight += 1
                    listener.max_in_flight = max(listener.max_in_flight, listener.in_flight)
                try:
                    listener.behaviour(listener, self, seen)
                except (BrokenPipeError, ConnectionResetError):
                    listener.closed_by_client.set()
                finally:
                    with listener.lock:
                        listener.in_flight -= 1

            do_GET = do_POST

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def process_request(self, request: Any, client_address: Any) -> None:
                with listener.lock:
                    listener.connections += 1
                super().process_request(request, client_address)

        self.server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        self.stop.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def hold_until_closed(listener: Listener, handler: BaseHTTPRequestHandler, seen: Seen) -> None:
    """Never answer; notice when the client gives up and closes the connection."""
    handler.connection.settimeout(0.1)
    while not listener.stop.is_set():
        try:
            if handler.connection.recv(1) == b"":
                listener.closed_by_client.set()
                return
        except TimeoutError:
            continue
        except OSError:
            listener.closed_by_client.set()
            return


def drip(listener: Listener, handler: BaseHTTPRequestHandler, seen: Seen) -> None:
    """Headers at once, then the body one byte a second (a minute's worth)."""
    body = judge_answer([1.0]) * 10
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.flush()
    for i in range(60):
        if listener.stop.is_set():
            return
        try:
            handler.wfile.write(body[i:i + 1])
            handler.wfile.flush()
        except OSError:
            listener.closed_by_client.set()
            return
        time.sleep(1.0)


class Gate:
    """A behaviour: each request is held until ``n`` are held together (or ``seconds``
    pass), then answered as ``ok`` does. ``peak`` is the most requests held at once: the
    server counts a request off *before* answering it, so a client that frees a slot only
    on an answer can never make ``peak`` exceed its own limit."""

    def __init__(self, n: int, seconds: float) -> None:
        self.n = n
        self.seconds = seconds
        self.held = 0
        self.peak = 0
        self.opened = 0
        self.cond = threading.Condition()

    def __call__(self, listener: Listener, handler: BaseHTTPRequestHandler, seen: Seen) -> None:
        with self.cond:
            self.held += 1
            self.peak = max(self.peak, self.held)
            mine = self.opened
            if self.held >= self.n:
                self.opened += 1
                self.cond.notify_all()
            else:
                self.cond.wait_for(lambda: self.opened != mine, timeout=self.seconds)
            self.held -= 1
        ok(listener, handler, seen)
