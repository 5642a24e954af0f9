"""Asking the judge over HTTP: one deadline for the whole request, bounded retries,
a process-wide concurrency limit, a circuit breaker, cancellation, no redirects.

Requests run on one background event loop (httpx's async client): ``asyncio`` gives a
real deadline on the whole exchange (httpx's own timeouts are per read, so a server
dripping a byte a second would never time out) and cancelling a request closes its
connection at once. Callers block on their own thread, watching the cancellation event
of their run (``cancellation``), so the language server's cancel reaches the socket.

Redirects are never followed: a 3xx would carry the ``Authorization`` header to wherever
the answer points. Every message is redacted of the key before it leaves this module.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random
import threading
import time
from collections.abc import Coroutine, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from evalschema.judge.settings import JudgeLimits

if TYPE_CHECKING:  # imported when a judge is first asked: most runs never ask one
    import httpx

T = TypeVar("T")

REDACTED = "[redacted]"
#: Characters of an answer body quoted in an error message.
SNIPPET = 160


class JudgeError(RuntimeError):
    """The judge could not be reached or gave an unusable answer (message redacted)."""


class JudgeCancelled(JudgeError):
    """The run that asked was cancelled; the request was abandoned and its connection closed."""


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret replaced (a key a server echoes back, say)."""
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, REDACTED)
    return text


def origin(url: str) -> str:
    """``scheme://host:port`` of ``url``: what messages name (never a path, query or
    user info, which may hold secrets)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}"


def _snippet(data: bytes, secrets: Sequence[str]) -> str:
    # The whole body (at most ``max_body``) is redacted before any cut, so a cut cannot
    # split a key: a long key behind wide characters straddled a cut made in bytes.
    text = redact(data.decode("utf-8", "replace"), secrets)
    shown = "".join(c if c.isprintable() else " " for c in text[:SNIPPET])
    return shown + ("…" if len(text) > SNIPPET else "")


# -- cancellation -----------------------------------------------------------------

_cancel: ContextVar[threading.Event | None] = ContextVar("evalschema_judge_cancel",
                                                          default=None)


@contextmanager
def cancellation(event: threading.Event | None) -> Iterator[None]:
    """Judge requests made in this block stop (closing their connection) once ``event``
    is set: the language server passes its run's cancel token here."""
    token = _cancel.set(event)
    try:
        yield
    finally:
        _cancel.reset(token)


def current_cancel() -> threading.Event | None:
    return _cancel.get()


# -- the background loop ------------------------------------------------------------

class _Loop:
    """One daemon thread running an event loop for every judge request of the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                started = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(started.set)
                    loop.run_forever()

                threading.Thread(target=run, name="evalschema-judge", daemon=True).start()
                started.wait()
                self._loop = loop
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.get())


_LOOP = _Loop()


# -- the breaker --------------------------------------------------------------------

@dataclass
class _Breaker:
    failures: int = 0
    opened_at: float = 0.0


# -- the client ---------------------------------------------------------------------

class JudgeClient:
    """Posts chat-completion requests under ``limits``; one per distinct limits value in
    a process (``client_for``), so its concurrency limit and breakers are process-wide."""

    def __init__(self, limits: JudgeLimits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._breakers: dict[str, _Breaker] = {}
        self._http: httpx.AsyncClient | None = None
        self._slots: asyncio.Semaphore | None = None

    # The loop-side state is made on the loop thread.
    def _client(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        if self._http is None or self._slots is None:
            import httpx

            self._http = httpx.AsyncClient(
                follow_redirects=False, timeout=httpx.Timeout(None),
                limits=httpx.Limits(max_connections=self.limits.concurrency,
                                    max_keepalive_connections=self.limits.concurrency))
            self._slots = asyncio.Semaphore(self.limits.concurrency)
        return self._http, self._slots

    def post(self, url: str, body: Any, *, api_key: str | None, timeout: float,
             secrets: Sequence[str] = (), cancel: threading.Event | None = None) -> Any:
        """POST ``body`` as JSON to ``url`` and return the JSON answer, within ``timeout``
        seconds in all (retries and backoff included); ``JudgeError`` otherwise."""
        secrets = tuple(secrets) + ((api_key,) if api_key else ())
        cancel = cancel if cancel is not None else current_cancel()
        if cancel is not None and cancel.is_set():
            raise JudgeCancelled("the run was cancelled; the judge was not asked")
        where = origin(url)
        self._check_breaker(url, where)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        data = json.dumps(body).encode()
        fut = _LOOP.submit(self._ask(url, data, headers, timeout, secrets, where))
        # The coroutine keeps its own deadline; this one only guards against a loop
        # that cannot run it (it is never reached in practice).
        give_up = time.monotonic() + timeout + 5.0
        try:
            while True:
                try:
                    value = fut.result(timeout=0.05)
                    break
                except concurrent.futures.TimeoutError:
                    if cancel is not None and cancel.is_set():
                        fut.cancel()
                        raise JudgeCancelled("the run was cancelled while the judge was "
                                             "answering; the request was abandoned") from None
                    if time.monotonic() > give_up:
                        fut.cancel()
                        raise JudgeError(f"judge at {where} gave no answer within "
                                         f"{timeout:g} s") from None
        except JudgeCancelled:
            raise
        except JudgeError as exc:
            self._failed(url)
            raise JudgeError(redact(str(exc), secrets)) from None
        except concurrent.futures.CancelledError:
            raise JudgeCancelled("the judge request was cancelled") from None
        except Exception as exc:  # anything else httpx raises (a malformed URL, say)
            self._failed(url)
            raise JudgeError(redact(f"judge request to {where} failed: "
                                    f"{type(exc).__name__}: {exc}", secrets)) from None
        self._succeeded(url)
        return value

    async def _ask(self, url: str, data: bytes, headers: dict[str, str], timeout: float,
                   secrets: Sequence[str], where: str) -> Any:
        http, slots = self._client()
        deadline = time.monotonic() + timeout
        try:
            async with asyncio.timeout(timeout):
                async with slots:  # waiting for a slot counts: the call takes `timeout` at most
                    return await self._attempts(http, url, data, headers, secrets, where,
                                                deadline)
        except TimeoutError:
            raise JudgeError(f"judge at {where} gave no complete answer within "
                             f"{timeout:g} s") from None

    async def _attempts(self, http: httpx.AsyncClient, url: str, data: bytes,
                        headers: dict[str, str], secrets: Sequence[str], where: str,
                        deadline: float) -> Any:
        import httpx

        lim = self.limits
        attempt = 0
        while True:
            retry_after: float | None = None
            try:
                status, body, retry_after = await self._once(http, url, data, headers)
            except httpx.TransportError as exc:
                error = f"judge unreachable at {where}: {type(exc).__name__}" + (
                    f": {redact(str(exc), secrets)}" if str(exc) else "")
                retryable = isinstance(exc, httpx.ConnectError | httpx.RemoteProtocolError
                                       | httpx.ReadError)
            else:
                if 200 <= status < 300:
                    try:
                        return json.loads(body.decode("utf-8"))
                    except (UnicodeDecodeError, ValueError):
                        raise JudgeError(f"judge answer is not JSON: "
                                         f"{_snippet(body, secrets)!r}") from None
                if 300 <= status < 400:
                    raise JudgeError(f"judge answered HTTP {status}, a redirect; evalschema "
                                     "follows none (it would carry your key elsewhere): set "
                                     "the final URL in your judge settings")
                error = f"judge answered HTTP {status}" + (
                    f": {_snippet(body, secrets)}" if body.strip() else "")
                retryable = status == 429 or status >= 500
            if not retryable or attempt >= lim.retries:
                if attempt:
                    error += f" (after {attempt + 1} attempts)"
                raise JudgeError(error)
            delay = min(lim.max_backoff, lim.backoff * 2 ** attempt) * random.uniform(0.5, 1.0)
            if retry_after is not None:
                delay = max(delay, min(retry_after, lim.max_retry_after))
            if time.monotonic() + delay >= deadline:
                raise JudgeError(error + f" (no time left to retry within the deadline, "
                                 f"after {attempt + 1} attempt(s))")
            await asyncio.sleep(delay)
            attempt += 1

    async def _once(self, http: httpx.AsyncClient, url: str, data: bytes,
                    headers: dict[str, str]) -> tuple[int, bytes, float | None]:
        limit = self.limits.max_body
        async with http.stream("POST", url, content=data, headers=headers) as resp:
            chunks: list[bytes] = []
            size = 0
            async for chunk in resp.aiter_raw():
                size += len(chunk)
                if size > limit:
                    raise JudgeError(f"judge answer is larger than {limit} bytes")
                chunks.append(chunk)
            return resp.status_code, b"".join(chunks), _retry_after(
                resp.headers.get("retry-after"))

    # -- the breaker (thread-safe; called from callers' threads) --------------------

    def _check_breaker(self, url: str, where: str) -> None:
        lim = self.limits
        if lim.breaker_failures <= 0:
            return
        with self._lock:
            b = self._breakers.get(url)
            if b is None or b.failures < lim.breaker_failures:
                return
            waited = time.monotonic() - b.opened_at
            if waited >= lim.breaker_cooldown:
                b.opened_at = time.monotonic()  # half-open: let this one through
                return
        raise JudgeError(f"circuit breaker open: the judge at {where} failed {b.failures} "
                         f"times in a row, so it was not asked (it is tried again "
                         f"{lim.breaker_cooldown - waited:.0f} s from now)")

    def _failed(self, url: str) -> None:
        with self._lock:
            b = self._breakers.setdefault(url, _Breaker())
            b.failures += 1
            if b.failures >= self.limits.breaker_failures:
                b.opened_at = time.monotonic()

    def _succeeded(self, url: str) -> None:
        with self._lock:
            self._breakers.pop(url, None)

    def reset(self) -> None:
        """Close every breaker (tests, or after the user changed the settings)."""
        with self._lock:
            self._breakers.clear()


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


_CLIENTS: dict[JudgeLimits, JudgeClient] = {}
_CLIENTS_LOCK = threading.Lock()


def client_for(limits: JudgeLimits) -> JudgeClient:
    """The process's client for ``limits`` (made once)."""
    with _CLIENTS_LOCK:
        got = _CLIENTS.get(limits)
        if got is None:
            got = _CLIENTS[limits] = JudgeClient(limits)
        return got


def _after_fork() -> None:
    """A forked child has the loop object but not its thread: start afresh."""
    global _LOOP, _CLIENTS_LOCK
    _LOOP = _Loop()
    _CLIENTS.clear()
    _CLIENTS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def reset_breakers() -> None:
    """Close the breakers of every client of the process (tests; a settings change)."""
    with _CLIENTS_LOCK:
        clients = list(_CLIENTS.values())
    for c in clients:
        c.reset()
