"""``evalschema.ray`` on a real local Ray (2 CPUs): the bundled example and a generated
100,000-record suite give the local run's aggregates and field results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from same_run import assert_same, run_dict, sorted_field_rows

from evalschema.errors import InputError
from evalschema.io.records import load_json
from evalschema.run.parallel import EvalSpec, evaluate_files

pytestmark = pytest.mark.distributed

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
SCHEMA = EXAMPLES / "invoices.eval.json"
GOLD = EXAMPLES / "invoices.gold.jsonl"
RUN_B = EXAMPLES / "invoices.model-b.extracted.jsonl"


def local(schema: Path, gold: Path, extracted: Path, **kw: Any) -> Any:
    return evaluate_files(EvalSpec(load_json(schema), str(schema)), gold, extracted, **kw)


def test_the_example_on_ray_is_the_local_run_with_its_field_results(ray_session: Any) -> None:
    from evalschema.ray import evaluate

    got = evaluate(GOLD, RUN_B, SCHEMA, field_results=True)
    want = local(SCHEMA, GOLD, RUN_B, keep_records=True)
    assert_same(run_dict(got.run), {**run_dict(want.run), "records": []})
    assert (got.outcome.digest.n_problems, got.outcome.digest.repaired) == (4, 5)
    assert (got.outcome.digest.n_problems, got.outcome.digest.repaired) == \
        (want.digest.n_problems, want.digest.repaired)
    rows = pa.concat_tables(ray_session.get(got.field_results.to_arrow_refs()))
    assert rows.num_rows == want.run.field_results_table().num_rows == 9178
    assert sorted_field_rows(rows) == sorted_field_rows(want.run.field_results_table())


def test_a_100k_suite_on_ray_is_the_local_run(ray_session: Any,
                                              suite_100k: tuple[Path, Path, Path]) -> None:
    from evalschema.ray import evaluate

    schema, gold, extracted = suite_100k
    got = evaluate(gold, extracted, schema)
    want = local(schema, gold, extracted)
    assert got.run.total_records == want.run.total_records == 100_002
    assert_same(run_dict(got.run), run_dict(want.run))
    assert got.outcome.digest.n_problems == want.digest.n_problems


def test_a_schema_without_an_id_is_refused_before_anything_runs(ray_session: Any,
                                                                 tmp_path: Path) -> None:
    from evalschema.ray import evaluate

    schema = {"type": "object", "properties": {"total": {"type": "number"}}}
    with pytest.raises(InputError) as got:
        evaluate(GOLD, RUN_B, schema)
    assert [p.code for p in got.value.problems] == ["needs-id"]


def test_an_id_whose_rows_would_span_two_blocks_is_scored_once(ray_session: Any,
                                                                 tmp_path: Path) -> None:
    """Ray cuts a join's output into blocks of at most ``target_max_block_size`` bytes, so
    the two rows of an id that a run holds twice could reach two scoring calls, each
    pairing the gold record again (its fields counted twice). With blocks of a few rows
    every such id would be cut; the run must still be the local run."""
    from evalschema.ray import evaluate

    schema = {"type": "object", "x-eval-id": "id",
              "properties": {"id": {"type": "string"}, "v": {"type": "string"}}}
    (tmp_path / "s.json").write_text(json.dumps(schema), encoding="utf-8")
    # The second record of an id sorts after the first (a distributed run pairs the first
    # in text order), so the local run pairs the same one.
    gold = [json.dumps({"id": f"r{i:04d}", "v": "a"}) for i in range(400)]
    extracted = [json.dumps({"id": f"r{i:04d}", "v": v}) for i in range(400) for v in "ab"]
    (tmp_path / "g.jsonl").write_text("\n".join(gold), encoding="utf-8")
    (tmp_path / "e.jsonl").write_text("\n".join(extracted), encoding="utf-8")
    ctx = ray_session.data.DataContext.get_current()
    before = ctx.target_max_block_size
    ctx.target_max_block_size = 300  # bytes: blocks of three rows, cutting ids in two
    try:
        got = evaluate(tmp_path / "g.jsonl", tmp_path / "e.jsonl", tmp_path / "s.json")
    finally:
        ctx.target_max_block_size = before
    want = local(tmp_path / "s.json", tmp_path / "g.jsonl", tmp_path / "e.jsonl")
    assert want.run.total_records == 800
    assert (want.run.totals.matches, want.run.totals.hallucinations) == (800, 800)
    assert got.run.total_records == 800
    assert_same(run_dict(got.run), run_dict(want.run))


def test_partitions_follow_the_size_of_local_inputs(tmp_path: Path) -> None:
    """Each partition is scored as one block held whole by an actor: by default one per
    64 MiB of local input, at least one per worker; Ray's 200 when the size is unknown."""
    from evalschema.ray import PARTITION_BYTES, UNKNOWN_SIZE_PARTITIONS, default_partitions

    small = tmp_path / "small.jsonl"
    small.write_text("{}\n", encoding="utf-8")
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:
        f.truncate(3 * PARTITION_BYTES + 1)  # sparse: no 192 MB written
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(b"x" * 10)
    assert default_partitions([small, [small, small]], 2) == 2
    assert default_partitions([big, small], 2) == 4
    assert default_partitions([str(big), folder], 8) == 8
    assert default_partitions([small, "s3://bucket/run/"], 2) == UNKNOWN_SIZE_PARTITIONS
    assert default_partitions([small, object()], 2) == UNKNOWN_SIZE_PARTITIONS
    assert default_partitions([tmp_path / "missing.jsonl"], 2) == UNKNOWN_SIZE_PARTITIONS


def test_a_sort_based_shuffle_setting_is_switched_to_a_hash_shuffle(ray_session: Any) -> None:
    """Partitioning by key needs Ray's hash shuffle; a context set to sort is switched
    (Ray would refuse the run), one already hashing is left as it is."""
    from ray.data.context import ShuffleStrategy

    from evalschema.ray import _hash_shuffle

    class Ctx:
        shuffle_strategy = ShuffleStrategy.SORT_SHUFFLE_PULL_BASED

    ctx = Ctx()
    _hash_shuffle(ctx)
    assert ctx.shuffle_strategy == ShuffleStrategy.HASH_SHUFFLE
    ctx.shuffle_strategy = ShuffleStrategy.SHUFFLE_V2
    _hash_shuffle(ctx)
    assert ctx.shuffle_strategy == ShuffleStrategy.SHUFFLE_V2
