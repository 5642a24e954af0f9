"""``evalschema meta-schema``: the meta-schema the VS Code extension builds, for ``$schema``
in any editor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from jsonschema import Draft7Validator, ValidationError

from evalschema.cli.main import main

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "invoices.eval.json"


def _leaves(errors: Iterable[ValidationError]) -> Iterator[ValidationError]:
    for e in errors:
        yield from _leaves(e.context) if e.context else [e]


def printed(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["meta-schema", *args]) == 0
    return capsys.readouterr().out


def test_the_cli_prints_the_file_the_extension_generates(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The extension's build step (``npm run metaschema``) run as it runs it: the same bytes."""
    out = tmp_path / "dist" / "eval-schema.schema.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO / "engine"), str(REPO / "server"), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "gen_metaschema.py", str(out)], check=True, env=env,
                   cwd=REPO / "vscode-extension" / "scripts")
    assert printed(capsys) == out.read_text(encoding="utf-8")


def test_output_writes_the_same_text(capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path) -> None:
    text = printed(capsys)
    target = tmp_path / "evalschema.schema.json"
    assert main(["meta-schema", "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == text


def test_an_eval_schema_naming_it_validates_and_a_wrong_key_value_is_found(
        capsys: pytest.CaptureFixture[str]) -> None:
    """What a JSON language server does with ``"$schema": "./evalschema.schema.json"``: the
    bundled example is valid; ``x-eval-skip: "yes"`` and an unknown ``match_by`` are not,
    each at its place."""
    meta = json.loads(printed(capsys))
    validator = Draft7Validator(meta)
    schema = {"$schema": "./evalschema.schema.json",
              **json.loads(EXAMPLE.read_text(encoding="utf-8"))}
    assert list(validator.iter_errors(schema)) == []
    schema["properties"]["notes"]["x-eval-skip"] = "yes"
    schema["properties"]["line_items"]["x-eval-align"] = {"match_by": "zip"}
    # Each node is checked as "a node or a boolean" (anyOf): the leaf errors say what is wrong.
    leaves = sorted((list(e.absolute_path), e.message) for e in _leaves(
        validator.iter_errors(schema)) if e.absolute_path and "x-eval" in str(e.absolute_path))
    assert leaves == [
        (["properties", "line_items", "x-eval-align", "match_by"],
         "'zip' is not one of ['hungarian', 'key_field', 'ordered', 'set']"),
        (["properties", "notes", "x-eval-skip"], "'yes' is not of type 'boolean'"),
    ]


def test_the_engine_scores_a_schema_that_names_it(tmp_path: Path) -> None:
    """``$schema`` naming the meta-schema file is no problem for ``check``."""
    schema = {"$schema": "./evalschema.schema.json",
              **json.loads(EXAMPLE.read_text(encoding="utf-8"))}
    path = tmp_path / "invoices.eval.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    assert main(["check", str(path)]) == 0
