"""``evalschema gold-audit``: gold values that two or more runs agree against."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len

from evalschema.cli.options import (
    EXIT_CODES,
    EXIT_OK,
    Formatter,
    add_label_option,
    add_suite_arguments,
    emit,
    print_error,
)
from evalschema.cli.suites import Suite, one_suite_runs, score_runs
from evalschema.errors import EvalSchemaError
from evalschema.report.layout import clip, terminal_width
from evalschema.results import RecordResult, show_value
from evalschema.run.suspects import RecordsAsRead, SuspectGold, find_suspects
from evalschema.safetext import json_text, one_line

FORMATS = ("table", "json")
#: Characters of a value in the table (JSON text, cut with "…").
VALUE_CHARS = 40

EPILOG = f"""\
examples:
  evalschema gold-audit examples/invoices.eval.json --gold examples/invoices.gold.jsonl \\
      --extracted examples/invoices.model-a.extracted.jsonl \\
      --extracted examples/invoices.model-b.extracted.jsonl
  evalschema gold-audit --suite invoices                 # the suite's runs
  evalschema gold-audit --suite invoices --format json -o suspects.json

A gold value is suspect when two or more runs agree with each other on another value
(or gold has none there): agreement is judged as scoring judges, after the field's
transforms and with its comparator and threshold. The most agreeing runs come first.
Finding suspects is not a failure: the exit code is 0 whenever the audit ran.

{EXIT_CODES} (gold-audit never exits 1)
"""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "gold-audit", help="gold values that two or more runs agree against",
        description="Score two or more extraction runs of the same gold and list the gold "
        "values they agree against: where at least two runs agree with each other (after "
        "the field's transforms, with its comparator) on a value gold does not have.",
        epilog=EPILOG, formatter_class=Formatter)
    add_suite_arguments(p, FORMATS)
    add_label_option(p)
    p.set_defaults(run=run, command_parser=p)
    return p


def run(args: argparse.Namespace, parser: argparse.ArgumentParser,
        argv: list[str] | None = None) -> int:
    suite, runs, labels, inputs = one_suite_runs(
        args, parser, "gold-audit", "--extracted A --extracted B",
        positional_schema=args.schema_pos)
    try:
        results = score_runs(suite, runs, labels, workers=args.workers,
                             no_progress=args.no_progress)
        suspects = suite_suspects(suite, runs, labels, [r.records for r in results])
    except EvalSchemaError as exc:
        return print_error(exc, suite)
    if args.format == "json":
        emit(json_text(audit_json(suspects, suite.gold, runs, labels)), args.output,
             kind="json", inputs=inputs, force=args.force)
    else:
        emit(audit_text(suspects, suite.gold, labels,
                        width=terminal_width() if args.output is None else None),
             args.output, inputs=inputs, force=args.force)
    return EXIT_OK


def suite_suspects(suite: Suite, runs: list[str], labels: list[str],
                   records: Sequence[Sequence[RecordResult]]) -> tuple[SuspectGold, ...]:
    """The suspect gold of a suite's runs scored from its files (each run's records), the
    values as the files write them; also the HTML report's of ``compare``."""
    evaluator = suite.spec().evaluator()
    read = RecordsAsRead(suite.gold, runs, evaluator.id_field)
    return find_suspects(records, labels, evaluator.root, read.gold, read.extracted,
                         policy=evaluator.policy)


def audit_json(suspects: tuple[SuspectGold, ...], gold: str, runs: list[str],
               labels: list[str]) -> dict[str, Any]:
    """``gold-audit --format json`` (docs/output.md): the gold file, the runs, and each
    suspect as ``SuspectGold.to_dict`` gives it."""
    return {"gold": gold,
            "runs": [{"label": lab, "extracted": path}
                     for lab, path in zip(labels, runs, strict=True)],
            "suspects": [s.to_dict() for s in suspects]}


def _value(value: Any, present: bool) -> str:
    return one_line(show_value(value, VALUE_CHARS)) if present else "(no value)"


def audit_text(suspects: tuple[SuspectGold, ...], gold: str, labels: list[str], *,
               width: int | None = None) -> str:
    """The suspects as a table; with a ``width`` each line is cut to it at its end."""
    names = ", ".join(one_line(x) for x in labels)
    if not suspects:
        return (f"no suspect gold values in {one_line(gold)}: no two of the {len(labels)} "
                f"runs ({names}) agree against a gold value")
    n = len(suspects)
    lines = [f"{n} suspect gold value{'s' if n != 1 else ''} in {one_line(gold)}: runs "
             f"({names}) agree on another value", ""]
    rows = [(one_line(s.label), one_line(s.path),
             _value(s.gold, s.kind == "mismatch"), _value(s.agreed, True),
             f"{s.agreeing} of {s.scored}", ", ".join(one_line(x) for x in s.runs))
            for s in suspects]
    head = ("record", "field", "gold", "runs say", "agree", "runs")
    widths = [max(cell_len(r[i]) for r in [head, *rows]) for i in range(len(head) - 1)]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c + " " * (w - cell_len(c)) for c, w in zip(cells, widths,
                                                                     strict=False)) \
            + "  " + cells[-1]

    top = line(head)
    lines += [top, "─" * cell_len(top)]
    lines += [line(r) for r in rows]
    text = [ln.rstrip() for ln in lines]
    return "\n".join(text if width is None else [clip(ln, width) for ln in text])
