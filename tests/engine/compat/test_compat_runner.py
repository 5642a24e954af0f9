"""Peer metrics over a whole suite, from Python and from `evalschema eval --metric`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalschema.cli.main import main
from evalschema.compat import lynxius
from evalschema.compat.runner import MetricRun, metric_names, run_metric
from evalschema.io.records import RawRecord

SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"}, "name": {"type": "string"}, "price": {"type": "number"}}}
GOLD = [{"id": "a", "name": "Pizza", "price": 10.0}, {"id": "b", "name": "Soup", "price": 4.0}]
EXT = [{"id": "b", "name": "Soup", "price": 5.0}, {"id": "a", "name": "Piza", "price": 10.0}]


def raw(values: list[object]) -> list[RawRecord]:
    return [RawRecord(v) for v in values]


def test_names_include_every_system() -> None:
    names = metric_names()
    for prefix in ("galtea.", "agenta.", "lynxius.", "uipath.", "struct_extract_eval."):
        assert any(n.startswith(prefix) for n in names)


def test_per_record_scores_equal_the_direct_call() -> None:
    run = run_metric("lynxius.json_diff", raw(GOLD), raw(EXT), schema=SCHEMA, id_field="id")
    assert isinstance(run, MetricRun)
    direct = [lynxius.json_diff(GOLD[0], EXT[1]), lynxius.json_diff(GOLD[1], EXT[0])]
    assert [r.score for r in run.records] == pytest.approx(direct)
    assert run.mean_score == pytest.approx(sum(direct) / 2)
    assert run.per_field["name"].counts.mismatches == 1
    assert run.per_field["price"].counts.mismatches == 1


def test_text_records_pair_by_their_id_and_reach_the_metric_as_text() -> None:
    text = "```json\n" + json.dumps(EXT[1]) + "\n```"
    run = run_metric("galtea.json_field_match", raw(GOLD), raw([EXT[0], text]), schema=SCHEMA,
                     id_field="id")
    assert isinstance(run, MetricRun)
    assert run.records[0].score == pytest.approx(2 / 3)  # galtea reads the fence itself


def test_missing_records_score_zero_with_a_reason() -> None:
    run = run_metric("uipath.json_similarity", raw(GOLD), raw(EXT[:1]), schema=SCHEMA,
                     id_field="id")
    assert isinstance(run, MetricRun)
    assert (run.records[0].score, run.records[0].problem) == (0.0, "no extracted record")


def test_cli_metric_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.eval.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "g.jsonl").write_text("\n".join(json.dumps(g) for g in GOLD))
    (tmp_path / "x.jsonl").write_text("\n".join(json.dumps(e) for e in EXT))
    base = ["eval", str(tmp_path / "s.eval.json"), "--gold", str(tmp_path / "g.jsonl"),
            "--extracted", str(tmp_path / "x.jsonl")]
    assert main([*base, "--metric", "lynxius.json_diff",
                 "--metric-option", 'weights={"price": 0.5}']) == 0
    out = capsys.readouterr().out
    weighted = (lynxius.json_diff(GOLD[0], EXT[1], {"price": 0.5})
                + lynxius.json_diff(GOLD[1], EXT[0], {"price": 0.5})) / 2
    assert f"lynxius.json_diff mean {weighted:.5f}" in out
    assert main([*base, "--metric", "agenta.json_diff", "--format", "json"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)["runs"]
    assert doc["metric"] == "agenta.json_diff"
    assert len(doc["records"]) == 2
    assert main([*base, "--metric", "nope.metric"]) == 2
    assert "unknown metric" in capsys.readouterr().err


NO_ID = {"type": "object", "properties": {"name": {"type": "string"},
                                          "price": {"type": "number"}}}


def _folders(tmp_path: Path, names: list[str], out_names: list[str]) -> tuple[Path, Path]:
    """gold/ and out/, one document per file; out/ files hold their gold's document."""
    docs = {n: {"name": n.title(), "price": float(len(n))} for n in {*names, *out_names}}
    for folder, which in (("gold", names), ("out", out_names)):
        (tmp_path / folder).mkdir()
        for n in which:
            (tmp_path / folder / f"{n}.json").write_text(json.dumps(docs[n], indent=2))
    (tmp_path / "s.eval.json").write_text(json.dumps(NO_ID))
    return tmp_path / "gold", tmp_path / "out"


def test_metrics_pair_folders_by_file_name(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """One missing output costs that document only, under a peer metric too."""
    gold, out = _folders(tmp_path, ["apple", "bread", "cheese"], ["apple", "cheese"])
    assert main(["eval", str(tmp_path / "s.eval.json"), "--gold", str(gold), "--extracted",
                 str(out), "--metric", "lynxius.json_diff", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["runs"][0]
    got = {r["label"]: (r["score"], r["problem"]) for r in doc["records"]}
    assert got == {"apple": (1.0, None), "bread": (0.0, "no extracted record"),
                   "cheese": (1.0, None)}


def test_struct_extract_eval_gets_files_in_gold_order_or_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It pairs by position: one missing output plus one stray would shift silently."""
    gold, out = _folders(tmp_path, ["apple", "bread"], ["apple", "bread"])
    (tmp_path / "s.eval.json").write_text(json.dumps({"type": "object", "properties": {
        k: {"type": t, "x-eval-compare": "exact"} for k, t in (("name", "string"),
                                                               ("price", "number"))}}))
    args = ["eval", str(tmp_path / "s.eval.json"), "--gold", str(gold), "--extracted",
            str(out), "--metric", "struct_extract_eval.evaluate", "--format", "json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["micro_f1"] == 1.0
    (out / "bread.json").rename(out / "brad.json")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "no extracted file for bread" in err and "no gold file for brad" in err


def test_an_output_file_of_two_records_does_not_shift_a_peer_metric(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An output written twice (two JSON lines) made the folder pair by position: the
    missing bread was scored against apple's second line, and cheese stayed unnoticed."""
    gold, out = _folders(tmp_path, ["apple", "bread", "cheese"], ["cheese"])
    apple = json.loads((gold / "apple.json").read_text())
    (out / "apple.json").write_text(json.dumps(apple) + "\n" + json.dumps(apple) + "\n")
    assert main(["eval", str(tmp_path / "s.eval.json"), "--gold", str(gold), "--extracted",
                 str(out), "--metric", "lynxius.json_diff", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["runs"][0]
    got = [(r["label"], r["score"], r["problem"]) for r in doc["records"]]
    assert got == [("apple", 1.0, None), ("bread", 0.0, "no extracted record"),
                   ("cheese", 1.0, None), ("apple", None, "no gold record")]
