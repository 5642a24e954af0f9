"""bench/startup.py runs end to end (so the benchmark does not rot), and what it reports
of the libraries loaded holds: no entry point loads numpy, scipy or httpx."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_startup_bench_runs_and_no_entry_point_loads_a_heavy_library() -> None:
    got = subprocess.run([sys.executable, str(REPO / "bench" / "startup.py"), "--repeat", "1"],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert got.returncode == 0, got.stderr[-3000:]
    rows = [line for line in got.stdout.splitlines()
            if re.match(r"^(the interpreter|import |evalschema eval)", line)]
    assert len(rows) == 4, got.stdout
    for row in rows:
        assert re.search(r" \d+\.\d{3} +\d+\.\d{3} +\d+\.\d  none of numpy/scipy/httpx$", row), row
