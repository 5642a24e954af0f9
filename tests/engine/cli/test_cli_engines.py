"""``--engine``: the engine table's choices and options, and an engine whose extra is not
installed refused with a located error (the runs themselves: tests/engine/distributed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evalschema.cli.engines import ENGINES
from evalschema.cli.main import main

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
FLAGS = ["--schema", str(EXAMPLES / "invoices.eval.json"),
         "--gold", str(EXAMPLES / "invoices.gold.jsonl")]
RUN_A = str(EXAMPLES / "invoices.model-a.extracted.jsonl")
RUN_B = str(EXAMPLES / "invoices.model-b.extracted.jsonl")


@pytest.mark.parametrize("argv", [
    ["eval", *FLAGS, "--extracted", RUN_A, "--engine", "ray", "--no-progress"],
    ["compare", *FLAGS, RUN_A, RUN_B, "--engine", "ray", "--no-progress"],
])
def test_a_missing_extra_is_a_located_error_that_says_what_to_install(
        argv: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what an environment without Ray has
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    assert err.splitlines()[0] == "evalschema: the ray engine is not installed"
    assert err.splitlines()[1] == (
        "--engine: error engine-unavailable: the ray engine needs ray, which cannot be "
        "imported here (import of ray halted; None in sys.modules) (pip install "
        "'evalschema[ray]')")


@pytest.mark.parametrize("extra, message", [
    (["--address", "ray://h:10001"], "--address is for --engine ray"),
    (["--master", "local[2]"], "--master is for --engine spark"),
    (["--engine", "ray", "--workers", "2"], "--workers is for --engine local"),
])
def test_an_option_of_another_engine_is_a_usage_error(
        extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["eval", *FLAGS, "--extracted", RUN_A, *extra])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_the_engine_table_names_local_first_and_ray() -> None:
    assert list(ENGINES)[:2] == ["local", "ray"]
