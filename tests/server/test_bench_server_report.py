"""bench/server_report.py runs end to end (so the benchmark does not rot), and what it
measures holds: the report as it is is far smaller than the report as it was."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_server_report_bench_runs() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO / "engine"), str(REPO / "server"), os.environ.get("PYTHONPATH", "")])}
    got = subprocess.run([sys.executable, str(REPO / "bench" / "server_report.py"),
                          "--repeat", "1"], capture_output=True, text=True, timeout=300,
                         cwd=REPO, env=env)
    assert got.returncode == 0, got.stderr[-3000:]
    out = got.stdout
    assert "bundled example: 2 runs, 480 records" in out
    sizes = [int(n.replace(",", "")) for n in re.findall(r"report as it (?:was|is)[^:]*:\s+"
                                                          r"([\d,]+) bytes", out)]
    assert len(sizes) == 2 and sizes[0] > 100 * sizes[1], out  # timings are the bench's
    assert re.search(r"ratio old/new: size \d+x, time \d+x", out), out
    assert re.search(r"fieldExamples \S+ in model-b, 10 worst: [\d,]+ bytes", out), out
