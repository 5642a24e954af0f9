"""``evalschema eval``: score suites and gate on thresholds."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from functools import partial
from typing import Any

from evalschema.cli.engines import EngineOptions, add_engine_options, engine_options, score
from evalschema.cli.options import (
    EXIT_CODES,
    EXIT_INPUT,
    EXIT_OK,
    EXIT_THRESHOLD,
    Formatter,
    add_budget_option,
    add_mlflow_options,
    add_suite_arguments,
    command_line,
    emit,
    fraction,
    print_error,
    run_inputs,
    table_top,
    to_mlflow,
    wants_mlflow,
)
from evalschema.cli.progress import ProgressBar, count_lines
from evalschema.cli.suites import Suite, resolve
from evalschema.errors import EvalSchemaError
from evalschema.io.atomicwrite import check_target
from evalschema.project.gate import check_run
from evalschema.report import RunReport, run_text
from evalschema.report.layout import terminal_width
from evalschema.report.text import DEFAULT_TOP
from evalschema.safetext import json_text, shown

FORMATS = ("table", "json", "markdown", "junit", "html")

EPILOG = f"""\
examples:
  evalschema eval examples/invoices.eval.json --gold examples/invoices.gold.jsonl \\
      --extracted examples/invoices.model-a.extracted.jsonl
  evalschema eval --schema s.eval.json --gold gold.jsonl --extracted run.jsonl --format json
  evalschema eval                      # every suite of ./evalschema.toml
  evalschema eval --suite invoices --fail-under 0.9 --format junit -o eval.xml
  evalschema eval --suite invoices --format html -o report.html --worst 50
  evalschema eval --suite invoices --failing --top 20   # table: the 20 worst below F1 1.0
  evalschema eval s.eval.json --gold g.jsonl --extracted r.jsonl --threshold total=0.95 \\
      --field total --field 'line_items[].amount' --workers 2
  evalschema eval --suite invoices --mlflow --mlflow-experiment invoices   # and log to MLflow
  evalschema eval --suite invoices --engine ray --address ray://head:10001   # on a Ray cluster

On a terminal the table fits its width (paths shortened in the middle) and shows the
{DEFAULT_TOP} worst fields when there are more (--all: every field). --format json prints
{{"runs": [...]}}, a list even for one run (docs/output.md).

configuration (evalschema.toml, or [tool.evalschema] in pyproject.toml):
  [[suite]]
  name = "invoices"
  schema = "invoices.eval.json"
  gold = "invoices.gold.jsonl"
  extracted = ["runs/*.jsonl"]       # files or globs, relative to the file
  fail_under = 0.85                  # overall F1 (macro; fail_metric = "micro" for pooled)
  comparator_modules = ["my_comparators.py"]   # imported only with --trust-workspace
  [suite.thresholds]
  total = 0.95

{EXIT_CODES}
"""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "eval", help="score extracted records against gold (and gate on thresholds)",
        description="Score one suite (SCHEMA/--schema with --gold and --extracted) or the "
        "suites of the configuration file, and exit 1 when a threshold is not met.",
        epilog=EPILOG, formatter_class=Formatter)
    add_suite_arguments(p, FORMATS)
    o = p.add_argument_group("report")
    o.add_argument("--sort", choices=("schema", "f1"),
                   help="order of the per-field table (table and markdown; default: schema "
                   "order, worst first when the table is cut)")
    o.add_argument("--failing", action="store_true",
                   help="table: only the fields below F1 1.0")
    o.add_argument("--top", type=int, metavar="N",
                   help=f"table: only the N worst fields (default {DEFAULT_TOP}; 0: all); a "
                   "last line says how many are hidden")
    o.add_argument("--all", action="store_true", dest="all_fields",
                   help="table: every field (same as --top 0)")
    o.add_argument("--no-records", action="store_true",
                   help="leave per-record results out of --format json (streams the files)")
    o.add_argument("--worst", type=int, default=20, metavar="N",
                   help="worst records shown in the HTML report (default 20)")
    add_budget_option(o)
    add_engine_options(p)
    g = p.add_argument_group("thresholds (exit 1 when not met)")
    g.add_argument("--fail-under", type=fraction, metavar="F1",
                   help="overall F1 below this fails (overrides the configuration)")
    g.add_argument("--fail-metric", choices=("macro", "micro"),
                   help="overall F1 to gate on: macro (mean over records, default) or micro "
                   "(pooled)")
    g.add_argument("--threshold", action="append", metavar="FIELD=F1",
                   help="a field's F1 below this fails; repeatable (adds to the "
                   "configuration's [suite.thresholds])")
    m = p.add_argument_group("peer metrics")
    m.add_argument("--metric", metavar="NAME",
                   help="score with a peer system's metric instead of the native engine "
                   "(e.g. lynxius.json_diff, uipath.json_similarity, agenta.json_diff, "
                   "galtea.json_field_match_normalized, struct_extract_eval.evaluate)")
    m.add_argument("--metric-option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option for --metric; VALUE is JSON if it parses, else text "
                   "(e.g. weights='{\"price\": 0.5}'); repeatable")
    add_mlflow_options(p)
    p.set_defaults(run=run, command_parser=p)
    return p


def run(args: argparse.Namespace, parser: argparse.ArgumentParser,
        argv: list[str] | None = None) -> int:
    if args.metric:
        if args.mlflow or args.mlflow_experiment:
            parser.error("--mlflow logs evalschema's own runs, not a peer's --metric")
        from evalschema.cli.metric_cmd import run_metric_cmd

        if args.schema_pos is None and args.schema is None:
            parser.error("--metric needs a schema (SCHEMA --gold --extracted)")
        if not args.gold or not args.extracted:
            parser.error("eval with a schema needs --gold and --extracted")
        if args.format not in ("table", "json"):
            parser.error(f"--metric writes --format table or json, not {args.format}")
        return run_metric_cmd(args, args.schema_pos or args.schema)
    if args.worst < 0:
        parser.error("--worst must be 0 or more")
    if args.top is not None and args.top < 0:
        parser.error("--top must be 0 or more (0: every field)")
    if args.all_fields and args.top:
        parser.error("give --all or --top N, not both")
    mlflow = wants_mlflow(args, parser)
    suites = resolve(args, parser, positional_schema=args.schema_pos)
    inputs = run_inputs(suites)
    if args.output is not None:
        check_target(args.output, inputs, force=args.force)
    command = command_line(argv)
    reports: list[RunReport] = []
    keep_records = args.format == "json" and not args.no_records
    engine = engine_options(args, parser, keep_records=keep_records, worst=args.worst)
    for suite in suites:
        try:
            suite.warn_schema_errors()
        except EvalSchemaError as exc:
            return print_error(exc, suite)
        thresholds = suite.check_thresholds()
        for extracted in suite.extracted:
            try:
                outcome = _score(suite, extracted, args, engine)
            except EvalSchemaError as exc:
                return print_error(exc, suite)
            checks = check_run(outcome.run, fail_under=suite.fail_under,
                               fail_metric=suite.fail_metric, thresholds=thresholds)
            reports.append(RunReport.from_outcome(
                outcome, suite.label(extracted), suite=suite.name, extracted=extracted,
                checks=checks, settings=suite.settings(extracted, args.workers, command),
                schema=suite.schema, budgets=args.review_budgets))
    emit(render(reports, args, command), args.output,
         kind="json" if args.format == "json" else "text", inputs=inputs, force=args.force)
    if mlflow:
        from evalschema.mlflow import log_run

        for r in reports:
            if not to_mlflow(partial(log_run, r, experiment=args.mlflow_experiment), r.label):
                return EXIT_INPUT
    failed = [(r, c) for r in reports for c in r.failed_checks]
    if failed:
        print(f"evalschema: {len(failed)} threshold(s) not met", file=sys.stderr)
        for r, c in failed:
            print(f"  {shown(r.label)}: {shown(c.describe())}", file=sys.stderr)
        return EXIT_THRESHOLD
    return EXIT_OK


def _score(suite: Suite, extracted: str, args: argparse.Namespace,
           engine: EngineOptions) -> Any:
    """One run on the chosen engine; the local engine shows a progress bar."""
    enabled = ProgressBar.wanted(args.no_progress) and args.engine == "local"
    total = count_lines(suite.gold) if enabled else None
    with ProgressBar(f"scoring {suite.label(extracted)}", total, enabled=enabled) as bar:
        (outcome,) = score(args.engine, suite.spec(), suite.gold, [extracted],
                           replace(engine, progress=bar.update))
        return outcome


def render(reports: list[RunReport], args: argparse.Namespace, command: str) -> str:
    fmt = args.format
    if fmt == "json":
        return json_text({"runs": [r.to_dict(include_records=not args.no_records)
                                    for r in reports]})
    if fmt == "markdown":
        from evalschema.report.markdown import runs_markdown

        return runs_markdown(reports, sort=args.sort or "schema")
    if fmt == "junit":
        from evalschema.report.junit import runs_junit

        return runs_junit(reports)
    if fmt == "html":
        from evalschema.report.html import runs_html

        title = "evalschema report"
        if len(reports) == 1:
            title += f" · {reports[0].label}"
        return runs_html(reports, title=title, command=command, worst=args.worst)
    width = terminal_width() if args.output is None else None
    return "\n\n".join(run_text(r, sort=args.sort, width=width, failing=args.failing,
                                top=table_top(args)) for r in reports)

