"""Inputs as people store them (issue 13): one document per file paired by file name,
the format decided per file from its content, truncated output repaired, real
line:col errors, and one record label everywhere. Each through the API and through
``evalschema eval`` on real files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import evaluate
from evalschema.cli.main import main
from evalschema.errors import GoldValidationError, InputError
from evalschema.io.records import JSON, JSONL, load_records, records_format
from evalschema.results import RunResult, Status, record_label
from evalschema.run.compare import compare_runs

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "x-eval-compare": "exact"},
        "total": {"type": "number", "x-eval-compare": "exact"},
        "items": {"type": "array", "items": {"type": "string", "x-eval-compare": "exact"}},
    },
}
BY_ID: dict[str, Any] = {**SCHEMA, "x-eval-id": "id",
                         "properties": {**SCHEMA["properties"], "id": {"type": "string"}}}


def doc(k: int) -> dict[str, Any]:
    return {"name": f"invoice {k}", "total": 10 * k, "items": [f"a{k}", f"b{k}"]}


def statuses(run: RunResult) -> dict[str, list[tuple[str, str]]]:
    return {r.label: [(f.path, str(f.status)) for f in r.field_results] for r in run.records}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def cli_records(out: str) -> list[dict[str, Any]]:
    """The records of ``eval --format json`` (one run, whichever JSON shape)."""
    doc_ = json.loads(out)
    if isinstance(doc_, dict) and "runs" in doc_:
        doc_ = doc_["runs"][0]
    assert isinstance(doc_, dict)
    records: list[dict[str, Any]] = doc_["records"]
    return records


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    """gold/ and out/, one pretty-printed document per file; invoice-0002 has no output,
    and out/ holds one output (stray) with no gold."""
    (tmp_path / "gold").mkdir()
    (tmp_path / "out").mkdir()
    for k in range(6):
        text = json.dumps(doc(k), indent=2)
        (tmp_path / "gold" / f"invoice-{k:04d}.json").write_text(text, encoding="utf-8")
        if k != 2:
            (tmp_path / "out" / f"invoice-{k:04d}.json").write_text(text, encoding="utf-8")
    (tmp_path / "out" / "stray.json").write_text(json.dumps(doc(9)), encoding="utf-8")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    return tmp_path


# -- one document per file -----------------------------------------------------------------

EXPECTED_BY_NAME = {
    **{f"invoice-{k:04d}": [("name", "match"), ("total", "match"), ("items[0]", "match"),
                            ("items[1]", "match")] for k in (0, 1, 3, 4, 5)},
    "invoice-0002": [("name", "omission"), ("total", "omission"), ("items[0]", "omission"),
                     ("items[1]", "omission")],
    "stray": [("name", "hallucination"), ("total", "hallucination"),
              ("items[0]", "hallucination"), ("items[1]", "hallucination")],
}


@pytest.mark.parametrize("keep_records", [True, False])
def test_a_missing_output_shifts_nothing(folders: Path, keep_records: bool) -> None:
    run = evaluate(folders / "gold", folders / "out", SCHEMA, keep_records=keep_records)
    # 20 of 24 gold leaves found, 4 invented: the shift by position gave F1 0.27.
    assert (run.total_matches, run.total_omissions, run.total_hallucinations) == (20, 4, 4)
    assert run.micro_f1 == pytest.approx(2 * 20 / (2 * 20 + 4 + 4))
    if keep_records:
        assert statuses(run) == EXPECTED_BY_NAME
        problems = {r.label: r.problem for r in run.records if r.problem}
        assert problems == {"invoice-0002": "no extracted file with this name",
                            "stray": "no gold file with this name"}
        assert [r.name for r in run.records][:3] == ["invoice-0000", "invoice-0001",
                                                     "invoice-0002"]


def test_a_missing_output_through_the_cli(folders: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "eval", folders / "schema.json", "--gold", folders / "gold",
                           "--extracted", folders / "out", "--format", "json")
    assert code == 0
    got = {r["label"]: [(f["path"], f["status"]) for f in r["field_results"]]
           for r in cli_records(out)}
    assert got == EXPECTED_BY_NAME
    code, out, _ = run_cli(capsys, "eval", folders / "schema.json", "--gold", folders / "gold",
                           "--extracted", folders / "out")
    assert "record invoice-0002: no extracted file with this name" in out
    assert "record stray: no gold file with this name" in out


def test_text_and_markdown_outputs_pair_by_name(folders: Path) -> None:
    """Models write .txt and .md files too: each is one document, read leniently."""
    (folders / "out" / "invoice-0001.json").unlink()
    (folders / "out" / "invoice-0001.md").write_text(
        "Here is the invoice:\n```json\n" + json.dumps(doc(1), indent=2) + "\n```\n",
        encoding="utf-8")
    (folders / "out" / "invoice-0003.json").rename(folders / "out" / "invoice-0003.txt")
    run = evaluate(folders / "gold", folders / "out", SCHEMA)
    assert statuses(run) == EXPECTED_BY_NAME
    assert {r.label: r.repaired for r in run.records}["invoice-0001"] is True


def test_two_outputs_of_one_name_leave_the_second_unpaired(folders: Path) -> None:
    (folders / "out" / "invoice-0000.txt").write_text(json.dumps(doc(0)), encoding="utf-8")
    run = evaluate(folders / "gold", folders / "out", SCHEMA)
    extra = [r for r in run.records if r.gold_index is None and r.name == "invoice-0000"]
    assert [r.problem for r in extra] == [
        "another extracted file is named 'invoice-0000' too (extracted record 0)"]
    paired = [r for r in run.records if r.gold_index is not None and r.name == "invoice-0000"]
    assert [r.f1 for r in paired] == [1.0]


def test_unpaired_outputs_come_in_file_order_and_keep_why_they_are_unreadable(
        folders: Path) -> None:
    """Outputs no gold file pairs (a second file of a name, a name no gold has) follow
    the gold records in the order of their files; an unreadable one says it is
    unreadable rather than only that no gold file has its name."""
    (folders / "out" / "aaa.json").write_text(json.dumps(doc(7)), encoding="utf-8")
    (folders / "out" / "invoice-0000.txt").write_text(json.dumps(doc(0)), encoding="utf-8")
    (folders / "out" / "zzz.txt").write_text("I could not read this document.",
                                             encoding="utf-8")
    run = evaluate(folders / "gold", folders / "out", SCHEMA)
    extra = [r for r in run.records if r.gold_index is None]
    assert [r.name for r in extra] == ["aaa", "invoice-0000", "stray", "zzz"]
    assert extra[-1].problem is not None
    assert extra[-1].problem.startswith("unreadable extracted record")


def test_named_gold_files_against_an_array_of_outputs_pair_by_position(
        folders: Path) -> None:
    """File names pair records only when both sides are one document per file."""
    gold = sorted((folders / "gold").iterdir())
    (folders / "all.json").write_text(json.dumps([json.loads(f.read_text()) for f in gold]),
                                      encoding="utf-8")
    run = evaluate(folders / "gold", folders / "all.json", SCHEMA)
    assert run.total_records == 6 and run.micro_f1 == 1.0


def test_with_an_id_the_id_still_wins(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Files named unlike their ids (and in another order) still pair by id."""
    (tmp_path / "gold").mkdir()
    (tmp_path / "out").mkdir()
    for k in range(3):
        (tmp_path / "gold" / f"g{k}.json").write_text(
            json.dumps({"id": f"r{k}", **doc(k)}, indent=2), encoding="utf-8")
        (tmp_path / "out" / f"o{2 - k}.json").write_text(
            json.dumps({"id": f"r{k}", **doc(k)}, indent=2), encoding="utf-8")
    run = evaluate(tmp_path / "gold", tmp_path / "out", BY_ID)
    assert [r.label for r in run.records] == ["r0", "r1", "r2"]
    assert run.micro_f1 == 1.0
    (tmp_path / "schema.json").write_text(json.dumps(BY_ID), encoding="utf-8")
    code, out, _ = run_cli(capsys, "eval", tmp_path / "schema.json", "--gold", tmp_path / "gold",
                           "--extracted", tmp_path / "out", "--format", "json")
    assert code == 0 and [r["label"] for r in cli_records(out)] == ["r0", "r1", "r2"]


@pytest.mark.parametrize("stream", [False, True])
def test_with_an_id_an_output_without_one_is_named_by_its_file(tmp_path: Path,
                                                              stream: bool) -> None:
    (tmp_path / "gold").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "gold" / "g.json").write_text(json.dumps({"id": "r0", **doc(0)}),
                                              encoding="utf-8")
    (tmp_path / "out" / "a.json").write_text(json.dumps({"id": "r0", **doc(0)}),
                                             encoding="utf-8")
    (tmp_path / "out" / "b.json").write_text(json.dumps(doc(1)), encoding="utf-8")
    run = evaluate(tmp_path / "gold", tmp_path / "out", BY_ID, stream=stream)
    assert [(r.label, r.problem) for r in run.records] == [
        ("r0", None), ("b", "extracted record has no 'id'")]


@pytest.mark.parametrize("keep_records", [True, False])
def test_an_output_file_of_two_records_shifts_nothing(folders: Path, keep_records: bool,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """A model that wrote its answer twice (two JSON lines) made the whole folder pair by
    position: with invoice-0002 missing, every later file was judged against the wrong
    gold, and nothing said so. The file's first record pairs by its name; the second is
    left over, named by the file, with why."""
    (folders / "out" / "invoice-0001.json").write_text(
        json.dumps(doc(1)) + "\n" + json.dumps(doc(1)) + "\n", encoding="utf-8")
    run = evaluate(folders / "gold", folders / "out", SCHEMA, keep_records=keep_records)
    assert (run.total_matches, run.total_omissions, run.total_hallucinations) == (20, 4, 8)
    if keep_records:
        got = statuses(run)
        assert got["invoice-0003"] == EXPECTED_BY_NAME["invoice-0003"]
        assert got["invoice-0002"] == EXPECTED_BY_NAME["invoice-0002"]
        assert [r.label for r in run.records if r.gold_index is None] == ["invoice-0001",
                                                                          "stray"]
    code, out, _ = run_cli(capsys, "eval", folders / "schema.json", "--gold", folders / "gold",
                           "--extracted", folders / "out")
    assert code == 0 and "record invoice-0002: no extracted file with this name" in out


def test_a_folder_of_jsonl_shards_still_reads_every_record(tmp_path: Path) -> None:
    """Files holding several records (JSONL, arrays) are not one document each."""
    (tmp_path / "gold").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "gold" / "a.jsonl").write_text(
        "\n".join(json.dumps(doc(k)) for k in range(2)), encoding="utf-8")
    (tmp_path / "gold" / "b.json").write_text(json.dumps([doc(2), doc(3)]), encoding="utf-8")
    (tmp_path / "out" / "all.jsonl").write_text(
        "\n".join(json.dumps(doc(k)) for k in range(4)), encoding="utf-8")
    run = evaluate(tmp_path / "gold", tmp_path / "out", SCHEMA)
    assert [r.label for r in run.records] == ["#1", "#2", "#3", "#4"]
    assert run.micro_f1 == 1.0


# -- labels ----------------------------------------------------------------------------------

def test_a_label_is_the_id_else_the_file_name_else_the_place() -> None:
    assert record_label("INV-1", "invoice-1", 0) == "INV-1"
    assert record_label(7, None, 0) == "7"
    assert record_label(None, "invoice-1", 4) == "invoice-1"
    assert record_label(None, None, 0) == "#1"


@pytest.mark.parametrize(("rid", "label"), [(True, "true"), (2.5, "2.5"),
                                            (["a", 1], '["a", 1]'), ("ä", "ä")])
def test_an_id_that_is_not_a_string_is_labelled_as_json(rid: Any, label: str) -> None:
    """Labels speak JSON, like every message: an id ``true`` is not Python's ``True``."""
    assert record_label(rid, "invoice-1", 0) == label


@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "junit", "json"])
def test_no_report_names_a_record_none(tmp_path: Path, fmt: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Positional records are #N (1-based) in every format."""
    run = evaluate([doc(0), doc(1)], [doc(0), "no JSON here", doc(5)], SCHEMA)
    assert [r.label for r in run.records] == ["#1", "#2", "#3"]
    (tmp_path / "gold.jsonl").write_text("\n".join(json.dumps(d) for d in (doc(0), doc(1))),
                                         encoding="utf-8")
    (tmp_path / "out.jsonl").write_text("\n".join([json.dumps(doc(0)), "no JSON here",
                                                   json.dumps(doc(5))]), encoding="utf-8")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    _, out, _ = run_cli(capsys, "eval", tmp_path / "schema.json", "--gold",
                        tmp_path / "gold.jsonl", "--extracted", tmp_path / "out.jsonl",
                        "--format", fmt)
    assert "None" not in out
    if fmt in ("table", "html"):
        assert "#2" in out  # the unreadable record, in the problems list
    if fmt == "json":
        assert [r["label"] for r in cli_records(out)] == ["#1", "#2", "#3"]


def test_compare_flips_are_labelled(folders: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folders / "out_b").mkdir()
    for k in (0, 1, 2):
        wrong = {**doc(k), "total": -1} if k == 1 else doc(k)
        (folders / "out_b" / f"invoice-{k:04d}.json").write_text(json.dumps(wrong),
                                                                encoding="utf-8")
    a = evaluate(folders / "gold", folders / "out", SCHEMA)
    b = evaluate(folders / "gold", folders / "out_b", SCHEMA)
    comparison = compare_runs([a, b], resamples=50, seed=1)
    flips = {f.label: (f.regressed, f.fixed) for f in comparison.flips}
    assert flips["invoice-0001"] == (("total",), ())
    assert flips["invoice-0002"] == ((), ("name", "total", "items[0]", "items[1]"))
    code, out, _ = run_cli(capsys, "compare", "--schema", folders / "schema.json", "--gold",
                           folders / "gold", folders / "out", folders / "out_b",
                           "--resamples", "50")
    assert code == 0 and "invoice-0001" in out and "None" not in out


# -- a file is one document unless it is JSONL -----------------------------------------------

PRETTY_TRAILING = '{\n  "name": "invoice 1",\n  "total": 10,\n  "items": [\n    "a1",\n    "b1",\n  ],\n}\n'
FENCED = ("Sure! Here is the extraction:\n\n```json\n" + json.dumps(doc(1), indent=2)
          + "\n```\n\nLet me know if you need anything else.\n")


@pytest.mark.parametrize(("text", "want"), [
    (json.dumps(doc(1), indent=2), JSON),
    (PRETTY_TRAILING, JSON),
    (FENCED, JSON),
    (json.dumps([doc(1), doc(2)], indent=2), JSON),
    ("\n".join(json.dumps(doc(k)) for k in range(3)), JSONL),
    # JSONL whose first record was cut short: still one value per line
    ('{"name": "inv\n' + "\n".join(json.dumps(doc(k)) for k in range(3)), JSONL),
    # one record on one line, then blank lines: one document, not JSONL
    (json.dumps(doc(1)) + "\n\n\n", JSON),
    # half the lines whole records (the first cut, the last prose): still JSONL
    ('{"name": "inv\n' + json.dumps(doc(1)) + "\n" + json.dumps(doc(2)) + "\nDone.", JSONL),
    # one whole record line after a cut one is too little to call it JSONL
    ('{"name": "inv\n' + json.dumps(doc(1)), JSON),
    # an array on the first line opens a JSON text, even with prose after it
    (json.dumps([doc(1)]) + "\nI hope this helps.", JSON),
])
def test_the_format_is_decided_from_the_content(text: str, want: str) -> None:
    assert records_format(text, "out.json") == want


#: A model's answer: the JSON on one line, then a sentence (or a closing fence).
ONE_LINE_THEN_PROSE = json.dumps(doc(1)) + "\n\nHope this helps!\n"


@pytest.mark.parametrize("text", [ONE_LINE_THEN_PROSE, json.dumps(doc(1)) + "\n```\n"])
def test_one_line_of_json_then_prose_is_one_document(tmp_path: Path, text: str,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """Not one value per line, so not JSONL: read as two records it was a record and an
    unreadable one, and in a folder it broke pairing by name for every file."""
    assert records_format(text, "out.md") == JSON
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "invoice-0001.md").write_text(text, encoding="utf-8")
    (tmp_path / "out" / "invoice-0002.json").write_text(json.dumps(doc(2)), encoding="utf-8")
    (tmp_path / "gold").mkdir()
    for k in (1, 2):
        (tmp_path / "gold" / f"invoice-{k:04d}.json").write_text(json.dumps(doc(k)),
                                                                encoding="utf-8")
    run = evaluate(tmp_path / "gold", tmp_path / "out", SCHEMA)
    assert [(r.label, r.f1, r.problem) for r in run.records] == [
        ("invoice-0001", 1.0, None), ("invoice-0002", 1.0, None)]
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    code, out, _ = run_cli(capsys, "eval", tmp_path / "schema.json", "--gold",
                           tmp_path / "gold" / "invoice-0001.json", "--extracted",
                           tmp_path / "out" / "invoice-0001.md", "--format", "json")
    [got] = cli_records(out)
    assert code == 0 and got["f1"] == 1.0 and got["problem"] is None


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson"])
def test_jsonl_suffixes_are_jsonl_whatever_the_content(suffix: str) -> None:
    assert records_format(json.dumps(doc(1), indent=2), "out" + suffix) == JSONL


def test_an_object_holding_an_empty_array_is_one_record(tmp_path: Path) -> None:
    """``{"records": []}`` is no list of records (nothing says it holds any): one record."""
    (tmp_path / "gold.json").write_text('{"records": []}', encoding="utf-8")
    [rec] = load_records(tmp_path / "gold.json")
    assert rec.value == {"records": []}


def test_in_a_folder_an_array_of_one_record_is_not_named_by_its_file(tmp_path: Path) -> None:
    """A file's one document is named by the file; an item of an array it holds is not,
    even when the array has one item (it is a list of records, identified as such)."""
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "x.json").write_text(json.dumps([doc(1)]), encoding="utf-8")
    [rec] = load_records(tmp_path / "g")
    assert rec.name is None and rec.value == doc(1)


@pytest.mark.parametrize(("name", "text"), [("pretty.json", PRETTY_TRAILING),
                                            ("fenced.md", FENCED)])
def test_a_pretty_or_fenced_file_is_one_repaired_record(tmp_path: Path, name: str, text: str,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    (tmp_path / "gold.json").write_text(json.dumps(doc(1), indent=2), encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    run = evaluate(tmp_path / "gold.json", tmp_path / name, SCHEMA)
    [rec] = run.records
    assert rec.repaired is True and rec.problem is None and rec.f1 == 1.0
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    code, out, _ = run_cli(capsys, "eval", tmp_path / "schema.json", "--gold",
                           tmp_path / "gold.json", "--extracted", tmp_path / name,
                           "--format", "json")
    [got] = cli_records(out)
    assert code == 0 and got["repaired"] is True and got["f1"] == 1.0


@pytest.mark.parametrize(("text", "want", "how"), [
    ("[\n" + json.dumps(doc(1)) + ",\n" + json.dumps(doc(2)) + ",\n]\n", [1.0, 1.0], True),
    ("[\n" + json.dumps(doc(1)) + ",\n" + json.dumps(doc(2))[:-12], [1.0, 2 / 3], "truncated"),
])
def test_an_array_of_records_is_repaired_whole(tmp_path: Path, text: str, want: list[float],
                                               how: bool | str) -> None:
    """A trailing comma or a cut in an array of records: each item is a record, flagged."""
    (tmp_path / "out.json").write_text(text, encoding="utf-8")
    run = evaluate([doc(1), doc(2)], tmp_path / "out.json", SCHEMA)
    assert [r.f1 for r in run.records] == pytest.approx(want)
    assert [r.repaired for r in run.records] == [how, how]


def test_an_object_holding_one_array_of_records_is_that_list(tmp_path: Path) -> None:
    (tmp_path / "gold.json").write_text(json.dumps({"records": [doc(1), doc(2)]}, indent=2),
                                        encoding="utf-8")
    (tmp_path / "out.json").write_text(json.dumps([doc(1), doc(2)]), encoding="utf-8")
    run = evaluate(tmp_path / "gold.json", tmp_path / "out.json", SCHEMA)
    assert run.total_records == 2 and run.micro_f1 == 1.0


def test_in_a_folder_a_document_with_one_array_stays_one_document(tmp_path: Path) -> None:
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "x.json").write_text(json.dumps({"items": [{"a": 1}, {"a": 2}]}),
                                           encoding="utf-8")
    [rec] = load_records(tmp_path / "g")
    assert rec.name == "x" and rec.value == {"items": [{"a": 1}, {"a": 2}]}


BROKEN_GOLD = '{\n  "name": "invoice 1",\n  "total": 10 10,\n  "items": []\n}\n'


def test_a_gold_syntax_error_is_located_at_its_real_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "gold.json").write_text(BROKEN_GOLD, encoding="utf-8")
    (tmp_path / "out.json").write_text(json.dumps(doc(1)), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        evaluate(tmp_path / "gold.json", tmp_path / "out.json", SCHEMA)
    [problem] = caught.value.problems
    assert (problem.code, problem.line, problem.column) == ("invalid-json", 3, 15)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    code, _, err = run_cli(capsys, "eval", tmp_path / "schema.json", "--gold",
                           tmp_path / "gold.json", "--extracted", tmp_path / "out.json")
    assert code != 0 and "gold.json:3:15" in err and "Traceback" not in err


# -- truncated output -------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "want"), [
    # cut inside a string: the cut member is dropped, every complete field kept
    ('{"name": "invoice 1", "total": 10, "items": ["a1", "b', [
        ("name", Status.MATCH), ("total", Status.MATCH), ("items[0]", Status.MATCH),
        ("items[1]", Status.OMISSION)]),
    ('{"name": "invoice 1", "items": ["a1", "b1"], "total": 1', [
        ("name", Status.MATCH), ("total", Status.MISMATCH), ("items[0]", Status.MATCH),
        ("items[1]", Status.MATCH)]),
    ('{"total": 10, "name": "invo', [
        ("name", Status.OMISSION), ("total", Status.MATCH), ("items[0]", Status.OMISSION),
        ("items[1]", Status.OMISSION)]),
    # cut after a key, or between values
    ('{"total": 10, "name"', [
        ("name", Status.OMISSION), ("total", Status.MATCH), ("items[0]", Status.OMISSION),
        ("items[1]", Status.OMISSION)]),
    ('```json\n{\n  "total": 10,\n  "name": "invoice 1",\n', [
        ("name", Status.MATCH), ("total", Status.MATCH), ("items[0]", Status.OMISSION),
        ("items[1]", Status.OMISSION)]),
])
def test_truncated_output_keeps_every_complete_field(tmp_path: Path, text: str,
                                                     want: list[tuple[str, Status]],
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    run = evaluate([doc(1)], [text], SCHEMA)
    [rec] = run.records
    assert [(f.path, f.status) for f in rec.field_results] == want
    assert rec.repaired == "truncated" and rec.problem is None
    (tmp_path / "gold.json").write_text(json.dumps(doc(1), indent=2), encoding="utf-8")
    (tmp_path / "out.json").write_text(text, encoding="utf-8")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    code, out, _ = run_cli(capsys, "eval", tmp_path / "schema.json", "--gold",
                           tmp_path / "gold.json", "--extracted", tmp_path / "out.json",
                           "--format", "json")
    [got] = cli_records(out)
    assert code == 0 and (got["repaired"], got["repaired_reason"]) == (True, "truncated")
    assert [(f["path"], f["status"]) for f in got["field_results"]] == \
        [(p, str(s)) for p, s in want]
    for fmt in ("table", "markdown", "html"):
        _, out, _ = run_cli(capsys, "eval", tmp_path / "schema.json", "--gold",
                            tmp_path / "gold.json", "--extracted", tmp_path / "out.json",
                            "--format", fmt)
        assert "1 extracted record(s) needed lenient parsing (1 truncated)" in out


def test_messages_about_records_name_json_types_not_python_ones(tmp_path: Path) -> None:
    """A null or a list where a record belongs is said in JSON's words."""
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"name": "a"}\nnull\n[1]\n', encoding="utf-8")
    ext = tmp_path / "ext.jsonl"
    ext.write_text('null\n"text"\n{"name": "c"}\n', encoding="utf-8")
    with pytest.raises(GoldValidationError) as info:
        evaluate(gold, ext, {"type": "object", "properties": {"name": {"type": "string"}}})
    messages = [p.message for p in info.value.problems]
    assert any("is null, not an" in m for m in messages), messages
    assert any("is array, not an" in m for m in messages), messages
    assert not any("NoneType" in m or "list" in m for m in messages), messages
    gold.write_text('{"name": "a"}\n{"name": "b"}\n', encoding="utf-8")
    run = evaluate(gold, ext, {"type": "object", "properties": {"name": {"type": "string"}}})
    problems = [r.problem for r in run.records if r.problem]
    assert "extracted record is null, not an object" in problems[0]
    assert not any("NoneType" in p or "str," in p for p in problems), problems
