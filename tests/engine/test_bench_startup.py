"""bench/startup.py runs end to end (so the benchmark does not rot). Which libraries the
entry points load is ``test_import_cost.py``'s to check."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_startup_bench_reports_every_entry_point() -> None:
    got = subprocess.run([sys.executable, str(REPO / "bench" / "startup.py"), "--repeat", "1"],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert got.returncode == 0, got.stderr[-3000:]
    rows = [line for line in got.stdout.splitlines()
            if re.match(r"^(the interpreter|import |evalschema eval)", line)]
    assert len(rows) == 4, got.stdout
    for row in rows:
        assert re.search(r" \d+\.\d{3} +\d+\.\d{3} +\d+\.\d  \S", row), row
