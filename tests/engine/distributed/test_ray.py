"""``evalschema.ray`` on a real local Ray (2 CPUs): the bundled example and a generated
100,000-record suite give the local run's aggregates and field results."""

from __future__ import annotations

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
    assert got.run.total_records == want.run.total_records == 102_085
    assert_same(run_dict(got.run), run_dict(want.run))
    assert got.outcome.digest.n_problems == want.digest.n_problems


def test_a_schema_without_an_id_is_refused_before_anything_runs(ray_session: Any,
                                                                 tmp_path: Path) -> None:
    from evalschema.ray import evaluate

    schema = {"type": "object", "properties": {"total": {"type": "number"}}}
    with pytest.raises(InputError) as got:
        evaluate(GOLD, RUN_B, schema)
    assert [p.code for p in got.value.problems] == ["needs-id"]
