"""The semantic (LLM judge) batch comparator against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from evalschema import evaluate


class Judge:
    """A fake chat-completions endpoint with graded scores: the share of the gold's words
    that the extracted value contains (case-insensitive)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.mode = "ok"

    def answer(self, body: dict[str, Any]) -> tuple[int, Any]:
        self.requests.append(body)
        if self.mode == "http500":
            return 500, {"error": "boom"}
        lines = body["messages"][1]["content"].splitlines()
        scores = []
        for line in lines:
            gold, ext = line.split(" | extracted: ")
            g = set(json.loads(gold.split("gold: ", 1)[1]).lower().split())
            e = set(json.loads(ext).lower().split())
            scores.append(len(g & e) / len(g) if g else float(not e))
        if self.mode == "short":
            scores = scores[:-1]
        content = "Sure:\n```json\n" + json.dumps({"scores": scores}) + "\n```"
        return 200, {"choices": [{"message": {"role": "assistant", "content": content}}]}


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[Judge, str]]:
    state = Judge()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            body = json.loads(self.rfile.read(length))
            assert self.path == "/v1/chat/completions"
            assert self.headers["Authorization"] == "Bearer test-key"
            code, payload = state.answer(body)
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("EVALSCHEMA_JUDGE_API_KEY", "test-key")
    monkeypatch.setenv("EVALSCHEMA_JUDGE_BASE_URL", url)  # the user's setting, not the schema's
    fast_retries(tmp_path / "config")
    try:
        yield state, url
    finally:
        server.shutdown()
        server.server_close()


def fast_retries(config_home: Path) -> None:
    """A user judges.toml with short backoffs, so retried failures stay quick."""
    (config_home / "evalschema").mkdir(parents=True, exist_ok=True)
    (config_home / "evalschema" / "judges.toml").write_text(
        "[limits]\nbackoff = 0.01\nmax_backoff = 0.05\n", "utf-8")


def schema(**extra: Any) -> dict[str, Any]:
    """A schema judging two fields semantically (the endpoint is the user's setting, here
    the test's environment: a schema may not hold it)."""
    sem = {"semantic": {"model": "judge-1", **extra}}
    return {"type": "object", "properties": {
        "purpose": {"type": "string", "x-eval-compare": sem},
        "summary": {"type": "string", "x-eval-compare": sem},
        "id": {"type": "string"}}}


GOLD = [{"id": "1", "purpose": "working capital", "summary": "a loan"},
        {"id": "2", "purpose": "acquisitions", "summary": "a bond"}]
EXT = [{"id": "1", "purpose": "general working capital needs", "summary": "equity"},
       {"id": "2", "purpose": "Acquisitions", "summary": "A bond issue"}]


def test_scores_in_one_request_per_record_and_field(judge: tuple[Judge, str]) -> None:
    state, _ = judge
    run = evaluate(GOLD, EXT, schema())
    got = [(r.path, str(r.status)) for rec in run.records for r in rec.field_results]
    assert got == [("purpose", "match"), ("summary", "mismatch"), ("id", "match"),
                   ("purpose", "match"), ("summary", "match"), ("id", "match")]
    assert len(state.requests) == 4
    assert state.requests[0]["model"] == "judge-1"
    assert state.requests[0]["temperature"] == 0


def test_answers_are_cached(judge: tuple[Judge, str]) -> None:
    state, _ = judge
    first = evaluate(GOLD, EXT, schema())
    n = len(state.requests)
    second = evaluate(GOLD, EXT, schema())
    assert len(state.requests) == n
    assert second.mean_f1 == first.mean_f1
    evaluate(GOLD, EXT, schema(cache=False))
    assert len(state.requests) == 2 * n


def test_cached_answers_belong_to_their_endpoint(judge: tuple[Judge, str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Another endpoint (another model server, another judge) is asked afresh, never
    answered from the first one's cache."""
    state, url = judge
    evaluate(GOLD, EXT, schema())
    n = len(state.requests)
    monkeypatch.setenv("EVALSCHEMA_JUDGE_BASE_URL", url.replace("127.0.0.1", "localhost"))
    evaluate(GOLD, EXT, schema())
    assert len(state.requests) == 2 * n


@pytest.mark.parametrize("mode", ["http500", "short"])
def test_judge_failures_are_batch_errors(judge: tuple[Judge, str], mode: str) -> None:
    state, _ = judge
    state.mode = mode
    run = evaluate(GOLD, EXT, schema(cache=False))
    statuses = {str(r.status) for rec in run.records for r in rec.field_results
                if r.comparator == "semantic"}
    assert statuses == {"batch_error"}
    assert run.total_batch_errors == 4
    assert run.mean_f1 == 1.0  # only the id fields count
    reason = run.records[0].field_results[0].reason or ""
    assert ("HTTP 500" in reason) if mode == "http500" else ("gave 0 score(s) for 1 field(s)" in reason)


def test_unreachable_judge_is_batch_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("EVALSCHEMA_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    fast_retries(tmp_path / "config")
    run = evaluate(GOLD[:1], EXT[:1], schema(timeout=2, cache=False))
    r = run.records[0].field_results[0]
    assert str(r.status) == "batch_error"
    assert "unreachable" in (r.reason or "")


@pytest.mark.parametrize(("threshold", "statuses"), [
    (None, ["mismatch", "mismatch"]),  # the default threshold is 1.0
    (0.9, ["mismatch", "mismatch"]),
    (0.6, ["match", "mismatch"]),
    (0.5, ["match", "match"]),
    (0.0, ["match", "match"]),
])
def test_threshold_decides_the_status_of_graded_scores(
        judge: tuple[Judge, str], threshold: float | None, statuses: list[str]) -> None:
    """The judge's graded score is kept as the field's score; the threshold only decides
    whether it counts as a match."""
    del judge
    gold = [{"id": "1", "purpose": "working capital loan", "summary": "a bond"}]
    ext = [{"id": "1", "purpose": "capital loan", "summary": "a"}]  # judged 2/3 and 1/2
    s = schema(cache=False) if threshold is None else schema(threshold=threshold, cache=False)
    results = evaluate(gold, ext, s).records[0].field_results
    judged = [r for r in results if r.comparator == "semantic"]
    assert [r.path for r in judged] == ["purpose", "summary"]
    assert [r.score for r in judged] == pytest.approx([2 / 3, 1 / 2])
    assert [str(r.status) for r in judged] == statuses
