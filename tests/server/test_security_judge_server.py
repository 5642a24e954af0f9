"""Opening a hostile folder in the editor must not send the user's API key anywhere
(issue 11): the language server takes judge endpoints only from the user's settings.

Each test runs a real HTTP server on 127.0.0.1 and a real LSP client (pytest-lsp)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_helpers import SERVER, span
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from judge_listener import Listener, hold_until_closed

KEY = "sk-test-0123456789abcdef-SECRET"
LOCAL_KEY = "local-key-42"
_HOME = tempfile.mkdtemp(prefix="evalschema-judge-home-")
ENV = {**os.environ, "OPENAI_API_KEY": KEY, "LOCAL_JUDGE_KEY": LOCAL_KEY,
       # the default profile points nowhere: a run that used it fails at once
       "EVALSCHEMA_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
       "XDG_CONFIG_HOME": str(Path(_HOME) / "config"),
       "XDG_CACHE_HOME": str(Path(_HOME) / "cache")}
ENV.pop("OPENAI_BASE_URL", None)
ENV.pop("EVALSCHEMA_JUDGE_API_KEY", None)
FINISHED = "evalschema/runFinished"
GOLD = [{"id": "1", "purpose": "working capital"}, {"id": "2", "purpose": "acquisitions"}]
EXT = [{"id": "1", "purpose": "general working capital"}, {"id": "2", "purpose": "a merger"}]


def workspace(folder: Path, compare: dict[str, Any]) -> dict[str, Path]:
    """A suite whose ``purpose`` field is judged by ``compare``, with an evalschema.toml."""
    folder.mkdir(parents=True)
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"},
        "purpose": {"type": "string", "x-eval-compare": {"semantic": compare}}}}
    paths = {"schema": folder / "loans.eval.json", "gold": folder / "loans.gold.jsonl",
             "extracted": folder / "loans.run1.extracted.jsonl"}
    paths["schema"].write_text(json.dumps(schema, indent=2) + "\n")
    paths["gold"].write_text("".join(json.dumps(r) + "\n" for r in GOLD))
    paths["extracted"].write_text("".join(json.dumps(r) + "\n" for r in EXT))
    (folder / "evalschema.toml").write_text(
        '[[suite]]\nname = "loans"\nschema = "loans.eval.json"\ngold = "loans.gold.jsonl"\n'
        'extracted = ["loans.*.extracted.jsonl"]\n')
    return paths


@pytest.fixture
def listener() -> Iterator[Listener]:
    got = Listener().start()
    yield got
    got.close()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    finished: list[Any] = []
    lsp_client.feature(FINISHED)(lambda params: finished.append(params))
    lsp_client.feature("evalschema/runStarted")(lambda params: None)
    lsp_client.finished = finished  # type: ignore[attr-defined]
    yield lsp_client
    await lsp_client.shutdown_session()


async def boot(client: LanguageClient, folder: Path, options: dict[str, Any] | None) -> None:
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=folder.as_uri(),
        initialization_options=options))


async def until(what: str, check: Any, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def diags(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    return list(client.diagnostics.get(path.as_uri(), []))


async def test_a_schema_endpoint_gets_nothing_and_is_shown_at_its_key(
        client: LanguageClient, listener: Listener, tmp_path: Path) -> None:
    """The reproduction: on initialize alone (runs on startup are on by default)."""
    ws = workspace(tmp_path / "hostile", {"base_url": listener.url, "model": "x"})
    await boot(client, ws["schema"].parent, None)
    await until("the startup run", lambda: client.finished)  # type: ignore[attr-defined]
    found = await until("the schema's diagnostic", lambda: [
        d for d in diags(client, ws["schema"]) if d.code == "judge-endpoint-in-schema"])
    text = ws["schema"].read_text()
    assert [d.range for d in found] == [span(text, '"base_url"')]
    assert "EVALSCHEMA_JUDGE_BASE_URL" in found[0].message
    # and with the schema open, the schema check marks the same key
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        ws["schema"].as_uri(), "json", 1, text)))
    await until("the open schema's diagnostic", lambda: [
        d for d in diags(client, ws["schema"]) if d.code == "judge-endpoint-in-schema"
        and d.source == "evalschema"])
    await asyncio.sleep(0.5)
    assert listener.connections == 0 and listener.requests == []


async def test_workspace_configuration_cannot_choose_the_endpoint(
        client: LanguageClient, listener: Listener, tmp_path: Path) -> None:
    """A client may answer workspace/configuration from the folder's own settings file."""
    ws = workspace(tmp_path / "hostile", {"cache": False})
    client.set_configuration({"judge": {"baseUrl": listener.url, "apiKeyEnv": "OPENAI_API_KEY",
                                        "profiles": {"default": {"baseUrl": listener.url}}}},
                             section="evalschema")
    await boot(client, ws["schema"].parent, {"workspaceTrusted": True,
                                             "judge": {"retries": 0}})
    await until("the startup run", lambda: client.finished)  # type: ignore[attr-defined]
    # a settings change makes the server pull the configuration again
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    await asyncio.sleep(1.0)
    await until("the semantic fields' results", lambda: [
        d for d in diags(client, ws["extracted"]) if d.code == "batch_error"])
    assert listener.connections == 0 and listener.requests == []


async def test_a_profile_in_user_settings_reaches_its_endpoint_with_its_key(
        client: LanguageClient, listener: Listener, tmp_path: Path) -> None:
    ws = workspace(tmp_path / "mine", {"judge": "local", "cache": False})
    await boot(client, ws["schema"].parent, {"workspaceTrusted": True, "judge": {"profiles": {
        "local": {"baseUrl": listener.url, "model": "llama-3",
                  "apiKeyEnv": "LOCAL_JUDGE_KEY"}}}})
    await until("the startup run", lambda: client.finished)  # type: ignore[attr-defined]
    assert [r.path for r in listener.requests] == ["/v1/chat/completions"] * 2
    assert {r.headers["authorization"] for r in listener.requests} == {f"Bearer {LOCAL_KEY}"}
    assert {r.json["model"] for r in listener.requests} == {"llama-3"}
    [mismatch] = [d for d in diags(client, ws["extracted"]) if d.code == "mismatch"]
    assert mismatch.range.start.line == 1
    assert not [d for d in diags(client, ws["schema"]) if d.severity == 1]


async def test_an_untrusted_workspace_never_asks_the_judge(
        client: LanguageClient, listener: Listener, tmp_path: Path) -> None:
    """The user's own profile, but a folder the user has not trusted: opening it must not
    send the folder's data with the user's key (at the user's cost)."""
    ws = workspace(tmp_path / "theirs", {"judge": "local", "cache": False})
    await boot(client, ws["schema"].parent, {"judge": {"profiles": {"local": {
        "baseUrl": listener.url, "apiKeyEnv": "LOCAL_JUDGE_KEY"}}}})
    await until("the startup run", lambda: client.finished)  # type: ignore[attr-defined]
    found = await until("the semantic fields' results", lambda: [
        d for d in diags(client, ws["extracted"]) if d.code == "batch_error"])
    assert "workspace you have not trusted" in found[0].message
    assert "workspaceTrusted" in found[0].message
    assert listener.connections == 0 and listener.requests == []


async def test_an_unknown_profile_is_shown_at_its_value(
        client: LanguageClient, listener: Listener, tmp_path: Path) -> None:
    ws = workspace(tmp_path / "mine", {"judge": "fast"})
    await boot(client, ws["schema"].parent, None)
    found = await until("the schema's diagnostic", lambda: [
        d for d in diags(client, ws["schema"]) if d.code == "unknown-judge-profile"])
    # a run's schema problems are marked on the key (the open schema's check marks the value)
    assert [d.range for d in found] == [span(ws["schema"].read_text(), '"judge"')]


async def test_cancel_closes_a_hanging_judge_and_the_server_keeps_answering(
        client: LanguageClient, listener: Listener, tmp_path: Path) -> None:
    listener.behaviour = hold_until_closed
    ws = workspace(tmp_path / "mine", {"judge": "local", "cache": False, "timeout": 120})
    await boot(client, ws["schema"].parent, {"runOnStartup": False, "workspaceTrusted": True,
                                             "judge": {"profiles": {"local": {
                                                 "baseUrl": listener.url,
                                                 "apiKeyEnv": "LOCAL_JUDGE_KEY"}}}})
    request = asyncio.ensure_future(client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
            "evalschema.server.runSuite", [{"suite": "loans"}]), msg_id="run-to-cancel"))
    await until("the judge to be asked", lambda: listener.requests)
    listed = await asyncio.wait_for(client.workspace_execute_command_async(
        types.ExecuteCommandParams("evalschema.server.listSuites", [{}])), 30)
    assert [s["name"] for s in listed["suites"]] == ["loans"]
    # Answered while the judge still holds its request: the server did not wait for it.
    assert not listener.closed_by_client.is_set() and not request.done(), \
        "the server waited for the judge"
    client.cancel_request(types.CancelParams(id="run-to-cancel"))
    with pytest.raises(Exception):  # noqa: B017 - JsonRpcRequestCancelled
        await asyncio.wait_for(request, 30)
    # The judge's own timeout is 120 s: a connection closed well before it was closed by
    # the cancel.
    assert await asyncio.to_thread(listener.closed_by_client.wait, 30), \
        "the judge request outlived the cancel"
    assert len(listener.requests) == 1
