"""bench/server_evaluation.py runs end to end (so the benchmark does not rot), both ways
a file is edited: in the open document (saves), and on disk for a file too large for the
editor to hand over (the server's file watcher starts the run)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_server_evaluation",
                                                  REPO / "bench" / "server_evaluation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("on_disk", [False, True], ids=["saved", "written-on-disk"])
def test_the_benchmark_times_every_edit(monkeypatch: pytest.MonkeyPatch, on_disk: bool) -> None:
    bench = _bench(monkeypatch)
    if on_disk:
        monkeypatch.setattr(bench, "SYNC_LIMIT", 0)
    got = asyncio.run(asyncio.wait_for(bench.run(300, 2), 240))
    assert got["records"] == 300 and got["diagnostics"] > 0
    assert 0 < got["save_p50"] <= got["save_max"]
    assert got["top_p50"] > 0 and got["bottom_p50"] > 0
    assert got["rss_mb"] > 0 and got["full_ms"] > 0
    # On disk, the harness's own write of the file is measured apart from the save.
    assert (got["write_p50"] is not None and got["write_p50"] > 0) if on_disk \
        else got["write_p50"] is None


def test_the_first_run_figure_is_the_median_of_the_cold_starts(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench(monkeypatch)
    got = asyncio.run(asyncio.wait_for(bench.run(200, 1, cold_starts=2), 240))
    colds = got["colds"]
    assert len(colds) == 3 and all(c > 0 for c in colds)
    assert got["cold_ms"] == sorted(colds)[1]
    bench.report(got)
    assert "(median of 3 cold starts: " in capsys.readouterr().out
