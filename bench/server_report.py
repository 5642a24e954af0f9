"""The results view's report (``showReport``) on the bundled example: what it costs to send.

Issue 14: the report sent every field result of every run (``RunResult.to_dict()``) and
located every field's worst example, after every finished run while the view was open,
though the view reads neither. It now sends the figures and per-field counts only; a
field's worst values come on demand (``fieldExamples``). Measured here in one process on
the bundled suite (``examples/``, 240 invoices, two runs): the JSON size and build time of
the report as it was (rebuilt here: today's report plus each run's results and each
field's located worst example) and as it is, their ratio, and one ``fieldExamples``
answer. Prints figures; always exits 0.

    python bench/server_report.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalschema.safetext import finite
from evalschema_server.document import LineIndex
from evalschema_server.evaluation import views
from evalschema_server.evaluation.locate import RecordLocator
from evalschema_server.evaluation.runner import CancelToken, SuiteCache, SuiteOutcome, run_suite
from evalschema_server.evaluation.suites import discover
from evalschema_server.handlers.commands import _examples, _place

ROOT = Path(__file__).resolve().parent.parent
ENCODING = "utf-16"


def _uri(p: Path) -> str:
    return p.as_uri()


def old_report(outcome: SuiteOutcome) -> dict[str, Any]:
    """The report as issue 14 found it: each run's results and each field's worst example."""
    doc: dict[str, Any] = dict(views.report(outcome, _uri))
    loc = RecordLocator()
    runs = []
    for run, sent in zip(outcome.runs, doc["runs"], strict=True):
        lines = LineIndex(run.data.text)
        rows = []
        for row in sent["fields"]:
            found = views.worst_example(outcome, run, row["field"])
            rows.append({**row, "worst": None if found is None else _place(
                loc, lines, _uri(run.path), ENCODING, *found)})
        runs.append({**sent, "fields": rows,
                     "result": finite(outcome.full_result(run).to_dict())})
    return {**doc, "runs": runs}


def new_report(outcome: SuiteOutcome) -> dict[str, Any]:
    return dict(views.report(outcome, _uri))


def timed(build: Callable[[], Any], repeat: int) -> tuple[float, int]:
    """Best wall time (ms) of building and serialising, and the JSON's size in bytes."""
    times, size = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        size = len(json.dumps(build(), allow_nan=False).encode("utf-8"))
        times.append((time.perf_counter() - t0) * 1000)
    return min(times), size


def measure(repeat: int) -> dict[str, Any]:
    folder = ROOT / "examples"
    [suite] = discover([folder], lambda p: p.read_text("utf-8")).suites
    outcome = run_suite(suite, {}, SuiteCache(), CancelToken())
    old_ms, old_bytes = timed(lambda: old_report(outcome), repeat)
    new_ms, new_bytes = timed(lambda: new_report(outcome), repeat)
    run = outcome.runs[-1]
    field = min(run.result.per_field, key=lambda f: run.result.per_field[f].counts.f1 or 0.0)
    ex_ms, ex_bytes = timed(lambda: _examples(outcome, run, field, 10, _uri(run.path), ENCODING), repeat)
    return {"runs": len(outcome.runs), "records": sum(r.result.total_records
                                                      for r in outcome.runs),
            "fields": statistics.mean(len(r.result.per_field) for r in outcome.runs),
            "old_ms": old_ms, "old_bytes": old_bytes, "new_ms": new_ms, "new_bytes": new_bytes,
            "field": field, "run": run.label, "ex_ms": ex_ms, "ex_bytes": ex_bytes}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    r = measure(max(1, args.repeat))
    print(f"bundled example: {r['runs']} runs, {r['records']} records, "
          f"{r['fields']:.0f} fields a run")
    print(f"report as it was (results + every field's worst): {r['old_bytes']:,} bytes, "
          f"built in {r['old_ms']:.0f} ms")
    print(f"report as it is (figures and counts):             {r['new_bytes']:,} bytes, "
          f"built in {r['new_ms']:.1f} ms")
    print(f"ratio old/new: size {r['old_bytes'] / r['new_bytes']:.0f}x, "
          f"time {r['old_ms'] / r['new_ms']:.0f}x")
    print(f"fieldExamples {r['field']} in {r['run']}, 10 worst: {r['ex_bytes']:,} bytes, "
          f"{r['ex_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
