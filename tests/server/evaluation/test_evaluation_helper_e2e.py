"""End-to-end, through a real LSP client: a large suite's first run shares its records with
a helper process, and shows what the same server shows with ``helperProcess`` off."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from eval_session import Session
from eval_workspace import many_records_suite
from lsprotocol import types

#: Over the helper's threshold (4,096 records to score).
RECORDS = 5000
#: In the command line of a spawned helper (multiprocessing's resource tracker, which
#: the first spawn starts, stays until the server exits: it is not one).
_HELPER = "multiprocessing.spawn import spawn_main"


def _children(pid: int) -> set[str]:
    """The command lines of ``pid``'s child processes (Linux)."""
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                with contextlib.suppress(OSError):
                    out.add(Path(f"/proc/{child}/cmdline").read_bytes()
                            .replace(b"\0", b" ").decode())
    return out


async def _run_watching_children(lsp: Session, since: int, pid: int
                                 ) -> tuple[dict[str, Any], set[str]]:
    """The next finished run, and every child process seen while it went on."""
    seen: set[str] = set()
    while not lsp.finished(since, cancelled=False):
        seen |= _children(pid)
        await asyncio.sleep(0.01)
    return lsp.finished(since, cancelled=False)[0], seen


def _shown(lsp: Session, files: dict[str, Path]) -> list[Any]:
    return [sorted((str(d.code), d.range.start.line, d.range.start.character, d.message)
                   for d in lsp.diags(files[k])) for k in ("a", "b")]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
async def test_a_large_first_run_uses_a_helper_and_shows_what_one_core_shows(
        lsp: Session, tmp_path: Path) -> None:
    files = many_records_suite(tmp_path / "big", RECORDS)
    assert lsp.client._server is not None
    pid = lsp.client._server.pid
    await lsp.boot([tmp_path / "big"])
    first, during = await asyncio.wait_for(_run_watching_children(lsp, 0, pid), 120)
    assert any(_HELPER in c for c in during), during
    [run_a, run_b] = sorted(first["suite"]["runs"], key=lambda r: r["extracted"])
    assert run_a["records"] == run_b["records"] == RECORDS + 2  # a repeated id, an extra
    shown = _shown(lsp, files)
    assert len(shown[0]) > 100
    # helperProcess off, then a schema change (nothing cached is reused): one core.
    mark = lsp.mark
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"evalschema": {"helperProcess": False}}))
    await lsp.run_finished(mark, timeout=60)
    schema = json.loads(files["schema"].read_text("utf-8"))
    schema["description"] = "the same rules, said again"
    mark = lsp.mark
    files["schema"].write_text(json.dumps(schema), encoding="utf-8")
    again, during = await asyncio.wait_for(_run_watching_children(lsp, mark, pid), 120)
    assert not any(_HELPER in c for c in during), during
    assert sorted(again["suite"]["runs"], key=lambda r: r["extracted"]) == [run_a, run_b]
    assert _shown(lsp, files) == shown
