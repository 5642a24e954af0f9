"""``evalschema check``, ``infer`` and ``annotate``: schemas."""

from __future__ import annotations

import argparse
import copy
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from ..errors import InputError, Problem, ProblemWarning, Severity
from ..records import load_json, load_records
from ..schema.infer import annotate_xeval, infer_schema
from ..schema.tree import check_eval_schema
from .options import (
    EXIT_CODES,
    EXIT_INPUT,
    EXIT_OK,
    EXIT_THRESHOLD,
    Formatter,
    emit,
    print_problems,
)


def add_parsers(sub: Any) -> None:
    ck = sub.add_parser(
        "check", help="validate eval schemas and list every problem",
        description="Validate eval schemas: every problem, each with its JSON Pointer, code "
        "and a suggestion. Exit 2 when a schema has an error (warnings alone exit 0).",
        epilog="examples:\n  evalschema check invoices.eval.json\n"
        "  evalschema check schemas/*.eval.json --format json\n\n" + EXIT_CODES,
        formatter_class=Formatter)
    ck.add_argument("schemas", nargs="+", metavar="SCHEMA")
    ck.add_argument("--format", choices=("text", "json"), default="text")
    ck.set_defaults(run=run_check, command_parser=ck)

    inf = sub.add_parser(
        "infer", help="print an annotated eval schema inferred from gold",
        description="Infer a JSON Schema covering every gold record, with the default "
        "x-eval-compare on each leaf (exact for strings and booleans, numeric for numbers).",
        epilog="examples:\n  evalschema infer gold.jsonl --id-field invoice_id > "
        "invoices.eval.json\n  evalschema infer gold.jsonl -o invoices.eval.json\n\n"
        + EXIT_CODES, formatter_class=Formatter)
    inf.add_argument("gold", metavar="GOLD")
    inf.add_argument("--id-field", help="set x-eval-id at the root")
    inf.add_argument("--output", "-o", metavar="FILE", help="write the schema to FILE")
    inf.set_defaults(run=run_infer, command_parser=inf)

    an = sub.add_parser(
        "annotate", help="add the default x-eval annotations to a schema",
        description="Print SCHEMA with the default x-eval-compare on every leaf that has "
        "none (what evalschema applies anyway), so the defaults are visible and editable. "
        "--in-place rewrites the file: the only command that changes a file of yours, and "
        "only when told.",
        epilog="examples:\n  evalschema annotate invoices.schema.json > invoices.eval.json\n"
        "  evalschema annotate invoices.eval.json --in-place\n"
        "  evalschema annotate invoices.eval.json --check   # exit 1 if a leaf is unannotated"
        "\n\n" + EXIT_CODES, formatter_class=Formatter)
    an.add_argument("schema", metavar="SCHEMA")
    mode = an.add_mutually_exclusive_group()
    mode.add_argument("--in-place", action="store_true", help="rewrite SCHEMA")
    mode.add_argument("--check", action="store_true",
                      help="change nothing; exit 1 when annotating would change SCHEMA")
    an.set_defaults(run=run_annotate, command_parser=an)


def run_check(args: argparse.Namespace, parser: argparse.ArgumentParser,
              argv: list[str] | None = None) -> int:
    worst = EXIT_OK
    report: list[dict[str, Any]] = []
    for path in args.schemas:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ProblemWarning)
                schema = load_json(path, "schema")
        except InputError as exc:
            print_problems(exc.problems)
            report.extend(p.to_dict() for p in exc.problems)
            worst = EXIT_INPUT
            continue
        result = check_eval_schema(schema, base_uri=path)
        problems = [w.message.problem for w in caught if isinstance(w.message, ProblemWarning)]
        problems += [Problem(p.code, p.message, p.pointer, p.suggestion, p.severity, p.target,
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


def run_infer(args: argparse.Namespace, parser: argparse.ArgumentParser,
              argv: list[str] | None = None) -> int:
    records = [r.value for r in load_records(args.gold)]
    schema: dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    schema.update(annotate_xeval(infer_schema(records)))
    if args.id_field:
        schema["x-eval-id"] = args.id_field
    text = json.dumps(schema, ensure_ascii=False, indent=2)
    if args.output:
        emit(text, args.output)
    else:
        print(text)
    return EXIT_OK


def _count(node: Any, key: str = "x-eval-compare") -> int:
    if isinstance(node, dict):
        return (key in node) + sum(_count(v, key) for v in node.values())
    if isinstance(node, list):
        return sum(_count(v, key) for v in node)
    return 0


def run_annotate(args: argparse.Namespace, parser: argparse.ArgumentParser,
                 argv: list[str] | None = None) -> int:
    original = load_json(args.schema, "schema")
    if not isinstance(original, dict):
        raise InputError([Problem("bad-node", "an eval schema must be a JSON object",
                                  source=args.schema)], "cannot annotate")
    annotated = annotate_xeval(copy.deepcopy(original))
    added = _count(annotated) - _count(original)
    text = json.dumps(annotated, ensure_ascii=False, indent=2) + "\n"
    check = check_eval_schema(annotated, base_uri=args.schema)
    for p in check.problems:
        print(Problem(p.code, p.message, p.pointer, p.suggestion, p.severity, p.target,
                      args.schema, p.line, p.column, p.data).format(), file=sys.stderr)
    if args.check:
        if added:
            print(f"{args.schema}: {added} field(s) have no x-eval-compare (run evalschema "
                  "annotate --in-place to add the defaults)", file=sys.stderr)
            return EXIT_THRESHOLD
        print(f"{args.schema}: every field is annotated", file=sys.stderr)
        return EXIT_OK
    if args.in_place:
        if added:
            try:
                Path(args.schema).write_text(text, encoding="utf-8")
            except OSError as exc:
                raise InputError([Problem("unwritable-file", f"cannot write: {exc}",
                                          source=args.schema)], "cannot annotate") from None
        print(f"{args.schema}: annotated {added} field(s)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_INPUT if check.errors else EXIT_OK
