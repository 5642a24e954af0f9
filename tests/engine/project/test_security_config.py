"""A configuration from someone else's repository cannot name files outside its folder
or make a glob walk the whole disk (issue 11): absolute paths and '..' are located
errors, symlinks leading out are refused, globs are bounded and never follow symlinked
folders. The language server reads configurations with the same loader."""

from __future__ import annotations

import glob
import json
import os
import time
from pathlib import Path

import pytest

from evalschema.project.bounded_glob import bounded_glob
from evalschema.project.config import load_config, parse_config

SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}}


def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "runs" / "deep").mkdir(parents=True)
    (proj / "s.eval.json").write_text(json.dumps(SCHEMA))
    (proj / "gold.jsonl").write_text('{"a": "x"}\n')
    (proj / "runs" / "m1.jsonl").write_text('{"a": "x"}\n')
    (proj / "runs" / "deep" / "m2.jsonl").write_text('{"a": "y"}\n')
    (tmp_path / "outside.jsonl").write_text('{"a": "secret"}\n')
    return proj


def config(proj: Path, *, schema: str = "s.eval.json", gold: str = "gold.jsonl",
           extracted: str = '["runs/*.jsonl"]') -> list[tuple[str, str]]:
    text = (f'[[suite]]\nname = "s"\nschema = "{schema}"\ngold = "{gold}"\n'
            f"extracted = {extracted}\n")
    (proj / "evalschema.toml").write_text(text)
    loaded = load_config(proj / "evalschema.toml")
    return [(p.code, p.pointer) for p in loaded.problems]


def test_a_plain_config_still_loads(tmp_path: Path) -> None:
    proj = project(tmp_path)
    assert config(proj, extracted='["runs/**/*.jsonl"]') == []
    loaded = load_config(proj / "evalschema.toml")
    assert loaded.config is not None
    assert loaded.config.suites[0].extracted == (proj / "runs" / "deep" / "m2.jsonl",
                                                 proj / "runs" / "m1.jsonl")


def test_root_glob_is_refused_at_once(tmp_path: Path) -> None:
    """``/**/*.jsonl`` walked the whole disk and stopped the server answering initialize."""
    proj = project(tmp_path)
    started = time.monotonic()
    assert config(proj, extracted='["/**/*.jsonl"]') == [
        ("path-outside-config", "/suite/0/extracted/0")]
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("key, value", [
    ("schema", "/etc/passwd"),
    ("gold", "../outside.jsonl"),
    ("gold", "~/gold.jsonl"),
    ("extracted", '["../*.jsonl"]'),
    ("extracted", '"../outside.jsonl"'),
])
def test_absolute_and_parent_paths_are_located_errors(tmp_path: Path, key: str,
                                                      value: str) -> None:
    proj = project(tmp_path)
    got = config(proj, **{key: value})
    pointer = "/suite/0/extracted/0" if value.startswith("[") else f"/suite/0/{key}"
    assert ("path-outside-config", pointer) in got
    loaded = load_config(proj / "evalschema.toml")
    problem = next(p for p in loaded.problems if p.code == "path-outside-config")
    assert problem.line is not None
    assert "command line" in (problem.suggestion or "")


def test_symlinks_leading_out_are_refused(tmp_path: Path) -> None:
    proj = project(tmp_path)
    (proj / "link.jsonl").symlink_to(tmp_path / "outside.jsonl")
    assert ("path-outside-config", "/suite/0/gold") in config(proj, gold="link.jsonl")
    (proj / "runs" / "out").symlink_to(tmp_path, target_is_directory=True)
    (proj / "runs" / "evil.jsonl").symlink_to(tmp_path / "outside.jsonl")
    assert config(proj, extracted='["runs/**/*.jsonl"]') == [
        ("path-outside-config", "/suite/0/extracted/0")]
    found, capped = bounded_glob(proj, "runs/**/*.jsonl", 1000, 1000)
    assert capped is None
    assert all("outside" not in str(f) for f in found)  # the linked folder is not walked
    # nor when the pattern names it before its first wildcard
    assert bounded_glob(proj, "runs/out/*.jsonl", 1000, 1000) == ([], None)
    assert config(proj, extracted='["runs/out/*.jsonl"]') == [
        ("no-match", "/suite/0/extracted/0")]


def test_devices_and_fifos_are_refused(tmp_path: Path) -> None:
    proj = project(tmp_path)
    os.mkfifo(proj / "fifo.jsonl")
    assert ("not-a-file", "/suite/0/gold") in config(proj, gold="fifo.jsonl")


def test_glob_caps_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proj = project(tmp_path)
    for i in range(30):
        (proj / "runs" / f"r{i}.jsonl").write_text('{"a": "x"}\n')
    monkeypatch.setenv("EVALSCHEMA_GLOB_MAX_ENTRIES", "10")
    loaded = parse_config('[[suite]]\nname = "s"\nschema = "s.eval.json"\ngold = "gold.jsonl"\n'
                          'extracted = ["runs/**/*.jsonl"]\n', proj / "evalschema.toml")
    (problem,) = loaded.problems
    assert problem.code == "glob-limit"
    assert "visited more than 10 entries" in problem.message
    monkeypatch.setenv("EVALSCHEMA_GLOB_MAX_ENTRIES", "1000")
    monkeypatch.setenv("EVALSCHEMA_GLOB_MAX_FILES", "5")
    loaded = parse_config('[[suite]]\nname = "s"\nschema = "s.eval.json"\ngold = "gold.jsonl"\n'
                          'extracted = ["runs/*.jsonl"]\n', proj / "evalschema.toml")
    (problem,) = loaded.problems
    assert problem.code == "glob-limit" and "matched more than 5 files" in problem.message


def test_a_shallow_glob_does_not_walk_subfolders(tmp_path: Path) -> None:
    """``*.jsonl`` looks at one folder: a big tree below it costs nothing and does not
    exhaust the entry budget."""
    proj = project(tmp_path)
    for i in range(50):
        (proj / "runs" / "deep" / f"r{i}.jsonl").write_text("{}\n")
    found, capped = bounded_glob(proj, "*.jsonl", 20, 1000)
    assert (found, capped) == ([proj / "gold.jsonl"], None)
    found, capped = bounded_glob(proj, "runs/*.jsonl", 20, 1000)
    assert (found, capped) == ([proj / "runs" / "m1.jsonl"], None)


@pytest.mark.parametrize("pattern", [
    "runs/*.jsonl", "runs/**/*.jsonl", "**/*.jsonl", "runs/*/*.jsonl", "runs/m?.jsonl",
    "runs/[m]1.jsonl", "*.jsonl", "runs/**", "**/deep/*.jsonl", "runs/.hidden/*.jsonl",
    "runs/*",
])
def test_bounded_glob_matches_glob(tmp_path: Path, pattern: str) -> None:
    proj = project(tmp_path)
    (proj / "runs" / ".hidden").mkdir()
    (proj / "runs" / ".hidden" / "h.jsonl").write_text("{}\n")
    (proj / "runs" / ".dot.jsonl").write_text("{}\n")
    want = sorted(p for p in glob.glob(str(proj / pattern), recursive=True)
                  if os.path.isfile(p))
    got, capped = bounded_glob(proj, pattern, 10_000, 10_000)
    assert capped is None
    assert [str(p) for p in got] == want


def test_a_configuration_that_is_a_fifo_or_too_large_is_refused_unread(tmp_path: Path) -> None:
    """Opening a FIFO blocks until a writer comes; the loader must answer at once."""
    fifo = tmp_path / "evalschema.toml"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    loaded = load_config(fifo)
    assert time.monotonic() - t0 < 5
    assert loaded.config is None
    [problem] = loaded.problems
    assert problem.code == "unreadable-file" and "not a regular file" in problem.message
    big = tmp_path / "big.toml"
    with big.open("wb") as f:
        f.truncate(17 * 2**20)  # sparse: costs no disk
    [problem] = load_config(big).problems
    assert problem.code == "unreadable-file" and "over the limit" in problem.message
