"""Every mismatch carries a human reason, the same text in the Python API, the JSON output,
the markdown and HTML reports (issue 13, "Comparators"); the date comparator's verdicts
through the API and the CLI on real files."""

from __future__ import annotations

import html
import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest

from evalschema import Status, evaluate
from evalschema.cli.main import main
from evalschema.report.markdown import cell
from evalschema.results import SHOWN_CHARS, ComparatorName, FieldResult, show_value

SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-eval-id": "id",
    "properties": {
        "id": {"type": "string", "x-eval-compare": "exact"},
        "total": {"type": "number",
                  "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}},
        "vendor": {"type": "string", "x-eval-compare": {"levenshtein": {"threshold": 0.9}}},
        "date": {"type": "string", "x-eval-compare": "date"},
        "address": {"type": "object", "properties": {
            "city": {"type": "string", "x-eval-compare": "exact"}}},
    },
}
GOLD = [
    {"id": "a", "total": 68.78, "vendor": "Acme Corp", "date": "2021-03-04",
     "address": {"city": "Oslo"}},
    {"id": "b", "total": 10, "vendor": "Initech", "date": "N/A", "address": {"city": "Rome"}},
    {"id": "c", "total": 5, "vendor": "Globex", "date": "2021-01", "address": {"city": "Bern"}},
]
EXTRACTED = [
    {"id": "a", "total": 687.8, "vendor": "Acme Crop", "date": "2021",
     "address": "Oslo"},
    {"id": "b", "total": 10, "vendor": "Initech", "date": "2021-01-01",
     "address": {"city": "Rome"}},
    {"id": "c", "total": 5, "vendor": "Globex", "date": "January 2021",
     "address": {"city": "Bern"}},
]

#: path -> (status, reason) of every result that is not a plain match.
EXPECTED: dict[tuple[str, str], tuple[str, str | None]] = {
    ("a", "total"): ("mismatch", "687.8 ≠ gold 68.78 (numeric, abs 0.01)"),
    ("a", "vendor"): ("mismatch", '"Acme Crop" ≠ gold "Acme Corp" (levenshtein, threshold 0.9; '
                                  "score 0.7778 < 0.9)"),
    ("a", "date"): ("mismatch", '"2021" ≠ gold "2021-03-04" (date): the extracted value gives '
                                "the year only, gold the day"),
    ("a", "address"): ("mismatch", 'type mismatch: extracted value "Oslo" is string, '
                                   "expected an object"),
    ("b", "date"): ("error", 'gold value "N/A" is not a date, so the date comparator cannot '
                             "judge this field (fix the gold value)"),
    ("c", "date"): ("match", None),
}


def _results(records: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[str, str | None]]:
    """(record id, path) -> (status, reason) of the JSON records that are not plain matches,
    and of the date fields."""
    return {(rec["record_id"], r["path"]): (r["status"], r["reason"])
            for rec in records for r in rec["field_results"]
            if r["status"] != "match" or (r["path"] == "date" and rec["record_id"] == "c")}


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    schema = tmp_path / "invoice.eval.json"
    schema.write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(r) + "\n" for r in GOLD), encoding="utf-8")
    ext = tmp_path / "extracted.jsonl"
    ext.write_text("".join(json.dumps(r) + "\n" for r in EXTRACTED), encoding="utf-8")
    return schema, gold, ext


def _cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> str:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert code in (0, 1), err
    return out


def _run_doc(doc: Any) -> dict[str, Any]:
    """The one run of an ``eval --format json`` document, whichever shape it has."""
    if isinstance(doc, dict) and "runs" in doc:
        [doc] = doc["runs"]
    assert isinstance(doc, dict)
    return doc


# -- the API ---------------------------------------------------------------------------


def test_every_mismatch_has_its_reason_in_the_api() -> None:
    run = evaluate(GOLD, EXTRACTED, SCHEMA)
    got = {(rec.record_id, r.path): (str(r.status), r.explanation)
           for rec in run.records for r in rec.field_results
           if r.status is not Status.MATCH or (rec.record_id, r.path) == ("c", "date")}
    assert got == EXPECTED
    assert _results(run.to_dict()["records"]) == EXPECTED


def test_a_reason_is_made_when_asked_not_while_scoring() -> None:
    """A plain mismatch leaves ``reason`` empty (scoring formats nothing); the comparator
    it carries is enough to make it, also after pickling (``--workers``)."""
    run = evaluate(GOLD, EXTRACTED, SCHEMA)
    [total] = [r for r in run.records[0].field_results if r.path == "total"]
    assert total.reason is None
    assert isinstance(total.comparator, ComparatorName)
    assert total.comparator == "numeric"
    assert total.to_dict()["comparator"] == "numeric"
    assert type(total.to_dict()["comparator"]) is str
    again: FieldResult = pickle.loads(pickle.dumps(total))
    assert again.explanation == total.explanation == "687.8 ≠ gold 68.78 (numeric, abs 0.01)"


def test_matches_and_one_sided_fields_keep_their_own_reason() -> None:
    run = evaluate([{"a": 1, "b": 2}], [{"a": 1, "c": 3}],
                   {"type": "object", "properties": {"a": {"type": "integer"},
                                                     "b": {"type": "integer"}}})
    got = {r.path: (str(r.status), r.explanation) for r in run.records[0].field_results}
    assert got == {"a": ("match", None), "b": ("omission", "missing from extracted"),
                   "c": ("hallucination", "not in the schema")}


@pytest.mark.parametrize(("gold", "extracted", "reason"), [
    ({"o": {"k": 1}}, {"o": None}, None),  # null: an omission, its own reason
    ({"o": {"k": 1}}, {"o": [1]}, "type mismatch: extracted value [1] is array, "
                                  "expected an object"),
    ({"o": {"k": 1}}, {"o": True}, "type mismatch: extracted value true is boolean, "
                                   "expected an object"),
    ({"n": 1}, {"n": {"v": 1}}, 'extracted value {"v": 1} is not a number (numeric)'),
    ({"s": "x"}, {"s": None}, "extracted value null is null, not a string (normalized)"),
])
def test_messages_speak_json_types(gold: dict[str, Any], extracted: dict[str, Any],
                                   reason: str | None) -> None:
    schema = {"type": "object", "properties": {
        "o": {"type": "object", "properties": {"k": {"type": "integer"}}},
        "n": {"type": "number", "x-eval-compare": "numeric"},
        "s": {"type": "string", "x-eval-compare": "normalized"},
    }}
    run = evaluate([gold], [extracted], schema)
    [r] = [r for r in run.records[0].field_results if r.status is not Status.MATCH]
    if reason is None:
        assert r.status is Status.OMISSION
        return
    assert r.explanation == reason
    assert not re.search(r"\b(NoneType|dict|list|bool|None|True|str)\b", reason)


# -- the date comparator, through the API and the CLI ------------------------------------

DATE_CASES: list[tuple[str, str, str, str | None]] = [
    ("2021-01", "January 2021", "match", None),
    ("2021-01", "Jan 2021", "match", None),
    ("Jan 2021", "2021-01", "match", None),
    ("2021", "2021-03-04", "match", None),
    ("2021", "2021", "match", None),
    ("2015-04-30", "2015-04-30T22:00:00.000Z", "match", None),
    ("2015-04-30T22:00:00.000Z", "2015-04-30", "match", None),
    ("2015-05-01T00:00:00+02:00", "2015-04-30T22:00:00Z", "match", None),
    ("2021-01", "February 2021", "mismatch", '"February 2021" ≠ gold "2021-01" (date)'),
    ("2021-03-04", "2021", "mismatch", '"2021" ≠ gold "2021-03-04" (date): the extracted '
                                       "value gives the year only, gold the day"),
    ("2021-03-04", "soon", "mismatch", 'extracted value "soon" is not a date (date)'),
    ("N/A", "2021-03-04", "error", 'gold value "N/A" is not a date, so the date comparator '
                                   "cannot judge this field (fix the gold value)"),
    ("in 2021", "2021", "error", 'gold value "in 2021" is not a date, so the date comparator '
                                 "cannot judge this field (fix the gold value)"),
]
DATE_SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "integer"}, "when": {"type": "string", "x-eval-compare": "date"}}}


def _date_records() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    gold = [{"id": i, "when": g} for i, (g, _, _, _) in enumerate(DATE_CASES)]
    ext = [{"id": i, "when": e} for i, (_, e, _, _) in enumerate(DATE_CASES)]
    return gold, ext


def test_date_forms_through_the_api() -> None:
    gold, ext = _date_records()
    run = evaluate(gold, ext, DATE_SCHEMA)
    got = [(str(r.status), r.explanation) for rec in run.records for r in rec.field_results
           if r.path == "when"]
    assert got == [(status, reason) for _, _, status, reason in DATE_CASES]
    # A gold value that is not a date is not charged to the extractor.
    assert run.per_field["when"].counts.errors == 2
    assert run.per_field["when"].counts.mismatches == 3


def test_date_forms_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                    ) -> None:
    gold, ext = _date_records()
    (tmp_path / "dates.eval.json").write_text(json.dumps(DATE_SCHEMA), encoding="utf-8")
    (tmp_path / "gold.json").write_text(json.dumps(gold, indent=2), encoding="utf-8")
    (tmp_path / "out.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ext),
                                        encoding="utf-8")
    doc = _run_doc(json.loads(_cli(capsys, "eval", tmp_path / "dates.eval.json", "--gold",
                                   tmp_path / "gold.json", "--extracted",
                                   tmp_path / "out.jsonl", "--format", "json")))
    got = {rec["record_id"]: (r["status"], r["reason"]) for rec in doc["records"]
           for r in rec["field_results"] if r["path"] == "when"}
    assert got == {i: (status, reason) for i, (_, _, status, reason) in enumerate(DATE_CASES)}


# -- the same text in every output ---------------------------------------------------------


def test_json_output_carries_the_reasons(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    schema, gold, ext = _files(tmp_path)
    doc = _run_doc(json.loads(_cli(capsys, "eval", schema, "--gold", gold, "--extracted", ext,
                                   "--format", "json")))
    assert _results(doc["records"]) == EXPECTED


def test_markdown_report_shows_the_reasons(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    schema, gold, ext = _files(tmp_path)
    out = _cli(capsys, "eval", schema, "--gold", gold, "--extracted", ext,
               "--format", "markdown")
    for (rid, _), (status, reason) in EXPECTED.items():
        if status == "match":
            continue
        assert reason is not None
        # As a table cell: pipes and angle brackets escaped ("<" is "&lt;").
        assert cell(f"{status}: {reason}") in out, (rid, reason)


def test_html_report_shows_the_reasons(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    schema, gold, ext = _files(tmp_path)
    report = tmp_path / "report.html"
    _cli(capsys, "eval", schema, "--gold", gold, "--extracted", ext, "--format", "html",
         "--output", report)
    page = report.read_text(encoding="utf-8")
    for status, reason in EXPECTED.values():
        if status == "match":
            continue
        assert reason is not None
        assert f"<td>{html.escape(reason, quote=True)}</td>" in page or \
            f"<td>{html.escape(reason, quote=False)}</td>" in page, reason


def test_a_shown_value_is_cut_only_past_its_limit() -> None:
    """Exactly ``SHOWN_CHARS`` characters are shown whole; one more is cut to the limit."""
    fits = "x" * (SHOWN_CHARS - 2)  # with its quotes, exactly the limit
    assert show_value(fits) == f'"{fits}"'
    cut = show_value(fits + "y")
    assert len(cut) == SHOWN_CHARS and cut.endswith("…")
