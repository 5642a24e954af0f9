"""Fixtures of the engine's judge tests (``judge/``, ``run/``): a local judge server and a
clean judge state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_listener import Listener

from evalschema.judge import cache as verdict_cache
from evalschema.judge.client import reset_breakers


@pytest.fixture
def listener() -> Iterator[Listener]:
    """A started ``judge_listener.Listener`` on 127.0.0.1."""
    got = Listener().start()
    yield got
    got.close()


@pytest.fixture
def fresh_judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No judges.toml, an empty user cache folder, closed breakers and no verdict cache
    open in this process (so each test opens its file as a new process would)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    verdict_cache.forget()
    reset_breakers()
    yield
    verdict_cache.forget()
