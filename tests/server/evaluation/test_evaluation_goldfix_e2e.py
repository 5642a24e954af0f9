"""End-to-end: fixing gold from a finding in an extracted file, through a real LSP client.

"Accept extracted value as gold" is a WorkspaceEdit on the gold file: applied to the gold
text as the editor applies it, it gives exactly the file expected, and once saved the
finding is gone. "Open gold value" asks the client to show the gold value
(``window/showDocument``); "Compare record with gold" answers both records as text.
What the client sends back is never trusted: a forged or stale diagnostic gets no edit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval_session import Session
from eval_workspace import EXTRACTED_LINES, GOLD, write_suite
from lsp_helpers import apply_text_edits
from lsprotocol import types

KEY = "shop"
ACCEPT = "Accept extracted value as gold"


async def start(lsp: Session, folder: Path) -> None:
    await lsp.boot([folder], {"watchFiles": False})
    await lsp.run_finished(0, KEY)


async def opened(lsp: Session, tmp_path: Path, *, gold: bool = True,
                 extracted: list[str] | None = None) -> tuple[Path, Path]:
    """The suite (with these extracted lines), its first run done, the extracted file open
    (and the gold file, unless told); (extracted, gold)."""
    files = write_suite(tmp_path / "proj")
    if extracted is not None:
        files["extracted"].write_text("\n".join(extracted) + "\n", encoding="utf-8")
    await start(lsp, files["extracted"].parent)
    lsp.open(files["extracted"])
    if gold:
        lsp.open(files["gold"])
    return files["extracted"], files["gold"]


async def finding(lsp: Session, path: Path, code: str, line: int) -> types.Diagnostic:
    diags = await lsp.until(f"{code} on line {line}", lambda: [
        d for d in lsp.diags(path) if d.code == code and d.range.start.line == line])
    return diags[0]  # type: ignore[no-any-return]


def titled(actions: list[types.CodeAction], prefix: str) -> list[types.CodeAction]:
    return [a for a in actions if a.title.startswith(prefix)]


def gold_edits(action: types.CodeAction, uri: str) -> tuple[list[types.TextEdit], int | None]:
    """The edits of an accept action, and the gold version they are tied to (None: plain
    ``changes``, the gold file is not open)."""
    edit = action.edit
    assert edit is not None
    if edit.document_changes:
        [change] = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == uri
        return [e for e in change.edits if isinstance(e, types.TextEdit)], \
            change.text_document.version
    assert edit.changes is not None and list(edit.changes) == [uri]
    return list(edit.changes[uri]), None


async def accept_and_save(lsp: Session, gold: Path, action: types.CodeAction) -> str:
    """Apply the edit as the editor does (the gold document is open), save, wait for the
    run; returns the new gold text."""
    uri = gold.as_uri()
    edits, version = gold_edits(action, uri)
    assert version == lsp.versions[uri], "tied to the open gold document's version"
    new = apply_text_edits(gold.read_text(encoding="utf-8"), edits)
    for e in edits:
        lsp.edit(gold, e.range, e.new_text)
    gold.write_bytes(new.encode("utf-8"))
    mark = lsp.mark
    lsp.save(gold)
    await lsp.run_finished(mark, KEY)
    return new


def gold_lines() -> list[str]:
    return [json.dumps(r, ensure_ascii=False) for r in GOLD]


# -- accept: the exact gold file, then the finding is gone ---------------------------------

async def test_accept_a_mismatch_after_non_ascii_text_replaces_exactly_the_gold_value(
        lsp: Session, tmp_path: Path) -> None:
    ext, gold = await opened(lsp, tmp_path, gold=False)
    d = await finding(lsp, ext, "mismatch", 0)
    actions = await lsp.code_actions(ext, [d])
    [accept] = titled(actions, ACCEPT)
    assert accept.title == f"{ACCEPT}: price = 13.9"
    assert accept.kind == types.CodeActionKind.QuickFix and list(accept.diagnostics or ()) == [d]
    assert not accept.is_preferred, "a judgement call: never applied by auto-fix"
    # The gold file is not open: plain changes, at the UTF-16 columns of 12.5 (after é, û
    # and an emoji, which counts twice).
    edits, version = gold_edits(accept, gold.as_uri())
    line0 = gold_lines()[0]
    col = len(line0[:line0.index("12.5")].encode("utf-16-le")) // 2
    assert version is None
    assert edits == [types.TextEdit(types.Range(types.Position(0, col),
                                                types.Position(0, col + 4)), "13.9")]
    assert col != line0.index("12.5")
    before = gold.read_text(encoding="utf-8")
    assert apply_text_edits(before, edits) == before.replace('"price": 12.5', '"price": 13.9')
    assert gold.read_text(encoding="utf-8") == before, "the server never writes gold"

    lsp.open(gold)
    [accept] = titled(await lsp.code_actions(ext, [d]), ACCEPT)
    new = await accept_and_save(lsp, gold, accept)
    assert new.split("\n")[0] == line0.replace("12.5", "13.9")
    await lsp.until("the price mismatch gone", lambda: not [
        x for x in lsp.diags(ext) if x.code == "mismatch" and x.range.start.line == 0])


async def test_accept_an_invented_key_and_a_missing_one_then_both_are_gone(
        lsp: Session, tmp_path: Path) -> None:
    ext, gold = await opened(lsp, tmp_path)
    line1 = gold_lines()[1]
    invented = await finding(lsp, ext, "hallucination", 1)
    [add] = titled(await lsp.code_actions(ext, [invented]), ACCEPT)
    assert add.title == f'{ACCEPT}: add color = "red"'
    new = await accept_and_save(lsp, gold, add)
    # After "price", where the extracted record has it; one-line JSONL: inline.
    assert new.split("\n")[1] == line1.replace('"price": 3.0, ', '"price": 3.0, "color": "red", ')
    await lsp.until("the invented key gone", lambda: not [
        x for x in lsp.diags(ext) if x.code == "hallucination"])

    missing = await finding(lsp, ext, "omission", 1)
    [remove] = titled(await lsp.code_actions(ext, [missing]), ACCEPT)
    assert remove.title == f"{ACCEPT}: remove currency from gold"
    new = await accept_and_save(lsp, gold, remove)
    assert new.split("\n")[1] == line1.replace('"price": 3.0, ', '"price": 3.0, "color": "red", ') \
        .replace('"currency": "USD", ', "")
    assert new.split("\n")[0] == gold_lines()[0] and new.split("\n")[2] == gold_lines()[2]
    await lsp.until("the missing key gone", lambda: not [
        x for x in lsp.diags(ext) if x.code == "omission"])


async def test_accept_in_an_aligned_array_element_edits_the_gold_element_it_was_paired_with(
        lsp: Session, tmp_path: Path) -> None:
    # Extracted element 0 is x2 (gold element 1 by sku), and its qty is wrong.
    lines = list(EXTRACTED_LINES)
    lines[0] = lines[0].replace('{"sku": "x2", "qty": 2}', '{"sku": "x2", "qty": 3}')
    ext, gold = await opened(lsp, tmp_path, extracted=lines)
    await finding(lsp, ext, "mismatch", 0)
    wrong = [x for x in lsp.diags(ext) if x.code == "mismatch" and x.range.start.line == 0]
    [qty] = [x for x in wrong if "items[1].qty" in x.message]
    [accept] = titled(await lsp.code_actions(ext, [qty]), ACCEPT)
    assert accept.title == f"{ACCEPT}: items[1].qty = 3"
    new = await accept_and_save(lsp, gold, accept)
    assert new.split("\n")[0] == gold_lines()[0].replace('{"sku": "x2", "qty": 2}',
                                                         '{"sku": "x2", "qty": 3}')
    await lsp.until("the qty mismatch gone", lambda: not [
        x for x in lsp.diags(ext) if "items[1].qty" in x.message])


PRETTY_GOLD_CRLF = json.dumps(GOLD, indent=2, ensure_ascii=False).replace("\n", "\r\n") + "\r\n"


async def test_accept_into_pretty_printed_crlf_gold_adds_a_line_like_its_siblings(
        lsp: Session, tmp_path: Path) -> None:
    files = write_suite(tmp_path / "proj")
    ext = files["extracted"]
    files["gold"].unlink()
    gold = files["gold"].with_suffix(".json")
    gold.write_bytes(PRETTY_GOLD_CRLF.encode("utf-8"))
    await start(lsp, ext.parent)
    lsp.open(ext)
    invented = await finding(lsp, ext, "hallucination", 1)
    [add] = titled(await lsp.code_actions(ext, [invented]), ACCEPT)
    edits, version = gold_edits(add, gold.as_uri())
    assert version is None
    new = apply_text_edits(PRETTY_GOLD_CRLF, edits)
    assert new == PRETTY_GOLD_CRLF.replace('"price": 3.0,\r\n',
                                           '"price": 3.0,\r\n    "color": "red",\r\n')
    missing = await finding(lsp, ext, "omission", 1)
    [remove] = titled(await lsp.code_actions(ext, [missing]), ACCEPT)
    edits, _ = gold_edits(remove, gold.as_uri())
    assert apply_text_edits(PRETTY_GOLD_CRLF, edits) == PRETTY_GOLD_CRLF.replace(
        '    "currency": "USD",\r\n', "")
    gold.write_bytes(new.encode("utf-8"))
    mark = lsp.mark
    lsp.save(gold)
    await lsp.run_finished(mark, KEY)
    await lsp.until("the invented key gone", lambda: not [
        x for x in lsp.diags(ext) if x.code == "hallucination"])


# -- never trust what comes back -----------------------------------------------------------

async def test_forged_or_stale_diagnostics_get_no_edit(lsp: Session, tmp_path: Path) -> None:
    ext, gold = await opened(lsp, tmp_path)
    d = await finding(lsp, ext, "mismatch", 0)
    # Another range, another code, another source: not a finding the server shows.
    moved = types.Diagnostic(types.Range(d.range.start, types.Position(0, d.range.end.character
                                                                       + 1)),
                             d.message, code=d.code, source=d.source, data=d.data)
    relabelled = types.Diagnostic(d.range, d.message, code="omission", source=d.source,
                                  data=d.data)
    foreign = types.Diagnostic(d.range, d.message, code=d.code, source="other", data=d.data)
    for forged in (moved, relabelled, foreign):
        assert await lsp.code_actions(ext, [forged]) == [], forged
    # The data the client sends back is not read: another field changes nothing.
    lying = types.Diagnostic(d.range, d.message, code=d.code, source=d.source,
                             data={"field": "currency", "record": 7})
    [accept] = titled(await lsp.code_actions(ext, [lying]), ACCEPT)
    assert accept.title == f"{ACCEPT}: price = 13.9"

    # The gold file edited since the run: no edit (it would be computed on another text),
    # the other actions stay.
    lsp.edit(gold, types.Range(types.Position(3, 0), types.Position(3, 0)), "\n")
    titles = [a.title for a in await lsp.code_actions(ext, [d])]
    assert titles == ["Open gold value", "Compare record with gold"]
    # The extracted file edited since the run: its findings are not current at all.
    lsp.edit(ext, types.Range(types.Position(3, 0), types.Position(3, 0)), " ")
    assert await lsp.code_actions(ext, [d]) == []


# -- open the gold value, compare the record -----------------------------------------------

async def test_open_gold_value_asks_the_client_to_show_it_selected(
        lsp: Session, tmp_path: Path) -> None:
    # pytest-lsp's client answers showDocument (success) and records what it was asked.
    shown: list[types.ShowDocumentParams] = lsp.client.shown_documents
    ext, gold = await opened(lsp, tmp_path, gold=False)
    d = await finding(lsp, ext, "mismatch", 0)
    [open_gold] = titled(await lsp.code_actions(ext, [d]), "Open gold value")
    assert open_gold.command is not None
    assert open_gold.command.command == "evalschema.server.openGold"
    answer = await lsp.client.workspace_execute_command_async(types.ExecuteCommandParams(
        open_gold.command.command, open_gold.command.arguments))
    line0 = gold_lines()[0]
    col = len(line0[:line0.index("12.5")].encode("utf-16-le")) // 2
    where = types.Range(types.Position(0, col), types.Position(0, col + 4))
    assert shown == [types.ShowDocumentParams(gold.as_uri(), take_focus=True, selection=where)]
    assert answer == {"uri": gold.as_uri(), "shown": True, "range": {
        "start": {"line": 0, "character": col}, "end": {"line": 0, "character": col + 4}}}

    # A key gold does not have: its nearest parent's key, here the record's first key.
    invented = await finding(lsp, ext, "hallucination", 1)
    [open_gold] = titled(await lsp.code_actions(ext, [invented]), "Open gold value")
    assert open_gold.command is not None
    await lsp.client.workspace_execute_command_async(types.ExecuteCommandParams(
        open_gold.command.command, open_gold.command.arguments))
    assert shown[-1].selection == types.Range(types.Position(1, 1), types.Position(1, 5))
    # A range that is no finding: an error, nothing shown.
    bad = dict(open_gold.command.arguments[0])  # type: ignore[index]
    bad["range"] = {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 1}}
    error = await _command_error(lsp, "openGold", bad)
    assert "no current finding there" in error
    assert len(shown) == 2


async def _command_error(lsp: Session, name: str, arg: dict[str, Any]) -> str:
    try:
        await lsp.command(name, arg)
    except Exception as exc:  # the JSON-RPC error the client raises
        return str(exc)
    raise AssertionError(f"{name} {arg} answered without an error")


async def test_compare_record_with_gold_answers_both_records_pretty_printed(
        lsp: Session, tmp_path: Path) -> None:
    ext, _ = await opened(lsp, tmp_path, gold=False)
    d = await finding(lsp, ext, "mismatch", 0)
    [compare] = titled(await lsp.code_actions(ext, [d]), "Compare record with gold")
    assert compare.command is not None
    assert compare.command.command == "evalschema.server.recordDiff"
    assert list(compare.command.arguments or ()) == [{"uri": ext.as_uri(), "suite": KEY, "position": {
        "line": d.range.start.line, "character": d.range.start.character}}]
    answer = await lsp.client.workspace_execute_command_async(types.ExecuteCommandParams(
        compare.command.command, compare.command.arguments))
    extracted = json.loads(EXTRACTED_LINES[0])
    assert answer == {
        "gold": {"title": "shop.gold.jsonl · record a (gold)",
                 "text": json.dumps(GOLD[0], indent=2, ensure_ascii=False) + "\n"},
        "extracted": {"title": "shop.run1.extracted.jsonl · record a (run1)",
                      "text": json.dumps(extracted, indent=2, ensure_ascii=False) + "\n"}}
    # The extracted keys follow gold's order, the ones gold lacks after them.
    line1 = '{"price": 3.0, "color": "red", "name": "widget", "id": "b", "items": []}'
    assert list(json.loads(line1)) != list(GOLD[1])
    ext.write_text("\n".join([EXTRACTED_LINES[0], line1, *EXTRACTED_LINES[2:]]) + "\n",
                   encoding="utf-8")
    mark = lsp.mark
    lsp.edit(ext, types.Range(types.Position(1, 0), types.Position(1, len(
        EXTRACTED_LINES[1]))), line1)
    lsp.save(ext)
    await lsp.run_finished(mark, KEY)
    answer = await lsp.command("recordDiff", {"uri": ext.as_uri(), "position": {
        "line": 1, "character": 3}})
    assert answer["extracted"]["text"] == (
        '{\n  "id": "b",\n  "name": "widget",\n  "price": 3.0,\n  "items": [],\n'
        '  "color": "red"\n}\n')
    # No evaluated record there (line 2 is not JSON): an error that says so.
    error = await _command_error(lsp, "recordDiff", {"uri": ext.as_uri(), "position": {
        "line": 2, "character": 0}})
    assert "no evaluated record at line 3" in error
