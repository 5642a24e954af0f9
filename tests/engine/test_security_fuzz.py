"""Hostile input never escapes as a traceback, never hangs, never writes a file.

Random bytes, random JSON and random eval schemas (every built-in comparator, transform and
alignment with random parameters, hostile ``$ref`` targets, non-finite numbers, lone surrogates,
control characters) go through ``evaluate`` and the ``check``/``eval`` commands. Each example
must end within a wall-clock budget (a timer interrupts a hang, which then fails the example),
with a result or a located ``EvalSchemaError`` (exit 0, 1 or 2 on the command line), and leave
the folder it ran in exactly as it was. The LLM judge is left out: it is tested against local
servers in its own tests, and a fuzz run must not open network connections.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_robustness import time_limit

from evalschema import EvalSchemaError, default_registry, evaluate
from evalschema.cli.main import main

#: Wall-clock budget of one example, generous for a loaded two-core machine.
BUDGET_S = 20.0

#: Duplicate keys in random JSON are reported as warnings (``ProblemWarning``), as they should be.
pytestmark = pytest.mark.filterwarnings("ignore::evalschema.errors.ProblemWarning")

FUZZ = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

COMPARATORS = sorted(n for n, d in default_registry.comparators.items() if not d.is_batch)
TRANSFORMS = sorted(default_registry.transforms)
STRATEGIES = sorted(default_registry.strategies)

#: An integer longer than Python's default int-to-string conversion limit (4,300 digits).
BIG = "9" * 5000

#: Strings an attacker would reach for: controls, ANSI, a lone surrogate, huge, bidi, NUL.
def one_of_these(values: list[Any]) -> st.SearchStrategy[Any]:
    """``sampled_from`` without the values in the strategy's repr (some are 5,000 long)."""
    return st.integers(0, len(values) - 1).map(lambda i: values[i])


NASTY_TEXT = one_of_these([
    "", " ", "\x00", "\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "line\nbreak", "\ud800", "\udfff",
    "\u202e", "\ufeff", "a" * 5000, "(a+)+$", "^(a|a)*$", "💥", "\\", '"', "</script>",
])
TEXT = st.one_of(st.text(max_size=40), NASTY_TEXT)
NUMBERS = st.one_of(
    st.integers(-(10 ** 30), 10 ** 30), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1e308, 1e-320]))
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                     st.dictionaries(TEXT, inner, max_size=5)),
    max_leaves=25)

#: ``$ref`` targets a hostile schema names: devices, FIFOs, /proc, paths out of the project.
HOSTILE_REFS = st.sampled_from([
    "/dev/zero", "/dev/stdin", "file:///dev/zero", "/proc/self/environ", "../../../etc/passwd",
    "/etc/passwd", "#/definitions/missing", "#/$defs/loop", "other.json", "http://127.0.0.1:9/x",
])

PARAMS = st.one_of(st.none(), JSON_VALUES,
                   st.dictionaries(st.sampled_from([
                       "threshold", "tolerance", "abs", "rel", "pattern", "digits", "key",
                       "match_by", "ordered", "scale", "formats", "ignore_case", "max_chars"]),
                       st.one_of(JSON_VALUES, st.fixed_dictionaries(
                           {"abs": NUMBERS, "rel": NUMBERS})), max_size=3))


def _named(names: list[str]) -> st.SearchStrategy[Any]:
    name = st.one_of(st.sampled_from(names), TEXT)
    return st.one_of(name, st.builds(lambda n, p: {n: p}, name, PARAMS))


def _xeval() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional={
        "x-eval-compare": _named(COMPARATORS),
        "x-eval-transform": st.one_of(_named(TRANSFORMS), st.lists(_named(TRANSFORMS),
                                                                   max_size=3)),
        "x-eval-align": st.one_of(JSON_VALUES, st.builds(
            lambda m, k: {"match_by": m, "key": k}, st.sampled_from(STRATEGIES), TEXT)),
        "x-eval-skip": st.one_of(st.booleans(), SCALARS),
        "x-eval-weight": NUMBERS,
        "x-eval-threshold": NUMBERS,
        "x-eval-bogus": SCALARS,
        "$ref": HOSTILE_REFS,
    })


def _with_xeval(base: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda b, x: {**b, **x}, base, _xeval())


LEAF = _with_xeval(st.builds(lambda t: {"type": t}, st.one_of(
    st.sampled_from(["string", "number", "integer", "boolean", "null"]),
    st.lists(st.sampled_from(["string", "number", "null"]), max_size=3), TEXT)))

SCHEMAS: st.SearchStrategy[dict[str, Any]] = st.recursive(
    LEAF, lambda inner: st.one_of(
        _with_xeval(st.builds(lambda props: {"type": "object", "properties": props},
                              st.dictionaries(TEXT, inner, max_size=4))),
        _with_xeval(st.builds(lambda items: {"type": "array", "items": items}, inner)),
        st.builds(lambda alts: {"anyOf": alts}, st.lists(inner, max_size=3)),
    ), max_leaves=10)

ROOTS = st.builds(lambda s, rid: {**s, **({"x-eval-id": rid} if rid is not None else {})},
                  SCHEMAS, st.one_of(st.none(), TEXT))


def _dumps(value: Any) -> str:
    """JSON as an attacker can write it: NaN and Infinity literals, lone surrogates escaped."""
    return json.dumps(value, allow_nan=True)


FILE_BODIES = st.one_of(
    st.binary(max_size=300),
    st.builds(_dumps, JSON_VALUES),
    st.builds(lambda rows: "\n".join(_dumps(r) for r in rows),
              st.lists(JSON_VALUES, max_size=6)),
    st.builds(lambda rows, junk: ("\n".join(_dumps(r) for r in rows) + "\n").encode() + junk,
              st.lists(st.dictionaries(TEXT, JSON_VALUES, max_size=4), max_size=4),
              one_of_these([b"\xff\xfe", b"\xef\xbb\xbf{}", b"{\"a\": 1,}", b"\x00\x01",
                               b"1" * 5000, b"[" * 3000, b"{\"a\":1,\"a\":2}",
                               b'{"a": ' + BIG.encode() + b"}"])),
)


#: Schema texts: random schemas, plus the ones a JSON encoder would never write.
SCHEMA_TEXTS = st.one_of(ROOTS.map(_dumps), one_of_these([
    '{"type": "object", "properties": {"a": {"type": "number", "x-eval-weight": ' + BIG + "}}}",
    '{"type": "object", "properties": {"a": {"type": "number", "x-eval-compare": '
    '{"numeric": {"tolerance": {"abs": 1e999}}}}}}',
    '\ufeff{"type": "object", "properties": {"a": {"type": "string"}}}',
    '{"type": "object", "properties": {"a": {"type": "string"}, "a": {"type": "number"}}}',
    '{"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": '
    '{"regex": {"pattern": "^(a+)+$"}}}}}',
    '{"type": "object", "properties": {"a": {"$ref": "/dev/zero"}}}',
    '{"$ref": "#"}',
]))


def _as_bytes(body: str | bytes) -> bytes:
    return body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass")


def budget(seconds: float = BUDGET_S) -> contextlib.AbstractContextManager[None]:
    """Interrupt the example when it overruns (``TimeoutError``), so a hang fails instead of
    stalling the suite."""
    return time_limit(seconds)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` with a digest of its content (symlinks not followed)."""
    out: dict[str, str] = {}
    for p in sorted(folder.rglob("*")):
        if p.is_symlink() or not p.is_file():
            out[str(p.relative_to(folder))] = "<dir or link>"
        else:
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder, with caches and the judge's settings pointed inside the test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("OPENAI_API_KEY", "EVALSCHEMA_JUDGE_API_KEY", "OPENAI_BASE_URL",
                 "EVALSCHEMA_JUDGE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return project


def _write(folder: Path, name: str, body: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(_as_bytes(body))
    return path


def _no_nan(token: str) -> Any:
    raise AssertionError(f"the JSON output holds a bare {token}")


@FUZZ
@given(schema=SCHEMA_TEXTS, gold=FILE_BODIES, extracted=FILE_BODIES)
def test_evaluate_gives_a_result_or_a_located_error(sandbox: Path, schema: str,
                                                     gold: str | bytes,
                                                     extracted: str | bytes) -> None:
    schema_path = _write(sandbox, "s.eval.json", schema)
    gold_path = _write(sandbox, "gold.jsonl", gold)
    ext_path = _write(sandbox, "ext.jsonl", extracted)
    before = snapshot(sandbox.parent)
    with budget():
        try:
            result = evaluate(str(gold_path), str(ext_path), str(schema_path))
        except EvalSchemaError as exc:
            assert exc.problems, "an input error names at least one located problem"
            for problem in exc.problems:
                assert problem.code and problem.message
        else:
            for value in (result.mean_f1, result.micro_f1):
                assert value is None or 0.0 <= value <= 1.0, value
    assert snapshot(sandbox.parent) == before


@FUZZ
@given(schema=st.one_of(SCHEMA_TEXTS, st.binary(max_size=400)))
def test_check_never_raises_and_writes_nothing(sandbox: Path, schema: str | bytes,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(sandbox, "s.eval.json", schema)
    before = snapshot(sandbox.parent)
    with budget():
        code = main(["check", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 2), (code, err)
    assert "Traceback" not in err
    json.loads(out, parse_constant=_no_nan) if out.strip() else None
    assert snapshot(sandbox.parent) == before


@FUZZ
@given(schema=SCHEMA_TEXTS, gold=FILE_BODIES, extracted=FILE_BODIES,
       fmt=st.sampled_from(["table", "json", "markdown", "junit", "html"]))
def test_eval_command_exits_cleanly_with_valid_output(
        sandbox: Path, schema: str, gold: str | bytes, extracted: str | bytes,
        fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    schema_path = _write(sandbox, "s.eval.json", schema)
    gold_path = _write(sandbox, "gold.jsonl", gold)
    ext_path = _write(sandbox, "ext.jsonl", extracted)
    before = snapshot(sandbox.parent)
    with budget():
        code = main(["eval", str(schema_path), "--gold", str(gold_path), "--extracted",
                     str(ext_path), "--format", fmt, "--no-progress"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in err + out
    assert "\x1b" not in out and "\x1b" not in err, "raw escape sequences reached the terminal"
    if code != 2 and fmt == "json":
        parsed = json.loads(out, parse_constant=_no_nan)
        assert isinstance(parsed, dict)
    if code != 2 and fmt == "junit":
        import xml.etree.ElementTree as ET

        ET.fromstring(out)
    assert snapshot(sandbox.parent) == before


def test_the_budget_interrupts_a_hang() -> None:
    """The guard the tests above rely on: a loop that never ends is cut off and reported."""
    with pytest.raises(TimeoutError), budget(0.2):
        while True:
            math.sqrt(2.0)


def test_the_snapshot_sees_a_write(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    (tmp_path / "x").write_text("1")
    assert snapshot(tmp_path) != before
