"""A progress bar (rich) on standard error, only on a terminal and only for long runs:
shown at once for more than 1,000 records, else after a second."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from evalschema.safetext import shown

#: Show the bar at once above this many records.
MANY = 1000
#: Else show it after this many seconds.
DELAY = 1.0


def count_lines(path: str | Path, limit_bytes: int = 4 << 30) -> int | None:
    """Non-blank-ish line count of a JSONL file (newlines), fast; None for folders."""
    p = Path(path)
    if not p.is_file() or p.stat().st_size > limit_bytes:
        return None
    n = 0
    last = b"\n"
    with p.open("rb") as f:
        while chunk := f.read(1 << 20):
            n += chunk.count(b"\n")
            last = chunk[-1:]
    return n + (last != b"\n")


class ProgressBar:
    """``with ProgressBar(...) as bar: bar.update(done)``; silent unless enabled."""

    def __init__(self, description: str, total: int | None, *, enabled: bool,
                 stream: IO[str] | None = None, delay: float = DELAY) -> None:
        self.description = description
        self.total = total
        self.enabled = enabled
        self.stream = stream
        self.delay = delay
        self.done = 0
        self._lock = threading.Lock()
        self._progress: Any = None
        self._task: Any = None
        self._timer: threading.Timer | None = None
        self._closed = False

    @staticmethod
    def wanted(no_progress: bool, stream: IO[str] | None = None) -> bool:
        s = stream if stream is not None else sys.stderr
        try:
            return not no_progress and s.isatty()
        except (AttributeError, ValueError):
            return False

    def __enter__(self) -> ProgressBar:
        if not self.enabled:
            return self
        if self.total is not None and self.total > MANY:
            self._show()
        else:
            self._timer = threading.Timer(self.delay, self._show)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _show(self) -> None:
        from rich.console import Console
        from rich.markup import escape
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with self._lock:
            if self._closed or self._progress is not None:
                return
            console = Console(file=self.stream or sys.stderr,
                              force_terminal=True if self.stream is not None else None)
            self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                      MofNCompleteColumn(), TextColumn("records"),
                                      TimeElapsedColumn(), TextColumn("eta"),
                                      TimeRemainingColumn(), console=console, transient=True)
            # a file name is data: no control characters, no rich markup
            self._task = self._progress.add_task(escape(shown(self.description)),
                                                 total=self.total,
                                                 completed=self.done)
            self._progress.start()

    def update(self, done: int) -> None:
        self.done = done
        with self._lock:
            if self._progress is not None:
                total = self.total if self.total is None or done <= self.total else done
                self._progress.update(self._task, completed=done, total=total)

    @property
    def shown(self) -> bool:
        return self._progress is not None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._progress is not None:
                self._progress.stop()
