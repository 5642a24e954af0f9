"""Real answers and notifications of the server match the JSON Schema the extension's types
are generated from (vscode-extension/src/generated/protocol.schema.json, generated from
server/evalschema_server/protocol.py).

The bundled examples/ suite (two runs over 240 invoices) runs in a real server through a real
LSP client; every command's answer and every notification is validated. Payload objects are
closed in the schema, so a field the server sends but the types do not declare fails here, as
does a declared field it does not send.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from jsonschema import Draft202012Validator
from lsp_helpers import SERVER
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from evalschema_server import protocol
from evalschema_server.diagnostic_store import DiagnosticStore
from evalschema_server.evaluation.runner import text_or_none
from evalschema_server.evaluation.service import EvaluationService
from evalschema_server.evaluation.suites import discover
from evalschema_server.settings import EvalSettings
from evalschema_server.store import DocumentStore

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "vscode-extension" / "src" / "generated" / "protocol.schema.json")
                    .read_text(encoding="utf-8"))
CMD = protocol.COMMAND_PREFIX
TIMEOUT = 60.0


def validate(spec: dict[str, Any], payload: Any, what: str) -> None:
    validator = Draft202012Validator({**spec, "$defs": SCHEMA["$defs"]})
    errors = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
              for e in validator.iter_errors(payload)]
    assert not errors, f"{what}:\n" + "\n".join(errors[:10])


def answer(command: str, payload: Any) -> None:
    validate(SCHEMA["x-commands"][CMD + command], payload, command)


def as_json(value: Any) -> Any:
    """Custom notifications reach pygls' client as namedtuples: back to JSON values."""
    if hasattr(value, "_asdict"):
        return {k: as_json(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [as_json(v) for v in value]
    return value


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """The bundled suite, with an unreadable record appended to one run (a suite problem)."""
    folder = tmp_path / "examples"
    folder.mkdir()
    for f in (ROOT / "examples").iterdir():
        if f.suffix in (".json", ".jsonl", ".toml"):
            shutil.copy(f, folder / f.name)
    with (folder / "invoices.model-b.extracted.jsonl").open("a", encoding="utf-8") as out:
        out.write("I could not read this invoice.\n")
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, examples: Path) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_answers_and_notifications_match_the_schema(client: LanguageClient,
                                                          examples: Path) -> None:
    received: list[tuple[str, Any]] = []
    for method in protocol.NOTIFICATIONS:
        client.feature(method)(lambda params, m=method: received.append((m, as_json(params))))
    edits: list[types.ApplyWorkspaceEditParams] = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        edits.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    init = await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=examples.as_uri(),
        initialization_options={"runOnStartup": False, "watchFiles": False}))
    provider = init.capabilities.execute_command_provider
    assert provider is not None
    assert sorted(provider.commands) == sorted(CMD + name for name in protocol.COMMANDS)

    async def command(name: str, arg: dict[str, Any] | None = None) -> Any:
        arg = arg or {}
        validate(SCHEMA["x-commandArgs"], arg, f"{name} argument")
        got = await asyncio.wait_for(client.workspace_execute_command_async(
            types.ExecuteCommandParams(CMD + name, [arg])), TIMEOUT)
        answer(name, got)
        return got

    gold = (examples / "invoices.gold.jsonl").as_uri()
    schema = (examples / "invoices.eval.json").as_uri()
    listed = await command("listSuites")
    assert [s["name"] for s in listed["suites"]] == ["invoices"]
    assert listed["suites"][0]["config"] == (examples / "evalschema.toml").as_uri()
    ran = await command("runSuite", {"suite": "invoices"})
    [summary] = ran["suites"]
    assert [r["label"] for r in summary["runs"]] == ["model-a", "model-b"]
    assert summary["problems"] >= 1
    await command("runAll")
    reported = await command("showReport", {"uri": gold})
    [report] = reported["suites"]
    assert any(p["code"] for p in report["problems"]), "a suite problem to validate"
    worst = await command("fieldExamples", {"suite": "invoices", "field": "total",
                                            "run": report["runs"][1]["extracted"],
                                            "limit": 1000})
    assert {e["status"] for e in worst["examples"]} >= {"mismatch", "omission"}, \
        "wrong and missing values to validate"
    found = await command("listFindings", {"suite": "invoices", "limit": 50})
    assert len(found["findings"]) == 50
    inferred = await command("inferSchema", {"uri": gold})
    assert json.loads(inferred["text"]) == inferred["schema"]
    annotated = await command("annotate", {"uri": schema})
    assert annotated["applied"] is bool(edits)
    compared = await command("compareRuns", {"suite": "invoices",
                                             "runs": listed["suites"][0]["extracted"]})
    assert compared["result"]["labels"] == ["model-a", "model-b"]
    [wrong] = (await command("listFindings", {"suite": "invoices", "status": ["mismatch"],
                                              "limit": 1}))["findings"]
    run_file = next(p for p in examples.iterdir() if p.as_uri() == wrong["uri"])
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        wrong["uri"], "jsonl", 1, run_file.read_text(encoding="utf-8"))))
    shown = await command("openGold", {"uri": wrong["uri"], "range": wrong["range"],
                                       "code": "mismatch"})
    assert shown["uri"] == gold and shown["shown"] is True
    pair = await command("recordDiff", {"uri": wrong["uri"], "position": wrong["range"]["start"],
                                        "suite": "invoices"})
    assert json.loads(pair["gold"]["text"])["invoice_id"] == wrong["record"]
    tests = await command("listTests", {"suite": "invoices"})
    assert [r["label"] for r in tests["suites"][0]["runs"]] == ["model-a", "model-b"]
    model_b = listed["suites"][0]["extracted"][1]
    tested = await command("runTests", {"suite": "invoices", "run": model_b})
    messages = [m for r in tested["runs"][0]["records"] for m in r["messages"]]
    assert {m["field"] is None for m in messages} == {True, False}, "both kinds to validate"
    await command("clearResults")

    for _ in range(int(TIMEOUT / 0.05)):  # notifications may trail the answers
        if sum(m == protocol.RUN_FINISHED for m, _ in received) >= 2:
            break
        await asyncio.sleep(0.05)
    methods = {m for m, _ in received}
    assert methods == set(protocol.NOTIFICATIONS), received
    for method, params in received:
        validate(SCHEMA["x-notifications"][method], params, method)


class _Client:
    """What the evaluation service needs from the server, recording notifications."""

    encoding = "utf-16"
    eval_settings = EvalSettings()

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, json.loads(json.dumps(params))))

    def schemas_named(self, paths: set[Path]) -> None: ...
    def progress_begin(self, token: str, title: str) -> None: ...
    def progress_report(self, token: str, done: int, total: int) -> None: ...
    def progress_end(self, token: str, message: str) -> None: ...
    def log_error(self, where: str, exc: BaseException) -> None: ...
    def log_info(self, message: str) -> None: ...


async def test_a_cancelled_run_is_announced_in_the_schema_s_shape(examples: Path) -> None:
    """A cancelled run's summary has no figures and no problem count."""
    [suite] = discover([examples], lambda path: text_or_none(path, {})).suites
    client = _Client()
    documents = DocumentStore()
    service = EvaluationService(client, documents,
                                DiagnosticStore(client.notify, documents, client.log_error))
    try:
        service.scheduler.hooks.queued(suite)
        await service.scheduler.hooks.started(suite, "run-1")
        await service.scheduler.hooks.cancelled(suite, "run-1")
    finally:
        service.shutdown()
    assert [m for m, _ in client.sent] == [protocol.RUN_QUEUED, protocol.RUN_STARTED,
                                           protocol.RUN_FINISHED]
    for method, params in client.sent:
        validate(SCHEMA["x-notifications"][method], params, method)
    assert client.sent[2][1] == {"suite": {"name": "invoices", "key": suite.key, "runs": []},
                                 "cancelled": True, "pending": False}
