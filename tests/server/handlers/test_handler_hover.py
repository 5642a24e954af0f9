"""Hover (handlers/hover.py): end-to-end in an eval schema, then the handler on a suite run
once: a field key's docs merged with each run's figures, a data value's section per run (hover
on results through a client: evaluation/test_evaluation_editor_e2e.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from authoring_samples import URI
from eval_workspace import write_suite
from lsp_helpers import open_and_wait, position
from lsprotocol import types
from pytest_lsp import LanguageClient

from evalschema import default_registry
from evalschema_server.authoring.analysis import analyze
from evalschema_server.evaluation.locate import RecordLocator
from evalschema_server.evaluation.runner import CancelToken, SuiteCache, SuiteOutcome, run_suite
from evalschema_server.evaluation.suites import discover
from evalschema_server.handlers.hover import data_hover, schema_hover
from evalschema_server.store import OpenDocument


async def test_hover_docs_and_effective_config(client: LanguageClient) -> None:
    text = ('{"type": "object", "properties": {"total": {"type": "number", "x-eval-weight": 3, '
            '"x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}}, '
            '"name": {"type": "string", "x-eval-compare": "levenshtein", '
            '"x-eval-transform": ["strip"]}}}')
    await open_and_wait(client, URI, text)

    async def hover_at(pos: types.Position) -> str:
        h = await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(URI), pos))
        assert h is not None and isinstance(h.contents, types.MarkupContent)
        return h.contents.value

    assert "Normalized Levenshtein" in await hover_at(position(text, '"levenshtein"', delta=3))
    assert "Transforms applied" in await hover_at(position(text, '"x-eval-transform"', delta=3))
    assert "Remove leading" in await hover_at(position(text, '"strip"', delta=2))
    rel = await hover_at(position(text, '"rel"', delta=2))
    assert rel.startswith("**`numeric` parameter `tolerance.rel`**: largest |gold - extracted|")
    tolerance = await hover_at(position(text, '"tolerance"', delta=2))
    assert "`numeric` parameter `tolerance`" in tolerance and '"rel"' in tolerance
    config = await hover_at(position(text, '"total"', delta=2))
    assert "comparator: `numeric, rel 1%`" in config
    assert "weight: 3" in config


# -- the handler itself, on a suite run once (no client): what it merges ---------------------

@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], SuiteOutcome]:
    """The shop suite with a second run, perfect, beside the first."""
    files = {k: p.resolve() for k, p in write_suite(tmp_path_factory.mktemp("hover")).items()}
    (files["gold"].parent / "shop.run2.extracted.jsonl").write_text(
        files["gold"].read_text(encoding="utf-8"), encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    return files, run_suite(suite, {}, SuiteCache(), CancelToken())


def _server(outcome: SuiteOutcome) -> Any:
    """The little of the server the hover handler reads."""
    return SimpleNamespace(registry=default_registry, encoding="utf-16",
                           evaluation=SimpleNamespace(outcomes_for=lambda path: [outcome],
                                                      locator=RecordLocator()))


def test_a_field_key_shows_its_docs_then_each_runs_figures(
        two_runs: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = two_runs
    text = files["schema"].read_text(encoding="utf-8")
    analysis = analyze(text, default_registry, base_uri=str(files["schema"]))
    ls, uri = _server(outcome), files["schema"].as_uri()
    at = text.index('"price"')
    got = schema_hover(ls, uri, analysis, at + 2)
    assert got is not None and isinstance(got.contents, types.MarkupContent)
    docs, figures = got.contents.value.split("\n\n---\n\n")
    assert "comparator: `numeric, rel 1%`" in docs
    assert figures.startswith("**`price`** in the last runs")
    assert "| shop · run1 | 0.667 |" in figures and "| shop · run2 | 1.000 |" in figures
    line = text.count("\n", 0, at)
    col = at - text.rfind("\n", 0, at) - 1
    key = types.Range(types.Position(line, col), types.Position(line, col + len('"price"')))
    assert got.range == key
    # While the check is pending (a large schema's, on a worker thread) there are no docs:
    # the figures alone, still over the key.
    pending = analyze(text, default_registry, base_uri=str(files["schema"]), deferred=True)
    got = schema_hover(ls, uri, pending, at + 2)
    assert got is not None and isinstance(got.contents, types.MarkupContent)
    assert got.contents.value.startswith("**`price`** in the last runs")
    assert got.range == key
    # The field's value is not its key: no figures there (and nothing else to say).
    assert schema_hover(ls, uri, analysis, text.index("{", at)) is None


def test_a_gold_value_shows_one_section_per_run(
        two_runs: tuple[dict[str, Path], SuiteOutcome]) -> None:
    files, outcome = two_runs
    text = files["gold"].read_text(encoding="utf-8")
    doc = OpenDocument(files["gold"].as_uri(), text, 1, "jsonl", files["gold"])
    got = data_hover(_server(outcome), doc, text.index("12.5") + 1)
    assert got is not None and isinstance(got.contents, types.MarkupContent)
    sections = got.contents.value.split("\n\n---\n\n")
    assert [s.split("\n", 1)[0] for s in sections] == [
        "**evalschema** · suite `shop` · run `run1` · record `a`",
        "**evalschema** · suite `shop` · run `run2` · record `a`"]
    assert "**mismatch**" in sections[0] and "**match**" in sections[1]
