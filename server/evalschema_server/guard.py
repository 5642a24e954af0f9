"""Every handler is guarded: an internal error is logged to the client once, never a crash."""

from __future__ import annotations

import functools
import logging
import traceback
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from lsprotocol import types

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


class _Sends(Protocol):
    def window_log_message(self, params: types.LogMessageParams) -> None: ...


class _Logs(_Sends, Protocol):
    logged_errors: set[str]


class ClientError(Exception):
    """A request's bad input: answered to the client as an error with this message
    (not logged as an internal error)."""


def report_once(server: _Logs, where: str, exc: BaseException) -> None:
    key = f"{where}:{type(exc).__name__}:{exc}"
    log.exception("evalschema: internal error in %s", where)
    if key in server.logged_errors:
        return
    server.logged_errors.add(key)
    text = "".join(traceback.format_exception(exc)).rstrip()
    log_to_client(server, types.MessageType.Error, f"evalschema: internal error in {where} "
                  f"(the server goes on; please report it):\n{text}")


def log_to_client(server: _Sends, kind: types.MessageType, message: str) -> None:
    """A line in the client's log; a connection that is gone already is no error."""
    try:
        server.window_log_message(types.LogMessageParams(kind, message))
    except Exception:
        log.debug("could not send log message", exc_info=True)


def guarded(default: Any = None) -> Callable[[F], F]:
    """Wrap a handler ``(server, params)``: exceptions are reported and ``default`` returned."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def sync(server: Any, *args: Any) -> Any:
            try:
                return fn(server, *args)
            except ClientError:
                raise
            except Exception as exc:
                report_once(server, fn.__name__, exc)
                return default

        @functools.wraps(fn)
        async def asyn(server: Any, *args: Any) -> Any:
            try:
                return await fn(server, *args)
            except ClientError:
                raise
            except Exception as exc:
                report_once(server, fn.__name__, exc)
                return default

        import inspect

        return asyn if inspect.iscoroutinefunction(fn) else sync  # type: ignore[return-value]

    return wrap
