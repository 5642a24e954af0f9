"""What a plain run loads: numpy and scipy only when a run needs them.

numpy costs ~20 MB of memory and ~0.1 s at import, scipy.optimize ~50 MB and ~0.6 s; the
CLI and the language server (which imports the engine) pay them at every start unless
only the code that builds a matrix imports them (Hungarian cost matrices, whole-matrix
comparators, bootstrap replicates); httpx (the judge's client) only when a judge is
asked. Each check runs in a fresh interpreter, as ``sys.modules`` of the test process has
them all already.
"""

from __future__ import annotations

from import_probe import NONE, ROOT, loaded_after

EXAMPLE = ROOT / "examples"


def test_importing_the_engine_loads_no_heavy_library() -> None:
    assert loaded_after("import evalschema")[0] == NONE


def test_scoring_the_bundled_example_by_key_field_loads_none_of_them() -> None:
    """The example aligns line items by SKU, compares numbers, dates, strings: nothing
    that needs a matrix. The figures are the run's (macro F1 of model-a)."""
    code = (
        "from evalschema import evaluate\n"
        f"run = evaluate({str(EXAMPLE / 'invoices.gold.jsonl')!r}, "
        f"{str(EXAMPLE / 'invoices.model-a.extracted.jsonl')!r}, "
        f"{str(EXAMPLE / 'invoices.eval.json')!r})\n"
        "out = [run.total_records, round(run.mean_f1, 4)]"
    )
    assert loaded_after(code) == (NONE, [240, 0.9145])  # the figure ./scripts/demo prints


def test_the_cli_eval_of_the_example_loads_none_of_them() -> None:
    code = (
        "from evalschema.cli.main import main\n"
        "import contextlib, io\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        f"    rc = main(['eval', {str(EXAMPLE / 'invoices.eval.json')!r}, '--gold', "
        f"{str(EXAMPLE / 'invoices.gold.jsonl')!r}, '--extracted', "
        f"{str(EXAMPLE / 'invoices.model-b.extracted.jsonl')!r}, '--format', 'json'])\n"
        "out = [rc, json.loads(buf.getvalue())['runs'][0]['total_records']]"
    )
    assert loaded_after(code) == (NONE, [0, 240])


def test_hungarian_alignment_and_compare_load_numpy_when_they_run() -> None:
    """The other side of the lazy imports: the code that needs numpy still gets it, and
    gives its answers (the shuffled items paired by content; a two-run comparison)."""
    code = (
        "from evalschema import evaluate, compare_runs\n"
        "schema = {'type': 'object', 'properties': {'items': {'type': 'array', "
        "'x-eval-align': {'match_by': 'hungarian'}, 'items': {'type': 'object', "
        "'properties': {'name': {'type': 'string'}, 'n': {'type': 'number'}}}}}}\n"
        "g = [{'items': [{'name': 'bolt', 'n': 1}, {'name': 'nut', 'n': 2}]}]\n"
        "e = [{'items': [{'name': 'nut', 'n': 2}, {'name': 'bolt', 'n': 1}]}]\n"
        "a = evaluate(g, e, schema)\n"
        "b = evaluate(g, g, schema)\n"
        "c = compare_runs([a, b], resamples=50)\n"
        "out = [a.mean_f1, c.to_dict()['labels']]"
    )
    assert loaded_after(code) == ({**NONE, "numpy": True, "scipy": True},
                                  [1.0, ["run 1", "run 2"]])
