"""What starting evalschema costs: each entry point in a fresh interpreter, timed and weighed.

    python bench/startup.py              # 5 starts of each
    python bench/startup.py --repeat 3

Every command of the CLI and every start of the language server pays its imports before
it reads a file; the editor's first run (``bench/server_evaluation.py``) includes them.
For each entry point this prints the best and median wall time of ``--repeat`` fresh
interpreters, the resident memory after it (``/proc/self/status``, Linux), and which of
the libraries only some runs need it loaded (numpy, scipy, httpx: none should be). The
interpreter alone is measured the same way, as the floor. Bytecode is as the environment
has it: with ``PYTHONDONTWRITEBYTECODE`` set (as on this project's machines) every start
compiles the project's sources again, which the figures then include.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples"
HEAVY = ("numpy", "scipy", "httpx")

#: (name, code run after the clock starts). The code may not print.
ENTRIES: list[tuple[str, str]] = [
    ("the interpreter alone (the RSS floor)", "pass"),
    ("import evalschema", "import evalschema"),
    ("import the language server", "import evalschema_server.server"),
    ("evalschema eval of the example (2 runs, 240 records)",
     "import contextlib, io\nfrom evalschema.cli.main import main\n"
     "with contextlib.redirect_stdout(io.StringIO()):\n"
     f"    main(['eval', {str(EXAMPLE / 'invoices.eval.json')!r}, '--gold', "
     f"{str(EXAMPLE / 'invoices.gold.jsonl')!r}, '--extracted', "
     f"{str(EXAMPLE / 'invoices.model-a.extracted.jsonl')!r}, '--extracted', "
     f"{str(EXAMPLE / 'invoices.model-b.extracted.jsonl')!r}])"),
]

_PROBE = """import time, sys, json
t0 = time.perf_counter()
{code}
wall = time.perf_counter() - t0
rss = next((int(line.split()[1]) for line in open('/proc/self/status')
            if line.startswith('VmRSS')), 0) if sys.platform == 'linux' else 0
print(json.dumps({{'wall': wall, 'rss_kb': rss,
                  'heavy': [m for m in {heavy!r} if m in sys.modules]}}))
"""


def start(code: str) -> dict[str, Any]:
    """One fresh interpreter running ``code``: its wall time, RSS and heavy modules."""
    probe = _PROBE.format(code=code, heavy=HEAVY)
    done = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"a start failed:\n{done.stderr[-2000:]}")
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="fresh interpreters per entry point")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"PYTHONDONTWRITEBYTECODE={'set' if sys.dont_write_bytecode else 'unset'}")
    print(f"{'entry point':54} {'best s':>7} {'median s':>9} {'RSS MB':>7}  loaded")
    # Interleaved: a load spike hits every entry point alike.
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in ENTRIES}
    for _ in range(max(1, args.repeat)):
        for name, code in ENTRIES:
            runs[name].append(start(code))
    for name, _ in ENTRIES:
        walls = [r["wall"] for r in runs[name]]
        rss = max(r["rss_kb"] for r in runs[name]) / 1024
        heavy = sorted({m for r in runs[name] for m in r["heavy"]})
        print(f"{name:54} {min(walls):7.3f} {statistics.median(walls):9.3f} {rss:7.1f}  "
              f"{', '.join(heavy) or 'none of ' + '/'.join(HEAVY)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
