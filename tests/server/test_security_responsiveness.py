"""A hostile workspace cannot stop the server answering.

A configuration whose glob walks the whole disk, a FIFO or ``/dev/zero`` named as gold
data, a file over the read limit, a 50 MB document edited 200 times: ``initialize``
and requests on other documents are still answered within a budget, the evaluation
reports what it could not read, and ``exit`` still ends the process.

The disk walk is simulated (a real one would take the shared machine's CPU): the
server runs with ``glob.glob`` patched to sleep on patterns that start at ``/**``.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from eval_workspace import write_suite
from lsp_helpers import SERVER, position
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from evalschema_server import files
from evalschema_server.protocol import COMMAND_PREFIX

BUDGET = 10.0

#: The server, with a walk of the whole disk that takes two minutes, and its memory
#: capped (a regression reading /dev/zero fails instead of exhausting the machine).
SLOW_DISK = [sys.executable, "-c", """
import glob, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
real = glob.glob
def walk(pattern, *args, **kwargs):
    if str(pattern).startswith("/**"):
        time.sleep(120)
        return []
    return real(pattern, *args, **kwargs)
glob.glob = walk
import evalschema_server.files as files
files.MAX_FILE_BYTES = 100_000
from evalschema_server.__main__ import main
sys.exit(main())
"""]

SCHEMA = json.dumps({"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"}, "name": {"type": "string", "x-eval-compare": "levenshtein"}}},
    indent=2)


async def answered_within(what: str, coro: Any, budget: float = BUDGET) -> Any:
    t0 = time.monotonic()
    try:
        return await asyncio.wait_for(coro, budget)
    except TimeoutError:
        raise AssertionError(f"{what}: no answer within {budget:g} s") from None
    finally:
        print(f"{what}: {time.monotonic() - t0:.2f} s")


async def hover_other_document(client: LanguageClient, folder: Path) -> types.Hover | None:
    """Hover on a schema the workspace's configuration does not concern."""
    other = folder / "other.eval.json"
    uri = other.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", 1, SCHEMA)))
    return await answered_within("hover on another document", client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri),
                          position(SCHEMA, "levenshtein", delta=2))))


async def boot(client: LanguageClient, folder: Path, options: dict[str, Any] | None = None,
               *, pull: bool = True) -> None:
    runs: list[str] = []
    client.feature("evalschema/runStarted")(lambda params: runs.append("started"))
    client.feature("evalschema/runFinished")(lambda params: runs.append("finished"))
    client.runs = runs  # type: ignore[attr-defined]
    caps = client_capabilities("visual-studio-code")
    if not pull and caps.text_document is not None:
        caps.text_document.diagnostic = None
    await answered_within("initialize", client.initialize_session(types.InitializeParams(
        capabilities=caps, root_uri=folder.as_uri(), initialization_options=options)))


async def exits(client: LanguageClient) -> None:
    await answered_within("shutdown and exit", client.shutdown_session())


async def until(what: str, check: Any, timeout: float = BUDGET) -> Any:
    deadline = time.monotonic() + timeout
    while not (got := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.05)
    return got


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SLOW_DISK))
async def slow(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    kill_if_running(lsp_client)


def kill_if_running(client: LanguageClient) -> None:
    """A server that did not exit (a regression) is killed: pytest-lsp would wait for it."""
    proc = client._server
    if proc is not None and proc.returncode is None:
        proc.kill()


def configure(folder: Path, gold: str, extracted: str = "shop.run1.extracted.jsonl") -> None:
    (folder / "evalschema.toml").write_text(
        f'[[suite]]\nname = "shop"\nschema = "shop.eval.json"\ngold = "{gold}"\n'
        f'extracted = ["{extracted}"]\n', encoding="utf-8")


# -- the disk ------------------------------------------------------------------

async def test_a_glob_that_walks_the_whole_disk_does_not_stop_initialize(
        slow: LanguageClient, tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    write_suite(folder)
    configure(folder, "shop.gold.jsonl", "/**/*.jsonl")
    await boot(slow, folder)
    hover = await hover_other_document(slow, folder)
    assert hover is not None and "levenshtein" in hover.contents.value  # type: ignore[union-attr]
    # The walk is still going on; the exit does not wait for it.
    await exits(slow)


async def test_a_fifo_named_as_gold_is_reported_not_read(slow: LanguageClient,
                                                         tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    write_suite(folder)
    fifo = folder / "gold.fifo"
    os.mkfifo(fifo)
    configure(folder, "gold.fifo")
    await boot(slow, folder)
    await hover_other_document(slow, folder)
    # the configuration names it: the loader refuses it there, located in the toml
    toml = (folder / "evalschema.toml").as_uri()
    diags = await until("the configuration's diagnostic", lambda: slow.diagnostics.get(toml))
    [d] = diags
    assert d.code == "not-a-file"
    assert d.message.startswith("gold 'gold.fifo' is not a regular file"), d.message
    assert not slow.diagnostics.get(fifo.as_uri())
    await exits(slow)


async def test_dev_zero_as_gold_is_reported_not_read(slow: LanguageClient,
                                                     tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    paths = write_suite(folder)
    paths["gold"].unlink()
    paths["gold"].symlink_to("/dev/zero")
    await boot(slow, folder)
    await hover_other_document(slow, folder)
    diags = await until("the gold file's diagnostic",
                        lambda: slow.diagnostics.get(paths["gold"].resolve().as_uri()))
    [d] = diags
    assert d.code == "unreadable-file"
    assert d.message.startswith("cannot read zero: not a regular file"), d.message
    await exits(slow)


async def test_a_file_over_the_read_limit_is_reported_not_read(slow: LanguageClient,
                                                               tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    paths = write_suite(folder)
    big = folder / "shop.run2.extracted.jsonl"
    line = '{"id": "a", "name": "x"}\n'
    big.write_text(line * (200_000 // len(line)), encoding="utf-8")
    await boot(slow, folder)
    diags = await until("the big file's diagnostic", lambda: slow.diagnostics.get(big.as_uri()))
    [d] = diags
    assert d.code == "unreadable-file"
    assert d.message == (f"cannot read {big.name}: {big.stat().st_size:,} bytes, over the "
                         "limit of 100,000 bytes")
    # The other run is scored.
    await until("the other run's findings",
                lambda: slow.diagnostics.get(paths["extracted"].as_uri()))
    await exits(slow)


# -- reading a file (evalschema_server.files) ---------------------------------------

def test_a_file_over_the_limit_is_refused_by_its_size_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:
        f.truncate(50 * 2**20)  # sparse: costs no disk
    with pytest.raises(OSError) as info:
        files.read_bytes(big, limit=1000)
    assert info.value.errno == errno.EFBIG
    assert info.value.strerror == "52,428,800 bytes, over the limit of 1,000 bytes"


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_a_file_longer_than_its_size_says_is_cut_at_the_limit() -> None:
    """/proc files say they hold 0 bytes; the limit holds however much is read."""
    with pytest.raises(OSError) as info:
        files.read_bytes(Path("/proc/self/status"), limit=64)
    assert info.value.errno == errno.EFBIG
    assert len(files.read_bytes(Path("/proc/self/status"))) > 64


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    """The configuration loader refuses a FIFO, but the file may be swapped for one before
    the run reads it: opening it must not wait for a writer."""
    fifo = tmp_path / "gold.jsonl"
    os.mkfifo(fifo)
    got: list[BaseException] = []

    def read() -> None:
        try:
            files.read_bytes(fifo)
        except BaseException as exc:
            got.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    blocked = reader.is_alive()
    if blocked:  # let the thread go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
    assert not blocked, "opening the FIFO waited for a writer"
    assert isinstance(got[0], OSError) and got[0].errno == errno.EINVAL


# -- a 50 MB document ------------------------------------------------------------

@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def editor(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    kill_if_running(lsp_client)


def big_schema(size: int) -> str:
    prop = '    "field_%07d": {"type": "string", "x-eval-compare": "levenshtein"},\n'
    n = size // len(prop % 0) + 1
    body = "".join(prop % i for i in range(n))
    return '{\n  "type": "object",\n  "properties": {\n' + body + '    "last": {}\n  }\n}\n'


async def pulled(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    report = await answered_within("pull diagnostics", client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))))
    return list(report.items)  # type: ignore[union-attr]


def logged(client: LanguageClient) -> list[str]:
    return [m.message for m in client.log_messages]


@pytest.mark.parametrize("pull", [True, False], ids=["pull", "push"])
async def test_edits_to_a_50_mb_document_do_not_delay_other_files(
        editor: LanguageClient, tmp_path: Path, pull: bool) -> None:
    await boot(editor, tmp_path, pull=pull)
    text = big_schema(50_000_000)
    uri = (tmp_path / "big.eval.json").as_uri()
    editor.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", 1, text)))
    for i in range(200):
        at = types.Position(3 + i * 1000, 4)
        editor.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2 + i, uri=uri),
            [types.TextDocumentContentChangePartial(range=types.Range(at, at), text="x")]))
    hover = await hover_other_document(editor, tmp_path)
    assert hover is not None
    # The big schema: one notice instead of its checks, and a line in the log.
    if pull:
        [notice] = await pulled(editor, uri)
    else:
        [notice] = await until("the notice", lambda: [
            d for d in editor.diagnostics.get(uri, []) if "50,000,285" in d.message])
    assert notice.code == "document-too-large"
    assert notice.severity == types.DiagnosticSeverity.Information
    assert notice.range == types.Range(types.Position(0, 0), types.Position(0, 0))
    assert notice.message == (
        f"this document has {len(text) + 200:,} characters, over evalschema.maxDocumentSize "
        "(5,000,000): eval-schema checks, completion, hover and the outline are off for it "
        "(raise evalschema.maxDocumentSize to turn them on; evaluation of data files is not "
        "affected)")
    at_open = notice.message.replace(f"{len(text) + 200:,}", f"{len(text):,}")
    assert logged(editor).count(f"evalschema: big.eval.json: {at_open}") == 1
    symbols = await answered_within("outline of the big document",
                                    editor.text_document_document_symbol_async(
                                        types.DocumentSymbolParams(
                                            types.TextDocumentIdentifier(uri))))
    assert symbols is None
    await exits(editor)


async def test_max_document_size_is_a_setting(editor: LanguageClient, tmp_path: Path) -> None:
    await boot(editor, tmp_path, {"maxDocumentSize": 100})
    text = SCHEMA.replace('"levenshtein"', '"levenstein"')
    assert len(text) > 100
    uri = (tmp_path / "s.eval.json").as_uri()
    editor.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", 1, text)))
    [notice] = await pulled(editor, uri)
    assert notice.code == "document-too-large"
    assert "over evalschema.maxDocumentSize (100)" in notice.message
    hover = await editor.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), position(text, "levenstein", delta=2)))
    assert hover is None
    # A JSON data file over the limit: no diagnostic, one line in the log.
    data_uri = (tmp_path / "data.json").as_uri()
    editor.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(data_uri, "json", 1, json.dumps({"x-eval-compare": "x" * 200}))))
    assert await pulled(editor, data_uri) == []
    await until("the log line", lambda: any(m.startswith("evalschema: data.json: this document "
                                                         "has 222 characters") for m in
                                            logged(editor)))
    # Without a limit, the schema is checked again.
    editor.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        {"evalschema": {"maxDocumentSize": 0}}))
    deadline = time.monotonic() + BUDGET
    while [d.code for d in await pulled(editor, uri)] != ["unknown-comparator"]:
        assert time.monotonic() < deadline, "the schema is not checked again"
        await asyncio.sleep(0.05)
    await exits(editor)


async def test_a_large_data_file_edited_as_you_type_is_evaluated_off_the_loop(
        editor: LanguageClient, tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    paths = write_suite(folder)
    line = '{"id": "r%07d", "name": "Widget %d", "price": 3.0, "currency": "USD"}\n'
    text = "".join(line % (i, i) for i in range(120_000))
    assert len(text) > 8_000_000
    paths["extracted"].write_text(text, encoding="utf-8")
    await boot(editor, folder, {"runOn": "change", "runOnStartup": False})
    uri = paths["extracted"].as_uri()
    editor.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "jsonl", 1, text)))
    for i in range(100):
        at = types.Position(1000 + i, 20)
        editor.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2 + i, uri=uri),
            [types.TextDocumentContentChangePartial(range=types.Range(at, at), text="x")]))
        await asyncio.sleep(0.005)
    runs = editor.runs  # type: ignore[attr-defined]
    await until("a run of the suite", lambda: "started" in runs)
    # A run of the suite (on the worker thread) holds up neither other files...
    assert "finished" not in runs
    assert await hover_other_document(editor, folder) is not None
    # ...nor hovers on the big file itself.
    await answered_within("hover on the big data file", editor.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(90_000, 10))),
        budget=2.0)
    await until("the end of the run", lambda: "finished" in runs, 60)
    await exits(editor)


#: The server, with a comparator that never finishes (a record that takes for ever).
STUCK = [sys.executable, "-c", """
import sys, time
from evalschema import register_comparator
register_comparator("stuck", lambda gold, extracted, params: time.sleep(300) or 1.0,
                    doc="Never finishes.")
from evalschema_server.__main__ import main
sys.exit(main())
"""]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=STUCK))
async def stuck(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    kill_if_running(lsp_client)


async def test_exit_ends_the_server_while_a_record_is_being_scored(
        stuck: LanguageClient, tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    paths = write_suite(folder)
    schema = json.loads(paths["schema"].read_text(encoding="utf-8"))
    schema["properties"]["currency"]["x-eval-compare"] = "stuck"
    paths["schema"].write_text(json.dumps(schema), encoding="utf-8")
    await boot(stuck, folder)
    runs = stuck.runs  # type: ignore[attr-defined]
    await until("the run", lambda: "started" in runs)
    await asyncio.sleep(0.5)  # inside the comparator by now
    assert await hover_other_document(stuck, folder) is not None
    await exits(stuck)


# -- a command that scores every record again ----------------------------------------

#: The server, with scoring every record of a run again taking 3 s (as for a large suite).
SLOW_RESCORE = [sys.executable, "-c", """
import sys, time
from evalschema_server.evaluation.runner import SuiteOutcome
real = SuiteOutcome.full_result
def slow(self, run):
    time.sleep(3)
    return real(self, run)
SuiteOutcome.full_result = slow
from evalschema_server.__main__ import main
sys.exit(main())
"""]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SLOW_RESCORE))
async def rescoring(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    kill_if_running(lsp_client)


async def test_comparing_runs_scores_them_again_off_the_loop(rescoring: LanguageClient,
                                                            tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    paths = write_suite(folder)
    second = paths["extracted"].with_name("shop.run2.extracted.jsonl")
    second.write_text(paths["extracted"].read_text(encoding="utf-8").replace(
        '"USD"', '"EUR"'), encoding="utf-8")
    await boot(rescoring, folder)
    runs = rescoring.runs  # type: ignore[attr-defined]
    await until("the first run", lambda: "finished" in runs, 60)
    compared = asyncio.ensure_future(rescoring.workspace_execute_command_async(
        types.ExecuteCommandParams(COMMAND_PREFIX + "compareRuns", [{"suite": "shop"}])))
    await asyncio.sleep(0.5)  # in the 3 s of scoring the runs again by now
    assert not compared.done()
    # The editor is still answered while the runs are scored again...
    assert await hover_other_document(rescoring, folder) is not None
    assert not compared.done()
    # ...and the comparison is what it was.
    got = await answered_within("compareRuns", compared, budget=30)
    assert [f["field"] for f in got["result"]["fields"]] and got["markdown"]
    assert any(f["field"] == "currency" and f["worst"][1] is not None for f in got["fields"])
    await exits(rescoring)


# -- $ref --------------------------------------------------------------------------

def ref_schema(target: str) -> str:
    return json.dumps({"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"}, "name": {"$ref": target}}}, indent=2)


async def test_a_ref_to_a_fifo_does_not_block_the_server(editor: LanguageClient,
                                                         tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.json")
    await boot(editor, tmp_path)
    uri = (tmp_path / "piped.eval.json").as_uri()
    editor.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", 1, ref_schema("pipe.json"))))
    await pulled(editor, uri)
    assert await hover_other_document(editor, tmp_path) is not None
    await exits(editor)


async def test_a_ref_to_another_file_is_checked_off_the_loop(editor: LanguageClient,
                                                             tmp_path: Path) -> None:
    (tmp_path / "defs.json").write_text(json.dumps({"name": {
        "type": "string", "x-eval-compare": "levenstein"}}), encoding="utf-8")
    await boot(editor, tmp_path)
    uri = (tmp_path / "refs.eval.json").as_uri()
    editor.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", 1, ref_schema("defs.json#/name"))))
    deadline = time.monotonic() + BUDGET
    while "unknown-comparator" not in [d.code for d in await pulled(editor, uri)]:
        assert time.monotonic() < deadline, "the referenced file's problem is not shown"
        await asyncio.sleep(0.05)
    await exits(editor)
