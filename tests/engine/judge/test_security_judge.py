"""Attacks on the LLM judge (issue 11): a hostile schema or project file cannot choose
where the user's API key and data go; the HTTP client bounds every request.

Every test runs a real HTTP server on 127.0.0.1 (``judge_listener``)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from judge_listener import Listener, Seen, drip, hold_until_closed, judge_answer, send

from evalschema import SchemaError, check_eval_schema, evaluate
from evalschema.cli.main import main
from evalschema.judge import (
    JudgeLimits,
    JudgeProfile,
    JudgeSettings,
    cancellation,
    configured_judges,
)
from evalschema.judge.client import reset_breakers

KEY = "sk-test-0123456789abcdef-SECRET"

GOLD = [{"id": "1", "purpose": "working capital"}, {"id": "2", "purpose": "acquisitions"}]
EXT = [{"id": "1", "purpose": "general working capital"}, {"id": "2", "purpose": "a merger"}]


def schema(**params: Any) -> dict[str, Any]:
    return {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"},
        "purpose": {"type": "string", "x-eval-compare": {"semantic": {"cache": False,
                                                                      **params}}}}}


@pytest.fixture(autouse=True)
def user_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A clean user: no judges.toml, no judge variables, an empty cache; the key is set."""
    for var in ("EVALSCHEMA_JUDGE_BASE_URL", "OPENAI_BASE_URL", "EVALSCHEMA_JUDGE_MODEL",
                "EVALSCHEMA_JUDGE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    reset_breakers()
    assert configured_judges() is None
    yield tmp_path
    assert configured_judges() is None  # the CLI leaves no settings behind


def settings(url: str, **limits: Any) -> JudgeSettings:
    """The user's settings: the default profile at ``url`` with the key."""
    base = {"backoff": 0.01, "max_backoff": 0.05}
    return JudgeSettings((JudgeProfile("default", url, "judge-1", KEY, "OPENAI_API_KEY"),),
                         JudgeLimits(**{**base, **limits}))


def judged(run: Any) -> list[tuple[str, str | None]]:
    return [(str(r.status), r.reason) for rec in run.records for r in rec.field_results
            if r.comparator == "semantic"]


# -- the exfiltration attack ---------------------------------------------------------

@pytest.mark.parametrize("key", ["base_url", "api_key_env"])
def test_schema_endpoint_is_a_located_error_and_nothing_is_sent(listener: Listener,
                                                                 key: str) -> None:
    value = listener.url if key == "base_url" else "OPENAI_API_KEY"
    with pytest.raises(SchemaError) as info:
        evaluate(GOLD, EXT, schema(**{key: value}))
    (problem,) = info.value.problems
    assert problem.code == "judge-endpoint-in-schema"
    assert problem.pointer == f"/properties/purpose/x-eval-compare/semantic/{key}"
    assert problem.target == "key"
    assert "EVALSCHEMA_JUDGE_BASE_URL" in (problem.suggestion or "")
    assert "judges.toml" in (problem.suggestion or "")
    time.sleep(0.2)
    assert listener.connections == 0 and listener.requests == []


def test_cli_eval_refuses_the_schema_endpoint(listener: Listener, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.eval.json").write_text(json.dumps(schema(base_url=listener.url)))
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOLD))
    (tmp_path / "e.jsonl").write_text("".join(json.dumps(r) + "\n" for r in EXT))
    code = main(["eval", str(tmp_path / "s.eval.json"), "--gold", str(tmp_path / "g.jsonl"),
                 "--extracted", str(tmp_path / "e.jsonl")])
    err = capsys.readouterr().err
    assert code == 2
    assert ("s.eval.json#/properties/purpose/x-eval-compare/semantic/base_url: error "
            "judge-endpoint-in-schema") in err
    assert listener.connections == 0


def test_project_file_endpoint_is_a_located_error(listener: Listener, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.eval.json").write_text(json.dumps(schema()))
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOLD))
    (tmp_path / "e.jsonl").write_text("".join(json.dumps(r) + "\n" for r in EXT))
    (tmp_path / "evalschema.toml").write_text(
        f'base_url = "{listener.url}"\n[[suite]]\nname = "s"\nschema = "s.eval.json"\n'
        f'gold = "g.jsonl"\nextracted = ["e.jsonl"]\napi_key_env = "OPENAI_API_KEY"\n')
    monkeypatch.chdir(tmp_path)
    code = main(["eval"])
    err = capsys.readouterr().err
    assert code == 2
    assert "evalschema.toml:1:1#/base_url: error judge-endpoint-in-config" in err
    assert "evalschema.toml:7:1#/suite/0/api_key_env: error judge-endpoint-in-config" in err
    assert listener.connections == 0


def test_judge_tables_in_a_project_file_say_how_to_configure_the_judge(
        tmp_path: Path) -> None:
    """Profiles belong in the user's judges.toml: a [judges] table or a suite's judge key
    in evalschema.toml is refused with the way to do it, not as an unknown key."""
    from evalschema.project.config import parse_config

    loaded = parse_config(
        '[judges.local]\nbase_url = "http://127.0.0.1:9/v1"\n[[suite]]\nname = "s"\n'
        'schema = "s.eval.json"\ngold = "g.jsonl"\nextracted = ["e.jsonl"]\n'
        'judge = "local"\n', tmp_path / "evalschema.toml")
    got = [(p.code, p.pointer) for p in loaded.problems
           if p.pointer in ("/judges", "/suite/0/judge")]
    assert got == [("judge-endpoint-in-config", "/judges"),
                   ("judge-endpoint-in-config", "/suite/0/judge")]
    assert all("judges.toml" in (p.suggestion or "") for p in loaded.problems
               if p.code == "judge-endpoint-in-config")


def test_unknown_profile_is_a_located_error(listener: Listener) -> None:
    problems = check_eval_schema(schema(judge="fast")).problems
    assert [(p.code, p.pointer, p.target) for p in problems] == [
        ("unknown-judge-profile", "/properties/purpose/x-eval-compare/semantic/judge", "value")]
    assert "known profiles: default" in (problems[0].suggestion or "")


def test_a_profile_in_the_user_file_reaches_its_endpoint_with_its_key(
        listener: Listener, user_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    decoy = Listener().start()  # the default profile: must not be asked
    try:
        monkeypatch.setenv("EVALSCHEMA_JUDGE_BASE_URL", decoy.url)
        monkeypatch.setenv("LOCAL_JUDGE_KEY", "local-key-42")
        (user_env / "config" / "evalschema").mkdir(parents=True)
        (user_env / "config" / "evalschema" / "judges.toml").write_text(
            f'[profiles.local]\nbase_url = "{listener.url}"\nmodel = "llama-3"\n'
            'api_key_env = "LOCAL_JUDGE_KEY"\n')
        run = evaluate(GOLD, EXT, schema(judge="local"))
        assert [s for s, _ in judged(run)] == ["match", "mismatch"]
        assert decoy.connections == 0
        assert [r.path for r in listener.requests] == ["/v1/chat/completions"] * 2
        assert {r.headers["authorization"] for r in listener.requests} == {"Bearer local-key-42"}
        assert listener.requests[0].json["model"] == "llama-3"
    finally:
        decoy.close()


def test_disabled_settings_ask_nobody(listener: Listener) -> None:
    """What the language server binds in a workspace the user has not trusted: every
    semantic field is a batch_error with the reason, and no connection is made."""
    off = replace(settings(listener.url), disabled="the judge is off here")
    run = evaluate(GOLD, EXT, schema(), judges=off)
    assert judged(run) == [("batch_error", "JudgeError: the judge is off here")] * 2
    assert listener.connections == 0
    run = evaluate(GOLD, EXT, schema(), judges=settings(listener.url))
    assert [s for s, _ in judged(run)] == ["match", "mismatch"]


def test_cli_flags_choose_the_endpoint_and_the_key(listener: Listener, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", "flag-key-7")
    (tmp_path / "s.eval.json").write_text(json.dumps(schema()))
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOLD))
    (tmp_path / "e.jsonl").write_text("".join(json.dumps(r) + "\n" for r in EXT))
    code = main(["eval", str(tmp_path / "s.eval.json"), "--gold", str(tmp_path / "g.jsonl"),
                 "--extracted", str(tmp_path / "e.jsonl"), "--judge-base-url", listener.url,
                 "--judge-api-key-env", "MY_JUDGE_KEY", "--judge-model", "m-2",
                 "--format", "json"])
    (out,) = json.loads(capsys.readouterr().out)["runs"]
    assert code == 0
    assert out["total_mismatches"] == 1 and out["total_batch_errors"] == 0
    assert {r.headers["authorization"] for r in listener.requests} == {"Bearer flag-key-7"}
    assert {r.json["model"] for r in listener.requests} == {"m-2"}


# -- the HTTP client -------------------------------------------------------------------

def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(listener: Listener) -> None:
    other = Listener().start()
    try:
        def redirect(lst: Listener, h: BaseHTTPRequestHandler, seen: Seen) -> None:
            send(h, 302, b"", {"Location": other.url + "/chat/completions"})

        listener.behaviour = redirect
        run = evaluate(GOLD[:1], EXT[:1], schema(), judges=settings(listener.url))
        ((status, reason),) = judged(run)
        assert status == "batch_error"
        assert "HTTP 302" in (reason or "") and "follows none" in (reason or "")
        time.sleep(0.2)
        assert other.connections == 0 and other.requests == []
        assert len(listener.requests) == 1  # a redirect is not retried either
    finally:
        other.close()


def test_a_dripping_judge_is_cut_at_the_deadline(listener: Listener) -> None:
    listener.behaviour = drip
    t0 = time.monotonic()
    run = evaluate(GOLD[:1], EXT[:1], schema(timeout=2), judges=settings(listener.url))
    took = time.monotonic() - t0
    ((status, reason),) = judged(run)
    assert status == "batch_error"
    assert "no complete answer within 2 s" in (reason or "")
    assert took < 2 + 3, took
    assert listener.closed_by_client.wait(5)  # the connection was closed, not left dripping


def test_a_hanging_judge_is_cut_at_the_deadline(listener: Listener) -> None:
    listener.behaviour = hold_until_closed
    t0 = time.monotonic()
    run = evaluate(GOLD[:1], EXT[:1], schema(timeout=1.5), judges=settings(listener.url))
    assert time.monotonic() - t0 < 1.5 + 3
    ((status, reason),) = judged(run)
    assert status == "batch_error" and "within 1.5 s" in (reason or "")
    assert listener.closed_by_client.wait(5)


def test_429_is_retried_honouring_retry_after(listener: Listener) -> None:
    def busy_once(lst: Listener, h: BaseHTTPRequestHandler, seen: Seen) -> None:
        if len(lst.requests) == 1:
            send(h, 429, b'{"error": "slow down"}', {"Retry-After": "1"})
        else:
            send(h, 200, judge_answer([1.0]))

    listener.behaviour = busy_once
    t0 = time.monotonic()
    run = evaluate(GOLD[:1], EXT[:1], schema(), judges=settings(listener.url))
    assert judged(run) == [("match", None)]
    assert len(listener.requests) == 2
    assert time.monotonic() - t0 >= 0.9  # Retry-After: 1 was waited out


def test_retry_after_is_bounded(listener: Listener) -> None:
    def busy(lst: Listener, h: BaseHTTPRequestHandler, seen: Seen) -> None:
        if len(lst.requests) == 1:
            send(h, 503, b"", {"Retry-After": "3600"})
        else:
            send(h, 200, judge_answer([1.0]))

    listener.behaviour = busy
    t0 = time.monotonic()
    run = evaluate(GOLD[:1], EXT[:1], schema(), judges=settings(listener.url,
                                                                max_retry_after=0.2))
    assert judged(run) == [("match", None)]
    assert time.monotonic() - t0 < 3


def test_500_is_retried_a_bounded_number_of_times(listener: Listener) -> None:
    listener.behaviour = lambda lst, h, seen: send(h, 500, b'{"error": "boom"}')
    run = evaluate(GOLD[:1], EXT[:1], schema(), judges=settings(listener.url, retries=2))
    ((status, reason),) = judged(run)
    assert status == "batch_error"
    assert reason == 'JudgeError: judge answered HTTP 500: {"error": "boom"} (after 3 attempts)'
    assert len(listener.requests) == 3


def test_a_garbage_answer_is_a_batch_error(listener: Listener) -> None:
    listener.behaviour = lambda lst, h, seen: send(h, 200, b"<html>\x00\x1b[31mnope")
    run = evaluate(GOLD[:1], EXT[:1], schema(), judges=settings(listener.url))
    ((status, reason),) = judged(run)
    assert status == "batch_error"
    assert reason == "JudgeError: judge answer is not JSON: '<html>  [31mnope'"
    assert len(listener.requests) == 1


@pytest.mark.parametrize("where", ["error body", "content"])
def test_a_key_echoed_back_is_redacted_everywhere(listener: Listener, user_env: Path,
                                                  tmp_path: Path, where: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def echo(lst: Listener, h: BaseHTTPRequestHandler, seen: Seen) -> None:
        said = seen.headers["authorization"]
        if where == "error body":
            send(h, 401, json.dumps({"error": f"invalid key {said}"}).encode())
        else:
            send(h, 200, judge_answer([], content=f"I got {said}, no scores for you"))

    listener.behaviour = echo
    run = evaluate(GOLD[:1], EXT[:1], schema(cache=True), judges=settings(listener.url))
    ((status, reason),) = judged(run)
    assert status == "batch_error"
    assert KEY not in (reason or "") and "[redacted]" in (reason or "")
    assert KEY not in json.dumps(run.to_dict())
    # the CLI's reports too, and nothing in the cache
    (tmp_path / "s.eval.json").write_text(json.dumps(schema(cache=True)))
    (tmp_path / "g.jsonl").write_text(json.dumps(GOLD[0]) + "\n")
    (tmp_path / "e.jsonl").write_text(json.dumps(EXT[0]) + "\n")
    for fmt in ("json", "table", "html", "junit", "markdown"):
        main(["eval", str(tmp_path / "s.eval.json"), "--gold", str(tmp_path / "g.jsonl"),
              "--extracted", str(tmp_path / "e.jsonl"), "--judge-base-url", listener.url,
              "--format", fmt, "-o", str(tmp_path / f"report.{fmt}")])
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "report.json" for p in written)
    for p in written:
        assert KEY.encode() not in p.read_bytes(), p
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err


def test_a_key_at_the_edge_of_the_quoted_answer_is_not_cut_in_half(listener: Listener) -> None:
    """An error body is quoted up to a length: the key is redacted before the cut, so no
    prefix of it survives the cut."""
    def echo_late(lst: Listener, h: BaseHTTPRequestHandler, seen: Seen) -> None:
        send(h, 401, ("x" * 140 + seen.headers["authorization"] + "y" * 100).encode())

    listener.behaviour = echo_late
    run = evaluate(GOLD[:1], EXT[:1], schema(), judges=settings(listener.url))
    ((status, reason),) = judged(run)
    assert status == "batch_error" and "HTTP 401" in (reason or "")
    assert KEY[:8] not in (reason or ""), reason
    # a long key (project keys have ~160 characters) behind wide characters: the body is
    # read up to a number of bytes before it is cut to a number of characters
    long_key = "sk-proj-" + "A1b2C3d4" * 20
    listener.behaviour = lambda lst, h, seen: send(h, 401, (
        "\U0001f600" * 130 + seen.headers["authorization"]).encode())
    judges = JudgeSettings((JudgeProfile("default", listener.url, "judge-1", long_key,
                                         "OPENAI_API_KEY"),), settings(listener.url).limits)
    run = evaluate(GOLD[:1], EXT[:1], schema(), judges=judges)
    ((status, reason),) = judged(run)
    assert status == "batch_error" and "HTTP 401" in (reason or "")
    assert long_key[:8] not in (reason or ""), reason
    # the same in an answer whose content holds no JSON (quoted up to 80 characters)
    listener.behaviour = lambda lst, h, seen: send(h, 200, judge_answer(
        [], content="x" * 65 + seen.headers["authorization"]))
    run = evaluate(GOLD[:1], EXT[:1], schema(), judges=settings(listener.url))
    ((status, reason),) = judged(run)
    assert status == "batch_error" and "holds no JSON" in (reason or "")
    assert KEY[:8] not in (reason or ""), reason


def test_messages_name_the_judge_by_its_origin_only(listener: Listener) -> None:
    """A base URL may carry secrets of its own (user info, a tenant in the path): a
    message names the scheme, host and port only."""
    listener.behaviour = hold_until_closed
    port = listener.url.split(":")[2].split("/")[0]
    url = f"http://user:pw-secret-77@127.0.0.1:{port}/v1/tenant-secret-88"
    run = evaluate(GOLD[:1], EXT[:1], schema(timeout=0.5), judges=settings(url))
    ((status, reason),) = judged(run)
    assert status == "batch_error"
    assert f"judge at http://127.0.0.1:{port} gave no complete answer" in (reason or ""), reason
    assert "secret" not in (reason or "")


def test_the_breaker_opens_after_consecutive_failures(listener: Listener) -> None:
    """One request at a time (``concurrency=1``), so the count is in record order."""
    listener.behaviour = lambda lst, h, seen: send(h, 500, b"")
    gold = [{"id": str(i), "purpose": f"p{i}"} for i in range(8)]
    t0 = time.monotonic()
    run = evaluate(gold, gold, schema(), judges=settings(listener.url, retries=0,
                                                         breaker_failures=3, concurrency=1))
    results = judged(run)
    assert [s for s, _ in results] == ["batch_error"] * 8
    assert len(listener.requests) == 3
    assert all("HTTP 500" in (r or "") for _, r in results[:3])
    assert all("circuit breaker open" in (r or "") for _, r in results[3:])
    assert time.monotonic() - t0 < 5


def test_the_breaker_stops_a_window_judged_concurrently(listener: Listener) -> None:
    """Records judged together (``concurrency=4``): the breaker still stops the run's
    requests; only those already in flight when it opened (at most concurrency - 1 past
    the failures that opened it) are made."""
    listener.behaviour = lambda lst, h, seen: send(h, 500, b"")
    gold = [{"id": str(i), "purpose": f"p{i}"} for i in range(40)]
    run = evaluate(gold, gold, schema(), judges=settings(listener.url, retries=0,
                                                         breaker_failures=3, concurrency=4))
    results = judged(run)
    assert [s for s, _ in results] == ["batch_error"] * 40
    assert 3 <= len(listener.requests) <= 3 + 4 - 1
    failed = [r for _, r in results if "HTTP 500" in (r or "")]
    assert len(failed) == len(listener.requests)
    assert sum("circuit breaker open" in (r or "") for _, r in results) == 40 - len(failed)


def test_only_consecutive_failures_open_the_breaker(listener: Listener) -> None:
    """A success in between starts the count again: an endpoint that fails every other
    request is still asked for every record."""
    def every_other(lst: Listener, h: BaseHTTPRequestHandler, seen: Seen) -> None:
        if len(lst.requests) % 2:
            send(h, 500, b"")
        else:
            send(h, 200, judge_answer([1.0]))

    listener.behaviour = every_other
    gold = [{"id": str(i), "purpose": f"p{i}"} for i in range(6)]
    run = evaluate(gold, gold, schema(), judges=settings(listener.url, retries=0,
                                                         breaker_failures=2, concurrency=1))
    assert [s for s, _ in judged(run)] == ["batch_error", "match"] * 3
    assert len(listener.requests) == 6
    assert not any("circuit breaker" in (r or "") for _, r in judged(run))


def test_an_oversized_answer_is_cut_at_the_body_limit(listener: Listener) -> None:
    """A judge cannot fill the process's memory: the answer is read up to ``max_body``."""
    big = judge_answer([1.0]) + b" " * 200_000  # valid JSON, only too long
    listener.behaviour = lambda lst, h, seen: send(h, 200, big)
    run = evaluate(GOLD[:1], EXT[:1], schema(), judges=settings(listener.url,
                                                                max_body=64 * 1024))
    ((status, reason),) = judged(run)
    assert status == "batch_error"
    assert "larger than 65536 bytes" in (reason or "")
    run = evaluate(GOLD[:1], EXT[:1], schema(), judges=settings(listener.url,
                                                                max_body=1024 * 1024))
    assert judged(run) == [("match", None)]


def test_the_breaker_closes_after_its_cooldown(listener: Listener) -> None:
    listener.behaviour = lambda lst, h, seen: send(h, 500, b"")
    judges = settings(listener.url, retries=0, breaker_failures=1, breaker_cooldown=0.3)
    evaluate(GOLD[:1], EXT[:1], schema(), judges=judges)
    listener.behaviour = lambda lst, h, seen: send(h, 200, judge_answer([1.0]))
    assert "circuit breaker open" in (judged(evaluate(GOLD[:1], EXT[:1], schema(),
                                                      judges=judges))[0][1] or "")
    time.sleep(0.4)
    assert judged(evaluate(GOLD[:1], EXT[:1], schema(), judges=judges)) == [("match", None)]


def test_requests_in_flight_are_limited(listener: Listener) -> None:
    def slow(lst: Listener, h: BaseHTTPRequestHandler, seen: Seen) -> None:
        time.sleep(0.3)
        send(h, 200, judge_answer([1.0]))

    listener.behaviour = slow
    judges = settings(listener.url, concurrency=2)
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            g = [{"id": "1", "purpose": f"thing {i}"}]
            assert judged(evaluate(g, g, schema(), judges=judges)) == [("match", None)]
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert len(listener.requests) == 8
    assert listener.max_in_flight == 2


def test_cancel_abandons_the_request_and_closes_the_connection(listener: Listener) -> None:
    listener.behaviour = hold_until_closed
    cancel = threading.Event()
    out: list[Any] = []
    judges = settings(listener.url, breaker_failures=1)

    def run() -> None:
        with cancellation(cancel):
            out.append(evaluate(GOLD[:1], EXT[:1], schema(timeout=60), judges=judges))

    t = threading.Thread(target=run)
    t.start()
    deadline = time.monotonic() + 5
    while not listener.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    t0 = time.monotonic()
    cancel.set()
    t.join(5)
    assert not t.is_alive() and time.monotonic() - t0 < 2
    ((status, reason),) = judged(out[0])
    assert status == "batch_error" and "cancelled" in (reason or "")
    assert listener.closed_by_client.wait(5)
    # a cancelled request is not a failure of the endpoint: with a breaker that opens on
    # the first failure, the next request is still sent
    listener.behaviour = lambda lst, h, seen: send(h, 200, judge_answer([1.0]))
    assert judged(evaluate(GOLD[:1], EXT[:1], schema(), judges=judges)) == [("match", None)]
    assert len(listener.requests) == 2


def test_bad_user_judge_settings_are_located_input_errors(
        user_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.eval.json").write_text(json.dumps(schema()))
    (tmp_path / "g.jsonl").write_text(json.dumps(GOLD[0]) + "\n")
    args = ["eval", str(tmp_path / "s.eval.json"), "--gold", str(tmp_path / "g.jsonl"),
            "--extracted", str(tmp_path / "g.jsonl")]
    assert main([*args, "--judge-base-url", "file:///etc/passwd"]) == 2
    assert "error bad-judge-url: --judge-base-url 'file:///etc/passwd'" in capsys.readouterr().err
    toml = user_env / "config" / "evalschema" / "judges.toml"
    toml.parent.mkdir(parents=True)
    toml.write_text('[profiles.x]\nbase_url = "ftp://h/v1"\n[limits]\nconcurrency = 0\n')
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{toml}#/profiles/x/base_url: error bad-judge-url" in err
    assert f"{toml}#/limits/concurrency: error bad-judge-limit" in err
