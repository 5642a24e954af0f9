"""What every test shares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

#: `pytester` runs pytest inside a test (tests/engine/testing: the evalschema plugin).
pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-xdist exports ``COLUMNS=80`` to its workers, and ``evalschema eval`` fits its
    table to ``COLUMNS``: without this a test's output would depend on ``-n``. A test
    that wants a width sets ``COLUMNS`` itself."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(autouse=True)
def _default_registry_restored() -> Iterator[None]:
    """``--comparator-module`` registers into the process-wide registry, as it should in a
    CLI process; in a test process it would leak into every later test (and a second
    run in the same process, as the mutation runner does, would see it)."""
    from evalschema.rules.registry import default_registry

    kept = (dict(default_registry.comparators), dict(default_registry.transforms),
            dict(default_registry.strategies))
    yield
    for live, saved in zip((default_registry.comparators, default_registry.transforms,
                            default_registry.strategies), kept, strict=True):
        live.clear()
        live.update(saved)
