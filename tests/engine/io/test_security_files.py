"""Issue 11, "nothing the user owns is lost": every attack from the issue, against the CLI
(``main([...])`` in process, as the other CLI tests do).

Lone surrogates in a schema or in extracted data, a failure in the middle of a write,
``-o`` naming an input or a symbolic link out of its folder, NaN and infinite numbers in
schemas and data, control characters and ANSI escapes in keys and values.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalschema.cli.main import main
from evalschema.errors import SchemaError
from evalschema.io import atomicwrite
from evalschema.safetext import finite, for_document, for_json, json_text, one_line
from evalschema.schema.tree import check_eval_schema, parse_eval_schema

SCHEMA = {
    "type": "object",
    "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "total": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}},
    },
}
GOLD = [{"id": "r1", "name": "Acme", "total": 10.0}, {"id": "r2", "name": "Beta", "total": 5}]
# Raw JSON text: a lone surrogate escape in a value and in a key (json.dumps cannot write it).
EXTRACTED_SURROGATE = ('{"id": "r1", "name": "Ac\\ud800me", "total": 10.0}\n'
                       '{"id": "r2", "name": "Beta", "total": 5, "k\\udc00": 1}\n')
# ANSI escapes: clear the screen, set the window title, a fake line, a C1 CSI.
HOSTILE_KEY = "evil\x1b[2J\x1b]0;pwned\x07\nFAKE: all thresholds met\r\x9b31m"
EXTRACTED_ANSI = [{"id": "r1", "name": "Acme\x1b[31m", "total": 10.0, HOSTILE_KEY: 1},
                  {"id": "r2\x1b[1A", "name": "Beta", "total": 5}]

#: Any control character a terminal acts on (C0 but tab/newline, DEL, C1).
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "schema.eval.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    _jsonl(tmp_path / "gold.jsonl", GOLD)
    _jsonl(tmp_path / "ext.jsonl", GOLD)
    (tmp_path / "surrogate.jsonl").write_text(EXTRACTED_SURROGATE, encoding="utf-8")
    _jsonl(tmp_path / "ansi.jsonl", EXTRACTED_ANSI)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


EVAL = ("eval", "schema.eval.json", "--gold", "gold.jsonl")


# -- lone surrogates ------------------------------------------------------------------------


def test_annotate_in_place_keeps_a_schema_with_a_lone_surrogate(suite: Path, capsys: Any) -> None:
    path = suite / "s.json"
    text = '{"type": "object", "properties": {"na\\ud800me": {"type": "string"}}}\n'
    path.write_text(text, encoding="utf-8")
    code, _out, err = run(capsys, "annotate", path, "--in-place")
    assert code == 2
    assert path.read_text(encoding="utf-8") == text
    assert "lone-surrogate" in err
    assert "#/properties/na\\ud800me" in err
    assert [p.name for p in suite.iterdir() if p.name.startswith(".s.json")] == []


def test_annotate_to_stdout_refuses_a_lone_surrogate_too(suite: Path, capsys: Any) -> None:
    (suite / "s.json").write_text('{"type": "object", "properties": {"a": {"const": "\\udfff"}}}',
                                  encoding="utf-8")
    code, out, err = run(capsys, "annotate", "s.json")
    assert (code, out) == (2, "")
    assert "s.json#/properties/a/const: error lone-surrogate" in err


@pytest.mark.parametrize("fmt", ["json", "html", "markdown", "junit", "table"])
def test_surrogates_in_extracted_data_give_a_valid_report(suite: Path, capsys: Any,
                                                          fmt: str) -> None:
    target = suite / f"report.{fmt}"
    target.write_text("the previous report\n", encoding="utf-8")
    code, _out, err = run(capsys, *EVAL, "--extracted", "surrogate.jsonl", "--format", fmt,
                         "-o", target)
    assert code == 0, err
    assert "lone surrogate" in err and "warning" in err
    raw = target.read_bytes()
    text = raw.decode("utf-8")  # strict: the file is valid UTF-8
    if fmt == "json":
        (doc,) = json.loads(text)["runs"]
        fields = [r for rec in doc["records"] for r in rec["field_results"]]
        assert "Ac\ud800me" in {r["extracted"] for r in fields}
        assert "k\udc00" in {r["path"] for r in fields}
    else:
        assert "\\udc00" in text
    if fmt == "junit":
        ET.fromstring(raw)


def test_surrogate_report_to_stdout_does_not_crash(suite: Path, capsys: Any) -> None:
    code, out, err = run(capsys, *EVAL, "--extracted", "surrogate.jsonl", "--format", "json")
    assert code == 0 and "lone surrogate(s)" in err
    assert json.loads(out)["runs"][0]["total_records"] == 2
    code, out, err = run(capsys, *EVAL, "--extracted", "surrogate.jsonl")
    assert code == 0 and "k\\udc00" in out and "lone surrogate" in err


def test_a_failed_write_leaves_the_previous_report_intact(suite: Path, capsys: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    target = suite / "report.json"
    target.write_text('{"previous": true}\n', encoding="utf-8")
    os.chmod(target, 0o640)
    real_fsync = os.fsync

    def fail(fd: int) -> None:  # the disk fills up after part of the report is written
        real_fsync(fd)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    code, _out, err = run(capsys, *EVAL, "--extracted", "ext.jsonl", "--format", "json",
                         "-o", target)
    assert code == 2
    assert "unwritable-file" in err and "No space left on device" in err
    assert target.read_text(encoding="utf-8") == '{"previous": true}\n'
    assert sorted(p.name for p in suite.iterdir()) == sorted(
        ["schema.eval.json", "gold.jsonl", "ext.jsonl", "surrogate.jsonl", "ansi.jsonl",
         "report.json"])
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert run(capsys, *EVAL, "--extracted", "ext.jsonl", "--format", "json", "-o", target)[0] == 0
    assert json.loads(target.read_text(encoding="utf-8"))["runs"][0]["total_records"] == 2
    assert target.stat().st_mode & 0o777 == 0o640  # the file's mode is kept


def test_writer_removes_its_temporary_file_when_interrupted(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old", encoding="utf-8")

    def interrupted(src: Any, dst: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomicwrite.write_text(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_writer_encodes_before_touching_anything(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        atomicwrite.write_text(target, "a\ud800b")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


#: Writes ``argv[1]`` through the atomic writer; prints what happened.
_WRITE_AS_USER = """
import sys
from evalschema.io import atomicwrite
try:
    atomicwrite.write_text(sys.argv[1], "new")
    print("written")
except PermissionError:
    print("refused")
"""


def test_writer_keeps_a_read_only_file() -> None:
    """A file the user made read-only is refused as a plain write would refuse it, though
    the rename into a writable folder would replace it. Root may write any file, so under
    root (CI) the write runs as the unprivileged user ``nobody`` (setpriv)."""
    folder = Path(tempfile.mkdtemp(prefix="evalschema-ro-"))
    try:
        os.chmod(folder, 0o777)  # the folder is writable: only the file's mode protects it
        target = folder / "out.txt"
        target.write_text("old", encoding="utf-8")
        cmd = [sys.executable, "-c", _WRITE_AS_USER, str(target)]
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            assert setpriv, "setpriv (util-linux) is needed to drop root for this test"
            os.chown(target, 65534, 65534)
            cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
        os.chmod(target, 0o444)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        assert proc.stdout.strip() == "refused", proc.stdout + proc.stderr
        assert target.read_text(encoding="utf-8") == "old"
        assert [p.name for p in folder.iterdir()] == ["out.txt"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_writer_writes_a_new_file_with_the_usual_mode(tmp_path: Path) -> None:
    target = tmp_path / "new.txt"
    atomicwrite.write_text(target, "hello")
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_text(encoding="utf-8") == "hello"
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


# -- -o never overwrites an input ------------------------------------------------------------


@pytest.mark.parametrize("which", ["gold.jsonl", "ext.jsonl", "schema.eval.json",
                                   "./sub/../gold.jsonl"])
def test_output_refuses_an_input_of_the_run(suite: Path, capsys: Any, which: str) -> None:
    (suite / "sub").mkdir()
    before = {p.name: digest(p) for p in suite.iterdir() if p.is_file()}
    for extra in (("--format", "json"), ("--format", "table"),
                  ("--metric", "lynxius.json_diff"), ("--metric", "lynxius.json_diff",
                                                      "--format", "json")):
        code, _out, err = run(capsys, *EVAL, "--extracted", "ext.jsonl", *extra, "-o", which)
        assert code == 2, extra
        assert "output-is-input" in err
        assert {p.name: digest(p) for p in suite.iterdir() if p.is_file()} == before


def test_output_refuses_a_hard_link_to_an_input(suite: Path, capsys: Any) -> None:
    os.link(suite / "gold.jsonl", suite / "alias.jsonl")
    before = digest(suite / "gold.jsonl")
    code, _, err = run(capsys, *EVAL, "--extracted", "ext.jsonl", "-o", "alias.jsonl")
    assert code == 2 and "output-is-input" in err
    assert digest(suite / "gold.jsonl") == before


def test_output_refuses_the_config_file_and_configured_inputs(suite: Path, capsys: Any) -> None:
    (suite / "evalschema.toml").write_text(
        '[[suite]]\nname = "s"\nschema = "schema.eval.json"\ngold = "gold.jsonl"\n'
        'extracted = ["ext.jsonl"]\n', encoding="utf-8")
    before = {p.name: digest(p) for p in suite.iterdir() if p.is_file()}
    for target in ("evalschema.toml", "gold.jsonl", "ext.jsonl", "schema.eval.json"):
        code, _, err = run(capsys, "eval", "--format", "json", "-o", target)
        assert code == 2, target
        assert f"{target}: error output-is-input" in err
        code, _, err = run(capsys, "compare", "ext.jsonl", "ext.jsonl", "--suite", "s",
                           "-o", target)
        assert code == 2 and "output-is-input" in err
    assert {p.name: digest(p) for p in suite.iterdir() if p.is_file()} == before


def test_output_refuses_a_file_inside_a_gold_folder(suite: Path, capsys: Any) -> None:
    folder = suite / "goldset"
    folder.mkdir()
    for k, rec in enumerate(GOLD):
        (folder / f"{k}.json").write_text(json.dumps(rec), encoding="utf-8")
    code, _, err = run(capsys, "eval", "schema.eval.json", "--gold", "goldset", "--extracted",
                       "ext.jsonl", "-o", folder / "report.json")
    assert code == 2 and "output-is-input" in err
    assert sorted(p.name for p in folder.iterdir()) == ["0.json", "1.json"]


def test_infer_refuses_to_overwrite_its_gold(suite: Path, capsys: Any) -> None:
    before = digest(suite / "gold.jsonl")
    code, _, err = run(capsys, "infer", "gold.jsonl", "-o", "gold.jsonl")
    assert code == 2 and "output-is-input" in err
    assert digest(suite / "gold.jsonl") == before


def test_output_does_not_follow_a_symlink_out_of_its_folder(suite: Path, tmp_path_factory: Any,
                                                            capsys: Any) -> None:
    outside = tmp_path_factory.mktemp("home") / ".bashrc"
    outside.write_text("export PATH=/usr/bin\n", encoding="utf-8")
    (suite / "report.md").symlink_to(outside)
    code, _, err = run(capsys, *EVAL, "--extracted", "ext.jsonl", "--format", "markdown",
                       "-o", "report.md")
    assert code == 2
    assert "report.md: error output-symlink" in err and "--force" in err
    assert outside.read_text(encoding="utf-8") == "export PATH=/usr/bin\n"
    # a dangling link out of the folder is refused too (it would create the file there)
    (suite / "new.md").symlink_to(outside.parent / "authorized_keys")
    assert run(capsys, *EVAL, "--extracted", "ext.jsonl", "-o", "new.md")[0] == 2
    assert not (outside.parent / "authorized_keys").exists()
    # --force: the user means it; the link is kept and its file written
    code, _, err = run(capsys, *EVAL, "--extracted", "ext.jsonl", "--format", "markdown",
                       "-o", "report.md", "--force")
    assert code == 0, err
    assert (suite / "report.md").is_symlink()
    assert outside.read_text(encoding="utf-8").startswith("## ext.jsonl")


def test_a_symlink_inside_the_folder_is_followed(suite: Path, capsys: Any) -> None:
    (suite / "reports").mkdir()
    (suite / "latest.md").symlink_to(suite / "reports" / "r1.md")
    code, _, err = run(capsys, *EVAL, "--extracted", "ext.jsonl", "--format", "markdown",
                       "-o", "latest.md")
    assert code == 0, err
    assert (suite / "latest.md").is_symlink()
    assert (suite / "reports" / "r1.md").read_text(encoding="utf-8").startswith("## ext.jsonl")


def test_a_symlink_to_an_input_is_refused_even_when_forced(suite: Path, capsys: Any) -> None:
    (suite / "out.json").symlink_to(suite / "gold.jsonl")
    before = digest(suite / "gold.jsonl")
    code, _, err = run(capsys, *EVAL, "--extracted", "ext.jsonl", "-o", "out.json", "--force")
    assert code == 2 and "output-is-input" in err
    assert digest(suite / "gold.jsonl") == before


def test_annotate_in_place_does_not_follow_a_symlink_out_of_its_folder(
        suite: Path, tmp_path_factory: Any, capsys: Any) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "schema.json"
    text = '{"type": "object", "properties": {"a": {"type": "string"}}}\n'
    outside.write_text(text, encoding="utf-8")
    (suite / "linked.eval.json").symlink_to(outside)
    code, _, err = run(capsys, "annotate", "linked.eval.json", "--in-place")
    assert code == 2 and "output-symlink" in err
    assert outside.read_text(encoding="utf-8") == text
    code, _, err = run(capsys, "annotate", "linked.eval.json", "--in-place", "--force")
    assert code == 0, err
    assert json.loads(outside.read_text(encoding="utf-8"))["properties"]["a"][
        "x-eval-compare"] == "exact"
    assert (suite / "linked.eval.json").is_symlink()


# -- NaN and Infinity -------------------------------------------------------------------------


@pytest.mark.parametrize("node, pointer", [
    ({"type": "number", "x-eval-weight": float("nan")}, "/properties/v/x-eval-weight"),
    ({"type": "number", "x-eval-weight": float("inf")}, "/properties/v/x-eval-weight"),
    ({"type": "number", "x-eval-threshold": float("nan")}, "/properties/v/x-eval-threshold"),
    ({"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": float("inf")}}}},
     "/properties/v/x-eval-compare/numeric/tolerance/abs"),
    ({"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": float("nan")}}}},
     "/properties/v/x-eval-compare/numeric/tolerance/rel"),
    ({"type": "string", "x-eval-compare": {"levenshtein": {"threshold": float("nan")}}},
     "/properties/v/x-eval-compare/levenshtein/threshold"),
    ({"type": "string", "x-eval-transform": [{"round_digits": {"digits": float("-inf")}}]},
     "/properties/v/x-eval-transform/0/round_digits/digits"),
])
def test_non_finite_numbers_in_a_schema_are_located_errors(node: dict[str, Any],
                                                           pointer: str) -> None:
    schema = {"type": "object", "properties": {"v": node}}
    found = [p for p in check_eval_schema(schema).problems if p.code == "not-finite"]
    assert [(p.pointer, str(p.severity)) for p in found] == [(pointer, "error")]
    assert "finite" in found[0].message
    with pytest.raises(SchemaError):
        parse_eval_schema(schema)


def test_nan_and_1e999_from_schema_text_are_errors_on_the_command_line(suite: Path,
                                                                        capsys: Any) -> None:
    (suite / "nan.eval.json").write_text(
        '{"type": "object", "properties": {"a": {"type": "number", "x-eval-weight": NaN},\n'
        '"b": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 1e999}}}},\n'
        '"c": {"type": "number", "x-eval-threshold": -Infinity}}}', encoding="utf-8")
    code, out, _ = run(capsys, "check", "nan.eval.json")
    assert code == 2
    assert "nan.eval.json#/properties/a/x-eval-weight: error not-finite" in out
    assert "nan.eval.json#/properties/b/x-eval-compare/numeric/tolerance/abs: error not-finite" \
        in out
    assert "nan.eval.json#/properties/c/x-eval-threshold: error not-finite" in out
    code, _, err = run(capsys, "eval", "nan.eval.json", "--gold", "gold.jsonl", "--extracted",
                       "ext.jsonl")
    assert code == 2 and "not-finite" in err


def test_json_output_has_no_bare_nan_or_infinity(suite: Path, capsys: Any) -> None:
    (suite / "nan.jsonl").write_text(
        '{"id": "r1", "name": "Acme", "total": NaN}\n{"id": "r2", "name": "Beta", "total": '
        '1e999, "extra": -Infinity}\n', encoding="utf-8")
    for argv in ([*EVAL, "--extracted", "nan.jsonl", "--format", "json"],
                 [*EVAL, "--extracted", "nan.jsonl", "--format", "json", "--no-records"],
                 ["compare", "--schema", "schema.eval.json", "--gold", "gold.jsonl", "ext.jsonl",
                  "nan.jsonl", "--format", "json"],
                 ["eval", "schema.eval.json", "--gold", "gold.jsonl", "--extracted", "nan.jsonl",
                  "--metric", "lynxius.json_diff", "--format", "json"]):
        code, out, err = run(capsys, *argv)
        assert code == 0, err

        def refuse(name: str) -> None:
            raise AssertionError(f"bare {name} in JSON output")

        json.loads(out, parse_constant=refuse)
    (doc,) = json.loads(run(capsys, *EVAL, "--extracted", "nan.jsonl", "--format", "json")[1])[
        "runs"]
    values = {(r["path"], r["extracted"]) for rec in doc["records"] for r in rec["field_results"]}
    assert {("total", "NaN"), ("total", "Infinity"), ("extra", "-Infinity")} <= values


def test_finite_and_json_helpers() -> None:
    assert finite({"a": [float("nan"), float("inf"), -float("inf"), 1.5], "b": (2,)}) == {
        "a": ["NaN", "Infinity", "-Infinity", 1.5], "b": [2]}
    assert for_json('"a\ud800\x9b\u202e"') == ('"a\\ud800\\u009b\\u202e"', 1)
    assert json.loads(for_json(json.dumps("x\udfff", ensure_ascii=False))[0]) == "x\udfff"


# -- terminal output ---------------------------------------------------------------------------


def test_escape_helpers() -> None:
    assert one_line("a\x1b[2J\nb\tc\r\x9b\u202e\x7f") == "a\\x1b[2J\\nb\\tc\\r\\x9b\\u202e\\x7f"
    assert one_line("plain ünïcode ✓") == "plain ünïcode ✓"
    assert for_document("line 1\n\tline 2\x1b[0m\ud800") == ("line 1\n\tline 2\\x1b[0m\\ud800", 1)


@pytest.mark.parametrize("fmt", ["table", "markdown", "junit", "html", "json"])
def test_ansi_escapes_in_keys_and_values_never_reach_the_terminal(suite: Path, capsys: Any,
                                                                  fmt: str) -> None:
    code, out, err = run(capsys, *EVAL, "--extracted", "ansi.jsonl", "--format", fmt)
    assert code == 0, err
    assert not RAW_CONTROL.search(out), RAW_CONTROL.findall(out)
    assert not RAW_CONTROL.search(err)
    assert "FAKE: all thresholds met" not in [ln.strip() for ln in out.splitlines()]
    if fmt == "table":
        assert "evil\\x1b[2J\\x1b]0;pwned\\x07\\nFAKE: all thresholds met\\r\\x9b31m" in out
    if fmt == "junit":
        root = ET.fromstring(out.encode("utf-8"))
        names = [c.get("name") for c in root.iter("testcase")]
        assert "evil\\x1b[2J\\x1b]0;pwned\\x07\\nFAKE: all thresholds met\\r\\x9b31m" in names
    if fmt == "json":
        assert HOSTILE_KEY in {r["path"] for rec in json.loads(out)["runs"][0]["records"]
                               for r in rec["field_results"]}


def test_ansi_escapes_in_messages_and_thresholds_are_neutralised(suite: Path, capsys: Any) -> None:
    code, out, err = run(capsys, *EVAL, "--extracted", "ansi.jsonl", "--threshold",
                         f"{HOSTILE_KEY}=1")
    assert code == 2
    assert "unknown-field" in err
    assert not RAW_CONTROL.search(err) and "\nFAKE" not in err
    (suite / "bad\x1b[2J.eval.json").write_text('{"type": "object", "properties": {"a\\u001b[2J": '
                                               '{"x-eval-compare": "levenshtien\\u001b]0;x\\u0007"}}}',
                                               encoding="utf-8")
    code, out, err = run(capsys, "check", "bad\x1b[2J.eval.json")
    assert code == 2
    assert not RAW_CONTROL.search(out + err)
    assert "unknown-comparator" in out


def test_record_ids_in_record_problems_stay_on_one_line(suite: Path, capsys: Any) -> None:
    """The table's "record ID: problem" lines: an id holding a newline prints no line of
    its own."""
    rid = "x\nFAKE: all thresholds met\x1b[2J"
    _jsonl(suite / "g_nl.jsonl", [{"id": rid, "name": "A"}])
    _jsonl(suite / "e_nl.jsonl", [{"id": rid, "name": "A"}, {"id": rid, "name": "A"}])
    code, out, err = run(capsys, "eval", "schema.eval.json", "--gold", "g_nl.jsonl",
                         "--extracted", "e_nl.jsonl")
    assert code == 0, err
    assert "  record x\\nFAKE: all thresholds met\\x1b[2J: duplicate id" in out
    assert not any(ln.lstrip().startswith("FAKE") for ln in out.splitlines()), out
    assert not RAW_CONTROL.search(out + err)


def test_compare_table_neutralises_labels_and_record_ids(suite: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "compare", "--schema", "schema.eval.json", "--gold", "gold.jsonl",
                         "ext.jsonl", "ansi.jsonl", "--label", "a\x1b[2J", "--label", "b\nFAKE")
    assert code == 0, err
    assert not RAW_CONTROL.search(out + err)
    assert "a\\x1b[2J" in out and "b\\nFAKE" in out


def test_junit_with_control_characters_is_well_formed(suite: Path, capsys: Any) -> None:
    target = suite / "eval.xml"
    weird = {"id": "r1", "name": "x", "total": 10.0, "k\x00\x01\x0b\x1b\ufffe": 1}
    _jsonl(suite / "weird.jsonl", [weird])
    code, _, err = run(capsys, *EVAL, "--extracted", "weird.jsonl", "--format", "junit", "-o",
                       target, "--threshold", "total=1")
    assert code in (0, 1), err
    root = ET.parse(target).getroot()
    assert "k\\x00\\x01\\x0b\\x1b\\ufffe" in [c.get("name") for c in root.iter("testcase")]


def test_progress_bar_shows_a_hostile_file_name_inert() -> None:
    import io

    from evalschema.cli.progress import ProgressBar

    class TTY(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = TTY()
    with ProgressBar("scoring run\x1b]0;pwned\x07[bold red]x[/].jsonl", 5000, enabled=True,
                     stream=stream) as bar:
        bar.update(10)
    shown_text = stream.getvalue()
    assert "\x1b]0;pwned" not in shown_text and "\x07" not in shown_text
    assert "run\\x1b]0;pwned\\x07[bold red]x[/].jsonl" in shown_text


def test_output_to_dev_stdout_streams_into_a_pipe(suite: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "evalschema", *EVAL, "--extracted",
                           "ext.jsonl", "--format", "json", "-o", "/dev/stdout"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runs"][0]["total_records"] == 2
    assert "Traceback" not in done.stderr


# -- the escaping helpers, on any text ----------------------------------------------------------

ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=20)


@given(ANY_TEXT)
def test_one_line_and_documents_hold_nothing_a_terminal_acts_on(text: str) -> None:
    line = one_line(text)
    assert not RAW_CONTROL.search(line) and "\n" not in line and "\t" not in line
    doc, n = for_document(text)
    assert not RAW_CONTROL.search(doc)
    doc.encode("utf-8")  # strict: no lone surrogate is left
    assert n == sum(0xD800 <= ord(c) <= 0xDFFF for c in text)
    assert doc.count("\n") == text.count("\n")


@given(JSON_VALUES)
def test_json_text_is_json_that_reads_back_the_same(value: Any) -> None:
    text, _ = for_json(json_text(value))
    text.encode("utf-8")
    assert not RAW_CONTROL.search(text)

    def refuse(name: str) -> None:
        raise AssertionError(name)

    assert json.loads(text, parse_constant=refuse) == finite(value)  # NaN is a string here
