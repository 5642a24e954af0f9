#!/usr/bin/env python3
"""Record what struct_extract_eval reports on every parity case, for the tests to compare with.

struct_extract_eval (FAIRmat-NFDI/extract-eval @ 6a51aa28) is not on PyPI, so CI cannot
install it; the parity tests compare evalschema.compat.struct_extract_eval with this
recording instead (tests/data/parity/struct_extract_eval.json). The cases and the
comparison live in tests/engine/struct_extract_eval_parity.py.

    python scripts/record_struct_extract_eval_parity.py          # (re)write the recording
    python scripts/record_struct_extract_eval_parity.py --check  # re-run, compare, exit 1 if it differs

Exit 2 when the package is not importable.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "engine"), str(ROOT / "engine")]

import struct_extract_eval_parity as parity  # noqa: E402

INSTALL = """struct_extract_eval is not importable, and it is not on PyPI. Install it from a checkout
of FAIRmat-NFDI/extract-eval at commit 6a51aa28 into the venv that runs this script:

    git clone https://github.com/FAIRmat-NFDI/extract-eval /tmp/extract-eval
    git -C /tmp/extract-eval checkout 6a51aa28
    .venv/bin/pip install /tmp/extract-eval
"""


def check(package: ModuleType, path: Path) -> int:
    """Re-run the package on the recorded cases; 0 when the recording is what it reports."""
    recorded = parity.load(path)
    problems: list[str] = []
    if recorded["schemas"] != parity.SCHEMAS:
        problems.append("the recorded schemas are not the current ones: re-record")
    current = {c["id"]: c for c in parity.cases()}
    by_id = {c["id"]: c for c in recorded["cases"]}
    if current.keys() != by_id.keys():
        problems.append(f"cases added {sorted(current.keys() - by_id.keys())[:5]}, removed "
                        f"{sorted(by_id.keys() - current.keys())[:5]}: re-record")
    for case_id, case in by_id.items():
        inputs = {k: v for k, v in case.items() if k != "expected"}
        if case_id in current and current[case_id] != inputs:
            problems.append(f"{case_id}: the recorded inputs are not the current case: re-record")
        got = parity.outcome_real(package, inputs)
        problems += [f"{case_id} {d}" for d in parity.compare(got, case["expected"],
                                                             exact_errors=True)]
    if not problems and parity.render(parity.record(package)) != path.read_text(
            encoding="utf-8"):
        problems.append("re-recording does not give the same bytes")
    for p in problems[:40]:
        print(p, file=sys.stderr)
    if problems:
        print(f"{path}: {len(problems)} differences from {parity.PACKAGE}", file=sys.stderr)
        return 1
    print(f"{path}: {len(by_id)} cases, as {parity.PACKAGE} reports them")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="re-run the package and exit 1 if the recording differs")
    ap.add_argument("--output", type=Path, default=parity.RECORDING, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        package = importlib.import_module("struct_extract_eval")
    except ImportError as exc:
        print(f"error: {exc}\n{INSTALL}", file=sys.stderr)
        return 2
    if args.check:
        return check(package, args.output)
    recorded = parity.record(package)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(parity.render(recorded), encoding="utf-8")
    raised = sum("raises" in c["expected"] for c in recorded)
    print(f"{args.output}: {len(recorded)} cases ({raised} raising) from {parity.PACKAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
