"""The judge's verdict cache (``evalschema.judge.cache``): a re-run asks nothing; only
pairs never judged are asked; what decides a verdict is in its key and the API key is
not; the file holds hashes and scores only; a corrupt, locked or unwritable cache is a
located warning and the run goes on asking the judge. Every test runs a real HTTP server
on 127.0.0.1 (``judge_listener``) and a real SQLite file."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from judge_listener import Listener

from evalschema import evaluate
from evalschema.cli.main import main
from evalschema.errors import Problem, ProblemWarning
from evalschema.judge import cache as cache_module
from evalschema.judge.cache import VerdictCache, default_path, open_cache, verdict_key
from evalschema.judge.settings import CacheSettings, JudgeLimits, JudgeProfile, JudgeSettings
from evalschema.rules import semantic

KEY = "sk-cache-test-0123456789-SECRET"
GOLD = [{"id": "1", "purpose": "working capital", "summary": "a term loan"},
        {"id": "2", "purpose": "acquisitions", "summary": "a bond"}]
EXT = [{"id": "1", "purpose": "general working capital", "summary": "equity"},
       {"id": "2", "purpose": "a merger", "summary": "a bond issue"}]


def schema(**params: Any) -> dict[str, Any]:
    sem = {"semantic": params}
    return {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"},
        "purpose": {"type": "string", "x-eval-compare": sem},
        "summary": {"type": "string", "x-eval-compare": sem}}}


pytestmark = pytest.mark.usefixtures("fresh_judge")


def settings(url: str, path: Path | None, model: str = "judge-1", **cache: Any) -> JudgeSettings:
    return JudgeSettings((JudgeProfile("default", url, model, KEY, "OPENAI_API_KEY"),),
                         JudgeLimits(backoff=0.01, max_backoff=0.05, retries=0),
                         CacheSettings(str(path) if path else None, **cache))


def listings(listener: Listener) -> list[str]:
    return sorted(r.json["messages"][1]["content"] for r in listener.requests)


def test_a_rerun_asks_nothing_and_gives_the_same_results(listener: Listener,
                                                         tmp_path: Path) -> None:
    judges = settings(listener.url, tmp_path / "v.sqlite3")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ProblemWarning)
        first = evaluate(GOLD, EXT, schema(), judges=judges)
        assert len(listener.requests) == 4
        cache_module.forget()  # as a new process would: only the file is shared
        second = evaluate(GOLD, EXT, schema(), judges=judges)
    assert len(listener.requests) == 4
    assert second.to_dict() == first.to_dict()
    assert [(r.path, str(r.status), r.score) for rec in second.records
            for r in rec.field_results] == [
        ("id", "match", 1.0), ("purpose", "match", 1.0), ("summary", "mismatch", 0.0),
        ("id", "match", 1.0), ("purpose", "mismatch", 0.0), ("summary", "match", 1.0)]


def test_only_pairs_never_judged_are_asked(listener: Listener, tmp_path: Path) -> None:
    judges = settings(listener.url, tmp_path / "v.sqlite3")
    evaluate(GOLD, EXT, schema(), judges=judges)
    listener.requests.clear()
    ext = [EXT[0], {**EXT[1], "summary": "bond debt"}]
    run = evaluate(GOLD, ext, schema(), judges=judges)
    assert listings(listener) == ['1. gold: "a bond" | extracted: "bond debt"']
    assert [str(r.status) for r in run.records[1].field_results] == [
        "match", "mismatch", "match"]


def test_the_same_pair_in_another_record_or_field_is_not_asked_again(
        listener: Listener, tmp_path: Path) -> None:
    judges = settings(listener.url, tmp_path / "v.sqlite3")
    gold = [{"id": "1", "purpose": "a loan", "summary": "x"}]
    evaluate(gold, gold, schema(), judges=judges)
    assert len(listener.requests) == 2
    gold2 = [{"id": "9", "purpose": "x", "summary": "a loan"}]
    evaluate(gold2, gold2, schema(), judges=judges)
    assert len(listener.requests) == 2


@pytest.mark.parametrize("change", ["model", "prompt", "endpoint", "prompt_version"])
def test_what_decides_a_verdict_is_in_its_key(listener: Listener, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              change: str) -> None:
    path = tmp_path / "v.sqlite3"
    evaluate(GOLD, EXT, schema(), judges=settings(listener.url, path))
    assert len(listener.requests) == 4
    judges, params = settings(listener.url, path), {}
    if change == "model":
        params = {"model": "judge-2"}
    elif change == "prompt":
        params = {"prompt": "Score meaning, strictly."}
    elif change == "endpoint":
        judges = settings(listener.url.replace("127.0.0.1", "localhost"), path)
    else:
        monkeypatch.setattr(semantic, "PROMPT_VERSION", semantic.PROMPT_VERSION + 1)
    evaluate(GOLD, EXT, schema(**params), judges=judges)
    assert len(listener.requests) == 8


def test_the_api_key_and_the_urls_user_info_are_not_in_the_key(
        listener: Listener, tmp_path: Path) -> None:
    """A rotated key reuses the verdicts; the key never decides (or reaches) a row."""
    path = tmp_path / "v.sqlite3"
    evaluate(GOLD, EXT, schema(), judges=settings(listener.url, path))
    rotated = settings(listener.url, path)
    rotated = replace(rotated, profiles=(replace(rotated.profiles[0], api_key="sk-other-9876"),))
    evaluate(GOLD, EXT, schema(), judges=rotated)
    assert len(listener.requests) == 4
    profile = JudgeProfile("default", "http://u:pw-secret@127.0.0.1:1/v1", "m")
    judge = semantic.SemanticJudge(JudgeSettings(), profile, "m", "p", 1.0, True)
    assert json.loads(judge.identity) == [semantic.PROMPT_VERSION,
                                          "http://127.0.0.1:1/v1/chat/completions", "m", 0, "p"]


def test_the_file_holds_hashes_and_scores_only(listener: Listener, tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    evaluate(GOLD, EXT, schema(), judges=settings(listener.url, path))
    cache_module.forget()  # closes the connection: the WAL is checkpointed into the file
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT key, score FROM verdicts ORDER BY score, key").fetchall()
    tables = conn.execute("SELECT name FROM sqlite_master").fetchall()
    conn.close()
    assert tables == [("verdicts",), ("sqlite_autoindex_verdicts_1",)] or tables == [
        ("verdicts",)]
    assert [s for _, s in rows] == [0.0, 0.0, 1.0, 1.0]
    assert all(len(k) == 64 and set(k) <= set("0123456789abcdef") for k, _ in rows)
    identity = semantic.SemanticJudge(
        JudgeSettings(), settings(listener.url, None).profiles[0], "judge-1",
        semantic.DEFAULT_PROMPT, 1.0, True).identity
    assert {k for k, _ in rows} == {verdict_key(identity, g[f], e[f])
                                     for g, e in zip(GOLD, EXT, strict=True)
                                     for f in ("purpose", "summary")}
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("v."))
    for secret in (KEY, "working capital", "judge-1", "127.0.0.1", "chat/completions"):
        assert secret.encode() not in data


def test_a_verdict_the_judge_could_not_give_is_not_kept(listener: Listener,
                                                        tmp_path: Path) -> None:
    """A pair the judge gave no number for is asked again on the next run."""
    from judge_listener import judge_answer, send

    listener.behaviour = lambda lst, h, seen: send(h, 200, judge_answer([], '{"scores": ["?"]}'))
    gold = [{"id": "1", "purpose": "a loan"}]
    sch = {"type": "object", "properties": {"id": {"type": "string"}, "purpose": {
        "type": "string", "x-eval-compare": "semantic"}}}
    judges = settings(listener.url, tmp_path / "v.sqlite3")
    for _ in range(2):
        run = evaluate(gold, gold, sch, judges=judges)
        assert str(run.records[0].field_results[1].status) == "batch_error"
    assert len(listener.requests) == 2


def _uncached_runs_with(listener: Listener, judges: JudgeSettings, what: str) -> Problem:
    """Two runs under a cache that cannot be used: one warning, both runs scored and
    every pair asked each time."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runs = [evaluate(GOLD, EXT, schema(), judges=judges) for _ in range(2)]
    assert len(listener.requests) == 8
    assert runs[0].to_dict() == runs[1].to_dict()
    assert runs[0].total_batch_errors == 0
    found = [w.message.problem for w in caught if isinstance(w.message, ProblemWarning)]
    assert len(found) == 1, [str(w.message) for w in caught]
    problem = found[0]
    assert problem.code == "judge-cache-unusable"
    assert str(problem.severity) == "warning"
    assert f"could not be {what}" in problem.message
    assert "the run goes on without it" in problem.message
    return problem


def test_a_corrupt_cache_is_a_located_warning_and_the_run_goes_on(listener: Listener,
                                                                  tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    path.write_bytes(b"this is not a database, it is a note" * 200)
    problem = _uncached_runs_with(listener, settings(listener.url, path), "opened")
    assert problem.source == str(path)
    assert "file is not a database" in problem.message
    assert path.read_bytes() == b"this is not a database, it is a note" * 200  # left alone


def test_an_unwritable_place_is_a_located_warning(listener: Listener, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    path = tmp_path / "a-file" / "v.sqlite3"
    problem = _uncached_runs_with(listener, settings(listener.url, path), "opened")
    assert problem.source == str(path)


def test_a_cache_of_another_layout_is_left_alone(listener: Listener, tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 7")
    conn.close()
    problem = _uncached_runs_with(listener, settings(listener.url, path), "opened")
    assert "layout 7" in problem.message


def test_a_locked_cache_is_a_warning_and_the_run_goes_on(listener: Listener, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holds the file's lock past the busy timeout (a rollback journal:
    shared storage)."""
    monkeypatch.setattr(cache_module, "BUSY_MS", 100)
    path = tmp_path / "v.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        problem = _uncached_runs_with(listener, settings(listener.url, path, shared=True),
                                      "opened")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "database is locked" in problem.message


def test_a_write_that_fails_is_a_warning_and_reads_go_on(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "BUSY_MS", 100)
    path = tmp_path / "v.sqlite3"
    got = open_cache(CacheSettings(str(path), shared=True))
    assert got is not None
    got.put_many({"a" * 64: 0.5})
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got.put_many({"b" * 64: 1.0})
        got.put_many({"c" * 64: 1.0})  # no second warning, no second try
    holder.execute("ROLLBACK")
    holder.close()
    assert [w.message.problem.code for w in caught
            if isinstance(w.message, ProblemWarning)] == ["judge-cache-unusable"]
    assert "could not be written" in str(caught[0].message)
    assert got.get_many(["a" * 64, "b" * 64, "c" * 64]) == {"a" * 64: 0.5}


def test_rows_out_of_range_are_not_read_as_verdicts(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    got = open_cache(CacheSettings(str(path)))
    assert isinstance(got, VerdictCache)
    got.put_many({"ok": 0.25, "nan": float("nan"), "big": 3.0})
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO verdicts VALUES ('planted', -1.0)")
    conn.commit()
    conn.close()
    assert got.get_many(["ok", "nan", "big", "planted", "ok"]) == {"ok": 0.25}


def _write_keys(path: str, start: int) -> None:
    cache = open_cache(CacheSettings(path))
    assert cache is not None
    for i in range(start, start + 200, 20):
        cache.put_many({f"k{j}": (j % 10) / 10 for j in range(i, i + 20)})


def test_several_processes_write_one_file(tmp_path: Path) -> None:
    path = str(tmp_path / "v.sqlite3")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_keys, args=(path, n * 200)) for n in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    got = open_cache(CacheSettings(path))
    assert got is not None
    keys = [f"k{j}" for j in range(400)]
    assert got.get_many(keys) == {f"k{j}": (j % 10) / 10 for j in range(400)}


def test_the_default_file_is_in_the_users_cache_folder(tmp_path: Path) -> None:
    assert default_path({"XDG_CACHE_HOME": "/c"}) == Path("/c/evalschema/judge/verdicts.sqlite3")
    assert open_cache(CacheSettings()) is not None
    assert (tmp_path / "user-cache" / "evalschema" / "judge" / "verdicts.sqlite3").is_file()
    assert open_cache(CacheSettings(enabled=False)) is None


def test_cli_judge_cache_options(listener: Listener, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("EVALSCHEMA_JUDGE_BASE_URL", listener.url)
    (tmp_path / "s.eval.json").write_text(json.dumps(schema()))
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOLD))
    (tmp_path / "e.jsonl").write_text("".join(json.dumps(r) + "\n" for r in EXT))
    monkeypatch.chdir(tmp_path)
    args = ["eval", "s.eval.json", "--gold", "g.jsonl", "--extracted", "e.jsonl",
            "--format", "json"]
    assert main([*args, "--judge-cache", "verdicts.sqlite3"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*args, "--judge-cache", "verdicts.sqlite3"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["mean_f1"] == \
        first["runs"][0]["mean_f1"] == 2 / 3  # a mismatch in each of two records of three fields
    assert len(listener.requests) == 4
    assert (tmp_path / "verdicts.sqlite3").is_file()
    assert main([*args, "--judge-cache", "verdicts.sqlite3", "--no-judge-cache"]) == 0
    assert len(listener.requests) == 8
    capsys.readouterr()
    (tmp_path / "broken.sqlite3").write_bytes(b"garbage" * 100)
    assert main([*args, "--judge-cache", "broken.sqlite3"]) == 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'broken.sqlite3'}: warning judge-cache-unusable: the judge's " \
        "verdict cache could not be opened (file is not a database)" in err
    assert "Traceback" not in err
    assert len(listener.requests) == 12
