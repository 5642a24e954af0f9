"""``.pre-commit-hooks.yaml``: the ``evalschema-check`` hook as pre-commit runs it (its entry,
then the changed files its ``files`` pattern selects) on a good and a broken eval schema."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "invoices.eval.json"


def hook() -> dict[str, object]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [only] = hooks
    assert isinstance(only, dict)
    return only


def run_hook(files: list[Path]) -> subprocess.CompletedProcess[str]:
    """The entry run on ``files`` with this environment's ``evalschema`` first on PATH, as
    pre-commit runs a ``language: python`` hook from the virtualenv it installed."""
    entry = hook()["entry"]
    assert isinstance(entry, str)
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                  os.environ.get("PATH", "")])}
    return subprocess.run([*shlex.split(entry), *map(str, files)], capture_output=True,
                          text=True, env=env, check=False)


def test_the_hook_is_declared_for_eval_schemas() -> None:
    h = hook()
    assert (h["id"], h["language"], h["entry"]) == ("evalschema-check", "python",
                                                   "evalschema check")
    pattern = re.compile(str(h["files"]))
    chosen = [name for name in ("examples/invoices.eval.json", "schemas/a.eval.jsonc",
                                "examples/invoices.gold.jsonl", "evalschema.schema.json",
                                "package.json", "x.eval.json.bak") if pattern.search(name)]
    assert chosen == ["examples/invoices.eval.json", "schemas/a.eval.jsonc"]


def test_the_hook_passes_a_good_schema_and_fails_a_broken_one_with_its_place(
        tmp_path: Path) -> None:
    ok = run_hook([EXAMPLE])
    assert (ok.returncode, ok.stdout) == (0, f"{EXAMPLE}: ok (30 nodes)\n")
    broken = tmp_path / "broken.eval.json"
    broken.write_text(EXAMPLE.read_text(encoding="utf-8").replace(
        '"x-eval-compare": "date"', '"x-eval-compare": "dat"', 1), encoding="utf-8")
    bad = run_hook([EXAMPLE, broken])
    assert bad.returncode == 2
    assert bad.stdout.splitlines() == [
        f"{EXAMPLE}: ok (30 nodes)",
        f"{broken}#/properties/issue_date/x-eval-compare: error unknown-comparator: unknown "
        "comparator 'dat' (did you mean 'date'?)",
    ]
