"""The ``evalschema`` command line.

Exit codes: 0 ok, 1 a threshold was not met, 2 bad input or configuration.
Nothing here writes a user's file unless told to with ``--output``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import (
    EvalSchemaError,
    GoldValidationError,
    InputError,
    Problem,
    SchemaError,
    Severity,
)
from ..evaluate import evaluate
from ..records import load_json, load_records
from ..registry import default_registry
from ..report import text_report
from ..schema.infer import annotate_xeval, infer_schema
from ..schema.tree import check_eval_schema

EXIT_OK, EXIT_THRESHOLD, EXIT_INPUT = 0, 1, 2

EPILOG = """\
examples:
  evalschema eval examples/invoices.eval.json --gold examples/invoices.gold.jsonl \\
      --extracted examples/invoices.model-a.extracted.jsonl
  evalschema eval schema.eval.json --gold gold.jsonl --extracted run.jsonl --format json
  evalschema eval schema.eval.json --gold g.jsonl --extracted r.jsonl --field total \\
      --field 'line_items[].amount'
  evalschema check schema.eval.json other.eval.json
  evalschema infer gold.jsonl > schema.eval.json
  evalschema list

exit codes: 0 ok, 1 threshold not met, 2 bad input or configuration
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="evalschema", description="Score LLM structured extraction against gold JSON, "
        "field by field.", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ev = sub.add_parser("eval", help="score extracted records against gold",
                        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("schema", help="eval schema (JSON Schema with x-eval-* keys)")
    ev.add_argument("--gold", required=True, help="gold records: JSON array, JSONL or folder")
    ev.add_argument("--extracted", required=True, action="append",
                    help="extracted records (repeat for several runs)")
    ev.add_argument("--id-field", help="pair records by this field (default: x-eval-id, "
                    "else by position)")
    ev.add_argument("--format", choices=("table", "json"), default="table")
    ev.add_argument("--field", action="append", dest="fields", metavar="PATH",
                    help="only score this field (dot path, $.jsonpath or /pointer); repeatable")
    ev.add_argument("--target", metavar="PATH", help="only score this sub-tree of each record")
    ev.add_argument("--null-policy", choices=("value", "absent"),
                    help="null as an ordinary value (default) or as absent")
    ev.add_argument("--sort", choices=("schema", "f1"), default="schema",
                    help="order of the per-field table")
    ev.add_argument("--no-records", action="store_true",
                    help="leave per-record results out of --format json")
    ev.add_argument("--metric", metavar="NAME",
                    help="score with a peer system's metric instead of the native engine "
                    "(e.g. lynxius.json_diff, uipath.json_similarity, agenta.json_diff, "
                    "galtea.json_field_match_normalized, struct_extract_eval.evaluate)")
    ev.add_argument("--metric-option", action="append", default=[], metavar="KEY=VALUE",
                    help="an option for --metric; VALUE is JSON if it parses, else text "
                    "(e.g. weights='{\"price\": 0.5}'); repeatable")

    ck = sub.add_parser("check", help="validate eval schemas and list every problem")
    ck.add_argument("schemas", nargs="+")
    ck.add_argument("--format", choices=("text", "json"), default="text")

    inf = sub.add_parser("infer", help="print an annotated eval schema inferred from gold")
    inf.add_argument("gold")
    inf.add_argument("--id-field", help="set x-eval-id at the root")

    ls = sub.add_parser("list", help="list comparators, transforms and alignment strategies")
    ls.add_argument("--format", choices=("text", "json"), default="text")
    return p


def _print_problems(problems: Sequence[Problem], default_source: str | None = None,
                    limit: int | None = 50) -> None:
    for prob in problems[:limit]:
        if default_source and not prob.source:
            prob = Problem(prob.code, prob.message, prob.pointer, prob.suggestion, prob.severity,
                           prob.target, default_source, prob.line, prob.column, prob.data)
        print(prob.format(), file=sys.stderr)
    if limit is not None and len(problems) > limit:
        print(f"… and {len(problems) - limit} more problem(s)", file=sys.stderr)


def _metric_options(pairs: Sequence[str]) -> dict[str, Any]:
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


def _cmd_metric(args: argparse.Namespace, schema: Any) -> int:
    from ..compat import CompatInputError
    from ..compat.runner import MetricRun, run_metric
    from ..report import field_table
    from ..schema.tree import parse_eval_schema

    root = parse_eval_schema(schema, base_uri=args.schema)
    gold = load_records(args.gold)
    docs: list[dict[str, Any]] = []
    for extracted in args.extracted:
        try:
            result = run_metric(args.metric, gold, load_records(extracted, strict=False),
                                schema=schema, id_field=args.id_field or root.id_field,
                                options=_metric_options(args.metric_option))
        except CompatInputError as exc:
            print(f"evalschema: {exc}", file=sys.stderr)
            return EXIT_INPUT
        if args.format == "json":
            docs.append({"extracted": extracted, **result.to_dict()})
            continue
        if not isinstance(result, MetricRun):
            print(text_report(result, f"{Path(extracted).name} ({args.metric})", sort=args.sort))
            continue
        problems = [r for r in result.records if r.problem]
        print(f"{Path(extracted).name}: {args.metric} mean {result.mean_score:.5f} "
              f"(scale {result.scale:g}) over {len(result.records)} records")
        for r in problems[:5]:
            print(f"  record {r.record_id}: {r.problem}")
        print()
        print("\n".join(field_table(result.per_field, sort=args.sort, scores_only=True)))
    if args.format == "json":
        json.dump(docs[0] if len(docs) == 1 else docs, sys.stdout, ensure_ascii=False, indent=2,
                  default=str)
        print()
    return EXIT_OK


def _cmd_eval(args: argparse.Namespace) -> int:
    schema = load_json(args.schema, "schema")
    if args.metric:
        return _cmd_metric(args, schema)
    outputs: list[dict[str, Any]] = []
    for extracted in args.extracted:
        try:
            run = evaluate(args.gold, extracted, schema, id_field=args.id_field,
                           fields=args.fields, target=args.target,
                           null_policy=args.null_policy, base_uri=args.schema)
        except EvalSchemaError as exc:
            source = {SchemaError: args.schema, GoldValidationError: args.gold}.get(type(exc))
            print(f"evalschema: {str(exc).splitlines()[0]}", file=sys.stderr)
            _print_problems(exc.problems, source)
            return EXIT_INPUT
        if args.format == "json":
            outputs.append({"extracted": extracted,
                            **run.to_dict(include_records=not args.no_records)})
        else:
            if outputs:
                print()
            print(text_report(run, Path(extracted).name, sort=args.sort))
            outputs.append({})
    if args.format == "json":
        doc: Any = outputs[0] if len(outputs) == 1 else outputs
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2, default=str)
        print()
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    worst = EXIT_OK
    report: list[dict[str, Any]] = []
    for path in args.schemas:
        try:
            schema = load_json(path, "schema")
        except InputError as exc:
            _print_problems(exc.problems)
            report.extend(p.to_dict() for p in exc.problems)
            worst = EXIT_INPUT
            continue
        result = check_eval_schema(schema, base_uri=path)
        problems = [Problem(p.code, p.message, p.pointer, p.suggestion, p.severity, p.target,
                            path, p.line, p.column, p.data) for p in result.problems]
        report.extend(p.to_dict() for p in problems)
        if args.format == "text":
            for p in problems:
                print(p.format())
            if not problems:
                print(f"{path}: ok ({len(result.root.walk())} nodes)")
        if any(p.severity is Severity.ERROR for p in problems):
            worst = EXIT_INPUT
    if args.format == "json":
        json.dump(report, sys.stdout, indent=2)
        print()
    return worst


def _cmd_infer(args: argparse.Namespace) -> int:
    records = [r.value for r in load_records(args.gold)]
    schema: dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    schema.update(annotate_xeval(infer_schema(records)))
    if args.id_field:
        schema["x-eval-id"] = args.id_field
    json.dump(schema, sys.stdout, ensure_ascii=False, indent=2)
    print()
    return EXIT_OK


def _cmd_list(args: argparse.Namespace) -> int:
    reg = default_registry
    if args.format == "json":
        json.dump(reg.to_dict(), sys.stdout, indent=2)
        print()
        return EXIT_OK
    for title, table in (("comparators", reg.comparators), ("transforms", reg.transforms),
                         ("alignment strategies", reg.strategies)):
        print(f"{title}:")
        for d in table.values():
            params = ", ".join(
                f"{k}{'*' if k in d.required_params else ''}"
                for k in d.params.get("properties", {}))
            print(f"  {d.name}" + (f" ({params})" if params else ""))
            print(f"      {d.summary}")
        print()
    print("* required parameter")
    return EXIT_OK


COMMANDS = {"eval": _cmd_eval, "check": _cmd_check, "infer": _cmd_infer, "list": _cmd_list}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except EvalSchemaError as exc:
        print(f"evalschema: {str(exc).splitlines()[0]}", file=sys.stderr)
        _print_problems(exc.problems)
        return EXIT_INPUT
    except RecursionError:
        print("evalschema: input is nested too deeply to process", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
