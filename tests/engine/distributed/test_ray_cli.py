"""``evalschema eval|compare --engine ray`` print the report a local run prints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from same_run import assert_same, unindexed

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
    assert (on_ray[0], local[0], local[2]) == (0, 0, "")  # Ray may warn on stderr
    # The same figures; the record problems and the fields whose F1 ties come in another
    # order (a distributed run has no gold order: docs/distributed.md).
    assert on_ray[1].splitlines()[:5] == local[1].splitlines()[:5]
    assert sorted(on_ray[1].splitlines()) == sorted(local[1].splitlines())


def test_compare_on_ray_gives_the_local_figures_and_intervals(
        ray_session: Any, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", *FLAGS, RUN_A, RUN_B, "--resamples", "200", "--format", "json"]
    local = printed(capsys, argv)
    on_ray = printed(capsys, [*argv, "--engine", "ray"])
    assert (on_ray[0], local[0]) == (0, 0)
    got, want = json.loads(on_ray[1]), json.loads(local[1])
    # Figures and bootstrap intervals are the local run's; fields and flipped records
    # come in another order (a distributed run has no gold order: docs/distributed.md).
    assert_same(got["overall"], want["overall"])
    assert_same(sorted(got["fields"], key=lambda f: f["field"]),
                sorted(want["fields"], key=lambda f: f["field"]))
    assert_same(sorted(unindexed(got["flips"]), key=json.dumps),
                sorted(unindexed(want["flips"]), key=json.dumps))


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
