"""The evaluation's end-to-end tests share one client session (``eval_session``); the
runner's tests that need a helper process at work share ``helper_first``."""

from __future__ import annotations

import time
from typing import Any

import pytest
from eval_session import lsp, session_client

from evalschema_server.evaluation import helper

__all__ = ["helper_first", "lsp", "session_client"]


@pytest.fixture
def helper_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper is started, and holds the tasks it was sent, before the run's thread goes
    on: its start (~1 s, more on a loaded machine) would otherwise often come after the
    thread had done a small test suite alone."""
    share = helper.Helper.share

    def started_first(self: helper.Helper[Any], *args: Any) -> None:
        if self.started is not None:
            self.started.result(120)
        share(self, *args)
        deadline = time.monotonic() + 120  # the tasks sent are in its hands, not taken back
        while not all(f.running() or f.done() for f in self._tasks.values()) \
                and time.monotonic() < deadline:
            time.sleep(0.005)

    monkeypatch.setattr(helper.Helper, "share", started_first)
