"""End-to-end: evaluation results in the editor, through a real LSP client.

The suite (``eval_workspace``) puts each kind of finding at a known place; every
position is asserted exactly, in UTF-16 columns, including a JSONL line holding
accents and an emoji before the wrong value.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from eval_workspace import EXTRACTED_LINES, GOLD, write_suite
from lsp_helpers import SERVER, position, span
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

CMD = "evalschema.server."


@pytest.fixture
def suite(tmp_path: Path) -> dict[str, Path]:
    return write_suite(tmp_path / "proj", config=True)


async def _start(client: LanguageClient, folder: Path, options: dict[str, Any] | None = None
                 ) -> None:
    finished: list[Any] = []
    client.feature("evalschema/runFinished")(lambda params: finished.append(params))
    client.feature("evalschema/runStarted")(lambda params: None)
    client.finished = finished  # type: ignore[attr-defined]
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=folder.as_uri(),
        initialization_options=options))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, suite: dict[str, Path]):  # type: ignore[no-untyped-def]
    await _start(lsp_client, suite["schema"].parent)
    yield lsp_client
    await lsp_client.shutdown_session()


async def diagnostics(client: LanguageClient, path: Path, *, timeout: float = 15) -> list[
        types.Diagnostic]:
    """The evaluation's diagnostics of ``path`` once the first run has finished."""
    uri = path.as_uri()
    for _ in range(int(timeout / 0.05)):
        if client.finished and uri in client.diagnostics:  # type: ignore[attr-defined]
            return list(client.diagnostics[uri])
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {path.name}")


async def open_extracted(client: LanguageClient, suite: dict[str, Path]) -> str:
    """Open the extracted file in the editor once the first run's results are in."""
    await diagnostics(client, suite["extracted"])
    uri = suite["extracted"].as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri, "jsonl", 1, suite["extracted"].read_text(encoding="utf-8"))))
    return uri


def by_code(diags: list[types.Diagnostic], code: str) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == code]


def line_span(line: int, text: str, needle: str, nth: int = 0) -> types.Range:
    r = span(text, needle, nth)
    return types.Range(types.Position(line, r.start.character),
                       types.Position(line, r.end.character))


async def test_mismatch_on_the_wrong_value_after_accents_and_emoji(
        client: LanguageClient, suite: dict[str, Path]) -> None:
    diags = await diagnostics(client, suite["extracted"])
    line0 = EXTRACTED_LINES[0]
    [d] = [d for d in by_code(diags, "mismatch") if d.range.start.line == 0]
    assert d.range == line_span(0, line0, "13.9")
    # UTF-16: the emoji counts twice, so the column is not the code point index.
    assert d.range.start.character == len(line0[:line0.index("13.9")].encode("utf-16-le")) // 2
    assert d.range.start.character != line0.index("13.9")
    assert d.message == "a · price: 13.9 ≠ gold 12.5 (numeric, rel 1%)"  # the record first
    assert d.severity == types.DiagnosticSeverity.Warning
    assert d.source == "evalschema"
    gold_line = suite["gold"].read_text(encoding="utf-8").split("\n")[0]
    schema_text = suite["schema"].read_text(encoding="utf-8")
    related = {r.message: r.location for r in d.related_information or []}
    assert related["gold value"] == types.Location(suite["gold"].as_uri(),
                                                   line_span(0, gold_line, "12.5"))
    assert related["schema rule: numeric, rel 1%"] == types.Location(
        suite["schema"].as_uri(), span(schema_text, '"price"'))


async def test_hallucination_omission_and_unreadable_record(
        client: LanguageClient, suite: dict[str, Path]) -> None:
    diags = await diagnostics(client, suite["extracted"])
    line1 = EXTRACTED_LINES[1]
    [hall] = by_code(diags, "hallucination")
    assert hall.range == line_span(1, line1, '"color"')
    assert hall.message == 'b · color: invented "red" (gold has no value here)'
    # An invented key has no rule in the schema: no "schema rule" to point at.
    assert [r.message for r in hall.related_information or []] == []
    [omit] = by_code(diags, "omission")
    # currency is missing and has no parent but the record: on the record's first key.
    assert omit.range == line_span(1, line1, '"id"')
    assert omit.message == 'b · currency: missing (gold "USD")'
    [qty] = [d for d in by_code(diags, "mismatch") if d.range.start.line == 1]
    col = line1.index('"qty": 4') + len('"qty": ')
    assert qty.range == types.Range(types.Position(1, col), types.Position(1, col + 1))
    assert qty.message.startswith("b · items[0].qty: 4 ≠ gold 5 (numeric)")
    [bad] = by_code(diags, "unreadable-record")
    assert bad.range == types.Range(types.Position(2, 0),
                                    types.Position(2, len(EXTRACTED_LINES[2])))
    assert bad.severity == types.DiagnosticSeverity.Error
    # Record c is right and record a's reordered items align by sku: nothing else.
    assert len(diags) == 5, [(d.code, d.range.start.line) for d in diags]
    # The gold file shows nothing by default.
    assert not client.diagnostics.get(suite["gold"].as_uri())


async def test_threshold_diagnostic_code_lens_and_inlay_hint_on_the_schema(
        client: LanguageClient, suite: dict[str, Path]) -> None:
    await diagnostics(client, suite["extracted"])
    schema_text = suite["schema"].read_text(encoding="utf-8")
    uri = suite["schema"].as_uri()
    schema_diags = client.diagnostics.get(uri, [])
    [low] = by_code(schema_diags, "below-threshold")
    assert low.range == span(schema_text, '"price"')
    assert low.message.startswith("price: F1 0.667 < 0.9 in run1")
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", 1, schema_text)))
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        types.TextDocumentIdentifier(uri)))
    assert lenses is not None
    titles = [lens.command.title for lens in lenses if lens.command]
    # Short lenses, the action first; the run's verdict against the configured threshold.
    assert titles == ["▶ Evaluate", "run1 F1 0.847 ✗ 1 field below threshold"]
    [run_lens] = [lens.command for lens in lenses if lens.command and lens.command.title
                  .startswith("run1")]
    assert run_lens.tooltip is not None
    assert run_lens.tooltip.startswith("shop-suite · run1: precision 0.")
    assert "price: F1 0.6667 < 0.9000" in run_lens.tooltip
    evaluate = [lens.command for lens in lenses if lens.command
                and lens.command.command == CMD + "runSuite"]
    assert evaluate and list(evaluate[0].arguments or []) == [{"suite": "shop-suite"}]
    assert all(lens.range.start.line == 0 for lens in lenses)
    end = position(schema_text, '"price"', delta=len('"price"'))
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        types.TextDocumentIdentifier(uri), types.Range(types.Position(0, 0),
                                                       types.Position(200, 0))))
    assert hints is not None
    [price] = [h for h in hints if h.position == end]
    assert price.label == "F1 run1 0.67 ✗", "named, and below its threshold (0.9)"
    assert isinstance(price.tooltip, str)
    assert price.tooltip.split("\n") == [
        "shop-suite · run1: P 0.67 · R 0.67 · F1 0.67 · ✓2 ≠1 ∅0 +0 (below its threshold 0.9)",
        "✓ matched · ≠ wrong · ∅ missing · + invented"]
    [currency] = [h for h in hints if h.position == position(
        schema_text, '"currency"', delta=len('"currency"'))]
    assert currency.label == "F1 run1 0.80", "no threshold: no verdict"
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), position(schema_text, '"price"', delta=2)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "| shop-suite · run1 | 0.667 | 0.667 | 0.667 | 2 | 1 | 0 | 0 |" in \
        hover.contents.value


async def test_hover_on_values_shows_status_comparator_and_alignment(
        client: LanguageClient, suite: dict[str, Path]) -> None:
    uri = await open_extracted(client, suite)
    line0 = EXTRACTED_LINES[0]

    async def hover_at(needle: str, delta: int = 1, nth: int = 0) -> str:
        got = await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri), position(line0, needle, nth, delta)))
        assert got is not None and isinstance(got.contents, types.MarkupContent)
        return got.contents.value

    price = await hover_at("13.9")
    assert "`price`: **mismatch** · score 0.00 · numeric, rel 1%" in price
    assert "| gold | `12.5` |" in price and "| extracted | `13.9` |" in price
    name = await hover_at("Crème")
    assert "**match**" in name and "normalized" in name
    # The line items are reordered: the first extracted item is gold's second.
    qty = await hover_at('"qty": 2', delta=8)
    assert "`items[1].qty`: **match**" in qty  # the path of the gold element it matched
    assert "aligned with gold element `/items/1`" in qty
    item = await hover_at('{"sku": "x1"', delta=0)
    assert "aligned with gold element `/items/0`" in item


async def test_go_to_definition_reaches_the_gold_value_and_the_schema_rule(
        client: LanguageClient, suite: dict[str, Path]) -> None:
    uri = await open_extracted(client, suite)
    got = await client.text_document_definition_async(types.DefinitionParams(
        types.TextDocumentIdentifier(uri), position(EXTRACTED_LINES[0], "13.9", delta=1)))
    assert isinstance(got, list)
    gold_line = suite["gold"].read_text(encoding="utf-8").split("\n")[0]
    schema_text = suite["schema"].read_text(encoding="utf-8")
    assert got == [types.Location(suite["gold"].as_uri(), line_span(0, gold_line, "12.5")),
                   types.Location(suite["schema"].as_uri(), span(schema_text, '"price"'))]


async def test_commands_list_run_report_infer_compare_and_clear(
        client: LanguageClient, suite: dict[str, Path]) -> None:
    await diagnostics(client, suite["extracted"])

    async def command(name: str, arg: dict[str, Any] | None = None) -> Any:
        return await client.workspace_execute_command_async(types.ExecuteCommandParams(
            CMD + name, [arg or {}]))

    listed = await command("listSuites")
    [s] = listed["suites"]
    assert s["name"] == "shop-suite" and s["extracted"] == [suite["extracted"].as_uri()]
    assert s["config"] == (suite["schema"].parent / "evalschema.toml").as_uri()
    ran = await command("runSuite", {"uri": suite["gold"].as_uri()})
    [summary] = ran["suites"]
    [run] = summary["runs"]
    assert run["label"] == "run1" and run["records"] == 3
    assert 0.8 < run["f1"] < 0.9
    report = await command("showReport", {"suite": "shop-suite"})
    rows = {r["field"]: r for r in report["suites"][0]["runs"][0]["fields"]}
    assert rows["price"]["mismatches"] == 1 and rows["price"]["matches"] == 2
    # A key the model invented (never in gold) is flagged, so views can list it apart.
    assert rows["color"]["invented"] is True and rows["price"]["invented"] is False
    # A field's worst values come on demand.
    worst = await command("fieldExamples", {"suite": "shop-suite", "field": "price",
                                            "run": suite["extracted"].as_uri()})
    at = position(EXTRACTED_LINES[0], "13.9").character
    assert worst == {"examples": [{
        "uri": suite["extracted"].as_uri(), "path": "price", "status": "mismatch",
        "score": 0.0, "record": "a", "gold": "12.5", "extracted": "13.9",
        "range": {"start": {"line": 0, "character": at},
                  "end": {"line": 0, "character": at + 4}}}], "total": 1}
    inferred = await command("inferSchema", {"uri": suite["gold"].as_uri()})
    assert inferred["schema"]["properties"]["price"]["type"] == "number"
    assert json.loads(inferred["text"]) == inferred["schema"]
    with pytest.raises(Exception, match="no suite named 'nope'"):
        await command("runSuite", {"suite": "nope"})
    await command("clearResults")
    for _ in range(100):
        if not client.diagnostics.get(suite["extracted"].as_uri()):
            break
        await asyncio.sleep(0.05)
    assert not client.diagnostics[suite["extracted"].as_uri()]


async def test_list_findings_by_field_run_and_status(
        client: LanguageClient, suite: dict[str, Path]) -> None:
    """The data of the Findings view and of a field's list, for any client: each finding
    located, by field then in file order, filtered, capped with the total counted."""
    await diagnostics(client, suite["extracted"])

    async def findings(**arg: Any) -> Any:
        return await client.workspace_execute_command_async(types.ExecuteCommandParams(
            CMD + "listFindings", [{"suite": "shop-suite", **arg}]))

    got = await findings()
    rows = [(f["field"], f["record"], f["status"], f["range"]["start"]["line"])
            for f in got["findings"]]
    assert rows == [("color", "b", "hallucination", 1), ("currency", "b", "omission", 1),
                    ("items[].qty", "b", "mismatch", 1), ("price", "a", "mismatch", 0)]
    assert got["total"] == 4
    [price] = (await findings(field="price"))["findings"]
    line0 = EXTRACTED_LINES[0]
    assert price == {
        "suite": "shop-suite", "run": "run1", "field": "price", "path": "price",
        "record": "a", "status": "mismatch", "score": 0.0,
        "message": "13.9 ≠ gold 12.5 (numeric, rel 1%)", "uri": suite["extracted"].as_uri(),
        "range": {"start": {"line": 0, "character": position(line0, "13.9").character},
                  "end": {"line": 0, "character": position(line0, "13.9").character + 4}}}
    only = await findings(status=["omission", "hallucination"])
    assert [f["field"] for f in only["findings"]] == ["color", "currency"]
    assert (await findings(run=suite["extracted"].as_uri()))["total"] == 4
    assert (await findings(run=(suite["schema"].parent / "x.jsonl").as_uri()))["total"] == 0
    capped = await findings(limit=1)
    assert len(capped["findings"]) == 1 and capped["total"] == 4
    with pytest.raises(Exception, match="limit must be a whole number"):
        await findings(limit=-1)


async def test_compare_two_runs(client: LanguageClient, suite: dict[str, Path]) -> None:
    await diagnostics(client, suite["extracted"])
    folder = suite["schema"].parent
    perfect = folder / "shop.run2.extracted.jsonl"
    perfect.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in GOLD),
                       encoding="utf-8")
    got = None
    for _ in range(100):  # the watcher adds the new run to the suite
        listed = await client.workspace_execute_command_async(types.ExecuteCommandParams(
            CMD + "listSuites", [{}]))
        if len(listed["suites"][0]["extracted"]) == 2:
            got = await client.workspace_execute_command_async(types.ExecuteCommandParams(
                CMD + "compareRuns", [{"suite": "shop-suite"}]))
            break
        await asyncio.sleep(0.1)
    assert got is not None, "the new run file was not picked up"
    assert got["result"]["labels"] == ["run1", "run2"]
    assert got["result"]["records"] == 3
    assert "run2" in got["markdown"]
    # Where each changed record is in each run, for a view that jumps there: records a and b
    # (fixed in run2) at their lines; c is the same in both runs.
    run1, run2 = suite["extracted"].as_uri(), perfect.as_uri()

    def at(line: int) -> dict[str, Any]:
        return {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}

    places = {r["record"]: [(p["run"], p["uri"], p["range"]) for p in r["places"]]
              for r in got["records"]}
    assert places == {"a": [("run1", run1, at(0)), ("run2", run2, at(0))],
                      "b": [("run1", run1, at(1)), ("run2", run2, at(1))]}
    worst = {f["field"]: [w and (w["uri"], w["range"]["start"]["line"]) for w in f["worst"]]
             for f in got["fields"]}
    assert worst["price"] == [(run1, 0), None], "run2 has every price right"
    assert worst["id"] == [None, None]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def gold_client(lsp_client: LanguageClient, suite: dict[str, Path]):  # type: ignore[no-untyped-def]
    await _start(lsp_client, suite["schema"].parent, {"goldDiagnostics": True,
                                                      "severity": {"hallucination": "off"}})
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_gold_diagnostics_and_severities_are_configurable(
        gold_client: LanguageClient, suite: dict[str, Path]) -> None:
    diags = await diagnostics(gold_client, suite["extracted"])
    assert by_code(diags, "hallucination") == []
    gold = await diagnostics(gold_client, suite["gold"])
    gold_line = suite["gold"].read_text(encoding="utf-8").split("\n")[0]
    [price] = [d for d in gold if d.range.start.line == 0]
    assert price.range == line_span(0, gold_line, "12.5")
    assert price.message == "[run1] a · price: 13.9 ≠ gold 12.5 (numeric, rel 1%)"


async def test_changed_settings_apply_to_shown_results(client: LanguageClient,
                                                       suite: dict[str, Path]) -> None:
    diags = await diagnostics(client, suite["extracted"])
    assert by_code(diags, "mismatch")[0].severity == types.DiagnosticSeverity.Warning
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        {"evalschema": {"severity": {"mismatch": "error", "omission": "off"}}}))
    uri = suite["extracted"].as_uri()
    for _ in range(200):
        now = client.diagnostics.get(uri, [])
        if now and all(d.severity == types.DiagnosticSeverity.Error
                       for d in by_code(list(now), "mismatch")):
            break
        await asyncio.sleep(0.05)
    now = list(client.diagnostics[uri])
    assert {d.severity for d in by_code(now, "mismatch")} == {types.DiagnosticSeverity.Error}
    assert by_code(now, "omission") == []
    assert len(by_code(now, "hallucination")) == 1


async def test_a_schema_named_by_a_new_configuration_gets_schema_features(
        client: LanguageClient, suite: dict[str, Path]) -> None:
    await diagnostics(client, suite["extracted"])
    folder = suite["schema"].parent
    rules = folder / "rules.json"  # no x-eval key, no *.eval.json name: plain JSON so far
    text = '{"type": "object", "properties": {"total": {"type": "number", }}}'
    rules.write_text(text, encoding="utf-8")
    uri = rules.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", 1, text)))
    at = position(text, '"number", ', delta=len('"number", '))

    async def labels() -> set[str]:
        got = await client.text_document_completion_async(types.CompletionParams(
            types.TextDocumentIdentifier(uri), at))
        items = got.items if isinstance(got, types.CompletionList) else got or []
        return {i.label for i in items}

    assert "x-eval-compare" not in await labels()
    toml = folder / "evalschema.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + (
        '\n[[suite]]\nname = "rules"\nschema = "rules.json"\ngold = "shop.gold.jsonl"\n'
        'extracted = ["shop.run1.extracted.jsonl"]\n'), encoding="utf-8")
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        types.TextDocumentIdentifier(toml.as_uri())))
    for _ in range(200):
        if "x-eval-compare" in await labels():
            break
        await asyncio.sleep(0.05)
    assert "x-eval-compare" in await labels()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def typing_client(lsp_client: LanguageClient, suite: dict[str, Path]):  # type: ignore[no-untyped-def]
    await _start(lsp_client, suite["schema"].parent, {"runOn": "change"})
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_run_on_change_rescores_as_you_type(typing_client: LanguageClient,
                                                  suite: dict[str, Path]) -> None:
    client = typing_client
    uri = await open_extracted(client, suite)
    line0 = EXTRACTED_LINES[0]
    wrong = line_span(0, line0, "13.9")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [types.TextDocumentContentChangePartial(wrong, "12.5")]))
    # No save: the edit alone re-runs the suite on the editor's text.
    for _ in range(200):
        now = list(client.diagnostics.get(uri, []))
        if now and not [d for d in by_code(now, "mismatch") if d.range.start.line == 0]:
            break
        await asyncio.sleep(0.05)
    now = list(client.diagnostics[uri])
    assert [d for d in by_code(now, "mismatch") if d.range.start.line == 0] == []
    assert len(by_code(now, "hallucination")) == 1  # the other findings are back
    assert suite["extracted"].read_text(encoding="utf-8").split("\n")[0] == line0


async def test_the_configuration_explains_its_keys_and_shows_each_suites_figures(
        client: LanguageClient, suite: dict[str, Path]) -> None:
    """evalschema.toml (TOML language id): hover on a suite key says what it does, on the
    ``[[suite]]`` header the suite's last figures, on a field threshold each run's F1
    against it; a code lens on each ``[[suite]]`` evaluates it and shows its runs."""
    await diagnostics(client, suite["extracted"])
    config = suite["schema"].parent / "evalschema.toml"
    text = config.read_text(encoding="utf-8")
    uri = config.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "toml", 1, text)))

    async def hover_at(needle: str, delta: int = 1) -> str | None:
        got = await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri), position(text, needle, delta=delta)))
        if got is None:
            return None
        assert isinstance(got.contents, types.MarkupContent)
        return got.contents.value

    gold = await hover_at("gold =")
    assert gold is not None and gold.startswith("**`gold`** · evalschema suite key")
    assert "relative to this file" in gold
    header = await hover_at("[[suite]]", delta=3)
    assert header is not None and header.startswith("**suite `shop-suite`**")
    assert "- `run1`: F1 0.847 ✗ 1 field below threshold" in header
    price = await hover_at("price = 0.9")
    assert price is not None and price.startswith("**`price`**: F1 threshold 0.9")
    assert "| `shop-suite · run1` | 0.667 | ✗ |" in price
    assert await hover_at('name = "shop') is not None, "every suite key is explained"
    assert await hover_at("shop-suite", delta=2) is None, "a value: nothing to explain"
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        types.TextDocumentIdentifier(uri)))
    assert lenses is not None
    assert [(lens.range.start.line, lens.command.title if lens.command else "")
            for lens in lenses] == [(0, "▶ Evaluate"), (0, "run1 F1 0.847 ✗ 1 field below threshold")]
