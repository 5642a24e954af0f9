"""``evalschema eval|compare --engine ray`` print the report a local run prints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalschema.cli.main import main

pytestmark = pytest.mark.distributed

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
FLAGS = ["--schema", str(EXAMPLES / "invoices.eval.json"),
         "--gold", str(EXAMPLES / "invoices.gold.jsonl"), "--no-progress"]
RUN_A = str(EXAMPLES / "invoices.model-a.extracted.jsonl")
RUN_B = str(EXAMPLES / "invoices.model-b.extracted.jsonl")


def printed(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_eval_on_ray_prints_the_local_report(ray_session: Any,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", *FLAGS, "--extracted", RUN_B, "--all"]
    local = printed(capsys, argv)
    on_ray = printed(capsys, [*argv, "--engine", "ray"])
    assert on_ray == local
    assert local[0] == 0 and "F1" in local[1]


def test_compare_on_ray_prints_the_local_comparison(ray_session: Any,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", *FLAGS, RUN_A, RUN_B, "--resamples", "200"]
    local = printed(capsys, argv)
    on_ray = printed(capsys, [*argv, "--engine", "ray"])
    assert on_ray == local
    assert local[0] == 0 and "paired bootstrap 95% intervals (200 resamples" in local[1]


def test_eval_on_ray_without_an_id_is_a_located_needs_id_error(
        ray_session: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = tmp_path / "no-id.eval.json"
    schema.write_text('{"type": "object", "properties": {"total": {"type": "number"}}}',
                      encoding="utf-8")
    code, out, err = printed(capsys, ["eval", str(schema), "--gold",
                                      str(EXAMPLES / "invoices.gold.jsonl"),
                                      "--extracted", RUN_B, "--engine", "ray",
                                      "--no-progress"])
    assert (code, out) == (2, "")
    assert err.splitlines()[:2] == [
        "evalschema: the run cannot be distributed",
        f"{schema}: error needs-id: a distributed run pairs records by id, and this "
        "schema names none (add \"x-eval-id\": \"<field>\" at the schema's root, or pass "
        "--id-field)"]
