"""Runs and comparisons logged to MLflow (evalschema.mlflow, ``--mlflow``), against a
local file store in a temporary folder, read back with ``MlflowClient``.

mlflow-skinny comes with the ``mlflow`` extra (CI installs it); without it these tests
skip with the reason, except the one that checks the CLI's message when it is missing."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalschema import RunResult, compare_runs, evaluate
from evalschema.cli.main import main
from evalschema.mlflow import MAX_KEY, Names

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
FLAGS = ("--gold", EXAMPLES / "invoices.gold.jsonl")
SCHEMA_FILE = EXAMPLES / "invoices.eval.json"
RUN_A = EXAMPLES / "invoices.model-a.extracted.jsonl"
RUN_B = EXAMPLES / "invoices.model-b.extracted.jsonl"

#: Field names MLflow refuses as they are: a colon, a slash, a ".." segment, brackets;
#: and "a:b" whose safe name is taken by the field "a_b".
SCHEMA = {"type": "object", "properties": {
    "total": {"type": "number"}, "a:b": {"type": "string"}, "a_b": {"type": "string"},
    "..": {"type": "string"}, "x/y": {"type": "string"}, "note": {"type": "string"},
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}}}}}}
GOLD = [{"total": 10, "a:b": "p", "a_b": "q", "..": "d", "x/y": "s", "note": "n",
         "items": [{"sku": "x"}]},
        {"total": 5, "a:b": "p", "a_b": "q", "..": "d", "items": [{"sku": "z"}]}]
EXT = [{"total": 11, "a:b": "p", "a_b": "q", "..": "d", "x/y": "s", "items": [{"sku": "x"}]},
       {"total": 5, "a:b": "r", "..": "d", "items": [{"sku": "z"}, {"sku": "y"}]}]


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """An MLflow client on a file store of its own (what the user's MLFLOW_TRACKING_URI
    would name); mlflow 3 wants MLFLOW_ALLOW_FILE_STORE for a file store."""
    mlflow = pytest.importorskip("mlflow", reason="the mlflow extra (mlflow-skinny) is not "
                                 "installed")
    for var in ("MLFLOW_EXPERIMENT_NAME", "MLFLOW_EXPERIMENT_ID", "MLFLOW_RUN_ID"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", (tmp_path / "mlruns").as_uri())
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    return mlflow.MlflowClient()


@pytest.fixture(scope="module")
def run() -> RunResult:
    return evaluate(GOLD, EXT, SCHEMA)


def artifact(client: Any, run_id: str, name: str, tmp_path: Path) -> str:
    path = client.download_artifacts(run_id, f"evalschema/{name}", str(tmp_path))
    return Path(path).read_text(encoding="utf-8")


def test_log_run_logs_every_defined_figure_under_a_name_mlflow_accepts(
        client: Any, run: RunResult, tmp_path: Path) -> None:
    from evalschema.mlflow import log_run

    run_id = log_run(run, label="model-x", experiment="invoices",
                     schema=SCHEMA, settings={"gold": "g.jsonl", "workers": 2, "none": None})
    logged = client.get_run(run_id)
    f1_ab = 2 * 1.0 * 0.5 / 1.5  # precision 1, recall 1/2
    f1_sku = 2 * (2 / 3) * 1.0 / (2 / 3 + 1.0)  # precision 2/3, recall 1
    assert logged.data.metrics == {
        "macro_f1": run.mean_f1, "macro_precision": run.mean_precision,
        "macro_recall": run.mean_recall, "micro_f1": run.micro_f1,
        "micro_precision": 8 / 11, "micro_recall": 8 / 12,
        "weighted_score": run.mean_weighted_score, "gold_coverage": 1.0,
        "records": 2, "fields_judged": 13, "matches": 8, "mismatches": 2, "omissions": 2,
        "hallucinations": 1, "errors": 0, "skipped": 0,
        "f1/total": 0.5, "precision/total": 0.5, "recall/total": 0.5,
        "f1/a_b_2": 0.5, "precision/a_b_2": 0.5, "recall/a_b_2": 0.5,  # a:b
        "f1/a_b": f1_ab, "precision/a_b": 1.0, "recall/a_b": 0.5,
        "f1/__": 1.0, "precision/__": 1.0, "recall/__": 1.0,  # ..
        "f1/x_y": 1.0, "precision/x_y": 1.0, "recall/x_y": 1.0,
        # note was only omitted: recall 0, F1 0, precision undefined (not logged)
        "f1/note": 0.0, "recall/note": 0.0,
        "f1/items.sku": f1_sku, "precision/items.sku": 2 / 3, "recall/items.sku": 1.0,
    }
    assert (run.mean_f1, run.micro_f1) == (pytest.approx((0.7692307692307692 + 0.6) / 2),
                                           pytest.approx(16 / 23))
    assert logged.data.tags["evalschema.undefined_metrics"] == "precision/note"
    assert logged.data.tags["evalschema.kind"] == "run"
    assert logged.data.params == {"gold": "g.jsonl", "workers": "2"}
    assert logged.info.run_name == "model-x"
    experiment = client.get_experiment(logged.info.experiment_id)
    assert experiment.name == "invoices"
    assert json.loads(artifact(client, run_id, "metric_names.json", tmp_path)) == {
        "total": "total", "a_b": "a_b", "__": "..", "x_y": "x/y", "note": "note",
        "items.sku": "items[].sku", "a_b_2": "a:b"}
    assert json.loads(artifact(client, run_id, "schema.json", tmp_path)) == SCHEMA
    assert json.loads(artifact(client, run_id, "config.json", tmp_path)) == {
        "gold": "g.jsonl", "workers": 2, "none": None}
    as_json = json.loads(artifact(client, run_id, "run.json", tmp_path))
    assert as_json["per_field"]["note"]["precision"] is None
    assert as_json["mean_f1"] == run.mean_f1 and "records" not in as_json
    html = artifact(client, run_id, "report.html", tmp_path)
    assert "<title>evalschema report · model-x</title>" in html


def test_log_run_logs_into_the_active_run(client: Any, run: RunResult) -> None:
    import mlflow

    from evalschema.mlflow import log_run

    with mlflow.start_run(run_name="mine") as active:
        assert log_run(run) == active.info.run_id
    logged = client.get_run(active.info.run_id)
    assert logged.info.run_name == "mine" and logged.data.metrics["f1/total"] == 0.5


def test_log_comparison_logs_each_difference_with_its_interval(client: Any, run: RunResult,
                                                               tmp_path: Path) -> None:
    from evalschema.mlflow import log_comparison

    better = evaluate(GOLD, GOLD, SCHEMA)
    c = compare_runs([better, run], ["gold copy", "model:x"], resamples=300)
    run_id = log_comparison(c, experiment="cmp")
    logged = client.get_run(run_id).data
    total = c.field("total").f1.differences[0]
    assert (logged.metrics["delta/f1/total"], logged.metrics["delta_low/f1/total"],
            logged.metrics["delta_high/f1/total"]) == (total.delta, total.low, total.high)
    assert logged.metrics["delta/f1/total"] == -0.5
    macro = c.overall["macro_f1"]
    assert logged.metrics["delta/macro_f1"] == macro.differences[0].delta
    assert logged.metrics["delta_low/macro_f1"] == macro.differences[0].low
    assert logged.metrics["value/gold copy/macro_f1"] == 1.0
    assert logged.metrics["value/model_x/macro_f1"] == run.mean_f1
    assert logged.metrics["records"] == 2
    # "note" has no precision in model:x, so neither has its difference
    assert "delta/precision/note" not in logged.metrics
    assert set(logged.tags["evalschema.undefined_metrics"].split(", ")) == {
        "delta/precision/note", "delta_low/precision/note", "delta_high/precision/note"}
    assert logged.params == {"labels": '["gold copy", "model:x"]', "resamples": "300",
                             "seed": "0", "confidence": "0.95"}
    assert json.loads(artifact(client, run_id, "comparison.json", tmp_path)) == json.loads(
        json.dumps(c.to_dict()))
    assert "<title>evalschema comparison · gold copy vs model:x</title>" in artifact(
        client, run_id, "compare.html", tmp_path)


def test_three_runs_name_the_run_of_each_difference(client: Any, run: RunResult) -> None:
    from evalschema.mlflow import log_comparison

    c = compare_runs([run, run, evaluate(GOLD, GOLD, SCHEMA)], ["a", "b", "c"], resamples=50)
    logged = client.get_run(log_comparison(c)).data
    assert logged.metrics["delta/b/f1/total"] == 0.0
    assert logged.metrics["delta/c/f1/total"] == 0.5
    assert "delta/f1/total" not in logged.metrics


@given(st.lists(st.text(max_size=300), unique=True, max_size=8))
def test_safe_names_are_accepted_by_mlflow_and_unique(paths: list[str]) -> None:
    validation = pytest.importorskip("mlflow.utils.validation",
                                     reason="the mlflow extra (mlflow-skinny) is not installed")
    names = Names(MAX_KEY - len("precision/"), paths)
    safe = [names(p) for p in paths]
    assert len(set(safe)) == len(paths)
    for name in safe:
        validation._validate_metric_name(f"precision/{name}")
        assert len(f"precision/{name}") <= MAX_KEY


# -- the command line -----------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_eval_mlflow_logs_each_run_as_the_json_output_has_it(
        client: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = cli(capsys, "eval", SCHEMA_FILE, *FLAGS, "--extracted", RUN_B,
                         "--format", "json", "--no-records", "--mlflow-experiment", "inv")
    assert code == 0
    (reported,) = json.loads(out)["runs"]
    (logged,) = client.search_runs([client.get_experiment_by_name("inv").experiment_id])
    assert err.splitlines()[-1] == (f"evalschema: logged invoices.model-b.extracted.jsonl to "
                                    f"MLflow run {logged.info.run_id}")
    assert logged.info.run_name == "invoices.model-b.extracted.jsonl"
    m = logged.data.metrics
    assert (m["macro_f1"], m["micro_f1"], m["records"]) == (
        reported["mean_f1"], reported["micro_f1"], 240)
    assert m["macro_f1"] == 0.8058665104204974
    assert m["f1/line_items.amount"] == reported["per_field"]["line_items[].amount"]["f1"]
    assert logged.data.params["schema"] == str(SCHEMA_FILE)
    assert json.loads(artifact(client, logged.info.run_id, "schema.json", tmp_path)) == \
        json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    html = artifact(client, logged.info.run_id, "report.html", tmp_path)
    assert 'class="record' in html  # the worst records, as eval --format html shows them


def test_compare_mlflow_logs_the_deltas_of_the_json_output(
        client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "compare", "--schema", SCHEMA_FILE, *FLAGS, RUN_A, RUN_B,
                       "--resamples", "200", "--format", "json", "--mlflow")
    assert code == 0
    reported = json.loads(out)
    (logged,) = client.search_runs(["0"])  # MLflow's default experiment
    d = reported["overall"]["macro_f1"]["differences"][0]
    m = logged.data.metrics
    assert (m["delta/macro_f1"], m["delta_low/macro_f1"], m["delta_high/macro_f1"]) == (
        d["delta"], d["low"], d["high"])
    total = next(f for f in reported["fields"] if f["field"] == "total")["f1"]
    assert m["delta/f1/total"] == total["differences"][0]["delta"]
    assert logged.info.run_name == "model-a vs model-b"


def test_mlflow_without_the_extra_says_what_to_install(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mlflow", None)  # import mlflow -> ImportError
    with pytest.raises(SystemExit) as exit_:
        main(["eval", str(SCHEMA_FILE), *map(str, FLAGS), "--extracted", str(RUN_B),
              "--mlflow"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--mlflow needs mlflow: pip install 'evalschema[mlflow]'" in err
    assert "Traceback" not in err


def test_a_tracking_store_that_fails_is_one_line_and_exit_2(
        client: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
        ) -> None:
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "nosuchscheme://nowhere")
    code, _, err = cli(capsys, "eval", SCHEMA_FILE, *FLAGS, "--extracted", RUN_B, "--mlflow")
    assert code == 2
    assert err.splitlines()[-1].startswith(
        "evalschema: could not log invoices.model-b.extracted.jsonl to MLflow: ")
