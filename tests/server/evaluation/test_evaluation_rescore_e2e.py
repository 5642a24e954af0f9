"""End-to-end: a run keeps findings only and one accumulator per block of records; a
hover scores its record again. What it shows is what scoring the record afresh gives:
on a finding and on a match, in a block reused after an edit near the top, and in the
edited record itself."""

from __future__ import annotations

import json
from pathlib import Path

from eval_session import Session
from lsp_helpers import position
from lsprotocol import types

from evalschema import evaluate
from evalschema.results import FieldResult, Status, show_value

SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"},
    "total": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}},
    "vendor": {"type": "string", "x-eval-compare": {"levenshtein": {"threshold": 0.9}}}}}
N = 1200  # two groups of blocks (runner.BLOCK, runner.GROUP): the second reused as it was


def _records() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    gold = [{"id": f"r{i:04d}", "total": round(10 + i * 1.25, 2), "vendor": f"Acme {i}"}
            for i in range(N)]
    ext = [dict(g) for g in gold]
    for i in range(0, N, 7):
        ext[i]["total"] = round(float(ext[i]["total"]) * 1.5, 2)  # type: ignore[arg-type]
    for i in range(0, N, 5):
        ext[i]["vendor"] = f"Acne {i}"
    return gold, ext


def _suite(folder: Path) -> tuple[Path, list[str]]:
    folder.mkdir(parents=True)
    gold, ext = _records()
    (folder / "inv.eval.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (folder / "inv.gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gold),
                                           encoding="utf-8")
    lines = [json.dumps(e) for e in ext]
    path = folder / "inv.run1.extracted.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path, lines


def _afresh(folder: Path, lines: list[str], line: int, field: str) -> FieldResult:
    """The field's result from scoring the file afresh with the engine."""
    run = evaluate(folder / "inv.gold.jsonl", [json.loads(x) for x in lines],
                   folder / "inv.eval.json")
    rec = next(r for r in run.records if r.extracted_index == line)
    [r] = [r for r in rec.field_results if r.path == field]
    return r


async def _hover(lsp: Session, path: Path, lines: list[str], line: int, field: str) -> str:
    text = lines[line]
    at = position(text, f'"{field}": ', delta=len(field) + 5)
    hover = await lsp.client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(line, at.character)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_a_hover_shows_what_scoring_the_record_afresh_gives(
        lsp: Session, tmp_path: Path) -> None:
    folder = tmp_path / "inv"
    path, lines = _suite(folder)
    await lsp.boot([folder])
    await lsp.run_finished(0, "inv")
    lsp.open(path)
    old = lines[1]
    lines[1] = old.replace('"total": 11.25', '"total": 99.5')
    assert lines[1] != old
    lsp.edit(path, types.Range(types.Position(1, 0), types.Position(1, len(old))), lines[1])
    mark = lsp.mark
    lsp.save(path)
    done = await lsp.run_finished(mark, "inv")
    [run] = done["suite"]["runs"]
    assert run["records"] == N
    checks = [(1, "total", Status.MISMATCH),      # the edited record, in the re-scored block
              (406, "total", Status.MISMATCH),    # a finding in a block reused as it was
              (406, "vendor", Status.MATCH),      # a match: not kept, scored again
              (405, "vendor", Status.MISMATCH),
              (1106, "total", Status.MISMATCH),   # in a group of blocks reused as it was
              (1106, "vendor", Status.MATCH)]
    for line, field, status in checks:
        r = _afresh(folder, lines, line, field)
        assert r.status is status, (line, field)
        shown = await _hover(lsp, path, lines, line, field)
        assert f"record `r{line:04d}`" in shown
        assert f"`{field}`: **{status}** · score {r.score:.2f}" in shown, shown
        assert f"| gold | `{show_value(r.gold)}` |" in shown
        assert f"| extracted | `{show_value(r.extracted)}` |" in shown
        if status is Status.MISMATCH:
            assert r.explanation is not None and r.explanation in shown.split("\n")
    assert "99.5 ≠ gold 11.25 (numeric, abs 0.01)" in await _hover(lsp, path, lines, 1, "total")
