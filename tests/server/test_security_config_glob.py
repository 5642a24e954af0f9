"""A configuration's glob cannot stall the language server (issue 11): ``/**/*.jsonl`` in
a workspace's ``evalschema.toml`` used to walk the whole disk before ``initialize`` was
answered. The engine's configuration loader refuses it at once, located."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import SERVER
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "s.eval.json").write_text(json.dumps(
        {"type": "object", "properties": {"a": {"type": "string"}}}))
    (proj / "gold.jsonl").write_text('{"a": "x"}\n')
    (proj / "evalschema.toml").write_text(
        '[[suite]]\nname = "evil"\nschema = "s.eval.json"\ngold = "gold.jsonl"\n'
        'extracted = ["/**/*.jsonl"]\n')
    return proj


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[LanguageClient]:
    lsp_client.feature("evalschema/runFinished")(lambda params: None)
    lsp_client.feature("evalschema/runStarted")(lambda params: None)
    started = time.monotonic()
    await asyncio.wait_for(lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=workspace.as_uri())),
        30)
    lsp_client.initialize_seconds = time.monotonic() - started  # type: ignore[attr-defined]
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_root_glob_does_not_stall_initialize(client: LanguageClient,
                                                   workspace: Path) -> None:
    assert client.initialize_seconds < 20  # type: ignore[attr-defined]
    listed = await asyncio.wait_for(client.workspace_execute_command_async(
        types.ExecuteCommandParams("evalschema.server.listSuites")), 20)
    assert all(s["name"] != "evil" for s in listed["suites"])
    uri = (workspace / "evalschema.toml").as_uri()
    for _ in range(200):
        if client.diagnostics.get(uri):
            break
        await asyncio.sleep(0.05)
    codes = {d.code for d in client.diagnostics.get(uri, [])}
    assert "path-outside-config" in codes
