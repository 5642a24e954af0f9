"""docs/notebooks.md is a notebook session on the bundled example: each of its ``>>>``
lines is run here (``doctest``) and must print what the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_the_notebooks_page_runs_as_written(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    for module, extra in (("pyarrow", "the frames extra (pyarrow)"), ("pandas", "pandas"),
                          ("polars", "polars")):
        pytest.importorskip(module, reason=f"{extra} is not installed")
    monkeypatch.chdir(REPO)  # the page's paths are the repository's
    result = doctest.testfile(str(REPO / "docs" / "notebooks.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, capsys.readouterr().out
    assert result.attempted == 18
