"""Reading a file named by untrusted input: a regular file only, up to a size limit.

A schema's ``$ref`` or a project's configuration may name a FIFO or ``/dev/stdin`` (a read
that never returns), ``/dev/zero`` (a read that never ends) or a file of many gigabytes.
``read_regular`` opens without blocking, checks what the open descriptor really is (so a
file swapped for a FIFO between a check and the open is caught), and never reads past
the limit. The engine's ``$ref`` resolution and the language server read through it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class NotRegularFile(OSError):
    """The path is a FIFO, a device, a socket or a folder: it is not read."""


class FileTooLarge(OSError):
    """The file holds more bytes than the reader allows."""

    def __init__(self, size: int, limit: int, *, at_least: bool = False) -> None:
        super().__init__(errno.EFBIG, f"{'more than ' if at_least else ''}{size:,} bytes, "
                         f"over the limit of {limit:,} bytes")
        self.size, self.limit = size, limit


_CHUNK = 1 << 20


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes.

    Raises ``NotRegularFile``, ``FileTooLarge`` or the ``OSError`` of opening it.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(Path(path), flags)  # O_NONBLOCK: opening a FIFO returns at once
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file (a FIFO, a device or a "
                                 "folder); only regular files are read")
        if st.st_size > limit:
            raise FileTooLarge(st.st_size, limit)
        # One read of the whole file (and a byte more, so that growth is noticed): a
        # regular file gives it all at once, without the copy a join of chunks makes
        # (~75 ms for 100 MB). What is left, if anything, is read by chunks.
        first = os.read(fd, min(st.st_size, limit) + 1)
        chunks = [first]
        total = len(first)
        while total <= limit and (chunk := os.read(fd, min(_CHUNK, limit + 1 - total))):
            total += len(chunk)
            chunks.append(chunk)
        if total > limit:  # it grew while being read
            raise FileTooLarge(limit, limit, at_least=True)
        return first if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)
