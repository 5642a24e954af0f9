"""A run that scores many records shares them with a helper process (``helper``): the
same outcome as a run without one, whatever the helper does (takes some tasks, dies,
never starts, is waited on while the run is cancelled), and nothing on the standard
output the server speaks LSP on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from eval_workspace import many_records_suite

from evalschema_server.evaluation import helper, runner
from evalschema_server.evaluation.runner import CancelToken, SuiteCache, SuiteOutcome, run_suite
from evalschema_server.evaluation.service import EvaluationService
from evalschema_server.evaluation.suites import Suite, discover
from evalschema_server.settings import Settings
from evalschema_server.store import DocumentStore

RECORDS = 900


def _suite(folder: Path) -> Suite:
    many_records_suite(folder, RECORDS)
    [suite] = discover([folder], lambda p: p.read_text("utf-8")).suites
    return suite


def _seen(o: SuiteOutcome) -> Any:
    return ([(i.path.name, i.code, i.start, i.end, i.message) for i in o.issues],
            [(r.path.name, r.result.to_dict(), [s.record for s in r.scored],
              [(s.findings.statuses, s.findings.fields, s.findings.scores) for s in r.scored],
              [(s.gold and s.gold.start, s.extracted and s.extracted.start) for s in r.scored])
             for r in o.runs])


@pytest.fixture
def helped(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Runs of 64 records or more start a helper (on a machine of one core too); counts
    the tasks the helper did and those the run's thread took back."""
    monkeypatch.setattr(runner, "MIN_RECORDS", 64)
    monkeypatch.setattr(runner, "cores", lambda: 2)
    counts = {"helper": 0, "here": 0}
    take = helper.Helper.take

    def counted(self: helper.Helper[Any], number: int, check: Any) -> Any:
        got = take(self, number, check)
        counts["helper" if got is not None else "here"] += 1
        return got

    monkeypatch.setattr(helper.Helper, "take", counted)
    return counts


def _alone(suite: Suite) -> SuiteOutcome:
    """A fresh run of ``suite`` with no helper."""
    return run_suite(suite, {}, SuiteCache(), CancelToken(), helper=False)


def test_a_run_shared_with_a_helper_equals_one_without(
        tmp_path: Path, helped: dict[str, int], monkeypatch: pytest.MonkeyPatch,
        helper_first: None) -> None:
    suite = _suite(tmp_path / "suite")
    alone = _seen(_alone(suite))
    cache = SuiteCache()
    shared = run_suite(suite, {}, cache, CancelToken())
    assert helped["helper"] > 0 and helped["here"] > 0, helped
    assert _seen(shared) == alone
    # Hovers and lists score records again from what the run kept: the same there too.
    [run] = [r for r in shared.runs if r.path.suffix == ".json"]
    assert [shared.findings_of(s) for s in run.scored[-40:]] == \
        [shared.findings_of(s) for s in _alone(suite).runs[1].scored[-40:]]
    # An edit then re-scores one block, here: no helper is started for that.
    monkeypatch.setattr(runner, "MIN_RECORDS", helper.MIN_RECORDS)
    path = suite.config.extracted[0]
    text = path.read_text("utf-8").replace('"Item 700"', '"Item 7000"')
    helped.update(helper=0, here=0)
    again = run_suite(suite, {path: text}, cache, CancelToken())
    assert helped == {"helper": 0, "here": 0}
    assert _seen(again) == _seen(run_suite(suite, {path: text}, SuiteCache(), CancelToken()))
    assert helped == {"helper": 0, "here": 0}


def test_a_helper_that_dies_leaves_its_tasks_to_the_run(
        tmp_path: Path, helped: dict[str, int], monkeypatch: pytest.MonkeyPatch,
        helper_first: None) -> None:
    suite = _suite(tmp_path / "suite")
    alone = _seen(_alone(suite))
    take = helper.Helper.take
    killed: list[int] = []

    def kill_first(self: helper.Helper[Any], number: int, check: Any) -> Any:
        pool = self._pool
        if not killed and pool is not None and pool._processes and self._tasks:
            pid = next(iter(pool._processes))  # with tasks in its hands
            os.kill(pid, 9)
            killed.append(pid)
        return take(self, number, check)

    monkeypatch.setattr(helper.Helper, "take", kill_first)
    assert _seen(run_suite(suite, {}, SuiteCache(), CancelToken())) == alone
    assert killed


def test_a_helper_that_cannot_start_costs_nothing_but_its_start(
        tmp_path: Path, helped: dict[str, int], monkeypatch: pytest.MonkeyPatch) -> None:
    suite = _suite(tmp_path / "suite")
    alone = _seen(_alone(suite))

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError("no more processes")

    monkeypatch.setattr(helper, "ProcessPoolExecutor", broken)
    assert _seen(run_suite(suite, {}, SuiteCache(), CancelToken())) == alone
    assert helped["helper"] == 0 and helped["here"] > 0


def test_a_run_cancelled_while_the_helper_works_stops_and_stops_the_helper(
        tmp_path: Path, helped: dict[str, int], monkeypatch: pytest.MonkeyPatch,
        helper_first: None) -> None:
    suite = _suite(tmp_path / "suite")
    token = CancelToken()
    pools: list[Any] = []
    take = helper.Helper.take

    def cancel_on_meeting(self: helper.Helper[Any], number: int, check: Any) -> Any:
        pools.append(self._pool)
        if number in self._tasks:  # the helper has it: cancelled while waiting on it
            token.cancel()
        return take(self, number, check)

    monkeypatch.setattr(helper.Helper, "take", cancel_on_meeting)
    cache = SuiteCache()
    with pytest.raises(runner.Cancelled):
        run_suite(suite, {}, cache, token)
    pool = next(p for p in pools if p is not None)
    processes = list(pool._processes.values()) if pool._processes else []
    deadline = time.monotonic() + 30
    while any(p.is_alive() for p in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(p.is_alive() for p in processes)  # the helper exited with the run
    # The cache is as no run had been: the next run is a fresh one.
    assert _seen(run_suite(suite, {}, cache, CancelToken())) == _seen(_alone(suite))


def test_no_helper_when_comparator_modules_are_loaded(
        tmp_path: Path, helped: dict[str, int]) -> None:
    """A helper imports no module of the workspace: with one loaded (``generation``), or a
    rule that is not built in, every record is scored here."""
    suite = _suite(tmp_path / "suite")
    run_suite(suite, {}, SuiteCache(), CancelToken(), generation=1)
    assert helped == {"helper": 0, "here": 0}
    assert not runner.shareable(1) and runner.shareable(0)


def test_the_helper_prints_nothing_on_the_standard_output(tmp_path: Path) -> None:
    """The server's standard output is its LSP stream: what a helper prints goes to the
    standard error."""
    code = ("from evalschema_server.evaluation.helper import Helper\n"
            "h = Helper()\n"
            "h.share(print, lambda n: ('from the helper',), [0, 1])\n"
            "h.take(0, lambda: None)\n"
            "h._tasks[1].result(60)\n"
            "h.close()\n")
    script = tmp_path / "main.py"
    script.write_text("if __name__ == '__main__':\n" + "".join(
        f"    {line}\n" for line in code.splitlines()), encoding="utf-8")
    done = subprocess.run([sys.executable, "-P", str(script)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "from the helper" in done.stderr


def test_the_helper_process_setting_turns_it_off(tmp_path: Path, helped: dict[str, int]) -> None:
    suite = _suite(tmp_path / "suite")
    assert _seen(run_suite(suite, {}, SuiteCache(), CancelToken(), helper=False)) == \
        _seen(_alone(suite))
    assert helped == {"helper": 0, "here": 0}
    # The setting, read as the server reads it, reaches the runs.
    settings = Settings.from_dict({"evalschema": {"helperProcess": False}})
    assert not settings.evaluation.helper_process and Settings().evaluation.helper_process

    class Client:
        eval_settings = settings.evaluation

    service = EvaluationService(Client(), DocumentStore(), None)  # type: ignore[arg-type]
    assert service.scheduler.helper() is False
    Client.eval_settings = Settings().evaluation
    assert service.scheduler.helper() is True


def test_no_helper_for_a_schema_that_refers_to_another_file(
        tmp_path: Path, helped: dict[str, int]) -> None:
    """A helper binds the schema again: a file it refers to could have changed since."""
    suite = _suite(tmp_path / "suite")
    schema = suite.config.schema
    doc = json.loads(schema.read_text("utf-8"))
    (tmp_path / "suite" / "money.json").write_text(json.dumps(doc["properties"]["price"]),
                                                   encoding="utf-8")
    doc["properties"]["price"] = {"$ref": "money.json"}
    schema.write_text(json.dumps(doc), encoding="utf-8")
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    assert helped == {"helper": 0, "here": 0}
    assert not outcome.schema_problems and "price" in outcome.runs[0].result.per_field
    assert runner.self_contained({"$defs": {"a": {}}, "properties": {"x": {"$ref": "#/$defs/a"}}})
    assert not runner.self_contained({"items": [{"$ref": "other.json#/a"}]})


def test_the_helper_yields_the_cores_to_the_server() -> None:
    h: helper.Helper[int] = helper.Helper()
    try:
        assert h.started is not None and h.started.result(60) != os.getpid()
        h.share(os.nice, lambda n: (0,), [0])
        niceness = h._tasks[0].result(60)
    finally:
        h.close()
    assert niceness == min(os.nice(0) + helper.NICER, 19)
