"""``evalschema compare``: runs side by side, with confidence intervals and flips."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.cells import cell_len

from evalschema.cli.engines import add_engine_options, engine_options
from evalschema.cli.gold_audit_cmd import suite_suspects
from evalschema.cli.options import (
    EXIT_CODES,
    EXIT_INPUT,
    EXIT_OK,
    EXIT_THRESHOLD,
    Formatter,
    add_budget_option,
    add_label_option,
    add_mlflow_options,
    add_output_options,
    add_source_options,
    command_line,
    emit,
    positive_int,
    print_error,
    to_mlflow,
    wants_mlflow,
)
from evalschema.cli.suites import one_suite_runs, score_runs
from evalschema.errors import EvalSchemaError
from evalschema.report.calibration import comparison_text
from evalschema.report.figures import difference, figure
from evalschema.report.layout import clip, fit_lines, shorten_all, terminal_width
from evalschema.run.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, BootstrapSpec
from evalschema.run.compare import Comparison, compare_runs
from evalschema.safetext import json_text, one_line, shown

FORMATS = ("table", "json", "markdown", "html")

EPILOG = f"""\
examples:
  evalschema compare --schema examples/invoices.eval.json --gold examples/invoices.gold.jsonl \\
      examples/invoices.model-a.extracted.jsonl examples/invoices.model-b.extracted.jsonl
  evalschema compare examples/invoices.eval.json --gold examples/invoices.gold.jsonl \\
      --extracted examples/invoices.model-a.extracted.jsonl \\
      --extracted examples/invoices.model-b.extracted.jsonl       # as eval takes them
  evalschema compare --suite invoices                    # the suite's runs, first = baseline
  evalschema compare --suite invoices v1.jsonl v2.jsonl --format html -o compare.html
  evalschema compare --schema s.json --gold g.jsonl a.jsonl b.jsonl c.jsonl --seed 7 \\
      --resamples 5000 --format json
  evalschema compare --suite invoices prod.jsonl candidate.jsonl --fail-on-regression
  evalschema compare --suite invoices --mlflow       # and log the deltas to MLflow
  evalschema compare --suite invoices --engine ray   # every run scored on Ray in one pass

Differences are against the first run, each with a paired bootstrap confidence interval
over records (records are resampled together for every run); an interval that excludes
zero is marked. "match -> wrong" counts judged positions that were a match in the first
run and a mismatch or omission in the other; "wrong -> match" the reverse.

{EXIT_CODES} (1 with --fail-on-regression when a run's overall F1
is significantly below the first run's)
"""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "compare", help="compare extraction runs on the same gold, with confidence intervals",
        description="Score two or more extraction runs of the same gold and show per-field "
        "and overall precision, recall and F1 side by side, each difference with a paired "
        "bootstrap confidence interval, and the records that flipped.",
        epilog=EPILOG, formatter_class=Formatter)
    p.add_argument("runs", nargs="*", metavar="RUN",
                   help="extracted records of each run (the first is the baseline); default: "
                   "the --suite's runs. With --extracted instead, a single positional is "
                   "the schema, as for eval")
    add_source_options(p)
    add_output_options(p, FORMATS)
    b = p.add_argument_group("statistics")
    b.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"bootstrap seed (default {DEFAULT_SEED})")
    b.add_argument("--resamples", type=positive_int, default=DEFAULT_RESAMPLES,
                   help=f"bootstrap resamples (default {DEFAULT_RESAMPLES})")
    b.add_argument("--confidence", type=float, default=0.95,
                   help="confidence level of the intervals (default 0.95)")
    add_label_option(b)
    add_budget_option(b)
    b.add_argument("--fail-on-regression", action="store_true",
                   help="exit 1 when a run's overall F1 is significantly below the first's")
    b.add_argument("--fail-metric", choices=("macro", "micro"), default="macro",
                   help="overall F1 for --fail-on-regression (default macro)")
    add_engine_options(p)
    add_mlflow_options(p)
    p.set_defaults(run=run, command_parser=p)
    return p


def _runs_form(args: argparse.Namespace, parser: argparse.ArgumentParser
               ) -> tuple[str | None, list[str]]:
    """(the schema given as a positional, the runs): ``compare SCHEMA --gold G --extracted
    A --extracted B`` as ``eval`` takes it, or ``compare --schema S --gold G A B``."""
    positional = list(args.runs)
    if not args.extracted:
        return None, positional
    if not positional:
        return None, list(args.extracted)
    if args.schema is None and len(positional) == 1:
        return positional[0], list(args.extracted)
    parser.error("give the runs either as RUN files (compare --schema S --gold G A B) or with "
                 "--extracted (compare S --gold G --extracted A --extracted B), not both")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser,
        argv: list[str] | None = None) -> int:
    if not 0.0 < args.confidence < 1.0:
        parser.error("--confidence must be between 0 and 1 (e.g. 0.95)")
    mlflow = wants_mlflow(args, parser)
    schema_pos, runs_given = _runs_form(args, parser)
    suite, runs, labels, inputs = one_suite_runs(args, parser, "compare", "RUN_A RUN_B ...",
                                                 positional_schema=schema_pos,
                                                 runs=runs_given)
    engine = engine_options(args, parser, keep_records=True,
                            replicates=BootstrapSpec(args.resamples, args.seed))
    try:
        results = score_runs(suite, runs, labels, workers=args.workers,
                             no_progress=args.no_progress, engine=args.engine,
                             options=engine)
    except EvalSchemaError as exc:
        return print_error(exc, suite)
    comparison = compare_runs(results, labels, resamples=args.resamples, seed=args.seed,
                              confidence=args.confidence, budgets=args.review_budgets)
    command = command_line(argv)
    fmt = args.format
    if fmt == "json":
        text = json_text(compare_json(comparison, runs))
    elif fmt == "markdown":
        from evalschema.report.markdown import compare_markdown

        text = compare_markdown(comparison)
    elif fmt == "html":
        from evalschema.report.html_compare import compare_html

        try:
            suspects = suite_suspects(suite, runs, labels, [r.records for r in results])
        except EvalSchemaError as exc:
            return print_error(exc, suite)
        text = compare_html(comparison, suspects=suspects, settings={
            **suite.settings(runs, args.workers, command), "seed": args.seed,
            "resamples": args.resamples, "confidence": args.confidence},
            schema=suite.schema, command=command,
            title=f"evalschema comparison · {' vs '.join(labels)}")
    else:
        text = compare_text(comparison, width=terminal_width() if args.output is None
                            else None)
    emit(text, args.output, kind="json" if fmt == "json" else "text", inputs=inputs,
         force=args.force)
    if mlflow:
        from evalschema.mlflow import log_comparison

        settings = suite.settings(runs, args.workers, command)
        if not to_mlflow(lambda: log_comparison(comparison, schema=suite.schema,
                                                settings=settings,
                                                experiment=args.mlflow_experiment),
                         "the comparison"):
            return EXIT_INPUT
    if args.fail_on_regression:
        key = f"{args.fail_metric}_f1"
        undefined = [label for label, v in zip(comparison.labels, comparison.overall[key].values,
                                               strict=True) if v is None]
        for label in undefined:  # a regression cannot be ruled out on nothing
            print(f"evalschema: {shown(label)}: {args.fail_metric} F1 undefined: nothing was "
                  "judged, so a regression cannot be ruled out", file=sys.stderr)
        worse = [(comparison.labels[k + 1], d) for k, d in
                 enumerate(comparison.overall[key].differences)
                 if d.significant and d.delta is not None and d.delta < 0]
        if undefined and not worse:
            return EXIT_THRESHOLD
        if worse:
            for label, d in worse:
                print(f"evalschema: {shown(label)}: {args.fail_metric} F1 is significantly lower "
                      f"than {shown(comparison.labels[0])}'s ({difference(d).rstrip(' *')})",
                      file=sys.stderr)
            return EXIT_THRESHOLD
    return EXIT_OK


def compare_json(c: Comparison, runs: list[str]) -> dict[str, Any]:
    """``compare --format json``: ``runs`` first, as ``eval``'s JSON has it (each run's
    label, file and overall figures), then the comparison (see docs/json-output.md)."""
    entries = [{"label": label, "extracted": path,
                **{key: m.values[k] for key, m in c.overall.items()}}
               for k, (label, path) in enumerate(zip(c.labels, runs, strict=True))]
    return {"runs": entries, **c.to_dict()}


def compare_text(c: Comparison, *, flips: int = 20, width: int | None = None) -> str:
    """The comparison as a table; with a ``width`` field paths are shortened in the
    middle to fit it, and what still does not (a narrow terminal) is cut at the end."""
    text = _compare_text(c, flips=flips, width=width)
    if width is None:
        return text
    head, _, rest = text.partition("\n")
    return "\n".join([*fit_lines([head], width, words=True),
                      *(clip(line, width) for line in rest.split("\n"))])


def _compare_text(c: Comparison, *, flips: int, width: int | None) -> str:
    names = [one_line(x) for x in c.labels]
    base, others = names[0], names[1:]
    pct = f"{c.confidence:.0%}"
    lines = [f"{c.records} records; baseline {base}; paired bootstrap {pct} intervals "
             f"({c.resamples} resamples, seed {c.seed}); * = the interval excludes zero", ""]
    fields = [one_line(f.field) for f in c.fields]
    cols = [max(8, len(x)) for x in names]
    dw = 30
    if width is not None:
        rest = sum(n + 2 for n in cols) + (dw + 2) * len(others) + 26
        # a field must stay recognisable: below 30 cells the table is cut at its end
        longest = max([0, *(cell_len(f) for f in fields)])
        short = shorten_all(fields, max(len("macro precision"), min(longest, 30),
                                        width - rest))
        fields = [short[f] for f in fields]
    w = max(len("macro precision"), *(cell_len(f) for f in fields))
    head = f"{'':<{w}}  " + "  ".join(f"{x:>{n}}" for x, n in zip(names, cols, strict=True))
    head += "  " + "  ".join(f"{'Δ ' + x + f' [{pct} CI]':<{dw}}" for x in others)
    lines += [head, "─" * len(head)]
    for m in c.overall.values():
        lines.append(f"{m.metric:<{w}}  " + "  ".join(
            figure(v, 4, n) for v, n in zip(m.values, cols, strict=True)) + "  "
            + "  ".join(f"{difference(d):<{dw}}" for d in m.differences))
    lines += ["", f"F1 per field{'':<{max(0, w - 12)}}  " + head[w + 2:]
              + "  match→wrong  wrong→match", "─" * (len(head) + 26)]
    for f, name in zip(c.fields, fields, strict=True):
        name = name or "(record)"
        lines.append(name + " " * (w - cell_len(name)) + "  " + "  ".join(
            figure(v, 3, n) for v, n in zip(f.f1.values, cols, strict=True)) + "  "
            + "  ".join(f"{difference(d):<{dw}}" for d in f.f1.differences)
            + f"  {'/'.join(str(x) for x in f.regressed):>11}  "
            f"{'/'.join(str(x) for x in f.fixed):>11}")
    lines += comparison_text(c.calibration, c.labels)
    if c.flips:
        lines += ["", f"records that flipped: {len(c.flips)}"
                  + (f" (first {flips}; --format json lists all)" if len(c.flips) > flips
                     else "")]
        for fl in c.flips[:flips]:
            who = f"{names[fl.run]}: " if len(others) > 1 else ""
            parts = []
            if fl.regressed:
                parts.append("match→wrong " + ", ".join(map(one_line, fl.regressed[:6]))
                             + (" …" if len(fl.regressed) > 6 else ""))
            if fl.fixed:
                parts.append("wrong→match " + ", ".join(map(one_line, fl.fixed[:6]))
                             + (" …" if len(fl.fixed) > 6 else ""))
            lines.append(f"  {who}{one_line(fl.label)}: " + "; ".join(parts))
    return "\n".join(ln.rstrip() for ln in lines)
