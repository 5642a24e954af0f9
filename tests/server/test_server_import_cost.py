"""The language server starts, and scores a suite that builds no matrix and asks no judge,
without numpy, scipy or httpx: see ``tests/engine/test_import_cost.py``."""

from __future__ import annotations

from import_probe import NONE, ROOT, loaded_after


def test_starting_the_server_loads_no_heavy_library() -> None:
    assert loaded_after("import evalschema_server.server")[0] == NONE


def test_a_suite_run_of_the_example_loads_none_of_them() -> None:
    """The editor's run of the bundled suite (both runs, every record scored), as the
    server's worker thread runs it."""
    code = (
        "from pathlib import Path\n"
        "import evalschema_server.server\n"
        "from evalschema_server.evaluation.suites import discover\n"
        "from evalschema_server.evaluation.runner import CancelToken, SuiteCache, run_suite\n"
        f"[suite] = discover([Path({str(ROOT / 'examples')!r})], "
        "lambda p: p.read_text('utf-8')).suites\n"
        "o = run_suite(suite, {}, SuiteCache(), CancelToken())\n"
        "out = [[r.label, r.result.total_records, round(r.result.mean_f1, 4)] for r in o.runs]"
    )
    assert loaded_after(code) == (NONE, [["model-a", 240, 0.9145], ["model-b", 240, 0.8059]])
