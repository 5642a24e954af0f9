"""The evaluation service (evaluation/service.py) with real runs, a real ``DocumentStore`` and
``DiagnosticStore``, and a client that records what it is told: what gets published after a
run, that results of a text the editor no longer holds are dropped, and that cleared and
vanished suites withdraw theirs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from eval_workspace import EXTRACTED_LINES, write_suite
from lsprotocol import types

from evalschema_server.diagnostic_store import DiagnosticStore
from evalschema_server.evaluation.service import EvaluationService, watched
from evalschema_server.settings import EvalSettings
from evalschema_server.store import DocumentStore

#: The findings of EXTRACTED_LINES, in the order they are published.
SHOP_CODES = ["unreadable-record", "mismatch", "omission", "mismatch", "hallucination"]


class Client:
    """The server's side, recorded."""

    encoding = "utf-16"
    eval_settings = EvalSettings(run_on_startup=False, watch_files=False)

    def __init__(self) -> None:
        self.notes: list[tuple[str, Any]] = []
        self.named: list[set[Path]] = []
        self.errors: list[tuple[str, BaseException]] = []
        self.logged: list[str] = []
        #: Called when a run has started (it has taken the editor's texts).
        self.on_started: Callable[[], None] = lambda: None

    def schemas_named(self, paths: set[Path]) -> None:
        self.named.append(paths)

    def notify(self, method: str, params: Any) -> None:
        self.notes.append((method, params))
        if method == "evalschema/runStarted":
            self.on_started()

    def progress_begin(self, token: str, title: str) -> None:
        pass

    def progress_report(self, token: str, done: int, total: int) -> None:
        pass

    def progress_end(self, token: str, message: str) -> None:
        pass

    def log_error(self, where: str, exc: BaseException) -> None:
        self.errors.append((where, exc))

    def log_info(self, message: str) -> None:
        self.logged.append(message)


class Editor:
    """The service, its stores, and every publishDiagnostics it caused."""

    def __init__(self) -> None:
        self.client = Client()
        self.documents = DocumentStore()
        self.sent: list[dict[str, Any]] = []
        self.diagnostics = DiagnosticStore(self.send, self.documents, self.client.log_error)
        self.service = EvaluationService(self.client, self.documents, self.diagnostics)

    def send(self, method: str, params: dict[str, Any]) -> None:
        assert method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        self.sent.append(params)

    def open(self, path: Path, version: int = 1) -> str:
        uri = path.as_uri()
        self.documents.open(types.TextDocumentItem(uri, "jsonl", version,
                                                   path.read_text(encoding="utf-8")))
        return uri

    def published(self, since: int = 0) -> dict[str, list[list[Any]]]:
        """uri -> the codes of each publish for it, in order."""
        out: dict[str, list[list[Any]]] = {}
        for p in self.sent[since:]:
            out.setdefault(p["uri"], []).append([d["code"] for d in p["diagnostics"]])
        return out


@pytest.fixture
def shop(tmp_path: Path) -> dict[str, Path]:
    return {k: p.resolve() for k, p in write_suite(tmp_path / "p").items()}


@pytest.fixture
async def editor(shop: dict[str, Path]) -> AsyncIterator[Editor]:
    ed = Editor()
    await ed.service.start([shop["schema"].parent])
    yield ed
    ed.service.shutdown()


async def run(ed: Editor) -> None:
    [suite] = ed.service.discovery.suites
    assert await ed.service.scheduler.run(suite) is not None


async def test_a_run_publishes_each_file_of_the_suite_once(
        editor: Editor, shop: dict[str, Path]) -> None:
    assert [s.key for s in editor.service.discovery.suites] == ["shop"]
    assert editor.client.named == [set()]  # found by convention: no schema named
    assert editor.sent == []  # no configuration problems to show
    uri = editor.open(shop["extracted"], version=3)
    await run(editor)
    assert editor.published() == {shop["schema"].as_uri(): [[]], shop["gold"].as_uri(): [[]],
                                  uri: [SHOP_CODES]}
    for params in editor.sent:  # the open document's version; the others have none
        assert params.get("version") == (3 if params["uri"] == uri else None)
    # The suites found first (a client lists its tests), then the run.
    assert [m for m, _ in editor.client.notes] == ["evalschema/suitesChanged",
                                                   "evalschema/runQueued",
                                                   "evalschema/runStarted",
                                                   "evalschema/runFinished"]
    assert editor.client.notes[0][1] == {"changed": ["shop"], "removed": []}
    assert editor.client.notes[3][1]["cancelled"] is False
    assert editor.client.notes[3][1]["pending"] is False


async def test_results_of_a_text_changed_during_the_run_are_dropped(
        editor: Editor, shop: dict[str, Path]) -> None:
    uri = editor.open(shop["extracted"])
    doc = editor.documents.get(uri)
    assert doc is not None

    def edit() -> None:  # the user types while the run scores the text it took
        doc.text = "\n" + doc.text
        doc.version = 2

    editor.client.on_started = edit
    await run(editor)
    published = editor.published()
    assert uri not in published  # nothing at positions of the old text
    assert set(published) == {shop["schema"].as_uri(), shop["gold"].as_uri()}
    assert editor.diagnostics.items(uri) == []
    assert editor.client.notes[-1][0] == "evalschema/runFinished"


async def test_findings_hide_while_the_open_text_differs_and_return_with_it(
        editor: Editor, shop: dict[str, Path]) -> None:
    uri = editor.open(shop["extracted"])
    await run(editor)
    doc = editor.documents.get(uri)
    assert doc is not None
    text = doc.text
    assert [d["code"] for d in editor.diagnostics.items(uri)] == SHOP_CODES
    doc.text = text.replace("13.9", "13.95")
    assert editor.diagnostics.items(uri) == []
    doc.text = text  # undone
    assert [d["code"] for d in editor.diagnostics.items(uri)] == SHOP_CODES
    editor.documents.close(uri)  # the findings concern the file on disk
    assert [d["code"] for d in editor.diagnostics.items(uri)] == SHOP_CODES


async def test_clear_withdraws_every_finding(editor: Editor, shop: dict[str, Path]) -> None:
    await run(editor)
    mark = len(editor.sent)
    editor.service.clear()
    assert editor.published(mark) == {p.as_uri(): [[]] for p in shop.values()}
    assert editor.service.outcomes == {}


async def test_a_suite_that_is_gone_withdraws_its_findings(
        editor: Editor, shop: dict[str, Path]) -> None:
    await run(editor)
    shop["schema"].unlink()
    mark = len(editor.sent)
    assert await editor.service.rediscover() == set()
    assert editor.service.discovery.suites == ()
    assert editor.published(mark) == {p.as_uri(): [[]] for p in shop.values()}
    assert editor.service.outcomes == {}


async def test_configuration_problems_are_shown_in_the_toml_at_the_key(tmp_path: Path) -> None:
    folder = tmp_path / "cfg"
    folder.mkdir()
    toml = folder / "evalschema.toml"
    text = ('[[suite]]\nname = "s"\nschema = "s.eval.json"\ngold = "g.jsonl"\n'
            'extracted = ["x.jsonl"]\nbogus = 1\n')
    toml.write_text(text, encoding="utf-8")
    ed = Editor()
    try:
        await ed.service.start([folder])
        [params] = ed.sent
        assert params["uri"] == toml.as_uri()
        got = [(d["code"], d["range"]) for d in params["diagnostics"]]
        assert got[0] == ("unknown-key", {"start": {"line": 5, "character": 0},
                                          "end": {"line": 5, "character": 5}})
        assert [c for c, _ in got[1:]] == ["file-not-found"] * 3
        assert got[1][1] == {"start": {"line": 2, "character": 0},
                             "end": {"line": 2, "character": 6}}
        # Emptied in the editor (unsaved): the editor's text is what counts.
        ed.documents.open(types.TextDocumentItem(toml.as_uri(), "toml", 1, "# none yet\n"))
        await ed.service.rediscover()
        last = ed.sent[-1]
        assert (last["uri"], last["version"]) == (toml.as_uri(), 1)
        assert [d["code"] for d in last["diagnostics"]] == ["no-suites"]
    finally:
        ed.service.shutdown()


async def test_an_open_file_equal_to_the_run_text_is_held_once(
        editor: Editor, shop: dict[str, Path]) -> None:
    """The suite ran from disk; the editor opens the extracted file (its text an equal
    copy). After the next run the document holds the run's string, not a second one."""
    await run(editor)
    read = editor.service.outcomes["shop"].texts[shop["extracted"]]
    uri = editor.open(shop["extracted"])
    doc = editor.documents.get(uri)
    assert doc is not None and doc.text == read and doc.text is not read
    lines = doc.line_index
    await run(editor)
    assert doc.text is editor.service.outcomes["shop"].texts[shop["extracted"]] is read
    assert doc.line_index is lines and lines.text is read  # the same line table
    assert editor.published()[uri][-1] == SHOP_CODES


async def test_the_editor_text_is_what_runs_read(editor: Editor, shop: dict[str, Path]
                                                 ) -> None:
    uri = editor.open(shop["extracted"])
    doc = editor.documents.get(uri)
    assert doc is not None
    doc.text = "\n".join([EXTRACTED_LINES[0].replace("13.9", "12.5"), *EXTRACTED_LINES[1:]])
    assert await editor.service.text_of(shop["extracted"]) == doc.text
    await run(editor)
    # The price of line 0 is right in the editor (the disk still says 13.9).
    assert editor.published()[uri] == [["unreadable-record", "omission", "mismatch",
                                        "hallucination"]]


async def test_each_run_is_one_line_in_the_server_log(editor: Editor, shop: dict[str, Path]
                                                      ) -> None:
    await run(editor)
    [line] = editor.client.logged
    head, rest = line.split(" s: ", 1)
    assert head.startswith("suite shop evaluated in ") and float(head.rsplit(" ", 1)[1]) >= 0
    assert rest == "run1: 3 records, F1 0.847, 2 wrong, 1 missing, 1 invented; 1 problem"


async def test_a_reload_from_disk_runs_the_suite_and_typing_does_not(
        editor: Editor, shop: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor reloads a file another program wrote by sending the disk's text as a
    change: a run follows, as after a save. An edit that makes the text differ from the
    disk runs nothing, and the disk is read again only once it has changed."""
    from evalschema_server.evaluation import service as service_module

    reads: list[Path] = []
    real = service_module.text_or_none

    def counting(path: Path, texts: dict[Path, str]) -> str | None:
        reads.append(path)
        return real(path, texts)

    monkeypatch.setattr(service_module, "text_or_none", counting)
    gold = shop["gold"]
    uri = editor.open(gold)
    await run(editor)
    doc = editor.documents.get(uri)
    assert doc is not None
    started = len(editor.client.notes)

    async def settle() -> None:
        for _ in range(40):  # the look waits for edits to settle (0.15 s), then reads
            await asyncio.sleep(0.02)
        while editor.service.scheduler.active or editor.service.scheduler.timers:
            await asyncio.sleep(0.02)

    doc.text = " " + doc.text  # typing: no longer the disk's text
    editor.service.changed(gold)
    await settle()
    assert reads == [gold] and len(editor.client.notes) == started, "read once, no run"
    doc.text = doc.text + " "
    editor.service.changed(gold)
    await settle()
    assert reads == [gold], "the disk did not change: not read again"

    new = gold.read_text(encoding="utf-8").replace('"USD"', '"usd"')
    gold.write_text(new, encoding="utf-8")
    doc.text = new  # the editor's reload
    editor.service.changed(gold)
    await settle()
    assert reads == [gold, gold]
    notes = [m for m, _ in editor.client.notes[started:]]
    assert notes == ["evalschema/runQueued", "evalschema/runStarted", "evalschema/runFinished"]
    [outcome] = editor.service.outcomes.values()
    assert outcome.texts[gold] == new


def test_a_folder_just_made_is_watched_for_as_the_files_are(tmp_path: Path) -> None:
    """Its files may be written before the watcher watches it, and their events never
    come (inotify): the folder's own event must start a search for suites."""
    (tmp_path / "more").mkdir()
    (tmp_path / "node_modules" / "pkg").mkdir(parents=True)
    assert watched(str(tmp_path / "more"), added=True)
    assert not watched(str(tmp_path / "more"), added=False)  # a folder's times changed
    assert not watched(str(tmp_path / "node_modules" / "pkg"), added=True)
    assert watched(str(tmp_path / "a.gold.jsonl"), added=False)
    assert not watched(str(tmp_path / "notes.txt"), added=True)


async def test_a_folder_made_with_a_suite_in_it_is_searched(
        editor: Editor, shop: dict[str, Path]) -> None:
    folder = shop["schema"].parent / "more"
    write_suite(folder, name="other")
    editor.service.on_disk_changes([(False, folder)])  # the folder's event alone came
    for _ in range(500):
        if any(m == "evalschema/suitesChanged" and p["changed"] == ["other"]
               for m, p in editor.client.notes):
            break
        await asyncio.sleep(0.02)
    assert sorted(s.key for s in editor.service.discovery.suites) == ["other", "shop"]
