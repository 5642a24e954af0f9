"""Distributed engines against local runs: records per second at N generated records
(default 1,000,000), for local 1 and 2 processes and each distributed engine.

The suite is the bundled example tiled under new ids (``distributed_suite.py``),
written once into a temporary folder (or ``--folder``). Each engine scores the same
files; the figures printed are records/s, the ratio to local 1 process, and each
engine's overhead per record against local 1 process ((its time - local's) / N).
An engine's start-up (``ray.init``, the SparkSession) is timed apart and left out of its run.
Adding an engine is one entry in ``ENGINES``.

    python bench/distributed.py [--records 1000000] [--engines local1,local2,ray,spark]
                                [--folder DIR]

Benchmarks report, they do not gate: the exit code is 0 unless a run fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "engine"), str(ROOT / "bench")]

from distributed_suite import write_suite  # noqa: E402
from evalschema.io.records import load_json  # noqa: E402
from evalschema.run.parallel import EvalOutcome, EvalSpec, evaluate_files  # noqa: E402


def local(workers: int) -> Callable[[EvalSpec, Path, Path], EvalOutcome]:
    def run(spec: EvalSpec, gold: Path, extracted: Path) -> EvalOutcome:
        return evaluate_files(spec, gold, extracted, workers=workers)
    return run


def start_ray() -> Any:
    import ray

    ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)
    return ray


def on_ray(spec: EvalSpec, gold: Path, extracted: Path) -> EvalOutcome:
    from evalschema.ray import evaluate

    return evaluate(gold, extracted, spec=spec).outcome


def start_spark() -> Any:
    from evalschema.spark import spark_session

    return spark_session(None)  # local[*] capped to this machine's cores


def on_spark(spec: EvalSpec, gold: Path, extracted: Path) -> EvalOutcome:
    from evalschema.spark import evaluate

    return evaluate(str(gold), str(extracted), spec=spec).outcome


#: name -> (start-up, run). A start-up is timed apart, once, before the engine's run.
ENGINES: dict[str, tuple[Callable[[], Any] | None,
                         Callable[[EvalSpec, Path, Path], EvalOutcome]]] = {
    "local1": (None, local(1)),
    "local2": (None, local(2)),
    "ray": (start_ray, on_ray),
    "spark": (start_spark, on_spark),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--engines", default=",".join(ENGINES),
                    help=f"comma-separated, from {', '.join(ENGINES)}")
    ap.add_argument("--folder", type=Path, help="where to write the suite (default: a "
                    "temporary folder, removed afterwards)")
    args = ap.parse_args(argv)
    names = [n for n in args.engines.split(",") if n]
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        ap.error(f"unknown engine(s): {', '.join(unknown)}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or Path(tmp)
        started = time.perf_counter()
        schema, gold, extracted = write_suite(folder, args.records)
        print(f"suite: {args.records:,} gold records written in "
              f"{time.perf_counter() - started:.1f} s")
        spec = EvalSpec(load_json(schema), str(schema))
        times: dict[str, tuple[float, int]] = {}
        for name in names:
            start, run = ENGINES[name]
            if start is not None:
                t0 = time.perf_counter()
                start()
                print(f"{name}: start-up {time.perf_counter() - t0:.1f} s (not counted)")
            t0 = time.perf_counter()
            outcome = run(spec, gold, extracted)
            times[name] = (time.perf_counter() - t0, outcome.run.total_records)
            print(f"{name}: {times[name][0]:.1f} s, {outcome.run.total_records:,} records, "
                  f"macro F1 {outcome.run.mean_f1:.6f}", flush=True)
    base = times.get("local1")
    print(f"\n{'engine':<8} {'seconds':>8} {'records/s':>10} {'vs local1':>9} "
          f"{'overhead/record':>16}")
    for name, (seconds, records) in times.items():
        ratio = f"{base[0] / seconds:.2f}x" if base else "-"
        over = f"{(seconds - base[0]) / records * 1e6:+.1f} us" if base else "-"
        print(f"{name:<8} {seconds:>8.1f} {records / seconds:>10,.0f} {ratio:>9} {over:>16}")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
