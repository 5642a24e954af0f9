"""``compare`` at scale: two runs of N records (default 100,000) with R resamples (default
1,000), timed, and against the multinomial bootstrap of an earlier commit when asked.

The runs are the bundled example's model-a and model-b results, tiled under new ids
(their real errors, repeated), so the figures are those of a real schema's fields.
``--baseline REV`` loads ``engine/evalschema/run/compare.py`` as it was at git revision
REV and times it in the same process, alternating with the current one, so the ratio
is read on one load of the machine (the figures alone are not comparable between runs).

    python bench/compare.py [--records 100000] [--resamples 1000] [--repeat 3]
                            [--baseline cab72fe]

Benchmarks report, they do not gate: the exit code is 0 unless a run fails.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
sys.path[:0] = [str(ROOT / "engine")]

from evalschema import evaluate  # noqa: E402
from evalschema.results import RunResult  # noqa: E402
from evalschema.run.compare import compare_runs  # noqa: E402

#: Target: the Poisson bootstrap no slower than 1.5 x the multinomial one it replaced.
RATIO_TARGET = 1.5


def tiled(run: RunResult, n: int) -> RunResult:
    """``run``'s records repeated to ``n``, each under a new id and gold index."""
    base = run.records
    records = tuple(base[i % len(base)]._replace(index=i, gold_index=i, record_id=f"r{i}")
                    for i in range(n))
    return dataclasses.replace(run, records=records, total_records=n)


def old_compare(rev: str) -> Callable[..., Any]:
    """``compare_runs`` as it was at ``rev`` (its module loaded from git under a new name)."""
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:engine/evalschema/run/compare.py"],
                          check=True, capture_output=True, text=True).stdout
    module = types.ModuleType("compare_at_" + rev)
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(text, f"{rev}:compare.py", "exec"), module.__dict__)
    fn: Callable[..., Any] = module.compare_runs
    return fn


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, default=100_000)
    p.add_argument("--resamples", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--baseline", metavar="REV", help="git revision to time against")
    args = p.parse_args(argv)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{args.records:,} records x 2 runs, {args.resamples:,} resamples")
    schema = EXAMPLES / "invoices.eval.json"
    gold = EXAMPLES / "invoices.gold.jsonl"
    runs = [tiled(evaluate(gold, EXAMPLES / f"invoices.{m}.extracted.jsonl", schema), args.records)
            for m in ("model-a", "model-b")]
    old = old_compare(args.baseline) if args.baseline else None
    now: list[float] = []
    then: list[float] = []
    for _ in range(args.repeat):  # alternate, so both see the same load
        now.append(best(lambda: compare_runs(runs, resamples=args.resamples), 1))
        if old is not None:
            then.append(best(lambda: old(runs, resamples=args.resamples), 1))
    print(f"compare (Poisson bootstrap):        best {min(now):.3f} s")
    if then:
        ratio = min(now) / min(then)
        print(f"compare at {args.baseline} (multinomial): best {min(then):.3f} s")
        print(f"TARGET ratio {ratio:.2f} <= {RATIO_TARGET}: "
              f"{'PASS' if ratio <= RATIO_TARGET else 'FAIL'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
