"""The editor's incremental runs give exactly what a run from scratch gives."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest
from eval_workspace import SCHEMA, write_suite

from evalschema import GoldValidationError, evaluate, register_comparator
from evalschema.io.extracted import read_extracted
from evalschema.io.records import load_records
from evalschema.rules.registry import default_registry
from evalschema.run.pairing import iter_pairs, match_ids
from evalschema_server.evaluation import runner
from evalschema_server.evaluation.datafile import SliceParser
from evalschema_server.evaluation.runner import CancelToken, SuiteCache, run_suite
from evalschema_server.evaluation.suites import discover


def _suite(tmp_path: Path, n: int) -> tuple[runner.Suite, Path, list[str]]:
    files = write_suite(tmp_path / "p")
    rng = random.Random(7)
    gold, lines = [], []
    for i in range(n):
        rec = {"id": f"r{i}", "name": f"Item {i}", "price": round(rng.uniform(1, 100), 2),
               "currency": rng.choice(["EUR", "USD"]),
               "items": [{"sku": f"s{i}-{k}", "qty": k + 1} for k in range(rng.randint(0, 3))]}
        gold.append(json.dumps(rec))
        ext = dict(rec, price=rec["price"] * rng.choice([1, 1, 1.001, 1.5]),
                   name=rec["name"] if rng.random() < 0.8 else rec["name"].lower() + "x")
        lines.append(json.dumps(ext))
    files["gold"].write_text("\n".join(gold) + "\n", encoding="utf-8")
    files["extracted"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    return suite, files["extracted"], lines


def _figures(outcome: runner.SuiteOutcome) -> list[object]:
    [run] = outcome.runs
    return [run.result.to_dict(), [s.record for s in run.scored]]


def test_resumed_runs_equal_fresh_runs_bit_for_bit(tmp_path: Path) -> None:
    suite, path, lines = _suite(tmp_path, 1200)
    cache = SuiteCache()
    run_suite(suite, {}, cache, CancelToken())
    rng = random.Random(3)
    for step in range(6):
        k = rng.randrange(len(lines))
        rec = json.loads(lines[k])
        rec["price"] = rec["price"] + 1 + step
        lines[k] = json.dumps(rec)
        if step == 3:  # an inserted record shifts every later index
            lines.insert(10, json.dumps({"id": "new", "name": "New", "price": 1.0}))
        text = "\n".join(lines) + "\n"
        resumed = run_suite(suite, {path: text}, cache, CancelToken())
        fresh = run_suite(suite, {path: text}, SuiteCache(), CancelToken())
        assert _figures(resumed) == _figures(fresh)
        blocks = -(-len(lines) // runner.BLOCK)
        assert len(cache.blocks[path]) == blocks
        assert len(cache.groups[path]) == -(-blocks // runner.GROUP)


def test_an_edit_rescores_its_block_only(tmp_path: Path) -> None:
    """Editing a record near the top re-scores its block; the later blocks' sums are
    reused as they are, not re-added record by record."""
    suite, path, lines = _suite(tmp_path, 1200)
    cache = SuiteCache()
    run_suite(suite, {}, cache, CancelToken())
    before = list(cache.blocks[path])
    groups_before = list(cache.groups[path])
    rec = json.loads(lines[3])
    rec["price"] += 5
    lines[3] = json.dumps(rec)
    run_suite(suite, {path: "\n".join(lines) + "\n"}, cache, CancelToken())
    after = cache.blocks[path]
    assert after[0] is not before[0]
    assert all(a is b for a, b in zip(after[1:], before[1:], strict=True))
    size, group = runner.BLOCK, runner.GROUP
    assert [b.acc.n for b in after] == [size] * (1200 // size) + [1200 % size]
    # The edited block's group merges its blocks again; the later groups are reused.
    groups = cache.groups[path]
    assert len(groups) == 2 and size * group < 1200
    assert groups[0] is not groups_before[0] and groups[1] is groups_before[1]
    assert groups[0].acc.n == size * group and groups[1].acc.n == 1200 - size * group


def test_an_edit_in_place_looks_at_the_edited_block_only(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """A record edited in place: only its block's records are looked at again (marks,
    reads); the other blocks are taken as they are, and the figures are a fresh run's.
    The reads of the edited records are still compared: an id edited in place pairs
    afresh."""
    suite, path, lines = _suite(tmp_path, 1200)
    cache = SuiteCache()
    run_suite(suite, {}, cache, CancelToken())
    marked: list[object] = []
    real = runner._mark

    def counting(p: object) -> object:
        marked.append(p)
        return real(p)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "_mark", counting)
    run_suite(suite, {}, cache, CancelToken())
    assert marked == []  # nothing changed: no block looked at
    lines[700] = json.dumps(dict(json.loads(lines[700]), price=0.25))
    text = "\n".join(lines) + "\n"
    got = run_suite(suite, {path: text}, cache, CancelToken())
    assert len(marked) == runner.BLOCK  # the edited record's block: its 64 pairs
    _same_run(got, run_suite(suite, {path: text}, SuiteCache(), CancelToken()))
    marked.clear()
    lines[900] = json.dumps(dict(json.loads(lines[900]), id="renamed"))
    text = "\n".join(lines) + "\n"
    got = run_suite(suite, {path: text}, cache, CancelToken())
    assert len(marked) > runner.BLOCK  # paired afresh: every block compared
    _same_run(got, run_suite(suite, {path: text}, SuiteCache(), CancelToken()))


def _same_run(got: runner.SuiteOutcome, fresh: runner.SuiteOutcome) -> None:
    """The figures, and each record's place on either side and in the file's order."""
    assert _figures(got) == _figures(fresh)
    [a], [b] = got.runs, fresh.runs
    assert (a.by_extracted, a.by_gold, a.file_order) == (b.by_extracted, b.by_gold,
                                                         b.file_order)
    assert sorted(a.file_order or ()) == list(range(len(a.scored)))


def test_an_edit_in_place_keeps_the_pairing(tmp_path: Path) -> None:
    """A value edited in place pairs as before (the same pairs, on the new slices); an
    edited id pairs afresh. Either way the figures are a fresh run's."""
    suite, path, lines = _suite(tmp_path, 300)
    cache = SuiteCache()
    run_suite(suite, {}, cache, CancelToken())
    before = [p.pair for p in cache.pairings[path].pairs]
    lines[5] = json.dumps(dict(json.loads(lines[5]), price=1234.5))
    text = "\n".join(lines) + "\n"
    got = run_suite(suite, {path: text}, cache, CancelToken())
    pairs = cache.pairings[path].pairs
    assert all(a is b.pair for a, b in zip(before, pairs, strict=True))
    assert pairs[5].extracted is not None and "1234.5" in pairs[5].extracted.text
    assert _figures(got) == _figures(run_suite(suite, {path: text}, SuiteCache(),
                                               CancelToken()))
    lines[6] = json.dumps(dict(json.loads(lines[6]), id="renamed"))
    text = "\n".join(lines) + "\n"
    got = run_suite(suite, {path: text}, cache, CancelToken())
    assert cache.pairings[path].pairs[6].pair is not before[6]
    assert got.runs[0].result.per_field["price"].counts.omissions == 1
    assert _figures(got) == _figures(run_suite(suite, {path: text}, SuiteCache(),
                                               CancelToken()))


def _close(a: object, b: object, where: str = "") -> None:
    """Equal, floats within 1e-12 (a run's sums are merged block by block)."""
    if isinstance(a, float) and isinstance(b, float):
        assert abs(a - b) <= 1e-12, where
    elif isinstance(a, dict) and isinstance(b, dict):
        assert list(a) == list(b), where
        for k in a:
            _close(a[k], b[k], f"{where}/{k}")
    elif isinstance(a, list | tuple) and isinstance(b, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{where}/{i}")
    else:
        assert a == b, where


def test_block_sums_give_the_engines_figures(tmp_path: Path) -> None:
    """The figures merged from blocks are the engine's one-pass figures: counts exactly,
    float sums and means within 1e-12; kept records hold the engine's findings, and
    ``full`` gives back every result of each record."""
    suite, path, lines = _suite(tmp_path, 1200)
    cache = SuiteCache()
    run_suite(suite, {}, cache, CancelToken())
    lines[700] = json.dumps(dict(json.loads(lines[700]), price=0.5))
    outcome = run_suite(suite, {path: "\n".join(lines) + "\n"}, cache, CancelToken())
    [run] = outcome.runs
    cfg = suite.config
    engine = evaluate(cfg.gold, [json.loads(line) for line in lines], cfg.schema)
    mine, theirs = run.result.to_dict(), engine.to_dict()
    mine.pop("records"), theirs.pop("records")
    _close(mine, theirs)
    assert run.result.per_field["price"].counts.mismatches > 0
    full = [outcome.full(s) for s in run.scored]
    assert full == list(engine.records)
    findings = [tuple(r for r in e.field_results if r.status not in ("match", "skipped"))
                for e in engine.records]
    assert [outcome.findings_of(s) for s in run.scored] == findings
    # What the run keeps of them: their statuses, fields and scores, no values.
    assert [[(k.status, k.field, k.score) for k in s.findings] for s in run.scored] == [
        [(r.status, r.field, r.score) for r in f] for f in findings]
    assert all(s.record.field_results == () for s in run.scored)


#: Gold lines with every problem the gold checks find.
BAD_GOLD = ['{"id": "a", "v": 1}', "[1, 2]", '{"id": "b"}', '{"id": "a", "v": 2}',
            '{"v": "no id"}', '{"id": {"nested": 1}}', '"a string"', '{"id": "c"}']
EXTRACTED = ['{"id": "b"}', "not json at all", '{"v": "no id"}', '{"id": "b", "v": 2}',
             '{"id": "zz"}', '{"id": "a"}']


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


@pytest.mark.parametrize("id_field", ["id", None], ids=["by-id", "by-position"])
def test_the_editor_reports_the_engines_codes(tmp_path: Path, id_field: str | None) -> None:
    """The editor pairs with the engine's gold checker and codes: each gold record the
    engine refuses is refused in the editor with the same code, on the same line."""
    gold_text = "\n".join(BAD_GOLD) + "\n"
    ext_text = "\n".join(EXTRACTED) + "\n"
    gold_path, ext_path = tmp_path / "g.jsonl", tmp_path / "e.jsonl"
    gold_path.write_text(gold_text, encoding="utf-8")
    ext_path.write_text(ext_text, encoding="utf-8")
    with pytest.raises(GoldValidationError) as info:
        list(iter_pairs(gold_path, ext_path, id_field))
    engine = [(p.code, p.line) for p in info.value.problems]

    gold = SliceParser().read(str(gold_path), gold_text, strict=True)
    ext = SliceParser().read(str(ext_path), ext_text, strict=False)
    issues: list[runner.InputIssue] = []
    pairs = runner.pair_records(gold, ext, id_field, issues, ext_path)
    editor = [(i.code, _line(gold_text, i.start)) for i in issues if i.path == gold_path]
    assert editor == engine
    codes = {"gold-not-object"} if id_field is None else {
        "gold-not-object", "gold-missing-id", "duplicate-id"}
    assert {code for code, _ in editor} == codes
    if id_field is not None:
        # The extracted file's codes are those of the engine's id matching.
        read = [read_extracted(r) for r in load_records(ext_path, strict=False)]
        m = match_ids(["a", "b", "c"], [(v, p) for v, _, p in read], "id")
        ext_issues = [(i.code, _line(ext_text, i.start) - 1) for i in issues
                      if i.path == ext_path]
        assert sorted(ext_issues, key=lambda c: c[1]) == [
            (code, j) for j, code, _ in m.extra if code != "no-gold-record"]
        assert {code for code, _ in ext_issues} == {"unreadable-record", "missing-id",
                                                    "duplicate-id"}
    # One numbering: the pairs are numbered as the engine numbers them, in order.
    assert [p.pair.number for p in pairs] == list(range(len(pairs)))


def test_the_editor_numbers_and_scores_records_as_the_engine(tmp_path: Path) -> None:
    """The same suite scored by the editor and by ``evaluate`` (with an unreadable and an
    unpaired extracted record): the same records, numbered alike, the same figures."""
    files = write_suite(tmp_path / "p")
    with files["extracted"].open("a", encoding="utf-8") as f:
        f.write('{"id": "zz", "name": "extra"}\n')
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    [run] = outcome.runs
    engine = evaluate(files["gold"], files["extracted"], files["schema"])
    assert outcome.full_result(run).to_dict() == engine.to_dict()
    assert [(r.index, r.problem) for r in run.result.records if r.problem] == [
        (3, engine.records[3].problem), (4, "no gold record with this id")]


#: Files the engine reads per their content (issue 13): the editor must read each into
#: the same records (same values, same repaired flags).
_DOC = {"id": "r1", "name": "Item 1", "items": [{"sku": "a"}, {"sku": "b"}]}
SAME_AS_ENGINE = {
    "pretty.json": json.dumps(_DOC, indent=2),
    "trailing.txt": '{\n  "id": "r1",\n  "name": "Item 1",\n}\n',
    "fenced.md": "Here it is:\n```json\n" + json.dumps(_DOC, indent=2) + "\n```\n",
    "truncated.json": '{\n  "id": "r1",\n  "name": "Item 1",\n  "items": [{"sku": "a"}, {"sku',
    "named.json": json.dumps({"records": [_DOC, dict(_DOC, id="r2")]}, indent=2),
    "lines.json": "\n".join(json.dumps(dict(_DOC, id=f"r{k}")) for k in range(3)),
    "array-comma.json": "[\n" + ",\n".join(json.dumps(dict(_DOC, id=f"r{k}"))
                                            for k in range(3)) + ",\n]\n",
    "array-cut.json": "[\n" + ",\n".join(json.dumps(dict(_DOC, id=f"r{k}"))
                                          for k in range(3))[:-20],
}


@pytest.mark.parametrize("name", sorted(SAME_AS_ENGINE))
def test_the_editor_reads_a_data_file_as_the_engine(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(SAME_AS_ENGINE[name], encoding="utf-8")
    engine = [read_extracted(r) for r in load_records(path, strict=False)]
    editor = SliceParser().read(str(path), SAME_AS_ENGINE[name], strict=False)
    assert [(s.value, s.repaired, s.problem) for s in editor.records] == engine
    assert len(engine) == {"named.json": 2, "lines.json": 3, "array-comma.json": 3,
                           "array-cut.json": 3}.get(name, 1)
    assert all(v != "NO_RECORD" and isinstance(v, dict) for v, _, _ in engine)


def test_the_editor_names_an_unpaired_record_by_its_label(tmp_path: Path) -> None:
    from evalschema.results import Counts, RecordResult
    from evalschema_server.evaluation.findings import _unpaired
    from evalschema_server.evaluation.kept import NO_FINDINGS
    from evalschema_server.evaluation.locate import RecordLocator

    rec = RecordResult(2, None, (), Counts(), 2, None, False, "no extracted record")
    scored = type("S", (), {"record": rec, "findings": NO_FINDINGS, "extracted": None,
                            "gold": type("G", (), {"text": "{}"})()})()
    [mark] = _unpaired(scored, RecordLocator())  # type: ignore[arg-type]
    assert mark.message.startswith("record #3: no extracted record")


@pytest.mark.parametrize(("gold_text", "message"), [
    ("", "the gold file has 0 records: there is nothing to score the runs against; add one "
         "JSON object per line (JSONL) or a JSON array of objects"),
    ("\n\n", "the gold file has 0 records: there is nothing to score the runs against; add "
             "one JSON object per line (JSONL) or a JSON array of objects"),
    ("\n" + "not json\n" * 480, "the gold file has 0 readable records: 480 cannot be read "
     "(the first, line 2: "),
])
def test_a_gold_file_without_records_is_one_error_not_one_per_record(
        tmp_path: Path, gold_text: str, message: str) -> None:
    """An empty or unreadable gold file: one error at its top and one note at the top of
    each run, instead of a warning for every record of every run (nothing is scored)."""
    files = write_suite(tmp_path / "p")
    files["gold"].write_text(gold_text, encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    assert outcome.runs == ()
    issues = [(i.path.name, i.start, i.end, i.code, i.severity) for i in outcome.issues]
    assert issues == [("shop.gold.jsonl", 0, 0, "gold-empty", "error"),
                      ("shop.run1.extracted.jsonl", 0, 0, "gold-empty", "warning")]
    assert outcome.issues[0].message.startswith(message)
    assert outcome.issues[1].message == "not scored: the gold file shop.gold.jsonl has 0 records"
    # Every file read is recorded, so the results are known to be current.
    assert set(outcome.texts) == {files["schema"].resolve(), files["gold"].resolve(),
                                  files["extracted"].resolve()}


def test_one_readable_gold_record_is_enough_to_score(tmp_path: Path) -> None:
    files = write_suite(tmp_path / "p")
    first = files["gold"].read_text(encoding="utf-8").split("\n")[0]
    files["gold"].write_text("oops\n" + first + "\n", encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    assert len(outcome.runs) == 1
    assert "gold-empty" not in {i.code for i in outcome.issues}
    assert "unreadable-record" in {i.code for i in outcome.issues}


JSONC_SCHEMA = """{
  // the editor and `evalschema eval` read this with one reader (evalschema.io.jsonc)
  "type": "object", "x-eval-id": "id",
  "properties": {
    "id": {"type": "string"},
    "url": {"type": "string", "description": "http://example.com/* not a comment */",},
    /* a price within 1% is right */
    "price": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
    "note": {"type": "string", "x-eval-compare": "exakt"},
  },
}
"""


def test_a_jsonc_schema_scores_as_evalschema_eval_scores_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Comments, trailing commas and a mistyped comparator: the editor's run and
    ``evalschema eval --allow-schema-errors`` give the same figures and the same results."""
    from evalschema.cli.main import main

    folder = tmp_path / "p"
    folder.mkdir()
    schema = folder / "t.eval.jsonc"
    schema.write_text(JSONC_SCHEMA, encoding="utf-8")
    gold = [{"id": "a", "url": "u", "price": 10.0, "note": "n"},
            {"id": "b", "url": "v", "price": 5.0, "note": "m"}]
    run = [{"id": "b", "url": "v", "price": 5.02, "note": "m"},
           {"id": "a", "url": "w", "price": 10.05}]
    (folder / "t.gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gold),
                                         encoding="utf-8")
    ext = folder / "t.run1.extracted.jsonl"
    ext.write_text("".join(json.dumps(r) + "\n" for r in run), encoding="utf-8")
    [suite] = discover([folder.resolve()], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    assert outcome.stopped is None
    assert [p.code for p in outcome.schema_problems] == ["unknown-comparator"]
    assert main(["eval", str(schema), "--gold", str(folder / "t.gold.jsonl"), "--extracted", str(ext),
                 "--allow-schema-errors", "--format", "json"]) == 0
    [cli] = json.loads(capsys.readouterr().out)["runs"]
    editor = outcome.full_result(outcome.runs[0]).to_dict()
    assert editor["per_field"] == cli["per_field"]
    assert editor["records"] == cli["records"]
    assert {k: v for k, v in editor.items() if k not in ("per_field", "records")} == \
        {k: v for k, v in cli.items() if k in editor and k not in ("per_field", "records")}
    assert [(r["field"], r["status"]) for r in editor["records"][0]["field_results"]] == [
        ("id", "match"), ("url", "mismatch"), ("price", "match"), ("note", "error")]


def test_an_edit_in_place_keeps_the_pairing_of_a_file_with_pairing_issues(
        tmp_path: Path) -> None:
    """A file whose records have pairing issues (a repeated id, an unreadable line) keeps
    its pairs across an edit in place that moves the later records; the issues move
    with their records, where a fresh run puts them."""
    suite, path, lines = _suite(tmp_path, 300)
    lines[40] = lines[7]  # id r7 again
    lines[50] = "not json {"
    cache = SuiteCache()
    first = run_suite(suite, {path: "\n".join(lines) + "\n"}, cache, CancelToken())
    assert {i.code for i in first.issues} == {"duplicate-id", "missing-id"}
    before = [p.pair for p in cache.pairings[path].pairs]
    lines[5] = json.dumps(dict(json.loads(lines[5]), name="a much longer name than before"))
    text = "\n".join(lines) + "\n"
    got = run_suite(suite, {path: text}, cache, CancelToken())
    assert all(a is b.pair for a, b in zip(before, cache.pairings[path].pairs, strict=True))
    fresh = run_suite(suite, {path: text}, SuiteCache(), CancelToken())
    assert got.issues == fresh.issues
    assert [text[i.start:i.end] for i in got.issues] == [lines[40], lines[50]]
    assert _figures(got) == _figures(fresh)


def test_a_file_not_open_is_read_again_only_when_it_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saving a run file does not read and decode the unchanged gold file again; a gold
    file rewritten on disk (even to the same size, its modification time set back) is."""
    suite, path, lines = _suite(tmp_path, 20)
    gold = suite.config.gold
    reads: list[Path] = []
    real = runner.files.read_text
    monkeypatch.setattr(runner.files, "read_text", lambda p: reads.append(p) or real(p))
    cache = SuiteCache(disk=runner.files.DiskTexts(_later))  # not written just now
    text = "\n".join(lines) + "\n"
    run_suite(suite, {path: text}, cache, CancelToken())
    run_suite(suite, {path: text.replace("Item 1", "Item 9", 1)}, cache, CancelToken())
    assert reads.count(gold) == 1
    st = gold.stat()
    old = gold.read_text(encoding="utf-8")
    gold.write_text(old.replace('"r0"', '"q0"', 1), encoding="utf-8")
    os.utime(gold, ns=(st.st_atime_ns, st.st_mtime_ns))
    got = run_suite(suite, {path: text}, cache, CancelToken())
    assert reads.count(gold) == 2
    assert got.runs[0].result.to_dict() == run_suite(
        suite, {path: text}, SuiteCache(), CancelToken()).runs[0].result.to_dict()
    assert got.runs[0].result.totals.omissions > 0  # gold r0 is q0 now: unpaired


def test_an_issue_that_does_not_span_its_record_is_not_moved(tmp_path: Path) -> None:
    """Pairing issues span their record; one that does not (nothing makes one today) makes
    the file be paired again rather than be moved to a guessed place."""
    path = tmp_path / "e.jsonl"
    old = SliceParser().read(str(path), '{"id": "a"}\n{"id": "b"}\n', strict=False)
    new = SliceParser().read(str(path), '{"id": "a", "x": 1}\n{"id": "b"}\n', strict=False)
    whole = runner.InputIssue(path, 12, 23, "duplicate-id", "again")
    other = runner.InputIssue(tmp_path / "g.jsonl", 0, 5, "x", "y")
    assert runner.moved_issues([whole, other], path, old, new) == [
        runner.InputIssue(path, 20, 31, "duplicate-id", "again"), other]
    assert runner.moved_issues([runner.InputIssue(path, 13, 20, "c", "m")], path, old,
                               new) is None


def test_a_file_written_just_now_is_always_read_again(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """File times are coarse: a file written twice within one tick, the same size, keeps
    its signature. A file modified in the last two seconds is therefore never kept."""
    path = tmp_path / "g.jsonl"
    path.write_text('{"id": "a"}\n', encoding="utf-8")
    reads: list[Path] = []
    real = runner.files.read_text
    monkeypatch.setattr(runner.files, "read_text", lambda p: reads.append(p) or real(p))
    disk = runner.files.DiskTexts()
    assert disk.read(path) == disk.read(path) == '{"id": "a"}\n'
    assert len(reads) == 2
    # Its modification time set back (``cp -p``, ``tar x``): its status changed just now.
    settled = time.time_ns() - 10 * 10**9
    os.utime(path, ns=(settled, settled))
    assert disk.read(path) == disk.read(path) == '{"id": "a"}\n'
    assert len(reads) == 4
    later = runner.files.DiskTexts(_later)  # both times long past: kept from now on
    later.read(path)
    later.read(path)
    assert len(reads) == 5


def _later() -> int:
    """A clock past ``RACY_NS`` from now: files written by the test count as settled."""
    return time.time_ns() + runner.files.RACY_NS + 10**9


def test_a_file_read_again_with_the_same_text_is_held_once(tmp_path: Path) -> None:
    """A run reads the extracted file from disk; the editor then opens it (an equal text,
    another string). The run uses its first copy, which its parsed files hold, and the
    disk text of a file now read from the editor is not kept."""
    suite, path, _ = _suite(tmp_path, 300)
    cache = SuiteCache(disk=runner.files.DiskTexts(_later))  # written long ago: kept
    first = run_suite(suite, {}, cache, CancelToken())
    disk_text = first.texts[path]
    assert path in cache.disk
    opened = "".join(list(disk_text))  # what the editor sent: equal, not the same object
    assert opened == disk_text and opened is not disk_text
    again = run_suite(suite, {path: opened}, cache, CancelToken())
    assert again.texts[path] is disk_text
    assert again.runs[0].data.text is disk_text
    assert path not in cache.disk  # read from the editor now
    assert suite.config.gold in cache.disk  # still read from disk
    assert _figures(again) == _figures(first)
    edited = opened.replace('"price": ', '"price": 1', 1)  # another text: used as it is
    third = run_suite(suite, {path: edited}, cache, CancelToken())
    assert third.texts[path] is edited
    assert third.runs[0].data.text is edited


def _gold_edited(suite: runner.Suite) -> str:
    """The suite's gold text with one record's price changed."""
    lines = suite.config.gold.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[5])
    rec["price"] += 7
    lines[5] = json.dumps(rec)
    return "\n".join(lines) + "\n"


def test_a_run_cancelled_after_the_gold_changed_leaves_no_stale_results(
        tmp_path: Path) -> None:
    """A run cancelled once it had paired the records with the new gold, before it scored
    them: the next run scores them against the new gold (it took the old results as
    current: a gold edit saved twice in quick succession showed the figures of before)."""
    suite, _, _ = _suite(tmp_path, 300)
    cache = SuiteCache()
    run_suite(suite, {}, cache, CancelToken())
    new_gold = {suite.config.gold: _gold_edited(suite)}
    token = CancelToken()
    token.cancel()  # seen at the first record scored
    with pytest.raises(runner.Cancelled):
        run_suite(suite, new_gold, cache, token)
    resumed = run_suite(suite, new_gold, cache, CancelToken())
    assert _figures(resumed) == _figures(run_suite(suite, new_gold, SuiteCache(),
                                                   CancelToken()))


def test_a_run_cancelled_between_two_runs_files_leaves_no_stale_results(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cancelled while scoring the second extracted file, after the first was done: each
    file's results and pairing are kept together, so both are right in the next run."""
    suite, path, lines = _suite(tmp_path, 300)
    second = path.with_name("shop.run2.extracted.jsonl")
    second.write_text("\n".join(lines[::-1]) + "\n", encoding="utf-8")
    [suite] = discover([path.parent], lambda p: p.read_text("utf-8")).suites
    assert [p.name for p in suite.config.extracted] == [path.name, second.name]
    cache = SuiteCache()
    run_suite(suite, {}, cache, CancelToken())
    new_gold = {suite.config.gold: _gold_edited(suite)}
    token = CancelToken()
    score = runner._score

    def cancel_in_second(*args: object) -> object:
        if args[-1] == second:  # the path a record's issues go to
            token.cancel()
        return score(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "_score", cancel_in_second)
    with pytest.raises(runner.Cancelled):
        run_suite(suite, new_gold, cache, token)
    monkeypatch.setattr(runner, "_score", score)
    resumed = run_suite(suite, new_gold, cache, CancelToken())
    fresh = run_suite(suite, new_gold, SuiteCache(), CancelToken())
    assert [r.result.to_dict() for r in resumed.runs] == [r.result.to_dict()
                                                        for r in fresh.runs]
    assert [[s.record for s in r.scored] for r in resumed.runs] == \
        [[s.record for s in r.scored] for r in fresh.runs]


def _array_suite(tmp_path: Path, names: tuple[str, ...] = ("run1",),
                 schema: dict[str, object] | None = None
                 ) -> tuple[runner.Suite, list[Path], str]:
    """A suite of three records whose runs are JSON arrays (``shop.NAME.extracted.json``),
    and the runs' text, intact."""
    files = write_suite(tmp_path / "p")
    files["extracted"].unlink()
    if schema is not None:
        files["schema"].write_text(json.dumps(schema), encoding="utf-8")
    gold = [{"id": f"r{i}", "name": f"Item {i}", "price": float(i)} for i in range(3)]
    files["gold"].write_text("".join(json.dumps(g) + "\n" for g in gold), encoding="utf-8")
    intact = "[\n" + ",\n".join(json.dumps(g) for g in gold) + "\n]\n"
    paths = []
    for name in names:
        path = (files["gold"].parent / f"shop.{name}.extracted.json").resolve()
        path.write_text(intact, encoding="utf-8")
        paths.append(path)
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    return suite, paths, intact


def test_the_items_of_an_array_broken_elsewhere_are_repaired_in_a_resumed_run_too(
        tmp_path: Path) -> None:
    """An array that lost its closing bracket reads every item as repaired, their texts
    unchanged: the blocks scored while it was intact are not reused (they were, and the
    records showed as not repaired; and the other way once it was mended)."""
    suite, [path], intact = _array_suite(tmp_path)
    broken = intact.replace("\n]\n", "\n")
    cache = SuiteCache()
    run_suite(suite, {path: intact}, cache, CancelToken())
    for text, repaired in ((broken, True), (intact, False)):
        resumed = run_suite(suite, {path: text}, cache, CancelToken())
        fresh = run_suite(suite, {path: text}, SuiteCache(), CancelToken())
        assert [bool(s.record.repaired) for s in fresh.runs[0].scored] == [repaired] * 3
        assert _figures(resumed) == _figures(fresh)


def test_a_whole_result_of_a_broken_array_is_not_taken_for_an_intact_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Results kept whole (a comparator not built in) are reused by key across a suite's
    runs: the same record read repaired in a broken array and intact in another is two
    results, not one."""
    monkeypatch.setattr(default_registry, "comparators", dict(default_registry.comparators))
    register_comparator("test_whole_equal", lambda g, e, p: float(g == e), overwrite=True)
    schema = json.loads(json.dumps(SCHEMA))
    schema["properties"]["price"]["x-eval-compare"] = "test_whole_equal"
    suite, [run1, run2], intact = _array_suite(tmp_path, ("run1", "run2"), schema)
    got = run_suite(suite, {run1: intact.replace("\n]\n", "\n"), run2: intact}, SuiteCache(),
                    CancelToken())
    assert runner.keeps_whole(got.evaluator)  # type: ignore[arg-type]
    assert [bool(s.record.repaired) for s in got.runs[0].scored] == [True] * 3
    assert [bool(s.record.repaired) for s in got.runs[1].scored] == [False] * 3


def test_an_unreadable_record_that_moves_is_given_its_new_place(tmp_path: Path) -> None:
    """An unreadable record has no slice, and pairing by id puts it after the gold's
    records: when the record above it moves below it, its block's pairs are the same
    but its index is not, and the block is scored again (it was reused, and the record
    pointed at its old line)."""
    files = write_suite(tmp_path / "p")
    gold = [{"id": f"r{i}", "name": f"Item {i}", "price": float(i)} for i in range(runner.BLOCK * 2)]
    files["gold"].write_text("".join(json.dumps(g) + "\n" for g in gold), encoding="utf-8")
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    path = files["extracted"].resolve()
    lines = [json.dumps(g) for g in gold]
    cache = SuiteCache()
    run_suite(suite, {path: "\n".join([lines[0], "{bad json", *lines[1:]]) + "\n"}, cache,
              CancelToken())
    after = {path: "\n".join(["{bad json", *lines]) + "\n"}  # the first two lines swapped
    resumed = run_suite(suite, after, cache, CancelToken())
    fresh = run_suite(suite, after, SuiteCache(), CancelToken())
    unread = fresh.runs[0].scored[-1].record
    assert unread.extracted_index == 0 and unread.gold_index is None
    assert _figures(resumed) == _figures(fresh)
