"""``evalschema eval --metric NAME``: a peer system's metric over a suite."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from evalschema.cli.options import EXIT_INPUT, EXIT_OK, emit, table_top
from evalschema.errors import InputError, Problem, SchemaError
from evalschema.io.atomicwrite import Input, check_target
from evalschema.io.records import RawRecord, load_json, load_records
from evalschema.report import field_table, text_report
from evalschema.report.layout import fit_lines, terminal_width
from evalschema.safetext import json_text, one_line, shown


def metric_options(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError([Problem("bad-option", f"--metric-option {item!r} is not KEY=VALUE")])
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _record_location(gold: Sequence[RawRecord], index: int | None) -> str:
    """``file:line: `` of the gold record a peer metric raised on, when known."""
    if index is None or not 0 <= index < len(gold) or gold[index].source is None:
        return ""
    rec = gold[index]
    return f"{rec.source}:{rec.line}: " if rec.line is not None else f"{rec.source}: "


def run_metric_cmd(args: argparse.Namespace, schema_path: str) -> int:
    from evalschema.compat import CompatInputError
    from evalschema.compat.runner import MetricRun, run_metric
    from evalschema.schema.tree import parse_eval_schema

    inputs = [Input("schema", schema_path), Input("gold", args.gold),
              *(Input("extracted records", x) for x in args.extracted)]
    if args.output is not None:
        check_target(args.output, inputs, force=args.force)
    schema = load_json(schema_path, "schema", jsonc=True)
    root = parse_eval_schema(schema, base_uri=schema_path)
    gold = load_records(args.gold)
    docs: list[dict[str, Any]] = []
    width = terminal_width() if args.output is None else None
    texts: list[str] = []
    for extracted in args.extracted:
        try:
            result = run_metric(args.metric, gold, load_records(extracted, strict=False),
                                schema=schema, id_field=args.id_field or root.id_field,
                                options=metric_options(args.metric_option),
                                source=extracted)
        except CompatInputError as exc:
            where = _record_location(gold, exc.record)
            print(f"evalschema: {where}{shown(exc)}", file=sys.stderr)
            return EXIT_INPUT
        except SchemaError as exc:  # the problems name the schema file, as check's do
            raise SchemaError([replace(p, source=p.source or schema_path)
                               for p in exc.problems], "the eval schema is invalid") from None
        if args.format == "json":
            docs.append({"extracted": extracted, **result.to_dict()})
            continue
        if not isinstance(result, MetricRun):
            texts.append(text_report(result, f"{Path(extracted).name} ({args.metric})",
                                     sort=args.sort, width=width, failing=args.failing,
                                     top=table_top(args)))
            continue
        problems = [r for r in result.records if r.problem]
        lines = [f"{one_line(Path(extracted).name)}: {args.metric} mean {result.mean_score:.5f} "
                 f"(scale {result.scale:g}) over {len(result.records)} records"]
        lines += [f"  record {one_line(r.label)}: {one_line(r.problem)}"
                  for r in problems[:5]]
        lines = fit_lines(lines, width)
        lines += ["", *field_table(result.per_field, sort=args.sort, scores_only=True,
                                   width=width, failing=args.failing, top=table_top(args))]
        texts.append("\n".join(lines))
    if args.format == "json":
        emit(json_text({"runs": docs}), args.output, kind="json",
             inputs=inputs, force=args.force)
    else:
        emit("\n\n".join(texts), args.output, inputs=inputs, force=args.force)
    return EXIT_OK
