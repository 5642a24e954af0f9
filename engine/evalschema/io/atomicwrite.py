"""Writing a user's file all or nothing, and only where it may be written.

Every file evalschema writes (``--output``, ``annotate --in-place``) goes through
``write_text``: the text is encoded first (an encoding error touches nothing), written to
a temporary file in the target's folder, flushed to disk and renamed over the target only
when all of it is there; on any failure, interruption included, the temporary file is
removed and the previous file is intact. The new file keeps the old one's permissions.

``check_target`` says whether a path may be written at all: never over an input of the
run (by resolved path, or the same file through a hard link), never into a folder given
as an input, and never through a symbolic link that leads out of the target's folder
unless the user forces it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass

from evalschema.errors import InputError, Problem

#: The process's umask, read once at import (reading it means setting it, which is not
#: safe once other threads run); new files get ``0o666 & ~umask`` as ``open`` gives them.
_UMASK = os.umask(0o022)
os.umask(_UMASK)

#: Names that are streams, not files: written straight through, never replaced.
STREAMS = frozenset({"/dev/stdout", "/dev/stderr", "/dev/null"})


@dataclass(frozen=True)
class Input:
    """A file or folder a run reads, and what it is to the run (``gold``, ``schema``...)."""

    role: str
    path: str


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, folder: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(folder)
    try:
        return os.path.commonpath([real, top]) == top
    except ValueError:  # different drives
        return False


def check_target(path: str, inputs: Iterable[Input] = (), *, force: bool = False,
                 option: str = "--output") -> None:
    """Raise ``InputError`` (located at ``path``) when ``path`` must not be written."""
    if path in STREAMS:
        return
    for inp in inputs:
        if os.path.isdir(inp.path) and not os.path.isdir(path):
            clash = _inside(path, inp.path)
        else:
            clash = _same(path, inp.path)
        if clash:
            raise InputError([Problem(
                "output-is-input", f"{path} is {'inside ' if os.path.isdir(inp.path) else ''}"
                f"the {inp.role} of this run ({inp.path}); writing there would destroy it",
                source=path, suggestion=f"give {option} another file")],
                "refusing to overwrite an input")
    if os.path.islink(path) and not force:
        folder = os.path.dirname(os.path.abspath(path))
        if not _inside(path, folder):
            raise InputError([Problem(
                "output-symlink-escapes", f"{path} is a symbolic link to "
                f"{os.path.realpath(path)}, outside its folder {folder}",
                source=path, suggestion="pass --force to write through the link, or remove "
                "the link")], "refusing to follow a symbolic link")


def write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> int:
    """Write ``text`` to ``path`` atomically; return the bytes written. A symbolic link
    is kept and the file it points to replaced."""
    return write_bytes(path, text.encode(encoding))


def write_bytes(path: str | os.PathLike[str], data: bytes) -> int:
    name = os.fspath(path)
    if name in STREAMS:  # the caller's stream as it is (it may be a pipe, or appended to)
        with open(name, "wb") as stream:
            stream.write(data)
        return len(data)
    target = os.path.realpath(name)
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory", name)
        if not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise OSError(f"{name} is not a regular file")
        with open(target, "wb") as stream:  # a terminal, a pipe: nothing to replace
            stream.write(data)
        return len(data)
    if st is not None and not os.access(target, os.W_OK):
        # a read-only file stays read-only, as with a plain write (a rename would not care)
        raise PermissionError(13, "Permission denied", name)
    folder = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_UMASK)
        if st is not None and hasattr(os, "getuid") and (st.st_uid, st.st_gid) != (
                os.getuid(), os.getgid()):
            with contextlib.suppress(OSError):  # only root may give a file away
                os.chown(tmp, st.st_uid, st.st_gid)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(folder)
    return len(data)


def _sync_folder(folder: str) -> None:
    """Make the rename durable (POSIX); a folder that cannot be opened is no failure."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
