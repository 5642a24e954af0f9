"""bench/cli_scale.py --quick runs end to end (so the benchmark does not rot)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_cli_scale_quick() -> None:
    got = subprocess.run([sys.executable, str(REPO / "bench" / "cli_scale.py"), "--quick"],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert got.returncode == 0, got.stderr[-3000:]
    out = got.stdout
    # The figures are printed with a verdict; whether they meet the target is the
    # benchmark's business, not a test's (a loaded machine or a tracer moves them).
    assert "1. memory:" in out
    assert re.search(r"peak RSS [\d,]+ MB \(target < [\d,]+ MB\): (PASS|FAIL)", out), out
    assert "2. workers: 2,000 records" in out and "identical JSON: True" in out
    assert "summary: " in out
