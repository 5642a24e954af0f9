"""End-to-end: settings and lifecycle (server.py): custom comparators, configuration changes,
the project configuration, and garbage in."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import pytest_lsp
from authoring_samples import URI, labels
from lsp_helpers import SERVER, open_and_wait, position
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def custom_client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
                        ):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("project")
    (folder / "my_comparators.py").write_text(
        "from evalschema import register_comparator, register_strategy\n"
        "register_comparator('iban', lambda g, e, p: float(g.replace(' ', '') == "
        "e.replace(' ', '')), doc='IBANs equal ignoring spaces.', types=['string', 'null'])\n"
        "register_strategy('reversed', lambda g, e, p: [], doc='Pairs from opposite ends.')\n")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=folder.as_uri(),
        initialization_options={"comparatorModules": ["my_comparators.py"],
                                "workspaceTrusted": True}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_custom_comparator_from_configuration(custom_client: LanguageClient) -> None:
    text = '{"type": "object", "properties": {"acct": {"type": "string", "x-eval-compare": "iban"}}}'
    assert await open_and_wait(custom_client, URI, text) == []
    result = await custom_client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(URI), position(text, '"iban"', delta=2)))
    assert "iban" in labels(result)


async def test_custom_strategy_from_configuration(custom_client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"xs": {"type": "array", "items": {}, '
            '"x-eval-align": {"match_by": "reversed"}}}}')
    assert await open_and_wait(custom_client, URI, text) == []
    result = await custom_client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(URI), position(text, '"reversed"', delta=1)))
    assert labels(result)[-1] == "reversed"
    hover = await custom_client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(URI), position(text, '"reversed"', delta=3)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Pairs from opposite ends." in hover.contents.value


async def test_configuration_change_takes_effect_without_restart(client: LanguageClient) -> None:
    uri = "file:///tmp/evalschema-tests/rules.schema.json"
    text = '{"type": "object", "x-eval-skp": true}'
    diags = await open_and_wait(client, uri, text)
    assert [d.code for d in diags] == ["unknown-key"]  # recognised by content
    fut = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"evalschema": {"debounceMs": 0, "schemaPatterns": ["*.schema.json"]}}))
    await asyncio.wait_for(fut, 10)
    assert [d.code for d in client.diagnostics[uri]] == ["unknown-key"]


async def test_server_survives_garbage(client: LanguageClient) -> None:
    for text in ["", "{", "[[[[[", '{"a": ', "\x00\ud800", "}" * 50, json.dumps([1] * 5)]:
        await open_and_wait(client, URI, text)
        await client.text_document_completion_async(types.CompletionParams(
            types.TextDocumentIdentifier(URI), types.Position(0, 1)))
        await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(URI), types.Position(0, 1)))
    assert not [m for m in client.log_messages if m.type == types.MessageType.Error]


@pytest.fixture
def project_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("proj")
    (folder / "evalschema.toml").write_text(
        '[[suite]]\nname = "s"\nschema = "rules.json"\ngold = "g.jsonl"\n'
        'extracted = ["run.jsonl"]\n')
    (folder / "rules.json").write_text('{"type": "object"}')
    (folder / "g.jsonl").write_text("{}\n")
    (folder / "run.jsonl").write_text("{}\n")
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[*SERVER[:1], "-m", "evalschema",
                                                                "serve", "--stdio"]))
async def project_client(lsp_client: LanguageClient, project_dir: Path
                         ):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=project_dir.as_uri()))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_evalschema_serve_and_schemas_named_by_the_project_config(
        project_client: LanguageClient, project_dir: Path) -> None:
    uri = (project_dir / "rules.json").as_uri()
    # No x-eval key and no .eval.json name: recognised only because evalschema.toml names it.
    diags = await open_and_wait(project_client, uri, '{"type": "object", "properties": {"a": '
                                '{"type": "strng"}}}')
    assert [d.code for d in diags] == ["bad-type"]
    other = await open_and_wait(project_client, (project_dir / "other.json").as_uri(),
                                '{"type": "strng"}')
    assert other == []
