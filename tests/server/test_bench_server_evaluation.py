"""bench/server_evaluation.py runs end to end (so the benchmark does not rot), both ways
a file is edited: in the open document (saves), and on disk for a file too large for the
editor to hand over (the server's file watcher starts the run)."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
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
    out = capsys.readouterr().out
    assert "(median of 3 cold starts: " in out
    assert "bytecode compiled beforehand, as installed" in out


def test_the_servers_run_with_their_bytecode_compiled(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    """As installed: a start writes the bytecode to the cache the next starts read, even
    where the environment says not to write any (``PYTHONDONTWRITEBYTECODE``)."""
    bench = _bench(monkeypatch)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    assert bench.server_env("env", tmp_path) is None
    env = bench.server_env("installed", tmp_path / "pyc")
    assert "PYTHONDONTWRITEBYTECODE" not in env
    subprocess.run([sys.executable, "-P", "-c", "import evalschema_server.server"], env=env,
                   check=True, timeout=120)
    written = {f"{p.parent.name}/{p.name.split('.')[0]}"
               for p in (tmp_path / "pyc").rglob("*.pyc")}
    assert {"evaluation/runner", "lsprotocol/types"} <= written  # ours, and lsprotocol's
