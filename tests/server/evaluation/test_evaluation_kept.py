"""What a run keeps of each record's findings (``kept.Findings``: statuses, fields and
scores, packed), and that everything that reads them all at once gives what it gave when
a run kept every finding whole: suspect gold, a field's worst values, the findings list,
the records' test statuses."""

from __future__ import annotations

import heapq
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from eval_workspace import scored_whole

from evalschema.results import Counts, FieldResult, RecordResult, Status
from evalschema.run.suspects import find_suspects
from evalschema_server.evaluation import record_tests, views
from evalschema_server.evaluation.datafile import RecordSlice
from evalschema_server.evaluation.findings import DiagnosticBuilder, FindingOptions, MarkCache
from evalschema_server.evaluation.kept import NO_FINDINGS, Findings, findings_only
from evalschema_server.evaluation.locate import RecordLocator
from evalschema_server.evaluation.runner import (
    CancelToken,
    RunOutcome,
    ScoredRecord,
    SuiteCache,
    SuiteOutcome,
    run_suite,
)
from evalschema_server.evaluation.suites import discover


def fr(path: str, status: Status, score: float, field: str | None = None) -> FieldResult:
    return FieldResult(path, field or path, status, score, gold="g" * 50, extracted="e" * 50)


def test_findings_pack_statuses_fields_and_scores_in_order() -> None:
    results = [fr("b", Status.MISMATCH, 0.1 + 0.2), fr("a", Status.MATCH, 1.0),
               fr("c", Status.SKIPPED, 0.0), fr("d[0].x", Status.HALLUCINATION, 0.0, "d[].x"),
               fr("e", Status.OMISSION, 0.0), fr("f", Status.ERROR, 0.0),
               fr("g", Status.PENDING, 0.0), fr("h", Status.BATCH_ERROR, 0.0),
               fr("i", Status.MISMATCH, 5e-324)]
    got = Findings.of(results)
    kept = [r for r in results if r.status not in (Status.MATCH, Status.SKIPPED)]
    assert len(got) == len(kept) == 7
    assert [tuple(k) for k in got] == [(i, r.status, r.field, r.score)
                                       for i, r in enumerate(kept)]
    assert next(iter(got)).score == 0.1 + 0.2, "scores exactly, not rounded"
    assert [k.at for k in got.of_field("b")] == [0] and got.of_field("a") == []
    assert [k.field for k in got.of_field("d[].x")] == ["d[].x"]
    # No value is held: only bytes and the fields' paths.
    assert {type(x) for x in (got.statuses, got.scores)} == {bytes}
    assert all(type(f) is str for f in got.fields)
    assert Findings.of([fr("a", Status.MATCH, 1.0)]) is NO_FINDINGS
    assert list(NO_FINDINGS) == [] and len(NO_FINDINGS) == 0


NUMERIC = {"numeric": {"tolerance": {"rel": 0.01}, "partial": True}}
SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"},
    "vendor": {"type": "string"},
    "total": {"type": "number", "x-eval-compare": NUMERIC},
    "meta": {"type": "object", "properties": {"po": {"type": "string"}}},
    "items": {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku"},
              "items": {"type": "object", "properties": {
                  "sku": {"type": "string"},
                  "qty": {"type": "number", "x-eval-compare": NUMERIC}}}}}}

GOLD = [
    {"id": "r1", "vendor": "Acme Gmbh", "total": 10, "meta": {},
     "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}, {"sku": "C", "qty": 3}]},
    {"id": "r2", "vendor": "Zeta", "total": 20, "items": [{"sku": "A", "qty": 4}]},
    {"id": "r3", "vendor": "Kappa", "total": 30, "meta": {}},
    {"id": "r4", "vendor": "Omega", "total": 40},
]
#: r1: both runs say "Acme GmbH" (a mismatch each: the least that makes a suspect); r3:
#: both invent the same po (a hallucination each, nothing else wrong); r2: one run only
#: is wrong; r4: both wrong, differently. Items come in another order than gold's, and
#: ties of score within a record, so that a field's worst values are ordered by position.
RUNS = {
    "a": [
        {"id": "r1", "vendor": "Acme GmbH", "total": 10,
         "items": [{"sku": "C", "qty": 2.25}, {"sku": "B", "qty": 1.5}, {"sku": "A", "qty": 0.5}]},
        {"id": "r2", "vendor": "Zeta", "total": 20.5, "items": [{"sku": "A", "qty": 3.5}]},
        {"id": "r3", "vendor": "Kappa", "total": 30, "meta": {"po": "PO-9"}},
        {"id": "r4", "vendor": "Omega", "total": 41},
    ],
    "b": [
        {"id": "r1", "vendor": "Acme GmbH", "total": 10,
         "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}, {"sku": "C", "qty": 3}]},
        {"id": "r2", "vendor": "Zeta", "total": 20, "items": [{"sku": "A", "qty": 4}]},
        {"id": "r3", "vendor": "Kappa", "total": 30, "meta": {"po": "PO-9"}},
        {"id": "r4", "vendor": "Omegas", "total": 40},
    ],
}


@pytest.fixture
def outcome(tmp_path: Path) -> SuiteOutcome:
    (tmp_path / "inv.eval.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (tmp_path / "inv.gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in GOLD),
                                             encoding="utf-8")
    for name, records in RUNS.items():
        (tmp_path / f"inv.{name}.extracted.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    [suite] = discover([tmp_path], lambda p: p.read_text("utf-8")).suites
    return run_suite(suite, {}, SuiteCache(), CancelToken())


def test_a_run_keeps_no_field_result(outcome: SuiteOutcome) -> None:
    for run in outcome.runs:
        for s in run.scored:
            assert s.record.field_results == ()
            assert [(k.status, k.field, k.score) for k in s.findings] == [
                (r.status, r.field, r.score) for r in outcome.findings_of(s)]
    assert any(len(s.findings) > 1 for r in outcome.runs for s in r.scored)


def test_suspect_gold_is_what_every_finding_whole_gives(outcome: SuiteOutcome) -> None:
    """Only records with two findings that can agree are scored again for their values;
    the suspects are those of every record's every result."""
    assert outcome.evaluator is not None and outcome.gold is not None
    gold = outcome.gold.records
    runs = outcome.runs
    whole = find_suspects([[outcome.full(s) for s in r.scored] for r in runs],
                          [r.label for r in runs], outcome.evaluator.root,
                          lambda i: gold[i].value,
                          lambda k, rec: runs[k].data.records[rec.extracted_index].value,
                          policy=outcome.evaluator.policy)
    assert outcome.suspects == whole
    assert {(s.gold_pointer, s.kind, s.agreed) for s in whole} == {
        ("/vendor", "mismatch", "Acme GmbH"), ("/meta/po", "hallucination", "PO-9")}


def _worst_whole(outcome: SuiteOutcome, run: RunOutcome, field: str, limit: int
                 ) -> tuple[list[tuple[ScoredRecord, FieldResult]], int]:
    """A field's worst values as they were found with every result kept whole."""
    found = [(r.score, s.extracted.index,
              tuple(int(x) for x in (r.extracted_pointer or r.gold_pointer or "").split("/")
                    if x.isdigit()), i, s, r)
             for s in run.scored if s.extracted is not None
             for i, r in enumerate(outcome.full(s).field_results)
             if r.field == field and r.status not in (Status.MATCH, Status.SKIPPED)]
    best = heapq.nsmallest(limit, found, key=lambda x: x[:4])
    return [(s, r) for *_, s, r in best], len(found)


@pytest.mark.parametrize("field", ["items[].qty", "total", "vendor", "meta.po", "id"])
def test_a_fields_worst_values_are_those_every_result_gives(outcome: SuiteOutcome,
                                                              field: str) -> None:
    run = next(r for r in outcome.runs if r.label == "a")
    for limit in range(6):
        got, total = views.worst_examples(outcome, run, field, limit)
        want, want_total = _worst_whole(outcome, run, field, limit)
        assert total == want_total
        assert [(s.record.index, r) for s, r in got] == [(s.record.index, r) for s, r in want]
    if field == "items[].qty":
        # By score (A 0.5; B and C 0.75), then by the value's place in the record: C
        # before B, though gold (and so the results) has B first.
        got, _ = views.worst_examples(outcome, run, field, 3)
        assert [(r.extracted_pointer, r.score) for _, r in got] == [
            ("/items/2/qty", 0.5), ("/items/0/qty", 0.75), ("/items/1/qty", 0.75)]
        got, _ = views.worst_examples(outcome, run, field, 2)
        assert [r.extracted_pointer for _, r in got] == ["/items/2/qty", "/items/0/qty"]


def test_the_findings_list_is_every_finding_whole(outcome: SuiteOutcome) -> None:
    for run in outcome.runs:
        listed = views.whole(outcome, views.findings(run))
        ordered = sorted(run.scored, key=lambda s: (0, s.extracted.index) if s.extracted
                         else (1, 0))
        want = sorted(((s, r) for s in ordered
                       for r in outcome.full(s).field_results
                       if r.status not in (Status.MATCH, Status.SKIPPED, Status.PENDING)),
                      key=lambda sr: sr[1].field)
        assert [(s.record.index, r) for s, r in listed] == [(s.record.index, r) for s, r in want]
        only = views.whole(outcome, views.findings(run, "total", frozenset({"mismatch"})))
        assert all(r.field == "total" and r.status is Status.MISMATCH for _, r in only)


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The labels of the records ``SuiteOutcome.findings_of`` scores again, as it does."""
    out: list[str] = []
    real = SuiteOutcome.findings_of

    def spy(self: SuiteOutcome, s: ScoredRecord) -> tuple[FieldResult, ...]:
        out.append(s.record.label)
        return real(self, s)

    monkeypatch.setattr(SuiteOutcome, "findings_of", spy)
    return out


def test_record_test_messages_score_again_only_records_with_findings(
        outcome: SuiteOutcome, asked: list[str]) -> None:
    run = next(r for r in outcome.runs if r.label == "b")
    [got] = record_tests.results(outcome, run.path, None, set(), {}, lambda p: p.as_uri(),
                                 "utf-16")
    assert asked == ["r1", "r3", "r4"]  # r2 is right: nothing to say of it
    assert [(r["id"], len(r["messages"])) for r in got["records"]] == [
        ("r1", 2), ("r2", 0), ("r3", 1), ("r4", 1)]


def test_record_test_statuses_and_messages_come_from_the_findings(
        outcome: SuiteOutcome) -> None:
    run = next(r for r in outcome.runs if r.label == "b")
    statuses = {t.id: record_tests.status(t) for t in record_tests.run_tests(outcome, run)}
    assert statuses == {"r1": "failed", "r2": "passed", "r3": "failed", "r4": "failed"}
    [got] = record_tests.results(outcome, run.path, frozenset({"r4"}), set(), {},
                                 lambda p: p.as_uri(), "utf-16")
    [rec] = got["records"]
    assert [(m["field"], m["status"], m["expected"], m["actual"]) for m in rec["messages"]] \
        == [("vendor", "mismatch", '"Omega"', '"Omegas"')]


def test_diagnostics_score_again_only_records_with_findings_to_show(
        tmp_path: Path, asked: list[str]) -> None:
    """A clean record, one missing from the run and one gold lacks are not scored again
    (a mostly clean 100,000-record file would be scored twice over)."""
    (tmp_path / "t.eval.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    gold = [{"id": f"g{i}", "vendor": "V"} for i in range(4)]
    (tmp_path / "t.gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gold),
                                           encoding="utf-8")
    run = [{"id": "g0", "vendor": "V"}, {"id": "g1", "vendor": "W"}, {"id": "g2", "vendor": "V"},
           {"id": "x9", "vendor": "V"}]  # g3 missing, x9 not in gold
    (tmp_path / "t.m.extracted.jsonl").write_text("".join(json.dumps(r) + "\n" for r in run),
                                                  encoding="utf-8")
    [suite] = discover([tmp_path], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    out = DiagnosticBuilder(outcome, FindingOptions(), MarkCache(), RecordLocator(),
                            lambda p: p.as_uri(), False).build()
    assert asked == ["g1"]
    codes = sorted(d["code"] for d in out[(tmp_path / "t.m.extracted.jsonl").resolve().as_uri()])
    assert codes == ["mismatch", "record-hallucinated", "record-omitted"]


def test_a_fields_worst_values_with_nan_scores_are_those_every_result_gives() -> None:
    """A score that is NaN (a custom comparator's) orders nothing: every finding of the
    field is scored again and ordered as before, none left out."""
    def rec(i: int, scores: list[float]) -> ScoredRecord:
        results = tuple(FieldResult(f"v[{j}]", "v[]", Status.MISMATCH, x,
                                    extracted_pointer=f"/v/{j}", record_index=i)
                        for j, x in enumerate(scores))
        text = RecordSlice(i, 0, "{}", None)
        return scored_whole(RecordResult(i, f"r{i}", results, Counts()), text, text)

    nan = float("nan")
    scored = [rec(0, [0.5, nan, 0.2]), rec(1, [nan, 0.1]), rec(2, [0.3, 0.3, nan])]
    run = SimpleNamespace(scored=scored)
    o = SimpleNamespace(findings_of=lambda s: findings_only(s.record.field_results),
                        full=lambda s: s.record)
    for limit in range(9):
        got, total = views.worst_examples(o, run, "v[]", limit)  # type: ignore[arg-type]
        want, want_total = _worst_whole(o, run, "v[]", limit)  # type: ignore[arg-type]
        assert total == want_total == 8
        assert [(s.record.index, r.path) for s, r in got] == [
            (s.record.index, r.path) for s, r in want]
        assert len(got) == min(limit, 8)
