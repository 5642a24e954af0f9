"""End-to-end: the results view's data through a real LSP client (issue 14).

``showReport`` sends what the view shows, figures and per-field counts, never the results
themselves (7.5 MB for the bundled example's two runs); a field's worst values come on
demand from ``fieldExamples``, lowest score first, file order on ties, each located. A field
only skipped (``x-eval-skip``) reads "skipped" wherever its F1 would show, never a figure;
a run label with VS Code's icon syntax shows as written in the schema's code lenses.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from eval_session import TIMEOUT, Session
from lsp_helpers import position, span
from lsprotocol import types

from evalschema import evaluate
from evalschema_server.protocol import FieldRow, RunReport

ROOT = Path(__file__).resolve().parents[3]

SCHEMA = {
    "type": "object",
    "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string", "x-eval-compare": {"levenshtein": {"threshold": 0.95}}},
        "note": {"type": "string", "x-eval-skip": True},
        "items": {
            "type": "array",
            "x-eval-align": {"match_by": "key_field", "key": "sku"},
            "items": {"type": "object", "properties": {
                "sku": {"type": "string"}, "qty": {"type": "integer"}}},
        },
    },
}
GOLD = [
    {"id": "a", "name": "Alphabet", "note": "n1",
     "items": [{"sku": "x", "qty": 1}, {"sku": "y", "qty": 2}]},
    {"id": "b", "name": "Bravo", "note": "n2", "items": [{"sku": "z", "qty": 3}]},
    {"id": "c", "name": "Charlie", "note": "n3", "items": []},
    {"id": "d", "name": "Delta", "note": "n4", "items": []},
    {"id": "e", "name": "Echo", "note": "n5", "items": []},
]
#: Names scored 0.875 (a), 0.8 (b), missing (e, c: ties at 0, e first in the file although
#: gold has c first), 0.667 (d). Record a's items are swapped: gold's x (qty 1) is the
#: file's second item (qty 8), y (qty 2) its first (qty 9).
LINES = [
    '{"id": "a", "name": "Alphabat", "note": "?", '
    '"items": [{"sku": "y", "qty": 9}, {"sku": "x", "qty": 8}]}',
    '{"id": "b", "name": "Brave", "note": "??", "items": [{"sku": "z", "qty": 3}]}',
    '{"id": "e", "note": "", "items": []}',
    '{"id": "c", "items": []}',
    '{"id": "d", "name": "Dolta!", "items": []}',
]


@pytest.fixture
def names(tmp_path: Path) -> dict[str, Path]:
    folder = (tmp_path / "names").resolve()
    folder.mkdir()
    schema, gold = folder / "names.eval.json", folder / "names.gold.jsonl"
    run = folder / "names.$(alert)x.extracted.jsonl"  # its label: $(alert)x
    schema.write_text(json.dumps(SCHEMA, indent=2) + "\n", encoding="utf-8")
    gold.write_text("".join(json.dumps(r) + "\n" for r in GOLD), encoding="utf-8")
    run.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    (folder / "evalschema.toml").write_text(
        '[[suite]]\nname = "names"\nschema = "names.eval.json"\ngold = "names.gold.jsonl"\n'
        'extracted = ["names.*.extracted.jsonl"]\n[suite.thresholds]\nnote = 0.5\n',
        encoding="utf-8")
    return {"folder": folder, "schema": schema, "gold": gold, "run": run}


async def booted(lsp: Session, folder: Path, key: str) -> None:
    await lsp.boot([folder], {"runOnStartup": False, "watchFiles": False})
    await lsp.discovered(key)
    await asyncio.wait_for(lsp.command("runSuite", {"suite": key}), TIMEOUT)


def at(line: int, text: str, needle: str) -> dict[str, Any]:
    r = span(text, needle)
    return {"start": {"line": line, "character": r.start.character},
            "end": {"line": line, "character": r.end.character}}


# -- the report: what the view shows, no more ---------------------------------------

async def test_the_report_of_the_bundled_example_is_figures_and_counts_only(
        lsp: Session, tmp_path: Path) -> None:
    """Two runs of 240 invoices, 72 field rows of about 240 bytes and two run
    summaries come to about 18 kB. 64 kB leaves room for longer field names and more
    checks, and is under 1% of what the report was with every result in it (7.5 MB,
    bench/server_report.py); it does not grow with the number of records."""
    folder = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", folder)
    await booted(lsp, folder, "invoices")
    report = await asyncio.wait_for(lsp.command("showReport", {"suite": "invoices"}), TIMEOUT)
    text = json.dumps(report)
    assert len(text.encode("utf-8")) < 64_000
    [suite] = report["suites"]
    assert [r["label"] for r in suite["runs"]] == ["model-a", "model-b"]
    assert [(r["records"], len(r["fields"])) for r in suite["runs"]] == [(240, 35), (240, 37)]
    for run in suite["runs"]:
        assert set(run) == set(RunReport.__annotations__), "no results, no per-result dump"
        assert all(set(row) == set(FieldRow.__annotations__) for row in run["fields"])
    assert "field_results" not in text and "worst" not in text


# -- a field's worst values, on demand ----------------------------------------------

async def test_field_examples_are_the_worst_values_lowest_score_first_in_file_order(
        lsp: Session, names: dict[str, Path]) -> None:
    await booted(lsp, names["folder"], "names")
    uri = names["run"].as_uri()

    async def examples(field: str, **more: Any) -> Any:
        return await asyncio.wait_for(lsp.command(
            "fieldExamples", {"suite": "names", "run": uri, "field": field, **more}), TIMEOUT)

    got = await examples("name")
    rows = [(e["record"], e["status"], round(e["score"], 4), e["gold"], e["extracted"],
             e["range"]) for e in got["examples"]]
    assert rows == [
        # Missing names (score 0) first, in file order (e on line 2, c on line 3), each at
        # the record's first key, the nearest place present.
        ("e", "omission", 0.0, '"Echo"', None, at(2, LINES[2], '"id"')),
        ("c", "omission", 0.0, '"Charlie"', None, at(3, LINES[3], '"id"')),
        ("d", "mismatch", 0.6667, '"Delta"', '"Dolta!"', at(4, LINES[4], '"Dolta!"')),
        ("b", "mismatch", 0.8, '"Bravo"', '"Brave"', at(1, LINES[1], '"Brave"')),
        ("a", "mismatch", 0.875, '"Alphabet"', '"Alphabat"', at(0, LINES[0], '"Alphabat"'))]
    assert got["total"] == 5
    assert {(e["uri"], e["path"]) for e in got["examples"]} == {(uri, "name")}

    capped = await examples("name", limit=2)
    assert [e["record"] for e in capped["examples"]] == ["e", "c"] and capped["total"] == 5

    # Two wrong quantities in one record, both scored 0: in the file's order, though the
    # results come in gold's (gold's first item is the file's second).
    qty = await examples("items[].qty")
    assert [(e["path"], e["gold"], e["extracted"], e["range"]) for e in qty["examples"]] == [
        ("items[1].qty", "2", "9", at(0, LINES[0], "9")),
        ("items[0].qty", "1", "8", at(0, LINES[0], "8"))]
    # The run's file alone names the suite; a field without wrong values has none.
    assert await asyncio.wait_for(lsp.command(
        "fieldExamples", {"run": uri, "field": "id"}), TIMEOUT) == {"examples": [], "total": 0}
    assert await examples("note") == {"examples": [], "total": 0}, "skipped: never wrong"

    with pytest.raises(Exception, match="limit must be a whole number"):
        await examples("name", limit=-1)
    with pytest.raises(Exception, match=r"has no run other\.jsonl; its runs: names\."):
        await lsp.command("fieldExamples", {"suite": "names", "field": "name",
                                            "run": (names["folder"] / "other.jsonl").as_uri()})
    with pytest.raises(Exception, match="fieldExamples needs"):
        await lsp.command("fieldExamples", {"suite": "names", "field": "name"})


# -- a skipped field reads "skipped" -------------------------------------------------

async def test_a_skipped_field_reads_skipped_in_the_report_hints_and_hovers(
        lsp: Session, names: dict[str, Path]) -> None:
    await booted(lsp, names["folder"], "names")
    report = await asyncio.wait_for(lsp.command("showReport", {"suite": "names"}), TIMEOUT)
    rows = {r["field"]: r for r in report["suites"][0]["runs"][0]["fields"]}
    assert rows["note"] == {
        "field": "note", "precision": None, "recall": None, "f1": None, "skipped": 5,
        "matches": 0, "mismatches": 0, "omissions": 0, "hallucinations": 0, "errors": 0,
        "invented": False}

    schema_text = names["schema"].read_text(encoding="utf-8")
    uri = lsp.open(names["schema"], "json")
    hints = await lsp.client.text_document_inlay_hint_async(types.InlayHintParams(
        types.TextDocumentIdentifier(uri),
        types.Range(types.Position(0, 0), types.Position(100, 0))))
    assert hints is not None
    end = position(schema_text, '"note"', delta=len('"note"'))
    [note] = [h for h in hints if h.position == end]
    # Under its threshold: a threshold nothing was measured against is not met (the gate).
    assert note.label == "F1 $(alert)x skipped ✗"
    hover = await lsp.client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), position(schema_text, '"note"', delta=2)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "| names · $(alert)x | — | — | skipped | 0 | 0 | 0 | 0 |" in hover.contents.value

    toml = names["folder"] / "evalschema.toml"
    toml_text = toml.read_text(encoding="utf-8")
    toml_uri = lsp.open(toml, "toml")
    got = await lsp.client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(toml_uri), position(toml_text, "note = 0.5", delta=1)))
    assert got is not None and isinstance(got.contents, types.MarkupContent)
    assert "| `names · $(alert)x` | skipped | ✗ |" in got.contents.value


# -- code lenses: names from files show as written -------------------------------------

async def test_a_run_label_with_icon_syntax_is_escaped_in_code_lens_titles(
        lsp: Session, names: dict[str, Path]) -> None:
    """VS Code renders ``$(name)`` in a code lens title as an icon: the label of
    ``names.$(alert)x.extracted.jsonl`` is sent escaped, so it shows as ``$(alert)x``."""
    await booted(lsp, names["folder"], "names")
    uri = lsp.open(names["schema"], "json")
    lenses = await lsp.client.text_document_code_lens_async(types.CodeLensParams(
        types.TextDocumentIdentifier(uri)))
    assert lenses is not None
    f1 = evaluate(GOLD, [json.loads(line) for line in LINES], SCHEMA).mean_f1
    assert [lens.command.title for lens in lenses if lens.command] == [
        "▶ Evaluate", f"\\$(alert)x F1 {f1:.3f} ✗ 1 field below threshold"]
