"""End-to-end: the editor shows the engine's reasons, word for word (issue 13).

The same files are scored by ``evalschema eval --format json`` and by the language server
through a real LSP client; each wrong field's diagnostic and hover carry the reason the
JSON output gives it (the engine is the one source of the text).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_helpers import SERVER, position
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from evalschema.cli.main import main

SCHEMA = {"type": "object", "properties": {
    "total": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}},
    "vendor": {"type": "string", "x-eval-compare": {"levenshtein": {"threshold": 0.9}}},
    "date": {"type": "string", "x-eval-compare": "date"},
    "issued": {"type": "string", "x-eval-compare": "date"},
    "address": {"type": "object", "properties": {"city": {"type": "string"}}},
}}
GOLD = {"total": 68.78, "vendor": "Acme Corp", "date": "2021-03-04", "issued": "N/A",
        "address": {"city": "Oslo"}}
EXTRACTED_LINE = ('{"total": 687.8, "vendor": "Acme Crop", "date": "2021", '
                  '"issued": "2021-01-01", "address": null}')


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "proj"
    folder.mkdir()
    out = {"schema": folder / "inv.eval.json", "gold": folder / "inv.gold.jsonl",
           "extracted": folder / "inv.run1.extracted.jsonl"}
    out["schema"].write_text(json.dumps(SCHEMA, indent=2) + "\n", encoding="utf-8")
    out["gold"].write_text(json.dumps(GOLD) + "\n", encoding="utf-8")
    out["extracted"].write_text(EXTRACTED_LINE + "\n", encoding="utf-8")
    (folder / "evalschema.toml").write_text(
        '[[suite]]\nname = "inv"\nschema = "inv.eval.json"\ngold = "inv.gold.jsonl"\n'
        'extracted = ["inv.*.extracted.jsonl"]\n', encoding="utf-8")
    return out


def engine_reasons(files: dict[str, Path], capsys: pytest.CaptureFixture[str]
                   ) -> dict[str, tuple[str, str]]:
    """path -> (status, reason) of the wrong fields, as ``eval --format json`` gives them."""
    code = main(["eval", str(files["schema"]), "--gold", str(files["gold"]), "--extracted",
                 str(files["extracted"]), "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    doc: Any = json.loads(out)
    if isinstance(doc, dict) and "runs" in doc:
        [doc] = doc["runs"]
    return {r["path"]: (r["status"], r["reason"]) for rec in doc["records"]
            for r in rec["field_results"] if r["status"] != "match"}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, files: dict[str, Path]):  # type: ignore[no-untyped-def]
    finished: list[Any] = []
    lsp_client.feature("evalschema/runFinished")(lambda params: finished.append(params))
    lsp_client.feature("evalschema/runStarted")(lambda params: None)
    lsp_client.finished = finished  # type: ignore[attr-defined]
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=files["schema"].parent.as_uri()))
    yield lsp_client
    await lsp_client.shutdown_session()


async def _diagnostics(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    uri = path.as_uri()
    for _ in range(300):
        if client.finished and uri in client.diagnostics:  # type: ignore[attr-defined]
            return list(client.diagnostics[uri])
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {path.name}")


async def test_diagnostics_and_hovers_say_what_the_json_output_says(
        client: LanguageClient, files: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    reasons = engine_reasons(files, capsys)
    assert reasons == {
        "total": ("mismatch", "687.8 ≠ gold 68.78 (numeric, abs 0.01)"),
        "vendor": ("mismatch", '"Acme Crop" ≠ gold "Acme Corp" (levenshtein, threshold 0.9; '
                               "score 0.7778 < 0.9)"),
        "date": ("mismatch", '"2021" ≠ gold "2021-03-04" (date): the extracted value gives '
                             "the year only, gold the day"),
        "issued": ("error", 'gold value "N/A" is not a date, so the date comparator cannot '
                            "judge this field (fix the gold value)"),
        "address.city": ("omission", "missing from extracted"),
    }
    diags = await _diagnostics(client, files["extracted"])
    # The record (no id: its number) first, then the engine's reason word for word.
    by_path = {d.message.removeprefix("#1 · ").split(": ", 1)[0]: d for d in diags}
    for path in ("total", "vendor", "date"):
        assert by_path[path].message == f"#1 · {path}: {reasons[path][1]}"
        assert by_path[path].code == "mismatch"
    issued = by_path["issued"]
    assert issued.code == "error"
    assert issued.message.startswith(f"#1 · issued: {reasons['issued'][1]}")

    uri = files["extracted"].as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri, "jsonl", 1, files["extracted"].read_text(encoding="utf-8"))))
    for path, needle in (("total", "687.8"), ("vendor", "Acme Crop"), ("date", '"2021"'),
                         ("issued", "2021-01-01")):
        hover = await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri), position(EXTRACTED_LINE, needle, delta=2)))
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert reasons[path][1] in hover.contents.value.split("\n"), path
    for d in diags:
        for python in ("NoneType", "'", "None"):
            assert python not in d.message, d.message
