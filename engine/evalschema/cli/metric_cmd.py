"""``evalschema eval --metric NAME``: a peer system's metric over a suite."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalschema.cli.options import EXIT_INPUT, EXIT_OK, emit
from evalschema.errors import InputError, Problem
from evalschema.io.atomicwrite import Input, check_target
from evalschema.io.records import load_json, load_records
from evalschema.report import field_table, text_report
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


def run_metric_cmd(args: argparse.Namespace, schema_path: str) -> int:
    from evalschema.compat import CompatInputError
    from evalschema.compat.runner import MetricRun, run_metric
    from evalschema.schema.tree import parse_eval_schema

    inputs = [Input("schema", schema_path), Input("gold", args.gold),
              *(Input("extracted records", x) for x in args.extracted)]
    if args.output is not None:
        check_target(args.output, inputs, force=args.force)
    schema = load_json(schema_path, "schema")
    root = parse_eval_schema(schema, base_uri=schema_path)
    gold = load_records(args.gold)
    docs: list[dict[str, Any]] = []
    texts: list[str] = []
    for extracted in args.extracted:
        try:
            result = run_metric(args.metric, gold, load_records(extracted, strict=False),
                                schema=schema, id_field=args.id_field or root.id_field,
                                options=metric_options(args.metric_option))
        except CompatInputError as exc:
            print(f"evalschema: {shown(exc)}", file=sys.stderr)
            return EXIT_INPUT
        if args.format == "json":
            docs.append({"extracted": extracted, **result.to_dict()})
            continue
        if not isinstance(result, MetricRun):
            texts.append(text_report(result, f"{Path(extracted).name} ({args.metric})",
                                     sort=args.sort))
            continue
        problems = [r for r in result.records if r.problem]
        lines = [f"{one_line(Path(extracted).name)}: {args.metric} mean {result.mean_score:.5f} "
                 f"(scale {result.scale:g}) over {len(result.records)} records"]
        lines += [f"  record {one_line(r.label)}: {one_line(r.problem)}"
                  for r in problems[:5]]
        lines += ["", *field_table(result.per_field, sort=args.sort, scores_only=True)]
        texts.append("\n".join(lines))
    if args.format == "json":
        emit(json_text(docs[0] if len(docs) == 1 else docs), args.output, kind="json",
             inputs=inputs, force=args.force)
    else:
        emit("\n\n".join(texts), args.output, inputs=inputs, force=args.force)
    return EXIT_OK
