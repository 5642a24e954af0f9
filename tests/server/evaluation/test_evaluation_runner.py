"""The editor's incremental runs give exactly what a run from scratch gives."""

from __future__ import annotations

import json
import random
from pathlib import Path

from eval_workspace import write_suite

from evalschema_server.evaluation import runner
from evalschema_server.evaluation.runner import CancelToken, SuiteCache, run_suite
from evalschema_server.evaluation.suites import discover


def _suite(tmp_path: Path, n: int) -> tuple[runner.Suite, Path, list[str]]:
    files = write_suite(tmp_path / "p")
    rng = random.Random(7)
    gold, lines = [], []
    for i in range(n):
        rec = {"id": f"r{i}", "name": f"Item {i}", "price": round(rng.uniform(1, 100), 2),
               "currency": rng.choice(["EUR", "USD"]),
               "items": [{"sku": f"s{i}-{k}", "qty": k + 1} for k in range(rng.randint(0, 3))]}
        gold.append(json.dumps(rec))
        ext = dict(rec, price=rec["price"] * rng.choice([1, 1, 1.001, 1.5]),
                   name=rec["name"] if rng.random() < 0.8 else rec["name"].lower() + "x")
        lines.append(json.dumps(ext))
    files["gold"].write_text("\n".join(gold) + "\n", encoding="utf-8")
    files["extracted"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    return suite, files["extracted"], lines


def _figures(outcome: runner.SuiteOutcome) -> list[object]:
    [run] = outcome.runs
    return [run.result.to_dict(), [s.record for s in run.scored]]


def test_resumed_runs_equal_fresh_runs_bit_for_bit(tmp_path: Path) -> None:
    suite, path, lines = _suite(tmp_path, 1200)
    cache = SuiteCache()
    run_suite(suite, {}, cache, CancelToken())
    rng = random.Random(3)
    for step in range(6):
        k = rng.randrange(len(lines))
        rec = json.loads(lines[k])
        rec["price"] = rec["price"] + 1 + step
        lines[k] = json.dumps(rec)
        if step == 3:  # an inserted record shifts every later index
            lines.insert(10, json.dumps({"id": "new", "name": "New", "price": 1.0}))
        text = "\n".join(lines) + "\n"
        resumed = run_suite(suite, {path: text}, cache, CancelToken())
        fresh = run_suite(suite, {path: text}, SuiteCache(), CancelToken())
        assert _figures(resumed) == _figures(fresh)
        memo = cache.memos[path]
        assert memo.checkpoints, "a run of 1,200 records keeps accumulator copies"


def test_a_run_resumes_after_its_unchanged_prefix(tmp_path: Path) -> None:
    suite, path, _ = _suite(tmp_path, 1200)
    cache = SuiteCache()
    run_suite(suite, {}, cache, CancelToken())
    memo = cache.memos[path]
    marks = list(memo.marks)
    marks[1100] = (("x", "y", None), 1100, 1100)
    start, acc, kept = memo.resume(marks)
    assert start == 1024  # the last copy at or before the first changed pair
    assert acc.n == 1024 and len(acc.records) == 1024
    assert sorted(kept) == list(range(0, 1024, runner.CHECKPOINT))
    marks[5] = (("x", "y", None), 5, 5)
    assert memo.resume(marks)[0] == 0
