"""The root ``conftest.py`` of ``scripts/mutation``'s staging copy: which tests a mutant runs,
and in what order.

mutmut runs, for each mutant, every test that reached the mutated function, and stops at the
first failure. Two things make that slow here: most core functions are reached by most of the
suite, and a mutant no test notices runs all of it. So, for a mutant (and for mutmut's clean
run, which checks the same tests pass):

- the tests of the mutated module's own folder (``tests/engine/rules`` for
  ``evalschema.rules.values``) all run, first;
- of the others, those that took longer than ``EVALSCHEMA_MUTATION_TEST_SECONDS`` in mutmut's
  own timing run (``mutmut-stats.json``) are left out: runs at scale, subprocess and fuzz
  tests of other packages; ``scripts/mutation`` reports how many;
- within each part the fastest run first, so a mutant is usually killed within a few tests.

Not active while mutmut collects its timings (``MUTANT_UNDER_TEST=stats``) or outside it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

LIMIT_VARIABLE = "EVALSCHEMA_MUTATION_TEST_SECONDS"
_MODULE = re.compile(r"^(?P<module>[\w.]+?)\.x(?:_|ǁ)")


def home_folder(mutant: str) -> str | None:
    """The test folder that mirrors the mutated module's package, or None."""
    m = _MODULE.match(mutant)
    if m is None:
        return None
    top, *package, _ = m["module"].split(".")
    root = "tests/server" if top == "evalschema_server" else "tests/engine"
    return "/".join([root, *package]) + "/"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mutant = os.environ.get("MUTANT_UNDER_TEST", "")
    if mutant and "__mutmut_" not in mutant:
        return  # timings, the forced failure, listing: every test as mutmut asked
    stats = Path("mutmut-stats.json")
    durations: dict[str, float] = (
        json.loads(stats.read_text(encoding="utf-8"))["duration_by_test"] if stats.is_file()
        else {})
    limit = float(os.environ.get(LIMIT_VARIABLE, "inf"))

    def took(item: pytest.Item) -> float:
        return durations.get(item.nodeid, 0.0)

    home = home_folder(mutant) or "\0"

    def kept(item: pytest.Item) -> bool:
        return item.nodeid.startswith(home) or took(item) <= limit

    left_out = [item for item in items if not kept(item)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
    items[:] = sorted(filter(kept, items),
                      key=lambda item: (not item.nodeid.startswith(home), took(item)))
