"""Runs on Ray (``pip install 'evalschema[ray]'``): ``evaluate(gold, extracted, schema)``.

Each input is a Ray Dataset or paths/URIs that Ray Data reads (JSONL as text lines, so an
unreadable extracted line is rescued as a local run rescues it; JSON; Parquet, each row
becoming its record's JSON text). The sides are keyed by id and joined, full outer, with
``Dataset.join`` (a hash shuffle: every row of an id lands in one join partition); the
joined rows are scored with ``map_batches`` over Arrow batches by the core's
``PartitionScorer`` (a callable class: one evaluator per worker actor), and the
partition states are merged on the driver in id order (``distributed.merge``). The
result is the local run's (docs/distributed.md states the contract).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalschema.distributed.extras import need_engine
from evalschema.distributed.merge import DistributedRun, merge_states
from evalschema.distributed.rows import GOLD, ID, SideKeyer, require_id, run_columns
from evalschema.distributed.scorer import FieldRowScorer, PartitionScorer, spec_of
from evalschema.run.bootstrap import BootstrapSpec
from evalschema.run.parallel import PROBLEMS, WORST, EvalSpec

#: What a path's suffix says it holds (anything else is read as JSONL text lines).
FORMATS = {".parquet": "parquet", ".pq": "parquet", ".json": "json"}
#: The CPUs a scoring actor reserves (see ``evaluate_runs``).
SCORER_CPUS = 0.25


def _ray() -> Any:
    ray = need_engine("ray", "ray")
    need_engine("ray.data", "ray")
    return ray


def connect(address: str | None = None, **init: Any) -> Any:
    """Ray, connected: to ``address`` (``ray://host:10001``, ``auto``) or, with none, to
    the running session or a new local one. Extra ``init`` arguments go to ``ray.init``
    (``runtime_env`` to ship code to a cluster's workers)."""
    ray = _ray()
    # Ray Data's progress lines would mix with a command's report on stderr.
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False, **init)
    return ray


def _uri(path: str | Path) -> str:
    text = str(path)
    return text if "://" in text else str(Path(text).resolve())


def _format(path: str, given: str | None) -> str:
    if given is not None:
        return given
    return FORMATS.get(Path(path.split("?")[0]).suffix.lower(), "jsonl")


def read(source: Any, format: str | None = None) -> Any:
    """A Ray Dataset of ``source``'s records: a Dataset as it is, else a path, a URI or
    a list of them read by ``format`` (``jsonl``, ``json``, ``parquet``; by default
    from the first path's suffix, JSONL for anything else, folders included)."""
    if not isinstance(source, str | Path | list | tuple):
        return source
    paths = [_uri(p) for p in ([source] if isinstance(source, str | Path) else source)]
    rd = _ray().data
    kind = _format(paths[0], format)
    if kind == "parquet":
        return rd.read_parquet(paths)
    if kind == "json":
        return rd.read_json(paths)
    return rd.read_text(paths)


def joined_rows(spec: EvalSpec, gold: Any, runs: Sequence[Any], *, partitions: int,
                format: str | None = None) -> Any:
    """The joined rows of the core (``distributed.rows``): each side keyed, then joined
    on ``id``, full outer, into ``partitions`` hash partitions."""
    id_field = require_id(spec.evaluator().id_field, spec.base_uri)
    table = read(gold, format).map_batches(SideKeyer(id_field, GOLD), batch_format="pyarrow")
    for column, source in zip(run_columns(len(runs)), runs, strict=True):
        side = read(source, format).map_batches(SideKeyer(id_field, column),
                                                batch_format="pyarrow")
        table = table.join(side, join_type="full_outer", num_partitions=partitions, on=(ID,))
    return table


def evaluate_runs(gold: Any, runs: Sequence[Any], schema: Any = None, *,
                  spec: EvalSpec | None = None, address: str | None = None,
                  field_results: bool = False, keep_records: bool = False,
                  worst: int = WORST, keep_problems: int = PROBLEMS,
                  workers: int | None = None, partitions: int | None = None,
                  format: str | None = None, progress: bool = False,
                  replicates: BootstrapSpec | None = None,
                  **spec_options: Any) -> list[DistributedRun]:
    """Score several extracted runs of one gold in one pass over the joined rows (as
    ``compare`` needs them): one ``DistributedRun`` per run, in order, each with its
    bootstrap replicate sums when ``replicates`` is given (``compare_runs`` takes them).
    ``workers`` scoring actors (default: the cluster's CPUs), ``partitions`` join
    partitions (default: as many)."""
    started = time.perf_counter()
    if spec is None:
        spec = spec_of(schema, **spec_options)
    ray = connect(address)
    ray.data.DataContext.get_current().enable_progress_bars = progress
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    workers = workers or cpus
    # The judge's concurrency limit holds for the run: each scoring actor takes its share.
    spec = spec.for_tasks(workers)
    rows = joined_rows(spec, gold, runs, partitions=partitions or workers, format=format)
    # Half a CPU per scoring actor: the actors start before the reads and the join's
    # tasks, and whole CPUs for them would leave those none (the pipeline would wait for
    # ever on a small cluster); the scoring runs once the join's partitions come.
    scorer_args = {"fn_constructor_args": (spec, len(runs)), "batch_format": "pyarrow",
                   "batch_size": None, "num_cpus": SCORER_CPUS,
                   "compute": ray.data.ActorPoolStrategy(size=workers)}
    kept: dict[str, Any] = {"keep_records": keep_records, "worst": worst, "keep_problems": keep_problems,
            "replicates": replicates}
    states = rows.map_batches(PartitionScorer, fn_constructor_kwargs=kept, **scorer_args)
    merged = merge_states((r["state"] for r in states.take_all()),
                          len(runs), **kept)
    frames = rows.map_batches(FieldRowScorer, **scorer_args) if field_results else None
    outcomes = merged.outcomes(time.perf_counter() - started, workers)
    return [DistributedRun(o, None if frames is None else frames.filter(
        expr=f"run == {k}") if len(runs) > 1 else frames) for k, o in enumerate(outcomes)]


def evaluate(gold: Any, extracted: Any, schema: Any = None, *,
             id_field: str | None = None, address: str | None = None,
             field_results: bool = False, keep_records: bool = False,
             **options: Any) -> DistributedRun:
    """Score ``extracted`` against ``gold`` on Ray: ``.run`` is the ``RunResult`` a local
    run gives (records kept only with ``keep_records``), ``.field_results`` a Dataset
    of one row per field result (``frames.COLUMNS`` plus ``run``) when asked for, which
    ``write_parquet`` writes. Records pair by ``x-eval-id`` or ``id_field``."""
    (out,) = evaluate_runs(gold, [extracted], schema, id_field=id_field, address=address,
                           field_results=field_results, keep_records=keep_records, **options)
    return out
