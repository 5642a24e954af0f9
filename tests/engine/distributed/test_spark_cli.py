"""``evalschema eval/compare --engine spark``: the same report as the local engine (the
compare intervals included), on the session's local Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from same_run import CLI_SUITE, GOLD, RUN_A, RUN_B

from evalschema.cli.main import main

pytestmark = pytest.mark.distributed


def printed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["eval", *CLI_SUITE, "--extracted", str(RUN_A)],
    ["eval", *CLI_SUITE, "--extracted", str(RUN_A), "--format", "markdown", "--threshold",
     "total=0.99"],
    ["compare", *CLI_SUITE, str(RUN_A), str(RUN_B)],
], ids=["eval", "eval-markdown-failing", "compare"])
def test_the_spark_engine_prints_the_local_report(argv: list[str], spark: Any,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    local = printed(argv, capsys)
    on_spark = printed([*argv, "--engine", "spark"], capsys)
    assert on_spark == local
    assert "240" in local[1] and "records" in local[1]
    assert local[0] == (1 if "--threshold" in argv else 0)


def test_pairing_by_position_is_refused_on_spark_with_a_located_error(
        spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = tmp_path / "s.eval.json"
    schema.write_text('{"type": "object", "properties": {"total": {"type": "number"}}}',
                      encoding="utf-8")
    code = main(["eval", "--schema", str(schema), "--gold", str(GOLD), "--extracted",
                 str(RUN_A), "--no-progress", "--engine", "spark"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "Traceback" not in err
    assert f"{schema}: error needs-id: a distributed run pairs records by id, and this " \
        "schema names none" in err
