"""End-to-end: when and how evaluation runs, through a real LSP client over stdio.

Saves with unsaved editor content, files written by other programs (watchfiles),
cancellation (work-done progress and ``$/cancelRequest``), stale results (an edit
during a run), progress reports, superseding runs, bad input (located diagnostics,
nothing written to disk) and multi-root workspaces.

Slow runs come from a comparator module written into the workspace and registered
through the ``comparatorModules`` setting: it sleeps ``delay.txt`` seconds per call,
so a test can make runs slow or fast while the server runs. Every wait polls with a
timeout; nothing sleeps for a fixed long time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path

import pytest
from eval_session import CMD, STOPPED_EARLY, TIMEOUT, Session
from eval_workspace import (
    EXTRACTED_LINES,
    GOLD,
    SLOW_OPTIONS,
    jsonl,
    set_delay,
    slow_suite,
    write_suite,
)
from lsp_helpers import position, span
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

# -- workspaces -----------------------------------------------------------------------

def line_span(line: int, text: str, needle: str, nth: int = 0) -> types.Range:
    """The range of ``needle`` within ``text``, which is line ``line`` of its file."""
    r = span(text, needle, nth)
    return types.Range(types.Position(line, r.start.character),
                       types.Position(line, r.end.character))


def whole_line(line: int, text: str) -> types.Range:
    return types.Range(types.Position(line, 0),
                       types.Position(line, len(text.encode("utf-16-le")) // 2))


def at(line: int, start: int, end: int) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line, end))


def found(diags: list[types.Diagnostic]) -> list[tuple[str, int]]:
    return sorted((str(d.code), d.range.start.line) for d in diags)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``folder``: size and modification time."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def shop(tmp_path: Path) -> dict[str, Path]:
    """The suite of ``eval_workspace`` by naming convention (suite ``shop``)."""
    return {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}


#: Expected findings of EXTRACTED_LINES: (code, line).
SHOP_FINDINGS = [("hallucination", 1), ("mismatch", 0), ("mismatch", 1), ("omission", 1),
                 ("unreadable-record", 2)]

def slow_line0(path: Path) -> str:
    return path.read_text(encoding="utf-8").split("\n")[0]


# -- 1. on save: the editor's unsaved content ----------------------------------------

async def test_save_scores_the_unsaved_editor_text_and_writes_nothing(
        lsp: Session, shop: dict[str, Path]) -> None:
    ext = shop["extracted"]
    await lsp.boot([ext.parent])
    await lsp.run_finished(0, "shop")
    assert found(lsp.diags(ext)) == SHOP_FINDINGS
    before = ext.read_bytes()
    stat = ext.stat()

    lsp.open(ext)
    line0 = EXTRACTED_LINES[0]
    lsp.edit(ext, line_span(0, line0, "13.9"), "12.5")  # fix the price, do not write
    mark = lsp.mark
    lsp.save(ext)
    done = await lsp.run_finished(mark, "shop")

    diags = lsp.diags(ext)
    assert found(diags) == [c for c in SHOP_FINDINGS if c != ("mismatch", 0)], diags
    [qty] = [d for d in diags if d.code == "mismatch"]
    col = EXTRACTED_LINES[1].index('"qty": 4') + len('"qty": ')
    assert qty.range == at(1, col, col + 1)
    # The diagnostics are those of the edited text: the publish names its version.
    last = lsp.publishes(ext, mark)[-1]
    assert last.version == 2
    [run] = done["suite"]["runs"]
    assert run["records"] == 3
    # Scored from the editor: the file on disk is untouched.
    assert ext.read_bytes() == before
    assert (ext.stat().st_size, ext.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)


async def test_requests_right_after_initialization_see_the_suites(
        lsp: Session, shop: dict[str, Path]) -> None:
    """Editors send requests as soon as the session is up (VS Code re-opens the editors
    of the last session; an extension lists the suites): they must see the workspace's
    suites, which the server finds after ``initialized``."""
    ext = shop["extracted"]
    await lsp.boot([ext.parent], {"runOnStartup": False})
    lsp.open(ext)  # a suite's file opened at once: it runs (it has no results yet)
    listed = await lsp.command("listSuites")
    assert [s["key"] for s in listed["suites"]] == ["shop"], \
        "listSuites right after initialization answered before the suites were found"
    try:
        await lsp.run_finished(0, "shop", timeout=5)
    except AssertionError:
        raise AssertionError("a suite's file opened right after initialization was not "
                             "run: didOpen came before the suites were found") from None
    assert found(lsp.diags(ext)) == SHOP_FINDINGS


async def test_undefined_figures_are_null_and_the_gold_coverage_is_summarised(
        lsp: Session, tmp_path: Path) -> None:
    """A suite where nothing is judged (the only field is skipped) and gold holds values
    under a key the schema does not have: the summary says null (never 1.0) and names
    the key; the report's rows say skipped."""
    folder = (tmp_path / "honest").resolve()
    folder.mkdir()
    (folder / "honest.eval.json").write_text(json.dumps({
        "type": "object", "properties": {"note": {"type": "string", "x-eval-skip": True}}}),
        encoding="utf-8")
    (folder / "honest.gold.jsonl").write_text(jsonl([
        {"note": "a", "events": [{"t": 1}, {"t": 2}]}, {"note": "b"}]), encoding="utf-8")
    (folder / "honest.run1.extracted.jsonl").write_text(jsonl([{"note": "x"}, {}]),
                                                         encoding="utf-8")
    await lsp.boot([folder], {"runOnStartup": False})
    await lsp.discovered("honest")
    ran = await asyncio.wait_for(lsp.command("runSuite", {"suite": "honest"}), TIMEOUT)
    [run] = ran["suites"][0]["runs"]
    assert (run["precision"], run["recall"], run["f1"], run["micro_f1"]) == (
        None, None, None, None)
    assert run["coverage"] == 0.0
    assert run["off_schema"] == [{"pointer": "/events", "values": 2}]
    report = await asyncio.wait_for(lsp.command("showReport", {"suite": "honest"}), TIMEOUT)
    [row] = report["suites"][0]["runs"][0]["fields"]
    assert (row["field"], row["f1"], row["precision"], row["recall"], row["skipped"]) == (
        "note", None, None, None, 2)


# -- 2. files written by other programs -------------------------------------------------

async def test_files_changed_and_created_on_disk_are_picked_up(
        lsp: Session, shop: dict[str, Path]) -> None:
    ext, folder = shop["extracted"], shop["extracted"].parent
    await lsp.boot([folder])
    await lsp.run_finished(0, "shop")

    # An extraction pipeline rewrites the run with another wrong price.
    lines = list(EXTRACTED_LINES)
    lines[0] = lines[0].replace("13.9", "99.5")
    ext.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def new_price() -> list[types.Diagnostic]:
        return [d for d in lsp.diags(ext) if d.code == "mismatch" and d.range.start.line == 0
                and "99.5" in d.message]

    # Within `until`'s TIMEOUT: the watcher's event, not a periodic rescan, brought it.
    [d] = await lsp.until("the mismatch of the rewritten file", new_price)
    assert d.range == line_span(0, lines[0], "99.5")
    assert d.message == "a · price: 99.5 ≠ gold 12.5 (numeric, rel 1%)"
    assert found(lsp.diags(ext)) == SHOP_FINDINGS

    # A new run appears beside it: it joins the suite and gets its diagnostics.
    run2 = folder / "shop.run2.extracted.jsonl"
    records = [dict(r) for r in GOLD]
    records[1]["price"] = 3.5
    run2.write_text(jsonl(records), encoding="utf-8")

    async def extracted_listed() -> list[str]:
        listed = await lsp.command("listSuites")
        return next(s["extracted"] for s in listed["suites"] if s["name"] == "shop")

    deadline = time.monotonic() + TIMEOUT
    while run2.as_uri() not in await extracted_listed():
        assert time.monotonic() < deadline, "the new run file did not join the suite"
        await asyncio.sleep(0.05)
    assert await extracted_listed() == [ext.as_uri(), run2.as_uri()]
    await lsp.until("diagnostics of the new run", lambda: lsp.diags(run2))
    [m] = lsp.diags(run2)
    line1 = jsonl(records).split("\n")[1]
    assert m.code == "mismatch"
    assert m.range == line_span(1, line1, "3.5")
    assert m.message.startswith("b · price: 3.5 ≠ gold 3.0")
    # The first run's findings are still there.
    assert found(lsp.diags(ext)) == SHOP_FINDINGS


# -- 3. cancellation ----------------------------------------------------------------------

async def _hover_schema(lsp: Session, slow: dict[str, Path]) -> None:
    """Hover on the schema's comparator (opened once)."""
    text = slow["schema"].read_text(encoding="utf-8")
    if slow["schema"].as_uri() not in lsp.versions:
        lsp.open(slow["schema"], "json")
    hover = await asyncio.wait_for(lsp.client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(slow["schema"].as_uri()),
        position(text, '"slow_equal"', delta=2))), 5)
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "slow_equal" in hover.contents.value


async def _still_answers(lsp: Session, slow: dict[str, Path], records: int) -> None:
    """After a cancellation: requests are answered and a new run completes."""
    listed = await asyncio.wait_for(lsp.command("listSuites"), 5)
    assert [s["key"] for s in listed["suites"]] == ["slow"]
    await _hover_schema(lsp, slow)
    set_delay(slow["schema"].parent, 0)
    ran = await asyncio.wait_for(lsp.command("runSuite", {"suite": "slow"}), TIMEOUT)
    [summary] = ran["suites"]
    assert summary["runs"][0]["records"] == records
    [mismatch] = lsp.diags(slow["extracted"])
    line0 = slow_line0(slow["extracted"])
    assert mismatch.range == line_span(0, line0, "999")


def _tokens_begun(lsp: Session) -> list[types.ProgressToken]:
    return [t for t, values in lsp.client.progress_reports.items()
            if any(isinstance(v, types.WorkDoneProgressBegin) for v in values)]


async def test_cancel_through_work_done_progress(lsp: Session, tmp_path: Path) -> None:
    records = 4000  # sleeping 5 ms each: a run that is not cancelled takes 20 s at least
    slow = slow_suite(tmp_path / "slow", records, 0.005)
    await lsp.boot([slow["schema"].parent], SLOW_OPTIONS)
    [token] = await lsp.until("work-done progress to begin", lambda: _tokens_begun(lsp))
    begun = time.monotonic()
    await lsp.until("a progress report", lambda: any(
        isinstance(v, types.WorkDoneProgressReport) for v in lsp.client.progress_reports[token]))
    # Requests are answered while the run goes on: the hover comes back before the end.
    await _hover_schema(lsp, slow)
    assert not lsp.finished(0), "hover waited for the run"
    mark = lsp.mark
    lsp.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token))
    done = await lsp.run_finished(mark, "slow", cancelled=None, timeout=TIMEOUT)
    assert done["cancelled"] is True, "the run went on to the end after its progress was " \
        "cancelled"
    # Sleeps are wall-clock time, so load cannot shorten a whole run below its 20 s.
    assert time.monotonic() - begun < STOPPED_EARLY, "the run was not stopped early"
    assert done["suite"]["runs"] == []
    end = lsp.client.progress_reports[token][-1]
    assert isinstance(end, types.WorkDoneProgressEnd) and end.message == "cancelled"
    assert not lsp.finished(mark, "slow", cancelled=False)
    await _still_answers(lsp, slow, records)


async def test_cancel_a_pending_run_suite_request(lsp: Session, tmp_path: Path) -> None:
    records = 4000  # as above: 20 s at least when not cancelled
    slow = slow_suite(tmp_path / "slow", records, 0.005)
    await lsp.boot([slow["schema"].parent], {**SLOW_OPTIONS, "runOnStartup": False})
    await lsp.discovered("slow")
    mark = lsp.mark
    request = asyncio.ensure_future(lsp.client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
            CMD + "runSuite", [{"suite": "slow"}]), msg_id="run-to-cancel"))
    await lsp.until("the run to start", lambda: lsp.started(mark, "slow"))
    begun = time.monotonic()
    await lsp.until("a progress report", lambda: [
        v for values in lsp.client.progress_reports.values() for v in values
        if isinstance(v, types.WorkDoneProgressReport)])
    lsp.client.cancel_request(types.CancelParams(id="run-to-cancel"))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(request, 5)
    done = await lsp.run_finished(mark, "slow", cancelled=None, timeout=TIMEOUT)
    assert done["cancelled"] is True, \
        "$/cancelRequest answered the request but the run went on to the end"
    assert time.monotonic() - begun < STOPPED_EARLY, "the run was not stopped early"
    await _still_answers(lsp, slow, records)


async def test_a_suite_that_hangs_never_holds_up_another(lsp: Session, tmp_path: Path) -> None:
    """A judge that hangs until its deadline (here: a comparator that sleeps 30 s a call)
    kept every other suite waiting behind it: runs went through one worker thread."""
    folder = tmp_path / "proj"
    slow_suite(folder, 3, 30.0)
    write_suite(folder)
    await lsp.boot([folder], {**SLOW_OPTIONS, "runOnStartup": False})
    await lsp.discovered("shop", "slow")
    mark = lsp.mark
    hanging = asyncio.ensure_future(lsp.command("runSuite", {"suite": "slow"}))
    await lsp.until("the slow run to start", lambda: lsp.started(mark, "slow"))
    ran = await asyncio.wait_for(lsp.command("runSuite", {"suite": "shop"}), TIMEOUT)
    [summary] = ran["suites"]
    assert summary["key"] == "shop" and summary["runs"][0]["records"] == 3
    # Its three calls sleep 30 s each: had shop waited for it, it would be done by now.
    assert not hanging.done(), "the other suite waited for the hanging one"
    hanging.cancel()


# -- 4. stale results ----------------------------------------------------------------------

NEW_RECORD = '{"id": "new", "price": 1}'


async def test_results_of_a_run_on_older_text_are_not_published(
        lsp: Session, tmp_path: Path) -> None:
    slow = slow_suite(tmp_path / "slow", 200, 0.01)  # a 2 s run
    ext = slow["extracted"]
    line0 = slow_line0(ext)
    await lsp.boot([ext.parent], {**SLOW_OPTIONS, "runOnStartup": False})
    await lsp.discovered("slow")
    mark = lsp.mark
    lsp.open(ext)  # opening a file of a suite without results runs it
    await lsp.until("the run to start", lambda: lsp.started(mark, "slow"))
    await lsp.until("the run to score records", lambda: [
        v for values in lsp.client.progress_reports.values() for v in values
        if isinstance(v, types.WorkDoneProgressReport)])
    assert not lsp.finished(mark)

    edit = lsp.mark
    lsp.edit(ext, at(0, 0, 0), NEW_RECORD + "\n")  # every record moves down one line
    done = await lsp.run_finished(mark, "slow")  # its publishes come before it
    for p in lsp.publishes(ext, edit):
        assert not [d for d in p.diagnostics if d.code == "mismatch"], \
            f"results of the old text published for version {p.version}: {p.diagnostics}"
    assert done["suite"]["runs"][0]["records"] == 200

    mark = lsp.mark
    lsp.save(ext)
    await lsp.run_finished(mark, "slow")
    diags = lsp.diags(ext)
    assert found(diags) == [("mismatch", 1), ("record-hallucinated", 0)], diags
    [m] = [d for d in diags if d.code == "mismatch"]
    assert m.range == line_span(1, line0, "999")
    assert lsp.publishes(ext, mark)[-1].version == 2


async def test_an_edit_never_republishes_results_at_old_positions(
        lsp: Session, shop: dict[str, Path]) -> None:
    ext = shop["extracted"]
    await lsp.boot([ext.parent])
    await lsp.run_finished(0, "shop")
    opened = lsp.mark
    lsp.open(ext)
    await lsp.until("the open file's diagnostics", lambda: lsp.publishes(ext, opened))
    edit = lsp.mark
    lsp.edit(ext, at(0, 0, 0), NEW_RECORD + "\n")  # every record moves down one line
    with contextlib.suppress(AssertionError):  # the server may publish after an edit
        await lsp.until("a publish for the edited text", lambda: [
            p for p in lsp.publishes(ext, edit) if p.version == 2], timeout=1)
    line0 = EXTRACTED_LINES[0]
    for p in lsp.publishes(ext, edit):
        old = [d for d in p.diagnostics if d.range == line_span(0, line0, "13.9")]
        assert not old, f"the old mismatch re-sent at its old position for version " \
            f"{p.version} (line 0 now holds another record)"
    mark = lsp.mark
    lsp.save(ext)
    await lsp.run_finished(mark, "shop")
    diags = lsp.diags(ext)
    assert found(diags) == sorted([("record-hallucinated", 0), *(
        (code, line + 1) for code, line in SHOP_FINDINGS)]), diags
    [m] = [d for d in diags if d.code == "mismatch" and "price" in d.message]
    assert m.range == line_span(1, line0, "13.9")


# -- 5. progress ----------------------------------------------------------------------------

async def test_work_done_progress_begin_reports_end(lsp: Session, tmp_path: Path) -> None:
    records = 200
    slow = slow_suite(tmp_path / "slow", records, 0.005)  # about 1 s
    await lsp.boot([slow["schema"].parent], SLOW_OPTIONS)
    done = await lsp.run_finished(0, "slow")
    assert done["suite"]["runs"][0]["records"] == records
    [token] = _tokens_begun(lsp)
    values = lsp.client.progress_reports[token]
    begin, *reports, end = values
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "evalschema: slow" and begin.cancellable is True
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message is not None and end.message.startswith("run1: F1 ")
    assert len(reports) >= 2 and all(isinstance(r, types.WorkDoneProgressReport)
                                     for r in reports)
    counts = []
    for r in reports:
        assert r.message is not None and r.message.endswith(f"/{records} records")
        counts.append(int(r.message.split("/")[0]))
        assert r.percentage == int(100 * counts[-1] / records)
    assert counts == sorted(counts) and counts[-1] == records
    assert counts[0] < records


async def test_no_progress_without_the_capability(lsp: Session, shop: dict[str, Path]
                                                  ) -> None:
    await lsp.boot([shop["extracted"].parent], progress=False)
    await lsp.run_finished(0, "shop")
    assert lsp.client.progress_reports == {}


# -- 6. superseding ---------------------------------------------------------------------------

async def test_quick_saves_show_the_last_content_only(lsp: Session, tmp_path: Path) -> None:
    slow = slow_suite(tmp_path / "slow", 20, 0)
    ext = slow["extracted"]
    line0 = slow_line0(ext)
    await lsp.boot([ext.parent], {**SLOW_OPTIONS, "evaluationDebounceMs": 0})
    await lsp.run_finished(0, "slow")
    lsp.open(ext)
    set_delay(ext.parent, 1.0)  # re-scoring the edited record takes a second

    mark = lsp.mark
    lsp.edit(ext, line_span(0, line0, "999"), "777")
    lsp.save(ext)
    await lsp.until("the first save's run", lambda: lsp.started(mark, "slow"))
    lsp.edit(ext, line_span(0, line0.replace("999", "777"), "777"), "555")
    lsp.save(ext)
    last = await lsp.run_finished(mark, "slow")
    assert lsp.finished(mark, "slow", cancelled=True), "the first run was not superseded"
    assert len(lsp.finished(mark, "slow", cancelled=False)) == 1
    assert last["suite"]["runs"][0]["records"] == 20
    for p in lsp.publishes(ext, mark):
        assert not [d for d in p.diagnostics if "777" in d.message], \
            "results of the superseded content were published"
    [m] = lsp.diags(ext)
    assert m.range == line_span(0, line0.replace("999", "555"), "555")
    assert m.message.startswith("r00000 · price: 555 ≠ gold 0")


async def test_saves_within_the_debounce_make_one_run(lsp: Session, shop: dict[str, Path]
                                                      ) -> None:
    ext = shop["extracted"]
    await lsp.boot([ext.parent], {"evaluationDebounceMs": 300})
    await lsp.run_finished(0, "shop")
    lsp.open(ext)
    line0 = EXTRACTED_LINES[0]
    mark = lsp.mark
    lsp.edit(ext, line_span(0, line0, "13.9"), "14.5")
    lsp.save(ext)
    lsp.edit(ext, line_span(0, line0.replace("13.9", "14.5"), "14.5"), "16.5")
    lsp.save(ext)
    await lsp.run_finished(mark, "shop")
    await asyncio.sleep(0.5)  # a second run would start within the debounce
    assert len(lsp.started(mark, "shop")) == 1, "two saves within the debounce ran twice"
    assert len(lsp.finished(mark)) == 1
    for p in lsp.publishes(ext, mark):
        assert not [d for d in p.diagnostics if "14.5" in d.message]
    [m] = [d for d in lsp.diags(ext) if d.code == "mismatch" and d.range.start.line == 0]
    assert m.range == line_span(0, line0.replace("13.9", "16.5"), "16.5")
    assert m.message == "a · price: 16.5 ≠ gold 12.5 (numeric, rel 1%)"


# -- 7. bad input ----------------------------------------------------------------------------

async def _boot_and_settle(lsp: Session, folder: Path, keys: list[str]) -> None:
    await lsp.boot([folder])
    for key in keys:
        await lsp.run_finished(0, key)


async def test_invalid_gold_line_is_located_and_the_rest_scored(
        lsp: Session, shop: dict[str, Path]) -> None:
    gold = shop["gold"]
    lines = gold.read_text(encoding="utf-8").split("\n")
    lines[1] = lines[1].replace('"price": 3.0,', '"price": 3.0,,')
    gold.write_text("\n".join(lines), encoding="utf-8")
    folder = gold.parent
    before = snapshot(folder)
    await _boot_and_settle(lsp, folder, ["shop"])

    [bad] = lsp.diags(gold)
    assert bad.code == "unreadable-record"
    assert bad.range == whole_line(1, lines[1])
    assert bad.severity == types.DiagnosticSeverity.Error
    assert bad.message.startswith("gold record 2 cannot be read: not valid JSON")
    ext = lsp.diags(shop["extracted"])
    # Records a and c are still scored; b has no readable gold record.
    assert found(ext) == [("mismatch", 0), ("record-hallucinated", 1),
                          ("unreadable-record", 2)], ext
    [m] = [d for d in ext if d.code == "mismatch"]
    assert m.range == line_span(0, EXTRACTED_LINES[0], "13.9")
    assert snapshot(folder) == before


async def test_duplicate_ids_in_the_extracted_file(lsp: Session, shop: dict[str, Path]
                                                   ) -> None:
    ext = shop["extracted"]
    dup = '{"id": "c", "name": "Gadget", "price": 7.0, "currency": "GBP", "items": []}'
    ext.write_text("\n".join([*EXTRACTED_LINES, dup]) + "\n", encoding="utf-8")
    folder = ext.parent
    before = snapshot(folder)
    await _boot_and_settle(lsp, folder, ["shop"])

    diags = lsp.diags(ext)
    assert found(diags) == sorted([*SHOP_FINDINGS, ("duplicate-id", 4),
                                   ("record-hallucinated", 4)]), diags
    [d] = [d for d in diags if d.code == "duplicate-id"]
    assert d.range == whole_line(4, dup)
    assert d.message.startswith("id 'c' appears again (first in record 4)")
    [m] = [d for d in diags if d.code == "mismatch" and d.range.start.line == 0]
    assert m.range == line_span(0, EXTRACTED_LINES[0], "13.9")
    assert snapshot(folder) == before


async def test_schema_that_does_not_parse(lsp: Session, shop: dict[str, Path]) -> None:
    schema = shop["schema"]
    text = schema.read_text(encoding="utf-8").replace('"currency": {', '"currency" {')
    schema.write_text(text, encoding="utf-8")
    folder = schema.parent
    before = snapshot(folder)
    await _boot_and_settle(lsp, folder, ["shop"])

    [d] = await lsp.until("the schema's diagnostic", lambda: lsp.diags(schema))
    assert d.code == "invalid-json"  # the engine's reader, as `evalschema eval` reads it
    assert d.message == "the schema is not valid JSON: Expecting ':' delimiter"
    assert d.severity == types.DiagnosticSeverity.Error
    # On the brace where the colon should be (not at the top of the file).
    brace = len('"currency" ')
    assert d.range == types.Range(position(text, '"currency" {', delta=brace),
                                  position(text, '"currency" {', delta=brace + 1))
    # Nothing can be scored without a schema: the data files are published empty.
    assert lsp.diags(shop["extracted"]) == [] and lsp.diags(shop["gold"]) == []
    assert shop["extracted"].as_uri() in lsp.client.diagnostics
    assert snapshot(folder) == before


TOML = '''\
[[suite]]
name = "missing-gold"
schema = "shop.eval.json"
gold = "nowhere.gold.jsonl"
extracted = ["shop.run1.extracted.jsonl"]

[[suite]]
name = "typo"
schema = "shop.eval.json"
gold = "shop.gold.jsonl"
extracted = ["shop.run1.extracted.jsonl"]
id_feild = "id"

[[suite]]
name = "good"
schema = "shop.eval.json"
gold = "shop.gold.jsonl"
extracted = ["shop.*.extracted.jsonl"]
'''


async def test_configuration_problems_are_located_in_the_toml(
        lsp: Session, shop: dict[str, Path]) -> None:
    folder = shop["schema"].parent
    config = folder / "evalschema.toml"
    config.write_text(TOML, encoding="utf-8")
    before = snapshot(folder)
    await _boot_and_settle(lsp, folder, ["good"])

    diags = await lsp.until("the configuration's diagnostics", lambda: lsp.diags(config))
    by_code = {str(d.code): d for d in diags}
    assert sorted(by_code) == ["file-not-found", "unknown-key"], diags
    missing = by_code["file-not-found"]
    assert missing.range == at(3, 0, len("gold"))
    assert missing.message.startswith("gold 'nowhere.gold.jsonl' not found")
    assert missing.severity == types.DiagnosticSeverity.Error
    typo = by_code["unknown-key"]
    assert typo.range == at(11, 0, len("id_feild"))
    assert typo.message == "unknown key 'id_feild' in suite 'typo' (did you mean 'id_field'?)"
    # The valid suite is listed and scored.
    listed = await lsp.command("listSuites")
    assert [s["name"] for s in listed["suites"]] == ["good"]
    assert found(lsp.diags(shop["extracted"])) == SHOP_FINDINGS
    assert snapshot(folder) == before


async def test_a_file_that_is_not_utf8(lsp: Session, shop: dict[str, Path]) -> None:
    folder = shop["schema"].parent
    run2 = folder / "shop.run2.extracted.jsonl"
    run2.write_bytes(('{"id": "a", "name": "Crème brûlée", "price": 12.5}\n').encode("latin-1"))
    before = snapshot(folder)
    await _boot_and_settle(lsp, folder, ["shop"])

    diags = await lsp.until("the diagnostic of the unreadable file", lambda: lsp.diags(run2))
    [d] = diags
    assert d.code == "unreadable-file"
    assert d.range == at(0, 0, 0)
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.message.startswith("cannot read shop.run2.extracted.jsonl: not UTF-8")
    # The other run is scored.
    assert found(lsp.diags(shop["extracted"])) == SHOP_FINDINGS
    assert snapshot(folder) == before


# -- 8. multi-root ----------------------------------------------------------------------------

SHARED_GOLD_TOML = '''\
[[suite]]
name = "s1"
schema = "shop.eval.json"
gold = "shop.gold.jsonl"
extracted = ["shop.run1.extracted.jsonl"]

[[suite]]
name = "s2"
schema = "shop.eval.json"
gold = "shop.gold.jsonl"
extracted = ["shop.run2.extracted.jsonl"]
'''


async def test_multi_root_shared_files_and_added_folders(lsp: Session, tmp_path: Path) -> None:
    alpha = {k: p.resolve() for k, p in write_suite(tmp_path / "alpha").items()}
    beta = {k: p.resolve() for k, p in write_suite(tmp_path / "beta").items()}
    gamma = {k: p.resolve() for k, p in write_suite(tmp_path / "gamma").items()}
    run2 = alpha["gold"].parent / "shop.run2.extracted.jsonl"
    records = [dict(r) for r in GOLD]
    records[1]["price"] = 3.5
    run2.write_text(jsonl(records), encoding="utf-8")
    (alpha["gold"].parent / "evalschema.toml").write_text(SHARED_GOLD_TOML, encoding="utf-8")
    folders = [alpha["gold"].parent, beta["gold"].parent]
    await lsp.boot(folders, {"goldDiagnostics": True})
    for key in ("alpha:s1", "alpha:s2", "beta:shop"):
        await lsp.run_finished(0, key)
    listed = await lsp.command("listSuites")
    assert sorted(s["key"] for s in listed["suites"]) == ["alpha:s1", "alpha:s2", "beta:shop"]

    assert found(lsp.diags(alpha["extracted"])) == SHOP_FINDINGS
    assert found(lsp.diags(beta["extracted"])) == SHOP_FINDINGS
    [m] = lsp.diags(run2)
    line1 = jsonl(records).split("\n")[1]
    assert m.code == "mismatch" and m.range == line_span(1, line1, "3.5")
    # The gold file belongs to both suites of alpha: it shows what each found there.
    gold_lines = alpha["gold"].read_text(encoding="utf-8").split("\n")
    gold = lsp.diags(alpha["gold"])
    [from_s1] = [d for d in gold if d.message.startswith("[run1] a · price:")]
    assert from_s1.range == line_span(0, gold_lines[0], "12.5")
    [from_s2] = [d for d in gold if d.message.startswith("[run2] b · price:")]
    assert from_s2.range == line_span(1, gold_lines[1], "3.0")
    assert from_s2.message == "[run2] b · price: 3.5 ≠ gold 3.0 (numeric, rel 1%)"
    # beta's gold file shows its own findings only.
    assert all(d.message.startswith("[run1] ") for d in lsp.diags(beta["gold"]))

    mark = lsp.mark
    lsp.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(gamma["gold"].parent.as_uri(), "gamma")],
            removed=[])))
    await lsp.run_finished(mark, "gamma:shop")
    listed = await lsp.command("listSuites")
    assert sorted(s["key"] for s in listed["suites"]) == [
        "alpha:s1", "alpha:s2", "beta:shop", "gamma:shop"]
    assert found(lsp.diags(gamma["extracted"])) == SHOP_FINDINGS
    [m] = [d for d in lsp.diags(gamma["extracted"]) if d.code == "mismatch"
           and d.range.start.line == 0]
    assert m.range == line_span(0, EXTRACTED_LINES[0], "13.9")
    # beta's diagnostics are still its own (same suite name, another folder).
    assert found(lsp.diags(beta["extracted"])) == SHOP_FINDINGS

    # Removing a folder drops its suites and clears what they showed.
    lsp.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        types.WorkspaceFoldersChangeEvent(
            added=[], removed=[types.WorkspaceFolder(beta["gold"].parent.as_uri(), "beta")])))
    await lsp.until("beta's diagnostics to be cleared", lambda: not lsp.diags(beta["extracted"]))
    assert await lsp.suite_keys() == ["alpha:s1", "alpha:s2", "gamma:shop"]
    assert found(lsp.diags(gamma["extracted"])) == SHOP_FINDINGS
