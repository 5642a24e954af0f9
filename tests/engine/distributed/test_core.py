"""The engine-neutral core (``evalschema.distributed``) on pure Arrow batches: any
partitioning of the joined rows, merged in any order, gives the local run; records are
paired, refused and reported with a local run's problems."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import pyarrow as pa
import pytest
from same_run import assert_same, joined, lines, run_dict, sorted_field_rows, unindexed

from evalschema.distributed.merge import merge_states
from evalschema.distributed.rows import key_text, record_key, record_texts
from evalschema.distributed.scorer import PartitionScorer
from evalschema.errors import GoldValidationError, InputError
from evalschema.io.records import load_json
from evalschema.run.parallel import EvalSpec, evaluate_files

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
SCHEMA = EXAMPLES / "invoices.eval.json"
GOLD = EXAMPLES / "invoices.gold.jsonl"
RUN_A = EXAMPLES / "invoices.model-a.extracted.jsonl"
RUN_B = EXAMPLES / "invoices.model-b.extracted.jsonl"


def spec() -> EvalSpec:
    return EvalSpec(load_json(SCHEMA), str(SCHEMA))


def states(table: pa.Table, scorer: PartitionScorer, size: int) -> list[bytes]:
    return [scorer(table.slice(i, size)).column("state")[0].as_py()
            for i in range(0, table.num_rows, size)]


@pytest.mark.parametrize("size, shuffle", [(240, False), (7, False), (7, True), (1, True)])
def test_any_partitioning_merged_in_any_order_is_the_local_run(size: int,
                                                               shuffle: bool) -> None:
    table = joined(lines(GOLD), [lines(RUN_B)], "invoice_id")
    if shuffle:
        table = table.take(random.Random(size).sample(range(table.num_rows), table.num_rows))
    parts = states(table, PartitionScorer(spec(), keep_records=True), size)
    random.Random(3).shuffle(parts)
    got = merge_states(parts, 1, keep_records=True).outcomes(0.0, 1)[0]
    local = evaluate_files(spec(), GOLD, RUN_B, keep_records=True)
    want = run_dict(local.run)
    mine = run_dict(got.run)
    # Records come in id order, not gold order, and carry no global index.
    mine_records, want_records = (sorted(unindexed(d.pop("records")), key=json.dumps)
                                  for d in (mine, want))
    assert_same(mine, want)
    assert_same(mine_records, want_records)
    assert got.run.total_records == 240 and got.digest.n_problems == local.digest.n_problems


def test_the_same_partitioning_merged_in_any_order_is_bit_identical() -> None:
    table = joined(lines(GOLD), [lines(RUN_A)], "invoice_id")
    parts = states(table, PartitionScorer(spec()), 16)
    first = merge_states(parts, 1).outcomes(0.0, 1)[0].run.to_dict()
    second = merge_states(parts[::-1], 1).outcomes(0.0, 1)[0].run.to_dict()
    assert json.dumps(first) == json.dumps(second)


def test_field_rows_are_the_local_runs_field_results() -> None:
    table = joined(lines(GOLD), [lines(RUN_B)], "invoice_id")
    scorer = PartitionScorer(spec())
    got = pa.concat_tables(scorer.field_rows(table.slice(i, 50))
                           for i in range(0, table.num_rows, 50))
    local = evaluate_files(spec(), GOLD, RUN_B, keep_records=True).run.field_results_table()
    assert got.column("run").to_pylist() == [0] * local.num_rows
    assert sorted_field_rows(got) == sorted_field_rows(local)


SMALL = {"type": "object", "x-eval-id": "id",
         "properties": {"id": {"type": "string"}, "v": {"type": "integer"}}}


def small(gold: list[str], *runs: list[str], size: int = 2,
          keep_records: bool = True) -> list[object]:
    table = joined(gold, list(runs), "id")
    scorer = PartitionScorer(EvalSpec(SMALL), len(runs), keep_records=keep_records)
    return merge_states(states(table, scorer, size), len(runs),
                        keep_records=keep_records).outcomes(0.0, 1)


def problems(outcome: object) -> list[tuple[object, str]]:
    return [(p.record_id, p.problem) for p in outcome.digest.problems]  # type: ignore[attr-defined]


def test_unpaired_unreadable_and_duplicate_records_have_a_local_runs_problems(
        tmp_path: Path) -> None:
    gold = ['{"id": "a", "v": 1}', '{"id": "b", "v": 2}', '{"id": "c", "v": 3}']
    ext = ['{"id": "a", "v": 1}', '{"id": "a", "v": 9}', '{"id": "z", "v": 4}',
           '{"v": 5}', '{"id": "c", "v": 3', "not json at all", '[1]', "not json at all"]
    # An engine hands all rows of an id to one batch (its join partitions by id).
    (out,) = small(gold, ext, size=100)
    (tmp_path / "g.jsonl").write_text("\n".join(gold), encoding="utf-8")
    (tmp_path / "e.jsonl").write_text("\n".join(ext), encoding="utf-8")
    local = evaluate_files(EvalSpec(SMALL), tmp_path / "g.jsonl", tmp_path / "e.jsonl",
                           keep_records=True)
    # The same problems, but which duplicate comes first: partitions have no file order.
    assert sorted(problems(out), key=str) == sorted([
        *(p for p in problems(local) if "duplicate" not in p[1]),
        ("a", "duplicate id 'a' (another extracted record of this run has it)")], key=str)
    # the same unreadable line twice is two records, as in a local run
    assert ("b", "no extracted record with this id (3 extracted record(s) unreadable)") \
        in problems(out)
    assert_same(unindexed(run_dict(out.run)["per_field"]),
                unindexed(run_dict(local.run)["per_field"]))
    assert (out.run.total_records, out.digest.n_problems) == (6, 7)
    # the truncated "c" record is rescued (closed) and paired, as a local run does
    assert (out.digest.repaired, out.digest.truncated) == (1, 1)
    c = next(r for r in out.run.records if r.record_id == "c")
    assert (c.repaired, c.counts.matches, c.problem) == ("truncated", 2, None)


def test_records_repeated_word_for_word_are_each_a_record_whatever_the_join_repeats(
        tmp_path: Path) -> None:
    """A join repeats each record once per record of the other sides with its id; the
    row tags fold the repeats back, so an identical line twice is still two records (a
    local run's duplicate) and an identical gold line twice is still refused."""
    gold = ['{"id": "a", "v": 1}', '{"id": "b", "v": 2}']
    one = ['{"id": "a", "v": 1}', '{"id": "a", "v": 1}', '{"id": "b", "v": 3}']
    two = ['{"id": "a", "v": 2}', '{"id": "a", "v": 2}', '{"id": "a", "v": 2}']
    outs = small(gold, one, two, size=100)
    for out, texts in zip(outs, (one, two), strict=True):
        (tmp_path / "g.jsonl").write_text("\n".join(gold), encoding="utf-8")
        (tmp_path / "e.jsonl").write_text("\n".join(texts), encoding="utf-8")
        local = evaluate_files(EvalSpec(SMALL), tmp_path / "g.jsonl", tmp_path / "e.jsonl",
                               keep_records=True)
        assert out.run.total_records == local.run.total_records  # type: ignore[attr-defined]
        # the same problems, named without a file position (partitions have none)
        assert sorted((i, p.split(" (")[0]) for i, p in problems(out)) == \
            sorted((i, p.split(" (")[0]) for i, p in problems(local))
        assert_same(unindexed(run_dict(out.run)["per_field"]),  # type: ignore[attr-defined]
                    unindexed(run_dict(local.run)["per_field"]))
    assert [o.run.total_records for o in outs] == [3, 4]  # type: ignore[attr-defined]
    with pytest.raises(GoldValidationError) as got:
        small([gold[0], gold[0]], one, size=100)
    assert [p.code for p in got.value.problems] == ["duplicate-id"]


def test_duplicate_and_unusable_gold_ids_are_refused_together() -> None:
    gold = ['{"id": "a", "v": 1}', '{"id": "a", "v": 2}', '{"v": 3}', '"text"', '{"id": ']
    with pytest.raises(GoldValidationError) as got:
        small(gold, ['{"id": "a", "v": 1}'], size=10)
    assert sorted(p.code for p in got.value.problems) == [
        "duplicate-id", "gold-missing-id", "gold-not-object", "invalid-json"]


def test_compare_rows_score_each_run_against_the_same_gold() -> None:
    gold = ['{"id": "a", "v": 1}', '{"id": "b", "v": 2}']
    one, two = small(gold, ['{"id": "a", "v": 1}', '{"id": "b", "v": 2}'],
                     ['{"id": "a", "v": 7}'])
    assert (one.run.totals.matches, one.run.totals.mismatches) == (4, 0)
    assert (two.run.totals.matches, two.run.totals.mismatches, two.run.totals.omissions) \
        == (1, 1, 2)
    assert problems(two) == [("b", "no extracted record with this id")]


def test_a_run_without_an_id_is_refused_with_a_located_error() -> None:
    with pytest.raises(InputError) as got:
        PartitionScorer(EvalSpec({"type": "object", "properties": {"v": {}}}))
    (problem,) = got.value.problems
    assert (problem.code, problem.source, problem.pointer) == ("needs-id", "schema", "")
    assert "x-eval-id" in (problem.suggestion or "")


def test_keys_are_canonical_json_read_as_a_local_run_reads_records() -> None:
    assert [key_text(x) for x in ("a", 7, True, "é")] == ['"a"', "7", "true", '"é"']
    assert record_key('```json\n{"id": 3}\n```', "id", gold=False) == "3"
    assert record_key('```json\n{"id": 3}\n```', "id", gold=True) is None
    assert record_key('{"id": null}', "id", gold=True) is None
    table = pa.table({"id": ["x"], "n": [1]})
    assert record_texts(table).column("record").to_pylist() == ['{"id": "x", "n": 1}']


def test_a_state_pickles_alone() -> None:
    table = joined(['{"id": "a", "v": 1}'], [['{"id": "a", "v": 2}']], "id")
    row = PartitionScorer(EvalSpec(SMALL))(table)
    assert row.column_names == ["first_id", "records", "state"]
    state = pickle.loads(row.column("state")[0].as_py())
    assert (state.first_id, state.records, row.column("records")[0].as_py()) == ('"a"', 1, 1)
