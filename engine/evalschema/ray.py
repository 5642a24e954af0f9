"""Runs on Ray (``pip install 'evalschema[ray]'``): ``evaluate(gold, extracted, schema)``.

Each input is a Ray Dataset or paths/URIs that Ray Data reads (JSONL as text lines, so an
unreadable extracted line is rescued as a local run rescues it; JSON; Parquet, each row
becoming its record's JSON text). Each side's rows are keyed by id, put together
(``Dataset.union``) and hash-partitioned on the id (``repartition(keys=...)``), whose
partitions Ray never cuts into smaller blocks: every row of an id reaches one call of the
core's ``PartitionScorer`` (``map_batches`` over whole blocks; a callable class: one
evaluator per worker actor). ``Dataset.join`` is not used: Ray cuts a join's output into
blocks of at most ``DataContext.target_max_block_size`` bytes, which can part the rows
of an id that a side holds twice and pair its gold record twice. The partition states
are merged on the driver in id order (``distributed.merge``). The result is the local
run's (docs/distributed.md states the contract).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalschema.distributed.extras import need_engine
from evalschema.distributed.merge import DistributedRun, merge_states
from evalschema.distributed.rows import ID, SideKeyer, require_id, side_columns
from evalschema.distributed.scorer import FieldRowScorer, PartitionScorer, spec_of
from evalschema.run.bootstrap import BootstrapSpec
from evalschema.run.parallel import PROBLEMS, WORST, EvalSpec

#: What a path's suffix says it holds (anything else is read as JSONL text lines).
FORMATS = {".parquet": "parquet", ".pq": "parquet", ".json": "json"}
#: The CPUs a scoring actor reserves (see ``evaluate_runs``).
SCORER_CPUS = 0.25
#: The CPUs a keying task reserves: with whole CPUs, a 2-CPU machine hung on a 1 GB file
#: (its read task holds a CPU until its blocks are keyed, the scoring actors hold half
#: of one, and no keying task could start).
KEYER_CPUS = 0.5
#: Bytes of input per partition by default: a partition is scored as one block, which a
#: scoring actor holds whole (as Python strings) while it scores it.
PARTITION_BYTES = 64 << 20
#: Partitions when the inputs' size is unknown (Datasets, remote URIs): Ray's default.
UNKNOWN_SIZE_PARTITIONS = 200


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


def keyed_rows(spec: EvalSpec, gold: Any, runs: Sequence[Any], *, partitions: int,
               format: str | None = None) -> Any:
    """The rows of the core (``distributed.rows``): each side keyed, the sides put
    together and hash-partitioned on ``id`` into ``partitions`` whole blocks."""
    id_field = require_id(spec.evaluator().id_field, spec.base_uri)
    sides = side_columns(len(runs))
    keyed = [read(source, format).map_batches(SideKeyer(id_field, column, sides),
                                              batch_format="pyarrow", num_cpus=KEYER_CPUS)
             for column, source in zip(sides, (gold, *runs), strict=True)]
    _hash_shuffle(_ray().data.DataContext.get_current())
    return keyed[0].union(*keyed[1:]).repartition(partitions, keys=[ID])


def _hash_shuffle(ctx: Any) -> None:
    """Key-based repartitioning needs a hash shuffle (Ray's default); a context set to a
    sort-based one is switched for this run's Datasets."""
    from ray.data.context import ShuffleStrategy

    hashed = tuple(getattr(ShuffleStrategy, name) for name in ("SHUFFLE_V2", "HASH_SHUFFLE")
                   if hasattr(ShuffleStrategy, name))
    if ctx.shuffle_strategy not in hashed:
        ctx.shuffle_strategy = ShuffleStrategy.HASH_SHUFFLE


def default_partitions(sources: Sequence[Any], workers: int) -> int:
    """One partition per ``PARTITION_BYTES`` of local input files, at least ``workers``;
    ``UNKNOWN_SIZE_PARTITIONS`` when a source is a Dataset or a remote URI."""
    total = 0
    for source in sources:
        paths = [source] if isinstance(source, str | Path) else source
        if not isinstance(paths, list | tuple):
            return max(workers, UNKNOWN_SIZE_PARTITIONS)
        for p in paths:
            if "://" in str(p):
                return max(workers, UNKNOWN_SIZE_PARTITIONS)
            path = Path(p)
            try:
                total += sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) \
                    if path.is_dir() else path.stat().st_size
            except OSError:
                return max(workers, UNKNOWN_SIZE_PARTITIONS)
    return max(workers, -(-total // PARTITION_BYTES))


def evaluate_runs(gold: Any, runs: Sequence[Any], schema: Any = None, *,
                  spec: EvalSpec | None = None, address: str | None = None,
                  field_results: bool = False, keep_records: bool = False,
                  worst: int = WORST, keep_problems: int = PROBLEMS,
                  workers: int | None = None, partitions: int | None = None,
                  format: str | None = None, progress: bool = False,
                  replicates: BootstrapSpec | None = None,
                  **spec_options: Any) -> list[DistributedRun]:
    """Score several extracted runs of one gold in one pass over the keyed rows (as
    ``compare`` needs them): one ``DistributedRun`` per run, in order, each with its
    bootstrap replicate sums when ``replicates`` is given (``compare_runs`` takes them).
    ``workers`` scoring actors (default: the cluster's CPUs), ``partitions`` hash
    partitions (default: one per 64 MiB of local input, at least ``workers``)."""
    started = time.perf_counter()
    if spec is None:
        spec = spec_of(schema, **spec_options)
    ray = connect(address)
    ray.data.DataContext.get_current().enable_progress_bars = progress
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    workers = workers or cpus
    # The judge's concurrency limit holds for the run: each scoring actor takes its share.
    spec = spec.for_tasks(workers)
    partitions = partitions or default_partitions((gold, *runs), workers)
    rows = keyed_rows(spec, gold, runs, partitions=partitions, format=format)
    # A quarter CPU per scoring actor: the actors start before the reads and the shuffle's
    # tasks, and whole CPUs for them would leave those none (the pipeline would wait for
    # ever on a small cluster); the scoring runs once the shuffle's partitions come.
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
