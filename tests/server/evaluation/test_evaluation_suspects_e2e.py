"""End-to-end: suspect gold in the gold file, through a real LSP client.

With two or more runs, a gold value that at least two runs agree against gets an
information diagnostic at the value (at the record's first key for a key gold lacks):
``2 of 2 runs say "Acme GmbH"; gold says "Acme Gmbh"``, code ``suspect-gold``, with the
data a code action needs. The gold file here has CRLF line endings and characters
outside the BMP before the values, so ranges are checked in UTF-16 code units.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval_session import Session
from lsp_helpers import apply_text_edits, span
from lsprotocol import types

SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"}, "note": {"type": "string"}, "vendor": {"type": "string"},
    "city": {"type": "string"}, "po": {"type": "string"},
    "items": {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku"},
              "items": {"type": "object", "properties": {
                  "sku": {"type": "string"}, "qty": {"type": "integer"}}}}}}
GOLD_LINES = [
    '{"id": "r1", "note": "😀 Zürich", "vendor": "Acme Gmbh", "city": "Lyon"}',
    '{"id": "r2", "note": "😀😀 日本", "items": [{"sku": "B", "qty": 5}, '
    '{"sku": "A", "qty": 1}]}',
]
R1 = {"id": "r1", "note": "😀 Zürich", "vendor": "Acme GmbH", "city": "Paris", "po": "PO-1"}
R2 = {"id": "r2", "note": "😀😀 日本", "items": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 5}]}


def write(folder: Path, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Path]:
    folder.mkdir()
    (folder / "inv.eval.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    gold = folder / "inv.gold.jsonl"
    gold.write_bytes(("\r\n".join(GOLD_LINES) + "\r\n").encode("utf-8"))
    out = {"gold": gold}
    for name, records in runs.items():
        out[name] = folder / f"inv.{name}.extracted.jsonl"
        out[name].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                     for r in records), encoding="utf-8")
    return out


def at(line: int, needle: str, nth: int = 0) -> types.Range:
    """``needle`` in gold line ``line`` (UTF-16 columns)."""
    r = span(GOLD_LINES[line], needle, nth)
    return types.Range(types.Position(line, r.start.character),
                       types.Position(line, r.end.character))


def suspects(lsp: Session, gold: Path) -> list[tuple[types.Range, str, Any]]:
    out = []
    for d in lsp.diags(gold):
        if d.code == "suspect-gold":
            assert d.severity == types.DiagnosticSeverity.Information
            assert d.source == "evalschema"
            out.append((d.range, d.message, d.data))
    return out


def data(key: str, record: int, rid: str, pointer: str, kind: str, value: Any, field: str,
         path: str, runs: list[str], scored: int) -> dict[str, Any]:
    return {"suite": key, "record": record, "recordId": rid, "goldPointer": pointer,
            "kind": kind, "value": value, "valueText": json.dumps(value, ensure_ascii=False),
            "field": field, "path": path, "runs": runs, "agreeing": len(runs),
            "scored": scored}


def expected(key: str, scored: int, *, city: bool) -> list[tuple[types.Range, str, Any]]:
    """What runs a and b agree on against gold, of ``scored`` runs (a third that agrees
    with neither on the city takes it out)."""
    n = f"2 of {scored} runs say"
    return [
        (at(0, '"Acme Gmbh"'), f'{n} "Acme GmbH"; gold says "Acme Gmbh"',
         data(key, 0, "r1", "/vendor", "mismatch", "Acme GmbH", "vendor", "vendor",
              ["a", "b"], scored)),
        *([(at(0, '"Lyon"'), f'{n} "Paris"; gold says "Lyon"',
            data(key, 0, "r1", "/city", "mismatch", "Paris", "city", "city", ["a", "b"],
                 scored))] if city else []),
        # a key gold lacks: on the record's first key
        (at(0, '"id"'), f'{n} "PO-1"; gold has no value',
         data(key, 0, "r1", "/po", "hallucination", "PO-1", "po", "po", ["a", "b"], scored)),
        # array elements as key_field paired them: gold's second item, the runs' first
        (at(1, "1"), f"{n} 2; gold says 1",
         data(key, 1, "r2", "/items/1/qty", "mismatch", 2, "items[].qty", "items[1].qty",
              ["a", "b"], scored)),
    ]


async def test_two_runs(lsp: Session, tmp_path: Path) -> None:
    files = write(tmp_path / "proj", {"a": [R1, R2], "b": [R1, R2]})
    await lsp.boot([tmp_path / "proj"])
    await lsp.run_finished(0)
    [key] = await lsp.suite_keys()
    assert suspects(lsp, files["gold"]) == expected(key, 2, city=True)
    # only the suspects: gold marks are off by default
    assert {d.code for d in lsp.diags(files["gold"])} == {"suspect-gold"}

    # recomputed each run: once run b says what gold says, the city is no suspect
    mark = lsp.mark
    files["b"].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in (
        {**R1, "city": "Lyon"}, R2)), encoding="utf-8")
    lsp.save(files["b"])
    await lsp.run_finished(mark)
    assert [m for _, m, _ in suspects(lsp, files["gold"])] == [
        '2 of 2 runs say "Acme GmbH"; gold says "Acme Gmbh"',
        '2 of 2 runs say "PO-1"; gold has no value', "2 of 2 runs say 2; gold says 1"]


async def test_three_runs_with_gold_marks_a_severity_and_the_limit(lsp: Session,
                                                                  tmp_path: Path) -> None:
    third = {k: v for k, v in R1.items() if k != "po"} | {"vendor": "Acme Corp", "city": "Nice"}
    second = {**R1, "city": "Lille"}  # the three cities all differ: no suspect
    files = write(tmp_path / "proj", {"a": [R1, R2], "b": [second, R2],
                                      "c": [third, {**R2, "items": [{"sku": "A", "qty": 3}]}]})
    await lsp.boot([tmp_path / "proj"], {"goldDiagnostics": True})
    await lsp.run_finished(0)
    [key] = await lsp.suite_keys()
    assert suspects(lsp, files["gold"]) == expected(key, 3, city=False)
    # merged with the runs' own marks on the gold values
    gold = lsp.diags(files["gold"])
    marks = [d.message for d in gold if d.code != "suspect-gold"]
    assert len(marks) == 11  # a and b: 3 wrong values each; c: 3 wrong, 2 left out
    assert '[a] r1 · city: "Paris" ≠ gold "Lyon" (exact)' in marks
    assert '[c] r1 · vendor: "Acme Corp" ≠ gold "Acme Gmbh" (exact)' in marks

    # the severity setting, and the per-file limit, apply to them; they come first
    mark = lsp.mark
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        {"evalschema": {"severity": {"suspect": "warning"}, "maxDiagnosticsPerFile": 1,
                        "goldDiagnostics": True}}))
    await lsp.run_finished(mark)
    [first, summary] = lsp.diags(files["gold"])
    assert (first.code, first.severity, first.message) == (
        "suspect-gold", types.DiagnosticSeverity.Warning,
        '2 of 3 runs say "Acme GmbH"; gold says "Acme Gmbh"')
    assert summary.code == "more-findings" and summary.message.startswith("13 more findings")
    mark = lsp.mark
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        {"evalschema": {"severity": {"suspect": "off"}, "goldDiagnostics": True}}))
    await lsp.run_finished(mark)
    assert suspects(lsp, files["gold"]) == [] and len(lsp.diags(files["gold"])) == 11


async def test_accepting_suspect_gold_writes_the_agreed_value_at_exactly_that_place(
        lsp: Session, tmp_path: Path) -> None:
    files = write(tmp_path / "proj", {"a": [R1, R2], "b": [R1, R2]})
    gold = files["gold"]
    await lsp.boot([tmp_path / "proj"], {"watchFiles": False})
    await lsp.run_finished(0)
    lsp.open(gold)
    found = {d.message: d for d in lsp.diags(gold) if d.code == "suspect-gold"}
    vendor = found['2 of 2 runs say "Acme GmbH"; gold says "Acme Gmbh"']
    po = found['2 of 2 runs say "PO-1"; gold has no value']
    qty = found["2 of 2 runs say 2; gold says 1"]

    def accept_of(actions: list[types.CodeAction]) -> tuple[str, list[types.TextEdit]]:
        [action] = actions
        assert action.kind == types.CodeActionKind.QuickFix and not action.is_preferred
        assert action.edit is not None and action.edit.document_changes
        [change] = action.edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == gold.as_uri()
        assert change.text_document.version == lsp.versions[gold.as_uri()]
        return action.title, [e for e in change.edits if isinstance(e, types.TextEdit)]

    title, edits = accept_of(await lsp.code_actions(gold, [vendor]))
    assert title == 'Accept extracted value as gold: vendor = "Acme GmbH" (2 of 2 runs)'
    assert edits == [types.TextEdit(at(0, '"Acme Gmbh"'), '"Acme GmbH"')]
    title, edits = accept_of(await lsp.code_actions(gold, [qty]))
    assert title == "Accept extracted value as gold: items[1].qty = 2 (2 of 2 runs)"
    assert edits == [types.TextEdit(at(1, "1"), "2")]
    # A key gold lacks goes in inline, after the record's last key (CRLF untouched).
    title, edits = accept_of(await lsp.code_actions(gold, [po]))
    assert title == 'Accept extracted value as gold: po = "PO-1" (2 of 2 runs)'
    before = gold.read_bytes().decode("utf-8")
    after = apply_text_edits(before, edits)
    assert after == before.replace('"city": "Lyon"}', '"city": "Lyon", "po": "PO-1"}')
    assert after.count("\r\n") == 2 and "\n" not in after.replace("\r\n", "")
    assert gold.read_bytes().decode("utf-8") == before, "the server never writes gold"

    # Not trusted: a forged diagnostic at another place gets nothing.
    forged = types.Diagnostic(at(0, "Zürich"), vendor.message, code="suspect-gold",
                              source="evalschema", data=vendor.data)
    assert await lsp.code_actions(gold, [forged]) == []

    # Applied as the editor applies it and saved: that suspect is gone, the others stay.
    for e in edits:
        lsp.edit(gold, e.range, e.new_text)
    gold.write_bytes(after.encode("utf-8"))
    mark = lsp.mark
    lsp.save(gold)
    await lsp.run_finished(mark)
    assert sorted(m for _, m, _ in suspects(lsp, gold)) == [
        '2 of 2 runs say "Acme GmbH"; gold says "Acme Gmbh"',
        '2 of 2 runs say "Paris"; gold says "Lyon"', "2 of 2 runs say 2; gold says 1"]
    # While the gold text is not the one the run read, no edit is offered.
    lsp.edit(gold, at(1, "1"), "7")
    assert await lsp.code_actions(gold, [qty]) == []
