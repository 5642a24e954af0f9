"""scripts/mutation_conftest.py: which tests a mutant runs, and in what order.

A wrong selection would make the mutation score a lie (tests left out that should run) or
the run take a day (slow tests first); both are checked here without running mutmut.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "mutation_conftest.py"
_spec = importlib.util.spec_from_file_location("mutation_conftest", SCRIPT)
assert _spec is not None and _spec.loader is not None
plugin = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("mutation_conftest", plugin)
_spec.loader.exec_module(plugin)


@dataclass
class Item:
    nodeid: str


@dataclass
class Hook:
    deselected: list[str] = field(default_factory=list)

    def pytest_deselected(self, items: list[Item]) -> None:
        self.deselected += [i.nodeid for i in items]


@dataclass
class Config:
    hook: Hook = field(default_factory=Hook)


DURATIONS = {
    "tests/engine/cli/test_cli.py::test_slow": 3.0,
    "tests/engine/cli/test_cli.py::test_fast": 0.01,
    "tests/engine/rules/test_values.py::test_b": 0.2,
    "tests/engine/rules/test_values.py::test_a": 0.05,
    "tests/engine/test_results.py::test_r": 0.001,
    "tests/engine/rules/test_comparators.py::test_huge": 2.0,
}


def select(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutant: str,
           limit: str | None, *, home_only: bool = False,
           home_limit: str | None = None) -> tuple[list[str], list[str]]:
    (tmp_path / "mutmut-stats.json").write_text(json.dumps({"duration_by_test": DURATIONS}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MUTANT_UNDER_TEST", mutant)
    if home_limit is None:
        monkeypatch.delenv(plugin.HOME_LIMIT_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(plugin.HOME_LIMIT_VARIABLE, home_limit)
    if home_only:
        monkeypatch.setenv(plugin.HOME_ONLY_VARIABLE, "1")
    else:
        monkeypatch.delenv(plugin.HOME_ONLY_VARIABLE, raising=False)
    if limit is None:
        monkeypatch.delenv(plugin.LIMIT_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(plugin.LIMIT_VARIABLE, limit)
    items: list[Any] = [Item(n) for n in DURATIONS]
    config: Any = Config()
    plugin.pytest_collection_modifyitems(config, items)
    return [i.nodeid.split("::")[1] for i in items], config.hook.deselected


@pytest.mark.parametrize(("mutant", "home"), [
    ("evalschema.rules.values.x_bounded_levenshtein__mutmut_2", "tests/engine/rules/"),
    ("evalschema.scoring.walk.xǁRecordScorerǁentry__mutmut_31", "tests/engine/scoring/"),
    ("evalschema.results.x_show_value__mutmut_3", "tests/engine/test_results"),
    ("evalschema_server.evaluation.findings.xǁDiagnosticBuilderǁdoc__mutmut_9",
     "tests/server/evaluation/"),
    ("stats", None),
])
def test_home_folder_mirrors_the_package(mutant: str, home: str | None) -> None:
    assert plugin.home_folder(mutant) == home


def test_a_mutant_runs_its_folder_first_then_fastest_first_without_other_slow_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its own folder's slow test stays (the property test that checks a fast path is often
    the only one that can kill its mutants); another folder's is left out."""
    kept, dropped = select(tmp_path, monkeypatch,
                           "evalschema.rules.values.x_parse_date__mutmut_4", "0.5")
    assert kept == ["test_a", "test_b", "test_huge", "test_r", "test_fast"]
    assert dropped == ["tests/engine/cli/test_cli.py::test_slow"]


def test_without_a_limit_every_test_runs(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    kept, dropped = select(tmp_path, monkeypatch,
                           "evalschema.rules.values.x_parse_date__mutmut_4", None)
    assert kept == ["test_a", "test_b", "test_huge", "test_r", "test_fast", "test_slow"]
    assert dropped == []


def test_the_clean_run_leaves_out_the_same_tests(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    kept, dropped = select(tmp_path, monkeypatch, "", "0.5")
    assert kept == ["test_r", "test_fast", "test_a", "test_b"] and len(dropped) == 2


@pytest.mark.parametrize("phase", ["stats", "fail", "list_all_tests"])
def test_mutmuts_own_runs_are_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         phase: str) -> None:
    """The timing run must time every test, or the limit would have nothing to go by."""
    kept, dropped = select(tmp_path, monkeypatch, phase, "0.5")
    assert kept == [n.split("::")[1] for n in DURATIONS] and dropped == []


@dataclass
class ArgsConfig:
    args: list[str]


def test_left_out_tests_are_dropped_from_the_arguments_before_collection(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """So their files are never collected; node ids mutmut did not time are kept."""
    select(tmp_path, monkeypatch, "evalschema.rules.values.x_parse_date__mutmut_4", "0.5")
    config: Any = ArgsConfig([*DURATIONS, "tests/engine/rules/test_new.py::test_untimed"])
    plugin.pytest_configure(config)
    assert [a.split("::")[1] for a in config.args] == [
        "test_untimed", "test_a", "test_b", "test_huge", "test_r", "test_fast"]


def test_arguments_all_left_out_stay_as_they_are(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty argument list would make pytest collect its default paths (the whole suite);
    the items are deselected after collection instead, and mutmut sees 'no tests'."""
    select(tmp_path, monkeypatch, "evalschema.rules.values.x_parse_date__mutmut_4", "0.5")
    slow = ["tests/engine/cli/test_cli.py::test_slow"]
    config: Any = ArgsConfig(list(slow))
    plugin.pytest_configure(config)
    assert config.args == slow
    select(tmp_path, monkeypatch, "evalschema_server.evaluation.locate.x_f__mutmut_1", "0.5")
    config = ArgsConfig([*slow, "tests/engine/rules/test_comparators.py::test_huge"])
    plugin.pytest_configure(config)
    assert config.args == slow
    items: list[Any] = [Item(slow[0])]
    deselecting: Any = Config()
    plugin.pytest_collection_modifyitems(deselecting, items)
    assert items == [] and deselecting.hook.deselected == slow


def test_the_first_pass_runs_the_home_folder_only(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    kept, dropped = select(tmp_path, monkeypatch,
                           "evalschema.rules.values.x_parse_date__mutmut_4", "0.5", home_only=True)
    assert kept == ["test_a", "test_b", "test_huge"]
    assert sorted(dropped) == ["tests/engine/cli/test_cli.py::test_fast",
                               "tests/engine/cli/test_cli.py::test_slow",
                               "tests/engine/test_results.py::test_r"]


def test_the_first_pass_leaves_the_clean_run_whole(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """mutmut's clean run checks that the tests pass before any mutant: with no mutant there
    is no home folder, so it runs what the second pass will."""
    kept, _ = select(tmp_path, monkeypatch, "", "0.5", home_only=True)
    assert kept == ["test_r", "test_fast", "test_a", "test_b"]


def test_the_home_folder_has_a_limit_of_its_own(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    kept, dropped = select(tmp_path, monkeypatch,
                           "evalschema.rules.values.x_parse_date__mutmut_4", "0.1",
                           home_limit="1.5")
    assert kept == ["test_a", "test_b", "test_r", "test_fast"]
    assert sorted(dropped) == ["tests/engine/cli/test_cli.py::test_slow",
                               "tests/engine/rules/test_comparators.py::test_huge"]


def test_a_top_level_modules_home_is_its_test_file(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Not all of tests/engine, which would take every slow test in as 'home'."""
    kept, _ = select(tmp_path, monkeypatch, "evalschema.results.x_show_value__mutmut_3", "0.5",
                     home_only=True)
    assert kept == ["test_r"]


def test_property_tests_try_fewer_examples_on_a_mutant() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=300, deadline=None)
    @given(st.integers())
    def prop(x: int) -> None:
        pass

    @settings(max_examples=5)
    @given(st.integers())
    def small(x: int) -> None:
        pass

    for test in (prop, small):
        item: Any = Item("tests/engine/scoring/test_x.py::prop")
        item.obj = test
        plugin._fewer_examples(item)
    assert prop._hypothesis_internal_use_settings.max_examples == plugin.EXAMPLES  # type: ignore[attr-defined]
    assert prop._hypothesis_internal_use_settings.deadline is None  # type: ignore[attr-defined]
    assert small._hypothesis_internal_use_settings.max_examples == 5  # type: ignore[attr-defined]


def test_a_test_is_timed_against_its_own_duration(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    select(tmp_path, monkeypatch, "evalschema.rules.values.x_parse_date__mutmut_4", "0.5")
    protocol = plugin.pytest_runtest_protocol(Item("tests/engine/rules/test_values.py::test_b"))
    next(protocol)  # the test would run here
    armed, _ = signal.getitimer(signal.ITIMER_PROF)
    assert armed == pytest.approx(plugin.SLACK + plugin.TIMES * 0.2, abs=0.1)
    with pytest.raises(StopIteration):
        protocol.send(None)
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_a_looping_test_ends_the_process_as_timed_out() -> None:
    code = ("import signal, sys; sys.path.insert(0, 'scripts'); import mutation_conftest as m; "
            "signal.signal(signal.SIGPROF, m._timed_out); "
            "signal.setitimer(signal.ITIMER_PROF, 0.2)\nwhile True: pass")
    done = subprocess.run([sys.executable, "-c", code], cwd=SCRIPT.parent.parent, timeout=60,
                          check=False)
    assert done.returncode == plugin.TIMEOUT_EXIT == 36  # mutmut's "timeout"
