"""The one reader of files that untrusted input names: regular files only, bounded."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from evalschema.io.regularfile import FileTooLarge, NotRegularFile, read_regular


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    p = tmp_path / "a.json"
    p.write_bytes(b"x" * 3_000_000)
    assert read_regular(p, 3_000_000) == b"x" * 3_000_000


def test_a_fifo_is_refused_at_once_without_a_writer(tmp_path: Path) -> None:
    """Opening a FIFO for reading blocks until a writer comes: the read must not wait."""
    fifo = tmp_path / "gold.json"
    os.mkfifo(fifo)
    done = threading.Event()
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_regular(fifo, 1000)
        except BaseException as exc:
            outcome.append(exc)
        done.set()

    threading.Thread(target=read, daemon=True).start()
    assert done.wait(5), "reading a FIFO blocked"
    assert isinstance(outcome[0], NotRegularFile)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_devices_are_refused(device: str) -> None:
    with pytest.raises(NotRegularFile):
        read_regular(device, 1000)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFile):
        read_regular(tmp_path, 1000)


def test_a_file_over_the_limit_is_refused_before_reading(tmp_path: Path) -> None:
    p = tmp_path / "big.json"
    p.write_bytes(b"x" * 1001)
    with pytest.raises(FileTooLarge) as got:
        read_regular(p, 1000)
    assert (got.value.size, got.value.limit) == (1001, 1000)
    assert "1,001 bytes, over the limit of 1,000 bytes" in str(got.value)


def test_the_limit_is_inclusive(tmp_path: Path) -> None:
    p = tmp_path / "edge.json"
    p.write_bytes(b"x" * 1000)
    assert len(read_regular(p, 1000)) == 1000


def test_a_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "gold.jsonl"
    link.symlink_to("/dev/zero")
    with pytest.raises(NotRegularFile):
        read_regular(link, 1000)


def test_a_missing_file_is_the_usual_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "nope.json", 1000)


class _Stat:
    """``os.fstat``'s answer for a regular file of ``st_size`` bytes."""

    def __init__(self, real: os.stat_result, size: int) -> None:
        self.st_mode, self.st_size = real.st_mode, size


@pytest.mark.parametrize("limit", [5000, 2999], ids=["under the limit", "over it"])
def test_a_file_that_grew_after_its_size_was_read(tmp_path: Path, limit: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The size ``fstat`` gave was smaller than what is there by the time it is read: the
    rest is read too, and the limit still holds."""
    p = tmp_path / "growing.json"
    p.write_bytes(bytes(range(256)) * 12 + b"tail")  # 3,076 bytes
    real = os.fstat
    monkeypatch.setattr(os, "fstat", lambda fd: _Stat(real(fd), 100))
    if limit > 3076:
        assert read_regular(p, limit) == p.read_bytes()
    else:
        with pytest.raises(FileTooLarge):
            read_regular(p, limit)
