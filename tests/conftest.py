"""What every test shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-xdist exports ``COLUMNS=80`` to its workers, and ``evalschema eval`` fits its
    table to ``COLUMNS``: without this a test's output would depend on ``-n``. A test
    that wants a width sets ``COLUMNS`` itself."""
    monkeypatch.delenv("COLUMNS", raising=False)
