"""End-to-end: what the editor shows can be trusted. No finding is hidden without saying
so, and no number is shown as current when it is not. Through a real LSP client over stdio.

- the bundled model-b run has more findings than VS Code shows per file (1,000): the
  server stays under that limit and says, at the top of the file, how many are not shown
  and in which records; one diagnostic per record on request;
- an open file that another program rewrites, and that the editor reloads (a change with
  the disk's text, no save), is evaluated again;
- while the schema does not parse, the last good results stay, marked stale;
- an empty gold file is one error, not a warning on every record.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path
from typing import Any

from eval_session import Session, read_code_actions_as_the_spec_says
from eval_workspace import GOLD, write_suite
from lsprotocol import types

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
#: VS Code's own limit of problems per file (it drops the rest with a note of its own).
VSCODE_LIMIT = 1000


def bundled(tmp_path: Path) -> Path:
    """A copy of the bundled example (suite ``invoices``: model-a and model-b)."""
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns("*.py", "README.md"))
    return folder.resolve()


def full_text_change(lsp: Session, path: Path, text: str) -> None:
    """What VS Code sends when it reloads a file changed on disk: the whole new text."""
    uri = path.as_uri()
    lsp.versions[uri] += 1
    lsp.client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=lsp.versions[uri]),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))


def _record_id(line: str) -> str | None:
    """A model-b line's invoice id (some are JSON strings holding the record)."""
    found = re.search(r'invoice_id\\?": \\?"(INV-[0-9-]+)', line)
    return found.group(1) if found else None


async def report(lsp: Session, suite: str) -> dict[str, Any]:
    [got] = (await lsp.command("showReport", {"suite": suite}))["suites"]
    return got  # type: ignore[no-any-return]


# -- never hide a finding silently --------------------------------------------------------

async def test_model_b_stays_under_the_editors_limit_and_says_what_is_not_shown(
        lsp: Session, tmp_path: Path) -> None:
    folder = bundled(tmp_path)
    model_b = folder / "invoices.model-b.extracted.jsonl"
    await lsp.boot([folder], {"watchFiles": False})
    await lsp.run_finished(0, "invoices")
    diags = await lsp.until("model-b's diagnostics", lambda: lsp.diags(model_b))
    assert len(diags) <= VSCODE_LIMIT, "VS Code would drop the rest silently"
    [summary] = [d for d in diags if d.code == "more-findings"]
    assert len(diags) == 901 and diags[-1] is summary
    assert summary.severity == types.DiagnosticSeverity.Information
    assert summary.range == types.Range(types.Position(0, 0), types.Position(0, 0))
    data = summary.data
    shown = [d for d in diags if d is not summary]
    assert data["hidden"] > 1000 and len(data["records"]) == 100

    # Every finding is either shown or counted: without a limit, exactly those appear, and
    # the records named are those of the findings past the 900th, in file order.
    everything = lsp.mark
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        {"evalschema": {"watchFiles": False, "maxDiagnosticsPerFile": 0}}))
    await lsp.run_finished(everything, "invoices")
    all_diags = await lsp.until("every finding", lambda: [
        d for d in lsp.diags(model_b)] if len(lsp.diags(model_b)) > 901 else None)
    assert "more-findings" not in {d.code for d in all_diags}
    assert len(all_diags) == len(shown) + data["hidden"]
    assert all_diags[:900] == shown, "the first 900 are the same, in the same order"
    ids = [_record_id(line) for line in model_b.read_text(encoding="utf-8").splitlines()]

    def record_of(d: types.Diagnostic) -> str | None:
        if d.code == "record-omitted":  # at the top of the file, named in its message
            return d.message.split(":")[0].removeprefix("record ")
        return ids[d.range.start.line]

    hidden = [record_of(d) for d in all_diags[900:]]
    assert data["records"] == list(dict.fromkeys(hidden))[:100]
    assert summary.message.startswith(f"{data['hidden']:,} more findings in ")
    assert f"({', '.join(data['records'][:5])} and " in summary.message
    assert "evalschema.maxDiagnosticsPerFile" in summary.message

    # A code action on it opens every finding (the results view in VS Code).
    lsp.open(model_b)
    read_code_actions_as_the_spec_says(lsp)
    actions = await lsp.client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(model_b.as_uri()), summary.range,
        types.CodeActionContext(diagnostics=[summary])))
    assert actions is not None
    [show] = [a for a in actions if isinstance(a, types.CodeAction)
              and a.command is not None and a.command.command.endswith("showReport")]
    assert show.title == "Show every finding (evalschema results)"
    assert show.command is not None and list(show.command.arguments or ()) == [
        {"uri": model_b.as_uri()}]


async def test_one_diagnostic_per_record_on_request(lsp: Session, tmp_path: Path) -> None:
    folder = bundled(tmp_path)
    model_b = folder / "invoices.model-b.extracted.jsonl"
    await lsp.boot([folder], {"watchFiles": False, "diagnosticsMode": "record"})
    await lsp.run_finished(0, "invoices")
    diags = await lsp.until("model-b's diagnostics", lambda: lsp.diags(model_b))
    assert {d.code for d in diags} == {"record-findings", "unreadable-record", "record-omitted"}
    per_record = [d for d in diags if d.code == "record-findings"]
    lines = [d.range.start.line for d in per_record]
    assert lines == sorted(set(lines)), "one per record, in file order"
    first = json.loads(model_b.read_text(encoding="utf-8").splitlines()[lines[0]])
    assert per_record[0].message.startswith(f"{first['invoice_id']}: ")
    assert per_record[0].related_information, "each finding is a related location"
    assert len(diags) < 400, "one per record: no cap needed for 240 records"


async def test_an_empty_gold_file_is_one_error_at_its_top(
        lsp: Session, tmp_path: Path) -> None:
    files = {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}
    files["gold"].write_text("", encoding="utf-8")
    await lsp.boot([files["schema"].parent], {"watchFiles": False})
    finished = await lsp.run_finished(0, "shop")
    assert finished["suite"]["runs"] == []
    [gold] = await lsp.until("the gold file's error", lambda: lsp.diags(files["gold"]))
    assert (gold.code, gold.severity) == ("gold-empty", types.DiagnosticSeverity.Error)
    assert gold.message.startswith("the gold file has 0 records")
    [run] = lsp.diags(files["extracted"])
    assert (run.code, run.severity) == ("gold-empty", types.DiagnosticSeverity.Warning)
    assert run.range.start == types.Position(0, 0)


# -- never show a stale number ------------------------------------------------------------

async def test_an_open_gold_file_reloaded_from_disk_is_evaluated_again(
        lsp: Session, tmp_path: Path) -> None:
    """VS Code reloads a file another program rewrote by sending its new text as a change,
    without a save. The findings must follow, as after a save, with no file watcher."""
    files = {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}
    gold, ext = files["gold"], files["extracted"]
    await lsp.boot([gold.parent], {"watchFiles": False})
    await lsp.run_finished(0, "shop")
    lsp.open(gold)
    await lsp.until("the first findings", lambda: lsp.diags(ext))

    def omission() -> list[types.Diagnostic]:
        return [d for d in lsp.diags(ext) if d.code == "omission"]

    assert [d.message for d in omission()] == ['b · currency: missing (gold "USD")']

    # Typing in the gold file (it no longer equals the disk) runs nothing: runOn is "save".
    typed = lsp.mark
    lsp.edit(gold, types.Range(types.Position(0, 0), types.Position(0, 0)), " ")
    await asyncio.sleep(0.6)
    assert lsp.started(typed, "shop") == []
    full_text_change(lsp, gold, gold.read_text(encoding="utf-8"))  # undone: back to disk

    # Another program rewrites it; the editor reloads it.
    records = [dict(r) for r in GOLD]
    records[1]["currency"] = "usd"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    gold.write_text(text, encoding="utf-8")
    reloaded = lsp.mark
    full_text_change(lsp, gold, text)
    await lsp.run_finished(reloaded, "shop")
    await lsp.until("the omission of the new gold value",
                    lambda: [d for d in omission() if "usd" in d.message])
    assert [d.message for d in omission()] == ['b · currency: missing (gold "usd")']


async def test_the_client_hears_of_a_run_as_soon_as_it_is_pending(
        lsp: Session, tmp_path: Path) -> None:
    """With runOn "change", a keystroke queues a run 0.3 s later: the client is told at
    once (runQueued), so it never shows the old figures as current meanwhile; a keystroke
    during the run supersedes it, and the superseded run's end says another is pending."""
    files = {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}
    ext = files["extracted"]
    await lsp.boot([ext.parent], {"watchFiles": False, "runOn": "change"})
    await lsp.run_finished(0, "shop")
    lsp.open(ext)
    typed = lsp.mark
    lsp.edit(ext, types.Range(types.Position(0, 0), types.Position(0, 0)), " ")
    await lsp.run_finished(typed, "shop")
    times = {m: t for t, m, p in lsp.events[typed:] if m.startswith("evalschema/run")}
    assert list(times) == ["evalschema/runQueued", "evalschema/runStarted",
                           "evalschema/runFinished"]
    assert times["evalschema/runStarted"] - times["evalschema/runQueued"] >= 0.25  # debounce
    assert lsp.finished(typed, "shop")[0]["pending"] is False

    # Three keystrokes in a row: one "queued"; each run's end says whether another follows.
    again = lsp.mark
    for _ in range(3):
        lsp.edit(ext, types.Range(types.Position(0, 0), types.Position(0, 0)), " ")
    await lsp.until("a run that is not followed by another",
                    lambda: [p for p in lsp.finished(again, "shop", None) if not p["pending"]])
    assert len(lsp.queued(again, "shop")) == 1


async def test_last_good_results_stay_marked_stale_while_the_schema_does_not_parse(
        lsp: Session, tmp_path: Path) -> None:
    files = {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}
    schema, ext = files["schema"], files["extracted"]
    await lsp.boot([schema.parent], {"watchFiles": False})
    good = await lsp.run_finished(0, "shop")
    assert "stale" not in good["suite"]
    lsp.open(schema, "json")
    lsp.open(ext)
    before = await lsp.until("the findings", lambda: lsp.diags(ext))

    # Mid-typing: the schema stops parsing, and is saved (auto-save).
    text = schema.read_text(encoding="utf-8")
    cut = text.index('"currency"')
    broken = lsp.mark
    lsp.edit(schema, types.Range(types.Position(0, 0), types.Position(0, 0)), "")  # version
    full_text_change(lsp, schema, text[:cut] + '"curr')
    lsp.save(schema)
    stale = await lsp.run_finished(broken, "shop")
    assert stale["suite"]["stale"] == "schema has errors"
    assert stale["suite"]["runs"] == good["suite"]["runs"], "the last good figures, kept"
    assert stale["suite"]["problems"] >= 1
    await asyncio.sleep(0.2)  # any publish the run caused has arrived
    assert lsp.diags(ext) == before, "the data files keep their findings"
    line0 = ext.read_text(encoding="utf-8").split("\n")[0]
    hover = await lsp.client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(ext.as_uri()),
        types.Position(0, len(line0[:line0.index("13.9") + 1].encode("utf-16-le")) // 2)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "run `run1` · record `a` · **stale**: schema has errors" in hover.contents.value
    shown = await report(lsp, "shop")
    assert shown["stale"] == "schema has errors"
    assert any("not valid JSON" in p["message"] for p in shown["problems"])
    lenses = await lsp.client.text_document_code_lens_async(types.CodeLensParams(
        types.TextDocumentIdentifier(schema.as_uri())))
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert titles[0] == "▶ Evaluate", "the action first, never cut off"
    assert "stale: schema has errors" in titles
    assert any(t.startswith("run1 F1 ") for t in titles)

    # Fixed: fresh results, no longer stale.
    fixed = lsp.mark
    full_text_change(lsp, schema, text)
    lsp.save(schema)
    fresh = await lsp.run_finished(fixed, "shop")
    assert "stale" not in fresh["suite"]
    assert fresh["suite"]["runs"] == good["suite"]["runs"]


async def test_a_fields_findings_include_gold_records_missing_from_the_run(
        lsp: Session, tmp_path: Path) -> None:
    """listFindings (the list of a field's findings): a gold record the run lacks has its
    omissions too, located in the gold file, after the run's own, in file order."""
    files = {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}
    gold = [*GOLD, {"id": "d", "name": "Dial", "price": 9.0, "currency": "EUR", "items": []}]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in gold)
    files["gold"].write_text(text, encoding="utf-8")
    await lsp.boot([files["schema"].parent], {"watchFiles": False})
    await lsp.run_finished(0, "shop")
    got = await lsp.command("listFindings", {"suite": "shop", "field": "price"})
    rows = [(f["record"], f["status"], f["uri"], f["range"]["start"]["line"])
            for f in got["findings"]]
    assert rows == [("a", "mismatch", files["extracted"].as_uri(), 0),
                    ("d", "omission", files["gold"].as_uri(), 3)]
    line3 = text.split("\n")[3]
    assert got["findings"][1]["range"]["start"]["character"] == line3.index("9.0")
