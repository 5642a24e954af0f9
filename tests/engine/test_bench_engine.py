"""bench/engine.py runs end to end (so the benchmark does not rot), and its part 3 reports
what became of a Hungarian array over the pair limit: one error result, bounded."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_engine", REPO / "bench" / "engine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def test_engine_bench_runs_and_bounds_the_big_array() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO / "engine"), str(REPO / "server"), os.environ.get("PYTHONPATH", "")])}
    got = subprocess.run([sys.executable, str(REPO / "bench" / "engine.py"), "--records", "60",
                          "--repeat", "1", "--items", "20", "--big-items", "2001"],
                         capture_output=True, text=True, timeout=300, cwd=REPO, env=env)
    assert got.returncode == 0, got.stderr[-3000:]
    out = got.stdout
    targets = [line.split(":")[0] for line in out.splitlines() if line.startswith("TARGET")]
    assert targets == [
        "TARGET engine/floor <= 1.5x", "TARGET engine(hungarian)/floor <= 2.5x",
        "TARGET hungarian 20x20 evaluate < 1.5 s", "TARGET hungarian 20x20 true partners >= 95%",
        "TARGET hungarian 2001x2001 aligned or bounded < 10 s and < 2 GB"]
    # 2,001 x 2,001 is over the default limit of 4,000,000 pairs: one error, its reason.
    assert "not aligned, one error result: hungarian alignment of 2,001 x 2,001 elements " \
           "needs a 4,004,001-pair matrix, over the limit of 4,000,000 pairs" in out, out
    assert re.search(r"TARGET hungarian 2001x2001 .*: bounded \(one error result\) in [\d.]+ s, "
                     r"peak RSS [\d,]+ MiB (PASS|FAIL)", out), out


def test_part_three_reads_an_aligned_array_back(monkeypatch: pytest.MonkeyPatch) -> None:
    big = _bench(monkeypatch).measure_big(30)
    assert (big["n"], big["error"], big["paired"], big["correct"]) == (30, None, 30, 30)
    assert big["rss_peak"] >= big["rss_before"] > 0 and big["traced_peak"] > 0
