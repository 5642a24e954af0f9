"""One real Ray per test session (2 CPUs, no dashboard): its start-up is the
distributed tests' largest cost, paid once. The generated suite is written once too."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]


def bench_suite() -> ModuleType:
    """``bench/distributed_suite.py``, the benchmark's generator, loaded by path."""
    spec = importlib.util.spec_from_file_location("distributed_suite",
                                                  REPO / "bench" / "distributed_suite.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def ray_session() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install "
                              "'evalschema[ray]' (CI installs it)")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session")
def suite_100k(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(schema, gold, extracted): 100,000 gold records, generated once per session."""
    return bench_suite().write_suite(tmp_path_factory.mktemp("suite100k"), 100_000)  # type: ignore[no-any-return]
