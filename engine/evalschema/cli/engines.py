"""The engines a suite can be scored on (``--engine``): one table from an engine's name
to the function that scores a suite's runs on it, so ``eval`` and ``compare`` print the
same report whichever engine ran. An engine's package is imported only when chosen."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evalschema.run.bootstrap import BootstrapSpec
from evalschema.run.parallel import WORST, EvalOutcome, EvalSpec, evaluate_files


@dataclass(frozen=True)
class EngineOptions:
    """How to score: the engine's own settings and what the report needs kept."""

    workers: int = 1
    #: Ray's cluster address (``ray://host:10001``, ``auto``); None: a local Ray.
    address: str | None = None
    #: Spark's master URL (``spark://host:7077``, ``local[4]``); None: the session's.
    master: str | None = None
    keep_records: bool = False
    worst: int = WORST
    #: Keep each run's bootstrap replicate sums (``compare``).
    replicates: BootstrapSpec | None = None
    #: Records scored so far (the local engine reports it; the others do not).
    progress: Callable[[int], None] | None = None


#: Scores runs (extracted paths) of one gold: one outcome per run, in order.
Runner = Callable[[EvalSpec, str, Sequence[str], EngineOptions], list[EvalOutcome]]


def _local(spec: EvalSpec, gold: str, runs: Sequence[str],
           o: EngineOptions) -> list[EvalOutcome]:
    return [evaluate_files(spec, gold, extracted, workers=o.workers,
                           keep_records=o.keep_records, worst=o.worst, progress=o.progress)
            for extracted in runs]


def _ray(spec: EvalSpec, gold: str, runs: Sequence[str],
         o: EngineOptions) -> list[EvalOutcome]:
    from evalschema.ray import evaluate_runs

    return [r.outcome for r in evaluate_runs(
        gold, runs, spec=spec, address=o.address, keep_records=o.keep_records,
        worst=o.worst, replicates=o.replicates)]


def _spark(spec: EvalSpec, gold: str, runs: Sequence[str],
           o: EngineOptions) -> list[EvalOutcome]:
    from evalschema.spark import evaluate_runs

    return [r.outcome for r in evaluate_runs(
        gold, runs, spec=spec, master=o.master, keep_records=o.keep_records,
        worst=o.worst, replicates=o.replicates)]


ENGINES: dict[str, Runner] = {"local": _local, "ray": _ray, "spark": _spark}


def add_engine_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("engine (docs/distributed.md)")
    g.add_argument("--engine", choices=tuple(ENGINES), default="local",
                   help="where to score: local (this machine, --workers processes; the "
                   "default), ray (a Ray cluster: pip install 'evalschema[ray]'), spark (a "
                   "Spark master: pip install 'evalschema[spark]'). "
                   "The report is the same; a distributed run pairs records by id")
    g.add_argument("--address", metavar="ADDR",
                   help="--engine ray: the cluster (ray://host:10001, auto; default: a "
                   "Ray started on this machine)")
    g.add_argument("--master", metavar="URL",
                   help="--engine spark: the Spark master (spark://host:7077, yarn, "
                   "k8s://https://host:443, local[4]; default: the active session, else "
                   "local[*] capped to this machine's cores)")


def engine_options(args: argparse.Namespace, parser: argparse.ArgumentParser, *,
                   keep_records: bool, worst: int = WORST,
                   replicates: BootstrapSpec | None = None) -> EngineOptions:
    """The options of the chosen engine; an option of another engine is a usage error."""
    if args.address is not None and args.engine != "ray":
        parser.error("--address is for --engine ray")
    if args.master is not None and args.engine != "spark":
        parser.error("--master is for --engine spark")
    if args.workers != 1 and args.engine != "local":
        parser.error(f"--workers is for --engine local (--engine {args.engine} uses the "
                     "cluster's CPUs)")
    return EngineOptions(args.workers, args.address, args.master, keep_records, worst,
                         replicates)


def score(engine: str, spec: EvalSpec, gold: str, runs: Sequence[str],
          options: EngineOptions) -> list[EvalOutcome]:
    """Score ``runs`` of ``gold`` on ``engine`` (a name of ``ENGINES``)."""
    return ENGINES[engine](spec, gold, runs, options)
