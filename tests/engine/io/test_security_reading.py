"""Hostile files are read into located problems or scored outcomes, never a traceback
(issue 11): integers past Python's conversion limit, invalid UTF-8 in one line, a BOM,
duplicate keys, and OSError on any input. CLI runs are real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from evalschema import InputError, Status, evaluate
from evalschema.io.records import load_json, load_records

SCHEMA = {"type": "object", "properties": {"c": {"type": "integer"}, "s": {"type": "string"}}}
BIG = "1" * 5000
BAD_LINE = b'{"c": 2, "s": "\xff\xfe"}\n'
GOLD3 = b'{"c": 1, "s": "a"}\n{"c": 2, "s": "x"}\n{"c": 3, "s": "b"}\n'


def cli(tmp: Path, *argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalschema", *map(str, argv)], capture_output=True, text=True,
        timeout=60, cwd=tmp, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (tmp_path / "g3.jsonl").write_bytes(GOLD3)
    (tmp_path / "e_utf.jsonl").write_bytes(b'{"c": 1, "s": "a"}\n' + BAD_LINE
                                           + b'{"c": 3, "s": "b"}\n')
    (tmp_path / "big.json").write_text('[{"c": ' + BIG + "}]", encoding="utf-8")
    (tmp_path / "big.jsonl").write_text('{"c": 1}\n{"c": ' + BIG + "}\n", encoding="utf-8")
    return tmp_path


def assert_located(proc: subprocess.CompletedProcess[str], text: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert text in proc.stderr, proc.stderr


# -- integers past the conversion limit ----------------------------------------------


def test_big_int_in_gold_array_is_located(files: Path) -> None:
    """A JSON-array gold file with a 5,000-digit integer was a ValueError traceback, exit 1."""
    proc = cli(files, "eval", "s.json", "--gold", "big.json", "--extracted", "g3.jsonl")
    assert_located(proc, "big.json:1:8: error number-too-long:")


def test_big_int_in_gold_line_is_located(files: Path) -> None:
    proc = cli(files, "eval", "s.json", "--gold", "big.jsonl", "--extracted", "g3.jsonl")
    assert_located(proc, "big.jsonl:2:7: error number-too-long:")


def test_big_int_in_schema_and_infer(files: Path) -> None:
    (files / "bigschema.json").write_text('{"type": "object", "maxProperties": ' + BIG + "}")
    assert_located(cli(files, "check", "bigschema.json"), "bigschema.json:1:37: error "
                   "number-too-long")
    assert_located(cli(files, "infer", "big.json"), "number-too-long")


def test_big_int_in_extracted_is_an_unreadable_record(files: Path) -> None:
    run = evaluate(files / "g3.jsonl", files / "big.jsonl", SCHEMA)
    assert run.records[0].problem is None
    assert run.records[1].problem == ("unreadable extracted record: an integer has more than "
                                      "4,300 digits, more than Python reads")


# -- invalid UTF-8 in one line -------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_invalid_utf8_line_in_extracted_loses_only_that_record(files: Path,
                                                               stream: bool) -> None:
    run = evaluate(files / "g3.jsonl", files / "e_utf.jsonl", SCHEMA, keep_records=True,
                   stream=stream)
    problems = [r.problem for r in run.records]
    assert problems == [None, "unreadable extracted record: line is not UTF-8 (byte 0xff at "
                        "column 16)", None]
    assert [f.status for f in run.records[2].field_results] == [Status.MATCH, Status.MATCH]


def test_invalid_utf8_line_paired_by_id(files: Path) -> None:
    schema = {**SCHEMA, "x-eval-id": "c"}
    run = evaluate(files / "g3.jsonl", files / "e_utf.jsonl", schema)
    assert sum(r.counts.matches for r in run.records) == 4
    assert any(r.problem and "not UTF-8" in r.problem for r in run.records)


def test_invalid_utf8_cli_eval_scores_the_rest(files: Path) -> None:
    proc = cli(files, "eval", "s.json", "--gold", "g3.jsonl", "--extracted", "e_utf.jsonl",
               "--format", "json")
    assert proc.returncode == 0, proc.stderr
    (doc,) = json.loads(proc.stdout)["runs"]
    assert doc["total_matches"] == 4
    assert "not UTF-8" in doc["records"][1]["problem"]


def test_invalid_utf8_in_gold_is_located(files: Path) -> None:
    """Gold must be readable: a located problem naming line and column, exit 2."""
    proc = cli(files, "eval", "s.json", "--gold", "e_utf.jsonl", "--extracted", "g3.jsonl")
    assert_located(proc, "e_utf.jsonl:2:16: error not-utf8: line is not UTF-8: byte 0xff")


def test_invalid_utf8_in_extracted_folder_and_array(files: Path) -> None:
    folder = files / "runs"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(b'{"c": 1, "s": "a"}\n' + BAD_LINE)
    recs = load_records(folder, strict=False)
    assert [r.unparsed for r in recs] == [False, True]
    (files / "arr.json").write_bytes(b'[{"c": 1, "s": "\xff"}]')
    with pytest.raises(InputError) as info:
        load_records(files / "arr.json")
    assert info.value.problems[0].code == "not-utf8"


def test_invalid_utf8_schema_is_located(files: Path) -> None:
    (files / "bad.json").write_bytes(b'{"type": "object",\n "title": "\xe9"}')
    proc = cli(files, "check", "bad.json")
    assert_located(proc, "bad.json:2:12: error not-utf8")


# -- BOM -------------------------------------------------------------------------------


def test_bom_schema_and_data_are_accepted(files: Path) -> None:
    bom = b"\xef\xbb\xbf"
    (files / "bom.json").write_bytes(bom + json.dumps(SCHEMA).encode())
    (files / "bomg.jsonl").write_bytes(bom + GOLD3)
    (files / "bomg.json").write_bytes(bom + b"[" + GOLD3.replace(b"\n", b",")[:-1] + b"]")
    assert cli(files, "check", "bom.json").returncode == 0
    assert load_json(files / "bom.json") == SCHEMA
    for gold in ("bomg.jsonl", "bomg.json"):
        proc = cli(files, "eval", "bom.json", "--gold", gold, "--extracted", "g3.jsonl",
                   "--format", "json")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["runs"][0]["total_matches"] == 6


# -- OSError on inputs ---------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ("check", "adir"),
    ("eval", "adir", "--gold", "g3.jsonl", "--extracted", "g3.jsonl"),
    ("eval", "s.json", "--gold", "g3.jsonl/x", "--extracted", "g3.jsonl"),
    ("eval", "s.json", "--gold", "g3.jsonl", "--extracted", "g3.jsonl/x"),
    ("eval", "s.json", "--gold", "gone.jsonl", "--extracted", "g3.jsonl"),
    ("infer", "g3.jsonl/x"),
    ("compare", "--schema", "s.json", "--gold", "g3.jsonl", "g3.jsonl", "g3.jsonl/x"),
])
def test_oserror_inputs_are_located(files: Path, argv: tuple[str, ...]) -> None:
    (files / "adir").mkdir()
    proc = cli(files, *argv)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert "error " in proc.stderr


def test_api_oserror_is_input_error(files: Path) -> None:
    with pytest.raises(InputError) as info:
        evaluate(files / "g3.jsonl" / "x", files / "g3.jsonl", SCHEMA)
    assert info.value.problems[0].code == "unreadable-file"
    with pytest.raises(InputError) as info:
        evaluate(files / "g3.jsonl", files / "g3.jsonl", str(files))
    assert info.value.problems[0].message == "schema is a folder"


# -- $ref confinement ----------------------------------------------------------------


def ref_problems(tmp: Path, ref: str, **extra: Any) -> list[Any]:
    from evalschema.schema.resolve import resolve

    main = tmp / "proj" / "main.eval.json"
    main.parent.mkdir(exist_ok=True)
    schema = {"type": "object", "properties": {"a": {"$ref": ref}}}
    main.write_text(json.dumps(schema))
    return resolve(schema, base_uri=str(main)).problems


def test_ref_inside_the_schema_folder_still_works(tmp_path: Path) -> None:
    sub = tmp_path / "proj" / "defs"
    sub.mkdir(parents=True)
    (sub / "money.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({"type": "number"}).encode())
    assert ref_problems(tmp_path, "defs/money.json") == []


@pytest.mark.parametrize("ref, code", [
    ("/dev/zero", "ref-outside-root"),
    ("/dev/stdin", "ref-outside-root"),
    ("file:///proc/self/environ", "ref-outside-root"),
    ("../secret.json", "ref-outside-root"),
    ("link.json", "ref-outside-root"),
    ("fifo.json", "ref-not-a-file"),
    ("folder.json", "ref-not-a-file"),
    ("huge.json", "ref-too-large"),
    ("broken.json", "ref-invalid-json"),
    ("missing.json", "ref-unresolvable"),
])
def test_ref_outside_root_or_not_a_regular_file_is_a_located_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ref: str, code: str) -> None:
    """A hostile $ref could hang on a FIFO or /dev/stdin, exhaust memory on /dev/zero, or
    copy /proc or the user's files into reports. Run in a subprocess: a regression hangs."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (tmp_path / "secret.json").write_text('{"type": "string", "description": "secret"}')
    (proj / "link.json").symlink_to(tmp_path / "secret.json")
    os.mkfifo(proj / "fifo.json")
    (proj / "folder.json").mkdir()
    (proj / "huge.json").write_text('{"type": "string", "description": "' + "x" * 2000 + '"}')
    (proj / "broken.json").write_text("{")
    (proj / "main.eval.json").write_text(json.dumps(
        {"type": "object", "properties": {"a": {"$ref": ref}}}))
    proc = subprocess.run(
        [sys.executable, "-m", "evalschema", "check", "--format", "json", "main.eval.json"],
        capture_output=True, text=True, timeout=60, cwd=proj,
        env={**os.environ, "EVALSCHEMA_REF_MAX_BYTES": "1000"})
    assert proc.returncode == 2, proc.stderr
    (problem,) = json.loads(proc.stdout)
    assert problem["code"] == code
    assert problem["pointer"] == "/properties/a/$ref"
    assert "secret" not in proc.stdout.replace("secret.json", "")


def test_a_schema_without_a_path_refs_no_file(tmp_path: Path) -> None:
    """A schema given as data (the API, the editor's unsaved text) has no folder to confine
    its $refs to: it reads no file at all, even by a file: URI."""
    from evalschema import check_eval_schema

    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "string", "description": "secret-42"}')
    schema = {"type": "object", "properties": {"a": {"$ref": secret.as_uri()}}}
    problems = check_eval_schema(schema).problems
    assert [(p.code, p.pointer) for p in problems] == [("ref-outside-root",
                                                        "/properties/a/$ref")]
    assert "secret-42" not in repr(problems)


# -- duplicate keys ------------------------------------------------------------------


def test_duplicate_keys_in_schema_are_located_warnings(files: Path) -> None:
    (files / "dup.json").write_text('{"type": "object",\n "properties": {"a": {"type": '
                                    '"string"}},\n "type": "array"}\n')
    proc = cli(files, "check", "--format", "json", "dup.json")
    assert proc.returncode == 0, proc.stderr  # a warning alone
    (problem,) = json.loads(proc.stdout)
    assert problem["code"] == "duplicate-key"
    assert problem["severity"] == "warning"
    assert (problem["line"], problem["column"], problem["pointer"]) == (3, 2, "/type")
    assert problem["data"] == {"first": [1, 2]}
    assert "the last value is used" in problem["message"]


def test_duplicate_keys_in_gold_warn_and_last_wins(files: Path) -> None:
    (files / "dupg.jsonl").write_text('{"c": 1, "s": "a"}\n  {"c": 1, "s": "a", "c": 2}\n')
    (files / "e.jsonl").write_text('{"c": 1, "s": "a"}\n{"c": 2, "s": "a"}\n')
    proc = cli(files, "eval", "s.json", "--gold", "dupg.jsonl", "--extracted", "e.jsonl",
               "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["runs"][0]["total_matches"] == 4  # gold c is 2: the last value
    warnings = [ln for ln in proc.stderr.splitlines() if "duplicate-key" in ln]
    assert warnings == [
        "dupg.jsonl:2:22#/c: warning duplicate-key: key 'c' appears twice in one object "
        "(first at line 2, column 4); the last value is used (remove one of them)"]


def test_duplicate_keys_api_warning_with_nested_pointer(files: Path) -> None:
    from evalschema.errors import ProblemWarning

    (files / "g.json").write_text('[{"c": 1, "s": "a"},\n {"c": 2, "s": {"x": 1, "x": 2}}]')
    with pytest.warns(ProblemWarning) as caught:
        recs = load_records(files / "g.json")
    assert recs[1].value == {"c": 2, "s": {"x": 2}}
    (w,) = caught
    problem = w.message.problem  # type: ignore[union-attr]
    assert (problem.pointer, problem.line, problem.column) == ("/1/s/x", 2, 25)


def test_duplicate_keys_in_a_huge_file_stay_cheap(files: Path) -> None:
    """Locating duplicates scans text in Python: past 4 MB only the keys are named, and
    at most 20 warnings are raised per file."""
    from evalschema.errors import ProblemWarning

    pad = "x" * 100
    records = ",".join(f'{{"c": {i}, "s": "{pad}", "k{i % 30}": 1, "k{i % 30}": 2}}'
                       for i in range(40_000))
    (files / "big.json").write_text("[" + records + "]")
    started = time.monotonic()
    with pytest.warns(ProblemWarning) as caught:
        recs = load_records(files / "big.json")
    assert time.monotonic() - started < 20
    assert len(recs) == 40_000
    messages = [str(w.message) for w in caught]
    assert len(messages) == 21
    assert messages[-1].endswith("… and 10 more duplicate keys")
    assert "key 'k0' appears twice in one object; the last value is used" in messages[0]


# -- records folders -----------------------------------------------------------------


@pytest.mark.parametrize("role", ["gold", "extracted"])
def test_a_fifo_in_a_records_folder_is_located_not_read(files: Path, role: str) -> None:
    """A FIFO named like a record file in a folder of outputs blocked the run forever on
    open (run in a subprocess: a regression hangs until the timeout)."""
    folder = files / "outs"
    folder.mkdir()
    (folder / "a.json").write_text('{"c": 1, "s": "a"}', encoding="utf-8")
    os.mkfifo(folder / "b.json")
    (folder / "sub.json").mkdir()  # a folder named like a file is not a record: skipped
    other = "g3.jsonl"
    args = (["--gold", "outs", "--extracted", other] if role == "gold"
            else ["--gold", other, "--extracted", "outs"])
    proc = cli(files, "eval", "s.json", *args)
    assert_located(proc, f"{Path('outs') / 'b.json'}: error not-a-file:")


def test_a_records_folder_skips_subfolders_and_reads_its_files(files: Path) -> None:
    folder = files / "outs"
    folder.mkdir()
    (folder / "a.json").write_text('{"c": 1, "s": "a"}', encoding="utf-8")
    (folder / "nested.jsonl").mkdir()
    from evalschema.io.records import folder_files

    assert folder_files(folder) == [folder / "a.json"]


def test_a_duplicate_key_warning_shows_control_characters_inert(files: Path) -> None:
    """The key is the data's: an ANSI escape in it must not reach the terminal raw."""
    (files / "dup.jsonl").write_text('{"c": 1, "s": "a", "\\u001b[2J": 1, "\\u001b[2J": 2}\n'
                                     '{"c": 2, "s": "x"}\n{"c": 3, "s": "b"}\n',
                                     encoding="utf-8")
    proc = cli(files, "eval", "s.json", "--gold", "dup.jsonl", "--extracted", "g3.jsonl")
    assert "duplicate-key" in proc.stderr, proc.stderr
    assert "\x1b" not in proc.stderr
    assert "\\x1b[2J" in proc.stderr
