"""The LLM judge in a run at scale: a chunk's judge calls in flight together, the
concurrency limit held for the whole run across worker processes, and the verdict cache
shared by the workers. Every test runs a real HTTP server on 127.0.0.1
(``judge_listener``) that records the peak number of requests held at once."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from judge_listener import Gate, Listener, Seen, judge_answer, overlap_scores, send

from evalschema.errors import ProblemWarning
from evalschema.judge.settings import CacheSettings, JudgeLimits, JudgeProfile, JudgeSettings
from evalschema.rules.semantic import SemanticJudge
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.pairing import iter_pairs
from evalschema.run.parallel import EvalSpec, evaluate_files, score_chunk

SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"},
    "purpose": {"type": "string", "x-eval-compare": {"semantic": {"threshold": 0.5}}},
    "tags": {"type": "array", "items": {"type": "string", "x-eval-compare": "semantic"}}}}


def records(n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``n`` record pairs: every third purpose reworded away, tags of two items."""
    gold = [{"id": str(i), "purpose": f"working capital {i}", "tags": [f"loan {i}", "bank"]}
            for i in range(n)]
    ext = [{"id": str(i), "purpose": "other thing" if i % 3 == 0 else f"capital {i}",
            "tags": [f"loan {i}", "fund"]} for i in range(n)]
    return gold, ext


pytestmark = pytest.mark.usefixtures("fresh_judge")


def judges(url: str, concurrency: int, cache: Path | None = None) -> JudgeSettings:
    return JudgeSettings(
        (JudgeProfile("default", url, "judge-1", "sk-test-key", "OPENAI_API_KEY"),),
        JudgeLimits(concurrency=concurrency, retries=0, breaker_failures=0),
        CacheSettings(str(cache) if cache else None, enabled=cache is not None))


def spec(settings: JudgeSettings) -> EvalSpec:
    return EvalSpec(SCHEMA, judges=settings)


def chunk(gold: list[dict[str, Any]], ext: list[dict[str, Any]]) -> Any:
    return list(iter_pairs(gold, ext, "id"))


def picky(lst: Listener, h: Any, seen: Seen) -> None:
    """Fails the records whose gold mentions 7, answers one score short for those with
    5, and otherwise as ``ok``."""
    text = seen.json["messages"][1]["content"]
    if "7" in text:
        send(h, 500, b'{"error": "overloaded"}')
    elif "5" in text:
        send(h, 200, judge_answer(overlap_scores(seen)[:-1]))
    else:
        send(h, 200, judge_answer(overlap_scores(seen)))


def test_a_chunk_judges_its_records_concurrently(listener: Listener) -> None:
    """A chunk of records with a judged field and a judged array: requests are held
    until 4 are in flight together, which only concurrent calls reach; the limit (4) is
    never passed; each record and field is one request."""
    gate = Gate(4, 2.0)
    listener.behaviour = gate
    evaluator = spec(judges(listener.url, 4)).evaluator()
    gold, ext = records(200)
    acc, _ = score_chunk(evaluator, chunk(gold, ext), True, 5)
    assert gate.peak == 4
    assert len(listener.requests) == 2 * 200
    run = acc.result()
    assert run.total_batch_errors == 0
    assert [(r.path, str(r.status), r.score) for r in run.records[4].field_results] == [
        ("id", "match", 1.0), ("purpose", "match", 1.0), ("tags[0]", "match", 1.0),
        ("tags[1]", "mismatch", 0.0)]
    assert str(run.records[3].field_results[1].status) == "mismatch"


def test_a_chunk_gives_the_results_of_one_record_at_a_time(listener: Listener) -> None:
    """Statuses, scores, reasons and batch errors (an HTTP error, a short answer) are the
    same whether a chunk's records are judged together or one by one."""
    listener.behaviour = picky
    settings = judges(listener.url, 4)
    gold, ext = records(60)
    together, digest = score_chunk(spec(settings).evaluator(), chunk(gold, ext), True, 5)
    one_by_one = RunAccumulator(keep_records=True)
    evaluator = spec(settings).evaluator()
    for pair in chunk(gold, ext):
        evaluator.score(pair, one_by_one)  # run_batches, record by record
    assert json.dumps(together.result().to_dict()) == json.dumps(one_by_one.result().to_dict())
    got = together.result()
    # 7 in 6 records (7, 17, ..., 57): 3 fields each; 5 without 7 in 14 records: 3 each
    assert got.total_batch_errors == 3 * 6 + 3 * 14
    r7 = got.records[7].field_results
    assert [(str(r.status), r.reason) for r in r7[1:]] == [
        ("batch_error", "JudgeError: judge answered HTTP 500: {\"error\": \"overloaded\"}")] * 3
    r5 = got.records[5].field_results
    assert [(str(r.status), r.reason) for r in r5[1:]] == [
        ("batch_error", "JudgeError: judge gave 0 score(s) for 1 field(s)"),
        ("batch_error", "JudgeError: judge gave 1 score(s) for 2 field(s)"),
        ("batch_error", "JudgeError: judge gave 1 score(s) for 2 field(s)")]
    assert digest.worst[0].record.index == 0  # purpose and a tag wrong


def test_workers_share_the_limit_and_the_cache(listener: Listener, tmp_path: Path) -> None:
    """Two worker processes under a limit of 4: together never more than 4 requests at
    once (each worker 2); the same results as one process; a second run with the shared
    verdict cache asks nothing."""
    gate = Gate(5, 0.2)  # 5 held at once would pass the limit: never released early
    listener.behaviour = gate
    gold, ext = records(64)
    (tmp_path / "g.json").write_text(json.dumps(gold))
    (tmp_path / "e.json").write_text(json.dumps(ext))
    files = (tmp_path / "g.json", tmp_path / "e.json")
    cache = tmp_path / "shared" / "verdicts.sqlite3"
    two = evaluate_files(spec(judges(listener.url, 4, cache)), *files, workers=2,
                         keep_records=True, chunk_size=16, start="fork")
    assert 2 <= gate.peak <= 4
    asked = len(listener.requests)
    assert asked == 2 * 64
    again = evaluate_files(spec(judges(listener.url, 4, cache)), *files, workers=2,
                           keep_records=True, chunk_size=16, start="fork")
    assert len(listener.requests) == asked
    one = evaluate_files(spec(judges(listener.url, 4)), *files, workers=1,
                         keep_records=True, chunk_size=16)
    assert len(listener.requests) == 2 * asked
    assert json.dumps(two.run.to_dict()) == json.dumps(again.run.to_dict()) == \
        json.dumps(one.run.to_dict())
    assert two.run.total_batch_errors == 0


def _semantic_judges(spec: EvalSpec) -> list[SemanticJudge]:
    root = spec.evaluator().root
    return [n.batch for n in root.walk() if isinstance(n.batch, SemanticJudge)]


def test_each_task_binds_its_share_of_the_limit(listener: Listener) -> None:
    base = spec(judges(listener.url, 8))
    assert {j.concurrency for j in _semantic_judges(base)} == {8}
    assert {j.concurrency for j in _semantic_judges(base.for_tasks(3))} == {2}
    assert {j.concurrency for j in _semantic_judges(base.for_tasks(20))} == {1}


def test_an_unusable_cache_is_one_warning_in_the_driver_and_off_in_the_tasks(
        listener: Listener, tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    path.write_bytes(b"not a database" * 100)
    base = spec(judges(listener.url, 4, path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tasks = base.for_tasks(2)
    assert [w.message.problem.code for w in caught
            if isinstance(w.message, ProblemWarning)] == ["judge-cache-unusable"]
    assert tasks.judges is not None and tasks.judges.cache == CacheSettings(
        str(path), enabled=False)
    assert tasks.judge_tasks == 2
