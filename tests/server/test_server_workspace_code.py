"""No code from the workspace unless the user trusts it (issue 11): the language server.

- The exact command lines the VS Code extension runs (vscode-extension/src/launch.json: the
  server, and the import check), started with a workspace as the working folder that holds a
  planted ``evalschema_server/`` package and ``lsprotocol.py``: neither is imported, and the
  real server answers ``initialize``. The old command line (``python -m evalschema_server``)
  is run too, to show the attack is real.
- ``comparatorModules`` are imported only when the client says the workspace is trusted
  (initialization option ``workspaceTrusted``, read at startup only), never from the
  workspace root put on ``sys.path``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_helpers import SERVER, open_and_wait
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = json.loads((ROOT / "vscode-extension" / "src" / "launch.json").read_text("utf-8"))
TIMEOUT = 30


def plant(ws: Path, markers: Path) -> dict[str, Path]:
    """A workspace holding modules that shadow the server's and write a marker when run."""
    ws.mkdir(parents=True, exist_ok=True)
    found = {name: markers / f"{name}.ran" for name in ("evalschema_server", "lsprotocol")}
    (ws / "evalschema_server").mkdir()
    for path, marker in ((ws / "evalschema_server" / "__init__.py", found["evalschema_server"]),
                         (ws / "lsprotocol.py", found["lsprotocol"])):
        path.write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n",
                        encoding="utf-8")
    return found


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def initialize(command: list[str], ws: Path) -> dict[str, Any]:
    """Start ``command`` in ``ws``, send initialize/shutdown/exit, return the initialize answer."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": ws.as_uri(), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    proc = subprocess.run(command, cwd=ws, input=b"".join(frame(m) for m in msgs),
                          capture_output=True, timeout=TIMEOUT, check=False)
    out = proc.stdout
    while out:
        header, _, rest = out.partition(b"\r\n\r\n")
        fields = dict(line.split(b":", 1) for line in header.split(b"\r\n"))
        length = int(fields[b"Content-Length"])
        body, out = rest[:length], rest[length:]
        message = json.loads(body)
        if message.get("id") == 1:
            return dict(message)
    raise AssertionError(f"no answer to initialize; stderr: {proc.stderr.decode()[-2000:]}")


def test_the_extensions_command_lines_import_nothing_from_the_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    markers = tmp_path / "markers"
    markers.mkdir()
    planted = plant(ws, markers)
    assert LAUNCH["server"][:1] == ["-P"]

    check = subprocess.run([sys.executable, *LAUNCH["importCheck"]], cwd=ws,
                           capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert check.returncode == 0, check.stderr
    answer = initialize([sys.executable, *LAUNCH["server"]], ws)
    assert answer["result"]["serverInfo"]["name"] == "evalschema"
    assert answer["result"]["capabilities"]["completionProvider"]
    assert [p.name for p in markers.iterdir()] == []

    # The attack: the command line the extension used before runs the planted package.
    subprocess.run([sys.executable, "-m", "evalschema_server"], cwd=ws, input=b"",
                   capture_output=True, timeout=TIMEOUT, check=False)
    assert planted["evalschema_server"].exists()


def test_evalschema_serve_imports_nothing_from_the_workspace(tmp_path: Path) -> None:
    """The console script (``evalschema serve``, the docs' other launch) is safe as well."""
    ws = tmp_path / "ws"
    markers = tmp_path / "markers"
    markers.mkdir()
    plant(ws, markers)
    cli = str(Path(sys.executable).with_name("evalschema"))
    answer = initialize([cli, "serve", "--stdio"], ws)
    assert answer["result"]["serverInfo"]["name"] == "evalschema"
    assert [p.name for p in markers.iterdir()] == []


# -- comparatorModules and trust ----------------------------------------------------

IBAN = ('{"type": "object", "properties": {"acct": {"type": "string", '
        '"x-eval-compare": "iban_sec"}}}')


def write_module(folder: Path, name: str, marker: Path) -> None:
    (folder / name).write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n"
        "from evalschema import register_comparator\n"
        "register_comparator('iban_sec', lambda g, e, p: float(g.replace(' ', '') == "
        "e.replace(' ', '')), doc='IBANs equal ignoring spaces.', types=['string', 'null'],"
        " overwrite=True)\n", encoding="utf-8")


async def start_in(client: LanguageClient, folder: Path, options: dict[str, Any]) -> None:
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=folder.as_uri(),
        initialization_options={"runOnStartup": False, **options}))


async def wait_message(client: LanguageClient, needle: str) -> types.ShowMessageParams:
    for _ in range(100):
        for m in client.messages:
            if needle in m.message:
                return m
        await asyncio.sleep(0.1)
    raise AssertionError(f"no message with {needle!r}: {[m.message for m in client.messages]}")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def lsp(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("trust", [{}, {"workspaceTrusted": "yes"}, {"workspaceTrusted": 1}])
async def test_untrusted_workspace_imports_no_comparator_module(
        lsp: LanguageClient, tmp_path: Path, trust: dict[str, Any]) -> None:
    """Trust is the option ``workspaceTrusted`` set to exactly ``true``; by default, none."""
    marker = tmp_path / "imported"
    write_module(tmp_path, "my_cmp.py", marker)
    await start_in(lsp, tmp_path, {"comparatorModules": ["my_cmp.py"], **trust})
    message = await wait_message(lsp, "comparator-modules-untrusted")
    assert message.type == types.MessageType.Warning
    assert "names my_cmp.py, which are not imported because the workspace is not trusted" \
        in message.message
    assert "workspaceTrusted" in message.message
    diags = await open_and_wait(lsp, (tmp_path / "a.eval.json").as_uri(), IBAN)
    assert [d.code for d in diags] == ["unknown-comparator"]
    # A later configuration (some clients read it from files in the workspace) cannot
    # turn trust on.
    lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={
        "evalschema": {"comparatorModules": ["my_cmp.py"], "workspaceTrusted": True}}))
    await asyncio.sleep(1.0)
    assert not marker.exists()


async def test_trusted_workspace_imports_by_path_not_from_sys_path(lsp: LanguageClient,
                                                                   tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    dotted = tmp_path / "dotted_imported"
    write_module(tmp_path, "my_cmp.py", marker)
    write_module(tmp_path, "beside_root.py", dotted)
    await start_in(lsp, tmp_path, {"workspaceTrusted": True,
                                   "comparatorModules": ["my_cmp.py", "beside_root"]})
    diags = await open_and_wait(lsp, (tmp_path / "a.eval.json").as_uri(), IBAN)
    assert diags == []
    assert marker.read_text() == "imported"
    # A dotted name is looked up in the server's environment, never the workspace root.
    message = await wait_message(lsp, "cannot import comparator module 'beside_root'")
    assert "name it by its path: 'beside_root.py'" in message.message
    assert not dotted.exists()
