"""End-to-end: records as tests (``listTests``, ``runTests``, ``evalschema/suitesChanged``)
through a real LSP client, on the suite of ``eval_workspace``: exact labels, statuses,
messages, expected/actual texts and UTF-16 ranges; one record; results of an older text;
cancellation by ``$/cancelRequest``; the tree after changes on disk.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from eval_session import CMD, SUITES_CHANGED, TIMEOUT, Session
from eval_workspace import EXTRACTED_LINES, GOLD, SLOW_OPTIONS, jsonl, slow_suite, write_suite
from lsp_helpers import span
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcRequestCancelled

LINE0, LINE1, LINE2, LINE3 = EXTRACTED_LINES
GOLD_LINES = jsonl(GOLD).split("\n")


def rng(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def on(line: int, text: str, needle: str, delta: int = 0, length: int | None = None
       ) -> dict[str, Any]:
    """The range of ``needle`` (from ``delta`` characters into it) in ``text``, line ``line``."""
    r = span(text, needle)
    start = r.start.character + delta
    end = r.end.character if length is None else start + length
    return rng(line, start, end)


def whole(line: int, text: str) -> dict[str, Any]:
    return rng(line, 0, len(text.encode("utf-16-le")) // 2)


@pytest.fixture
def shop(tmp_path: Path) -> dict[str, Path]:
    return {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}


def expected_tree(shop: dict[str, Path], statuses: list[str], version: int | None = None
                  ) -> dict[str, Any]:
    ext, gold = shop["extracted"].as_uri(), shop["gold"].as_uri()

    def record(rid: str, label: str, line: int, gold_line: int | None, status: str
               ) -> dict[str, Any]:
        return {"id": rid, "label": label, "uri": ext, "range": whole(line, EXTRACTED_LINES[line]),
                "gold": None if gold_line is None else
                {"uri": gold, "range": whole(gold_line, GOLD_LINES[gold_line])},
                "status": status}

    a, b, c, unreadable = statuses
    return {"suites": [{"key": "shop", "name": "shop", "uri": shop["schema"].as_uri(), "runs": [{
        "uri": ext, "label": "run1", "version": version, "records": [
            record("a", "a", 0, 0, a), record("b", "b", 1, 1, b), record("c", "c", 3, 2, c),
            record("#4", "shop.run1.extracted.jsonl #4 (line 3)", 2, None, unreadable)]}]}]}


def message(text: str, field: str | None, status: str, uri: str, at: dict[str, Any],
            expected: str, actual: str) -> dict[str, Any]:
    return {"message": text, "field": field, "status": status, "uri": uri, "range": at,
            "expected": expected, "actual": actual}


def expected_results(shop: dict[str, Path]) -> dict[str, list[dict[str, Any]]]:
    """Each record's result in run1, by id."""
    ext = shop["extracted"].as_uri()
    return {
        "a": [message("price: 13.9 ≠ gold 12.5 (numeric, rel 1%)", "price", "mismatch", ext,
                      on(0, LINE0, "13.9"), "12.5", "13.9")],
        "b": [message('currency: missing (gold "USD")', "currency", "omission", ext,
                      on(1, LINE1, '"id"'), '"USD"', ""),
              message("items[0].qty: 4 ≠ gold 5 (numeric)", "items[0].qty", "mismatch", ext,
                      on(1, LINE1, '"qty": 4', 7, 1), "5", "4"),
              message('color: invented "red" (gold has no value here)', "color",
                      "hallucination", ext, on(1, LINE1, '"color"'), "", '"red"')],
        "c": [],
        "#4": [message("record shop.run1.extracted.jsonl #4 (line 3): unreadable extracted "
                       "record: no JSON object found in 'I could not read the document.'",
                       None, "unreadable-record", ext, whole(2, LINE2), "", LINE2)],
    }


STATUSES = {"a": "failed", "b": "failed", "c": "passed", "#4": "errored"}


async def test_records_are_listed_not_run_then_scored(lsp: Session, shop: dict[str, Path]
                                                      ) -> None:
    await lsp.boot([shop["schema"].parent], {"runOnStartup": False})
    await lsp.discovered("shop")
    # Not run yet: the records as a run pairs them, from the files on disk.
    assert await lsp.command("listTests") == expected_tree(shop, ["not run"] * 4)
    assert not lsp.started(), "listing the tests ran the suite"

    got = await lsp.command("runTests", {"suite": "shop"})
    messages = expected_results(shop)
    assert got == {"suite": "shop", "runs": [{
        "uri": shop["extracted"].as_uri(), "label": "run1", "version": None, "stale": False,
        "records": [{"id": rid, "status": STATUSES[rid], "messages": messages[rid]}
                    for rid in ("a", "b", "c", "#4")]}]}
    assert await lsp.command("listTests", {"suite": "shop"}) == \
        expected_tree(shop, ["failed", "failed", "passed", "errored"])


async def test_one_record_and_bad_arguments(lsp: Session, shop: dict[str, Path]) -> None:
    await lsp.boot([shop["schema"].parent])
    await lsp.run_finished(0, "shop")
    ext = shop["extracted"].as_uri()
    got = await lsp.command("runTests", {"suite": "shop", "run": ext, "records": ["b"]})
    [run] = got["runs"]
    assert run["records"] == [{"id": "b", "status": "failed",
                               "messages": expected_results(shop)["b"]}]
    gold_only = await lsp.command("runTests", {"suite": "shop", "run": shop["gold"].as_uri()})
    assert gold_only == {"suite": "shop", "runs": []}
    for bad, why in (({}, 'runTests needs {"suite": KEY}'),
                     ({"suite": "shop", "records": "b"},
                      "runTests: records must be a list of record ids"),
                     ({"suite": "nope"}, "no suite named 'nope'; known: shop")):
        with pytest.raises(JsonRpcInternalError, match=why.replace("{", r"\{").replace(
                "}", r"\}").replace("'", "'")):
            await lsp.command("runTests", bad)


INVENTED = '{"id": "z", "price": 1}'


async def test_records_missing_from_either_side_are_one_message_each(
        lsp: Session, tmp_path: Path) -> None:
    files = {k: p.resolve() for k, p in write_suite(tmp_path / "proj").items()}
    # b and c are missing from the run; z is not in gold.
    files["extracted"].write_text(LINE0 + "\n" + INVENTED + "\n", encoding="utf-8")
    await lsp.boot([files["schema"].parent])
    await lsp.run_finished(0, "shop")
    got = await lsp.command("runTests", {"suite": "shop", "records": ["c", "z"]})
    gold = files["gold"].as_uri()
    whole_c = '{\n  "id": "c",\n  "name": "Gadget",\n  "price": 7.25,\n  "currency": "GBP",' \
        '\n  "items": []\n}'
    assert sorted(got["runs"][0]["records"], key=lambda r: r["id"]) == [
        {"id": "c", "status": "failed", "messages": [message(
            "record c: no extracted record with this id", None, "record-omitted", gold,
            whole(2, GOLD_LINES[2]), whole_c, "")]},
        {"id": "z", "status": "failed", "messages": [message(
            "record z: no gold record with this id", None, "record-hallucinated",
            files["extracted"].as_uri(), whole(1, INVENTED), "",
            '{\n  "id": "z",\n  "price": 1\n}')]}]
    tree = await lsp.command("listTests")
    [c] = [r for r in tree["suites"][0]["runs"][0]["records"] if r["id"] == "c"]
    assert c == {"id": "c", "label": "c", "uri": gold, "range": whole(2, GOLD_LINES[2]),
                 "gold": {"uri": gold, "range": whole(2, GOLD_LINES[2])}, "status": "failed"}


async def test_results_of_an_older_text_are_not_current(lsp: Session, shop: dict[str, Path]
                                                        ) -> None:
    ext = shop["extracted"]
    await lsp.boot([ext.parent])
    await lsp.run_finished(0, "shop")
    lsp.open(ext)
    fixed = LINE0.replace("13.9", "12.5")
    lsp.edit(ext, types.Range(types.Position(0, 0), types.Position(0, len(
        LINE0.encode("utf-16-le")) // 2)), fixed)  # version 2, not saved: no run
    # The last results are of version 1's text: the records of version 2, not run.
    tree = await lsp.command("listTests")
    assert tree == expected_tree(shop, ["not run"] * 4, version=2)
    got = await lsp.command("runTests", {"suite": "shop", "records": ["a"]})
    assert got["runs"][0]["version"] == 2 and got["runs"][0]["stale"] is False
    assert got["runs"][0]["records"] == [{"id": "a", "status": "passed", "messages": []}]
    assert (await lsp.command("listTests"))["suites"][0]["runs"][0]["records"][0]["status"] \
        == "passed"


async def test_cancel_request_cancels_the_run(lsp: Session, tmp_path: Path) -> None:
    slow = slow_suite(tmp_path / "slow", 4000, 0.005)  # 20 s at least when not cancelled
    await lsp.boot([slow["schema"].parent], {**SLOW_OPTIONS, "runOnStartup": False})
    await lsp.discovered("slow")
    mark = lsp.mark
    request = asyncio.ensure_future(lsp.client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
            CMD + "runTests", [{"suite": "slow", "records": ["r00000"]}]), msg_id="tests"))
    await lsp.until("the run to start", lambda: lsp.started(mark, "slow"))
    lsp.client.cancel_request(types.CancelParams(id="tests"))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(request, TIMEOUT)
    # The run itself stopped: its one runFinished says cancelled (a run left to go on
    # would end with cancelled false, 20 s later, past the wait).
    done = await lsp.run_finished(mark, "slow", cancelled=None)
    assert done["cancelled"] is True and done["suite"]["runs"] == []
    assert [m for _, m, _ in lsp.events[mark:] if m.startswith("evalschema/run")] == \
        ["evalschema/runQueued", "evalschema/runStarted", "evalschema/runFinished"]
    tree = await lsp.command("listTests")
    assert {r["status"] for r in tree["suites"][0]["runs"][0]["records"]} == {"not run"}


async def test_the_tree_follows_changes_on_disk(lsp: Session, shop: dict[str, Path]) -> None:
    folder = shop["schema"].parent
    await lsp.boot([folder])
    await lsp.run_finished(0, "shop")
    await lsp.until("the first suitesChanged", lambda: lsp._of(SUITES_CHANGED, 0))
    mark = lsp.mark
    shop["extracted"].write_text("\n".join([LINE0.replace("13.9", "12.5"), *EXTRACTED_LINES[1:]])
                                 + "\n", encoding="utf-8")  # another program fixes record a
    await lsp.run_finished(mark, "shop")
    tree = await lsp.command("listTests")
    assert [r["status"] for r in tree["suites"][0]["runs"][0]["records"]] == \
        ["passed", "failed", "passed", "errored"]

    mark = lsp.mark
    other = write_suite(folder / "more", name="other")  # a new suite: the tree changes
    [(_, changed)] = await lsp.until("suitesChanged", lambda: lsp._of(SUITES_CHANGED, mark))
    assert changed == {"changed": ["other"], "removed": []}
    assert [s["key"] for s in (await lsp.command("listTests"))["suites"]] == ["shop", "other"]
    mark = lsp.mark
    other["gold"].unlink()  # no gold: no longer a suite
    [(_, changed)] = await lsp.until("suitesChanged", lambda: lsp._of(SUITES_CHANGED, mark))
    assert changed == {"changed": [], "removed": ["other"]}
