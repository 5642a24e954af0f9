"""Reading files from disk: regular files only, with a size limit, never on the event loop.

The workspace is not trusted: a configuration may name a FIFO (a read never returns),
``/dev/zero`` (a read never ends) or a 10 GB file as its gold data, and a glob may walk
the whole disk. So the server reads through ``read_text`` (opened without blocking,
refused unless it is a regular file under ``MAX_FILE_BYTES``), and runs anything that
touches the disk in ``in_thread``: a daemon thread, so even an unbounded walk neither
holds up a request nor keeps the process alive after ``exit``.
"""

from __future__ import annotations

import asyncio
import errno
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from evalschema.io.regularfile import read_regular

T = TypeVar("T")

#: The largest file the server reads (schemas, configuration, gold and extracted data).
MAX_FILE_BYTES = 512 * 2**20


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The file's bytes; ``OSError`` for anything but a regular file of at most ``limit``
    bytes (``MAX_FILE_BYTES`` when None)."""
    return read_regular(path, MAX_FILE_BYTES if limit is None else limit)


def read_text(path: Path, limit: int | None = None) -> str:
    """``read_bytes`` decoded as UTF-8 (``OSError`` when it is not)."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OSError(errno.EILSEQ, f"not UTF-8 text (byte {exc.start})") from None


def signature(path: Path) -> tuple[int, ...]:
    """What tells that a file changed without reading it (``OSError`` when it cannot be
    looked at): another identity, size, modification or status-change time (``st_ctime``
    changes on any write, even one that sets the old ``mtime`` back)."""
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


#: A file modified less than this long before it is read may be written again within the
#: same timestamp tick (file times are coarse: a few milliseconds), its signature
#: unchanged: its text is not kept (git's "racily clean" rule). "Modified" by its status
#: change time as well: a tool may set the modification time back (``cp -p``, ``tar x``,
#: ``rsync -t``), never that one.
RACY_NS = 2 * 10**9


class DiskTexts:
    """``read_text`` that reads a file again only when it changed (``signature``): an
    unchanged gold file is not read and decoded again on each save of a run file (tens
    of milliseconds for 10 MB). A file modified in the last ``RACY_NS`` is always read."""

    def __init__(self, clock: Callable[[], int] = time.time_ns) -> None:
        self._texts: dict[Path, tuple[tuple[int, ...], str]] = {}
        self._clock = clock  # now, in ns (a test's clock may run ahead)

    def read(self, path: Path) -> str:
        sig = signature(path)
        got = self._texts.get(path)
        if got is not None and got[0] == sig:
            return got[1]
        self._texts.pop(path, None)
        text = read_text(path)
        if self._clock() - max(sig[3], sig[4]) > RACY_NS:  # modified, status changed
            self._texts[path] = (sig, text)
        return text

    def __contains__(self, path: object) -> bool:
        """Whether the text of ``path`` is kept."""
        return path in self._texts

    def keep(self, paths: Iterable[Path]) -> None:
        """Forget the texts of files other than ``paths`` (those the last run read from
        disk): a file since opened in the editor is read from there, and holding its
        disk text as well would keep a second copy of a file that may be 50 MB."""
        wanted = set(paths)
        for path in [p for p in self._texts if p not in wanted]:
            del self._texts[path]


async def in_thread(fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)`` on a daemon thread of its own; the event loop goes on meanwhile.

    Not the default executor: its threads are joined when the loop and the interpreter
    shut down, so one stuck read or endless walk would keep the server from exiting.
    """
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()

    def settle(value: T | None, exc: BaseException | None) -> None:
        if fut.done():
            return
        if exc is not None:
            fut.set_exception(exc)
        else:
            fut.set_result(value)  # type: ignore[arg-type]

    def work() -> None:
        try:
            value = fn(*args)
        except BaseException as exc:
            if not loop.is_closed():
                loop.call_soon_threadsafe(settle, None, exc)
            return
        if not loop.is_closed():
            loop.call_soon_threadsafe(settle, value, None)

    threading.Thread(target=work, name=f"evalschema-{getattr(fn, '__name__', 'io')}",
                     daemon=True).start()
    return await fut
