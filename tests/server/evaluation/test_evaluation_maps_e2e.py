"""Results under maps and anyOf branches, through a client: each located on the exact
map entry (pointers carry the real key), each message naming what judged it."""

from __future__ import annotations

import json
from pathlib import Path

from eval_session import Session
from test_evaluation_runs_e2e import at, jsonl

SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"},
    "skills": {"type": "object",
               "additionalProperties": {"type": "array", "items": {"type": "string"}}},
    "v": {"anyOf": [{"type": "string", "x-eval-compare": "date"},
                    {"type": "integer", "x-eval-compare": {"numeric": {"tolerance": {"abs": 1}}}}]},
}}
GOLD = [{"id": "a", "skills": {"Languages": ["Python", "Go", "Rust"], "Tools": ["git"]},
         "v": 100}]
LINE = ('{"id": "a", "skills": {"Languages": ["Python", "Go", "Rist"], "Tools": ["git"], '
        '"Hobbies": ["chess"]}, "v": 110}')


async def test_map_entries_and_branches_are_located(lsp: Session,
                                                    tmp_path: Path) -> None:
    folder = tmp_path / "cv"
    folder.mkdir()
    (folder / "cv.eval.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    (folder / "cv.gold.jsonl").write_text(jsonl(GOLD), encoding="utf-8")
    ext = folder / "cv.run1.extracted.jsonl"
    ext.write_text(LINE + "\n", encoding="utf-8")
    await lsp.boot([folder])
    await lsp.run_finished(0, "cv")
    diags = {str(d.code) + ":" + d.message.split(" · ", 1)[1].split(":")[0]: d
             for d in lsp.diags(ext.resolve())}
    typo = diags["mismatch:skills{Languages}[2]"]
    col = LINE.index('"Rist"')
    assert typo.range == at(0, col, col + len('"Rist"'))
    invented = diags["hallucination:skills{Hobbies}[0]"]
    col = LINE.index('"chess"')
    assert invented.range == at(0, col, col + len('"chess"'))
    branch = diags["mismatch:v"]
    col = LINE.index("110")
    assert branch.range == at(0, col, col + 3)
    assert len(diags) == 3


def test_field_pointers_of_maps_and_unions(tmp_path: Path) -> None:
    from evalschema_server.evaluation.runner import CancelToken, SuiteCache, run_suite
    from evalschema_server.evaluation.suites import discover

    (tmp_path / "cv.eval.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (tmp_path / "cv.gold.jsonl").write_text(jsonl(GOLD), encoding="utf-8")
    (tmp_path / "cv.run1.extracted.jsonl").write_text(LINE + "\n", encoding="utf-8")
    [suite] = discover([tmp_path], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    pointers = outcome.field_pointers
    assert pointers["v"] == "/properties/v"  # the union's key, not a branch
    assert pointers["skills{}"] == "/properties/skills/additionalProperties"
    assert pointers["skills{}[]"] == "/properties/skills/additionalProperties/items"
    assert set(outcome.runs[0].result.per_field) >= {"skills{}[]", "v"}
