"""The root ``conftest.py`` of ``scripts/mutation``'s staging copy: which tests a mutant runs,
and in what order.

mutmut runs, for each mutant, every test that reached the mutated function, and stops at the
first failure. Two things make that slow here: most core functions are reached by most of the
suite, and a mutant no test notices runs all of it. So, for a mutant (and for mutmut's clean
run, which checks the same tests pass):

- the tests of the mutated module's own folder (``tests/engine/rules`` for
  ``evalschema.rules.values``, ``tests/engine/test_results*`` for ``evalschema.results``) run
  first, those that took up to ``EVALSCHEMA_MUTATION_HOME_SECONDS``;
- of the others, those that took longer than ``EVALSCHEMA_MUTATION_TEST_SECONDS`` in mutmut's
  own timing run (``mutmut-stats.json``) are left out: runs at scale, subprocess and fuzz
  tests of other packages; ``scripts/mutation`` reports how many;
- within each part the fastest run first, so a mutant is usually killed within a few tests.

Collecting the test files costs more than running the few tests that kill a typical mutant,
so ``scripts/mutation`` runs in two passes: the first with ``EVALSCHEMA_MUTATION_HOME_ONLY``
set (a mutant runs its own folder's tests only), the second, for the mutants no test
noticed, with the rest as above.

Not active while mutmut collects its timings (``MUTANT_UNDER_TEST=stats``) or outside it.
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

LIMIT_VARIABLE = "EVALSCHEMA_MUTATION_TEST_SECONDS"
#: The limit for the tests of the mutated module's own folder (property tests that check a
#: fast path against the general one take a few seconds; runs at scale, tens).
HOME_LIMIT_VARIABLE = "EVALSCHEMA_MUTATION_HOME_SECONDS"
#: Set (to anything) for ``scripts/mutation``'s first pass: a mutant runs its own folder's
#: tests only, so only those files are collected.
HOME_ONLY_VARIABLE = "EVALSCHEMA_MUTATION_HOME_ONLY"
#: A property test tries at most this many examples on a mutant (its own settings say up to
#: 300): most mutants fall to the first few, and one that survives them all would otherwise
#: spend minutes in the scoring folder's property tests alone.
EXAMPLES = 25
#: A test that runs longer than this many times its timed duration, plus ``SLACK`` seconds,
#: of CPU on a mutant is stopped, and the mutant counted as timed out (mutmut's exit code
#: 36): mutmut's own limit is for all of a function's tests, minutes for a mutant that loops.
TIMES, SLACK = 10, 5.0
TIMEOUT_EXIT = 36
_MODULE = re.compile(r"^(?P<module>[\w.]+?)\.x(?:_|ǁ)")


def home_folder(mutant: str) -> str | None:
    """The test folder that mirrors the mutated module's package, or None."""
    m = _MODULE.match(mutant)
    if m is None:
        return None
    top, *package, name = m["module"].split(".")
    root = "tests/server" if top == "evalschema_server" else "tests/engine"
    if not package:  # a top-level module: evalschema.results -> tests/engine/test_results*
        return f"{root}/test_{name}"
    return "/".join([root, *package]) + "/"


@dataclass(frozen=True)
class Selection:
    """The tests one mutant runs (``keeps``) and their order (``rank``), by node id."""

    home: str
    limit: float
    durations: dict[str, float]
    home_only: bool = False
    home_limit: float = float("inf")

    def took(self, nodeid: str) -> float:
        return self.durations.get(nodeid, 0.0)

    def keeps(self, nodeid: str) -> bool:
        if nodeid.startswith(self.home):
            return self.took(nodeid) <= self.home_limit
        return not self.home_only and self.took(nodeid) <= self.limit

    def rank(self, nodeid: str) -> tuple[bool, float]:
        return not nodeid.startswith(self.home), self.took(nodeid)


def selection() -> Selection | None:
    """This process's selection, or None in mutmut's own runs (timings, the forced
    failure, listing), which run every test as mutmut asked."""
    mutant = os.environ.get("MUTANT_UNDER_TEST", "")
    if mutant and "__mutmut_" not in mutant:
        return None
    stats = Path("mutmut-stats.json").resolve()
    durations = _durations(str(stats), stats.stat().st_mtime_ns) if stats.is_file() else {}
    home = home_folder(mutant)
    return Selection(home or "\0", float(os.environ.get(LIMIT_VARIABLE, "inf")), durations,
                     home_only=home is not None and HOME_ONLY_VARIABLE in os.environ,
                     home_limit=float(os.environ.get(HOME_LIMIT_VARIABLE, "inf")))


def timings(stats: Path) -> dict[str, float]:
    """mutmut's timing of each test (seconds, by node id) from its ``mutmut-stats.json``."""
    timed: dict[str, float] = json.loads(stats.read_text(encoding="utf-8"))["duration_by_test"]
    return timed


@cache
def _durations(path: str, mtime: int) -> dict[str, float]:
    """``timings``, read once per process (``mtime``: a new run's file)."""
    return timings(Path(path))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Drop the left-out tests from the arguments (mutmut passes node ids), so their files
    are not even collected: collecting a few hundred test files costs more than running
    the tests that kill a typical mutant."""
    chosen = selection()
    if chosen is None:
        return
    kept = [arg for arg in config.args if chosen.keeps(arg)]
    if kept:
        config.args[:] = sorted(kept, key=chosen.rank)
    elif config.args:
        # With no argument left pytest would collect its default paths (the whole suite):
        # keep one, for pytest_collection_modifyitems to deselect (mutmut: "no tests").
        del config.args[1:]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    chosen = selection()
    if chosen is None:
        return
    for item in items:
        _fewer_examples(item)
    left_out = [item for item in items if not chosen.keeps(item.nodeid)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
    items[:] = sorted((i for i in items if chosen.keeps(i.nodeid)),
                      key=lambda item: chosen.rank(item.nodeid))


def _fewer_examples(item: pytest.Item) -> None:
    """Cap a hypothesis test's examples at ``EXAMPLES`` (its other settings kept)."""
    test = getattr(item, "obj", None)
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if own is not None and own.max_examples > EXAMPLES:
        from hypothesis import settings

        test._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
            own, max_examples=EXAMPLES)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Stop a test that a mutant made loop (see ``TIMES``)."""
    chosen = selection()
    if chosen is None or not os.environ.get("MUTANT_UNDER_TEST"):
        return (yield)
    previous = signal.signal(signal.SIGPROF, _timed_out)
    signal.setitimer(signal.ITIMER_PROF, SLACK + TIMES * chosen.took(item.nodeid))
    try:
        return (yield)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _timed_out(signum: int, frame: object) -> None:
    os._exit(TIMEOUT_EXIT)
