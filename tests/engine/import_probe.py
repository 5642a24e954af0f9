"""What a fresh interpreter has imported after running some code (``sys.modules`` of the
test process has everything already)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: Libraries a plain run must not load (their cost: ``tests/engine/test_import_cost.py``;
#: httpx: the LLM judge's client, loaded only when a judge is asked).
HEAVY = ("numpy", "scipy", "httpx")
#: What ``loaded_after`` gives when none of them is loaded.
NONE = dict.fromkeys(HEAVY, False)


def loaded_after(code: str) -> tuple[dict[str, bool], Any]:
    """(which of ``HEAVY`` are loaded after ``code``, the value ``code`` left in ``out``)."""
    probe = (f"import sys, json\nout = None\n{code}\n"
             f"print(json.dumps({{'heavy': {{m: m in sys.modules for m in {HEAVY!r}}}, "
             "'out': out}))")
    done = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return dict(got["heavy"]), got["out"]
