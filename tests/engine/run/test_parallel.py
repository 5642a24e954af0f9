"""Chunked scoring on worker processes: identical results, custom comparators in the
workers, and the digest (worst records, problems) a report needs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from evalschema import evaluate
from evalschema.errors import InputError
from evalschema.io.records import load_json
from evalschema.rules.custom_modules import private_name
from evalschema.run.parallel import CHUNK_SIZE, EvalSpec, evaluate_files, worst_key

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
SCHEMA = EXAMPLES / "invoices.eval.json"
GOLD = EXAMPLES / "invoices.gold.jsonl"
RUN_B = EXAMPLES / "invoices.model-b.extracted.jsonl"


def spec(**kw: object) -> EvalSpec:
    return EvalSpec(load_json(SCHEMA), str(SCHEMA), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("start", ["spawn", "fork", None])
def test_one_and_two_workers_give_identical_results(start: str | None) -> None:
    if start == "fork" and not sys.platform.startswith("linux"):
        pytest.skip("fork is used on Linux only")
    one = evaluate_files(spec(), GOLD, RUN_B, workers=1, keep_records=True, chunk_size=32)
    two = evaluate_files(spec(), GOLD, RUN_B, workers=2, keep_records=True, chunk_size=32,
                         start=start)
    assert json.dumps(one.run.to_dict(), default=str) == json.dumps(two.run.to_dict(),
                                                                     default=str)
    assert one.digest == two.digest
    assert (one.workers, two.workers) == (1, 2)
    plain = evaluate(GOLD, RUN_B, SCHEMA)
    assert one.run.total_records == plain.total_records
    assert one.run.per_field == plain.per_field or all(
        one.run.per_field[k].counts.matches == v.counts.matches
        for k, v in plain.per_field.items())
    assert one.run.mean_f1 == pytest.approx(plain.mean_f1, abs=1e-12)


def test_default_chunks_match_the_plain_run_on_small_suites() -> None:
    assert CHUNK_SIZE >= 240
    out = evaluate_files(spec(), GOLD, RUN_B, keep_records=True)
    assert out.run.to_dict() == evaluate(GOLD, RUN_B, SCHEMA).to_dict()


def test_digest_keeps_the_worst_paired_records_with_their_values() -> None:
    out = evaluate_files(spec(), GOLD, RUN_B, worst=5)
    plain = evaluate(GOLD, RUN_B, SCHEMA)
    paired = [r for r in plain.records if r.gold_index is not None
              and r.extracted_index is not None and r.field_results
              and (r.counts.mismatches + r.counts.omissions + r.counts.hallucinations)]
    expected = sorted(paired, key=worst_key)[:5]
    assert [w.record.index for w in out.digest.worst] == [r.index for r in expected]
    w = out.digest.worst[0]
    assert w.gold["invoice_id"] == w.record.record_id
    assert isinstance(w.extracted, dict)
    assert out.digest.repaired == sum(1 for r in plain.records if r.repaired)
    assert out.digest.n_problems == sum(1 for r in plain.records if r.problem)
    assert out.run.records == ()


def test_custom_comparator_module_is_imported_in_each_worker(tmp_path: Path) -> None:
    (tmp_path / "shouty.py").write_text(
        "from evalschema import register_comparator\n"
        "register_comparator('shouty_equal', lambda g, e, p: str(g).upper() == str(e).upper(),"
        " overwrite=True, types=['string'])\n", encoding="utf-8")
    schema = {"type": "object", "properties": {"name": {"type": "string",
                                                        "x-eval-compare": "shouty_equal"}}}
    gold = tmp_path / "g.jsonl"
    ext = tmp_path / "e.jsonl"
    gold.write_text("".join(json.dumps({"name": f"n{i}"}) + "\n" for i in range(50)))
    ext.write_text("".join(json.dumps({"name": f"N{i}" if i % 2 else "x"}) + "\n"
                           for i in range(50)))
    s = EvalSpec(schema, modules=(str(tmp_path / "shouty.py"),))
    try:
        one = evaluate_files(s, gold, ext, workers=1, chunk_size=8)
        two = evaluate_files(s, gold, ext, workers=2, chunk_size=8, start="spawn")
    finally:
        sys.modules.pop(private_name(tmp_path / "shouty.py"), None)
    assert str(tmp_path) not in sys.path
    assert one.run.per_field["name"].counts.matches == 25
    assert one.run.to_dict() == two.run.to_dict()


def test_a_module_that_does_not_import_is_an_input_error() -> None:
    with pytest.raises(InputError) as info:
        evaluate_files(EvalSpec({"type": "object"}, modules=("no_such_module_xyz",)),
                       GOLD, RUN_B)
    assert info.value.problems[0].code == "module-import-failed"


def test_progress_is_reported_per_chunk() -> None:
    seen: list[int] = []
    evaluate_files(spec(), GOLD, RUN_B, chunk_size=100, progress=seen.append)
    assert seen[:2] == [100, 200] and seen[-1] >= 240


def test_start_method() -> None:
    from evalschema.run.parallel import start_method

    assert start_method("spawn") == "spawn"
    expected = "fork" if sys.platform.startswith("linux") else "spawn"
    import threading

    if threading.active_count() == 1:
        assert start_method() == expected
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert start_method() == "spawn"  # never fork a process that runs threads
    finally:
        stop.set()
        t.join()
