"""``evalschema check``, ``infer``, ``annotate`` and ``meta-schema``: schemas."""

from __future__ import annotations

import argparse
import copy
import sys
import warnings
from typing import Any

from evalschema.cli.options import (
    EXIT_CODES,
    EXIT_INPUT,
    EXIT_OK,
    EXIT_THRESHOLD,
    Formatter,
    add_force_option,
    emit,
    print_problems,
)
from evalschema.errors import InputError, Problem, ProblemWarning, Severity
from evalschema.io.atomicwrite import Input, check_target, write_text
from evalschema.io.records import load_json, load_records
from evalschema.rules.metaschema import metaschema_text
from evalschema.safetext import json_text, nonfinite_pointer, shown, surrogate_pointer
from evalschema.schema.coverage import coverage_problems, gold_coverage
from evalschema.schema.infer import annotate, annotate_xeval, infer_schema
from evalschema.schema.tree import check_eval_schema


def add_parsers(sub: Any) -> None:
    ck = sub.add_parser(
        "check", help="validate eval schemas and list every problem",
        description="Validate eval schemas: every problem, each with its JSON Pointer, code "
        "and a suggestion. Exit 2 when a schema has an error (warnings alone exit 0).",
        epilog="examples:\n  evalschema check invoices.eval.json\n"
        "  evalschema check invoices.eval.json --gold invoices.gold.jsonl\n"
        "  evalschema check schemas/*.eval.json --format json\n\n" + EXIT_CODES,
        formatter_class=Formatter)
    ck.add_argument("schemas", nargs="+", metavar="SCHEMA")
    ck.add_argument("--gold", metavar="FILE",
                    help="also report how much of this gold the schema judges, and list the "
                    "gold keys no schema node covers (never scored)")
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
    inf.add_argument("--output", "-o", metavar="FILE", help="write the schema to FILE "
                     "(atomically; never over GOLD)")
    add_force_option(inf)
    inf.set_defaults(run=run_infer, command_parser=inf)

    an = sub.add_parser(
        "annotate", help="add the default x-eval annotations to a schema",
        description="Print SCHEMA with an explicit x-eval-compare on every leaf that has "
        "none (what evalschema applies anyway: extract-bench's evaluation_config as its "
        "x-eval keys, date for format date/date-time, else the type's default), so it is "
        "visible and editable. "
        "--in-place rewrites the file: the only command that changes a file of yours, and "
        "only when told; it writes a new file and renames it over SCHEMA only once all of "
        "it is written, so SCHEMA is never left half-written.",
        epilog="examples:\n  evalschema annotate invoices.schema.json > invoices.eval.json\n"
        "  evalschema annotate invoices.eval.json --in-place\n"
        "  evalschema annotate invoices.eval.json --check   # exit 1 if a leaf is unannotated"
        "\n\n" + EXIT_CODES, formatter_class=Formatter)
    an.add_argument("schema", metavar="SCHEMA")
    mode = an.add_mutually_exclusive_group()
    mode.add_argument("--in-place", action="store_true", help="rewrite SCHEMA")
    mode.add_argument("--check", action="store_true",
                      help="change nothing; exit 1 when a field the scorer judges has no "
                      "comparator (what eval --metric struct_extract_eval requires), listing "
                      "each")
    an.add_argument("--gold", metavar="GOLD", help="also choose date for strings that are "
                    "all dates in GOLD, and key_field alignment on a property unique in every "
                    "gold array")
    add_force_option(an)
    an.set_defaults(run=run_annotate, command_parser=an)

    ms = sub.add_parser(
        "meta-schema", help="print the JSON meta-schema of eval schemas (for editors)",
        description="Print the JSON Schema that eval schemas follow: JSON Schema itself plus "
        "the shape of every x-eval-* key, from the registry (the one the VS Code extension "
        "uses). Save it, and any editor's JSON or YAML language server validates and "
        "completes an eval schema that names it with \"$schema\".",
        epilog="examples:\n  evalschema meta-schema > evalschema.schema.json\n"
        "  evalschema meta-schema -o evalschema.schema.json\n\n"
        "then, in an eval schema:\n  \"$schema\": \"./evalschema.schema.json\"\n"
        "or at the top of a YAML source of one (evalschema reads JSON: convert it first):\n"
        "  # yaml-language-server: $schema=./evalschema.schema.json\n\n" + EXIT_CODES,
        formatter_class=Formatter)
    ms.add_argument("--output", "-o", metavar="FILE", help="write it to FILE (atomically)")
    add_force_option(ms)
    ms.set_defaults(run=run_meta_schema, command_parser=ms)


def run_check(args: argparse.Namespace, parser: argparse.ArgumentParser,
              argv: list[str] | None = None) -> int:
    worst = EXIT_OK
    report: list[dict[str, Any]] = []
    for path in args.schemas:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ProblemWarning)
                schema = load_json(path, "schema", jsonc=True)
        except InputError as exc:
            print_problems(exc.problems)
            report.extend(p.to_dict() for p in exc.problems)
            worst = EXIT_INPUT
            continue
        result = check_eval_schema(schema, base_uri=path)
        problems = [w.message.problem for w in caught if isinstance(w.message, ProblemWarning)]
        problems += [Problem(p.code, p.message, p.pointer, p.suggestion, p.severity, p.target,
                             path, p.line, p.column, p.data) for p in result.problems]
        coverage = None
        if args.gold is not None and not result.errors:
            try:
                coverage = gold_coverage(result.root, [r.value for r in load_records(args.gold)])
            except InputError as exc:
                problems += exc.problems
            else:
                problems += coverage_problems(coverage, args.gold)
        report.extend(p.to_dict() for p in problems)
        if args.format == "text":
            for p in problems:
                print(shown(p.format()))
            if coverage is not None:
                print(f"{shown(path)}: {shown(coverage.describe())} in {shown(args.gold)}")
            if not any(p.severity is not Severity.INFO for p in problems):
                print(f"{shown(path)}: ok ({len(result.root.walk())} nodes)")
        if any(p.severity is Severity.ERROR for p in problems):
            worst = EXIT_INPUT
    if args.format == "json":
        emit(json_text(report), None, kind="json")
    return worst


def run_meta_schema(args: argparse.Namespace, parser: argparse.ArgumentParser,
                    argv: list[str] | None = None) -> int:
    emit(metaschema_text(), args.output, kind="json", force=args.force)
    return EXIT_OK


def run_infer(args: argparse.Namespace, parser: argparse.ArgumentParser,
              argv: list[str] | None = None) -> int:
    if args.output:
        check_target(args.output, [Input("gold", args.gold)], force=args.force)
    records = [r.value for r in load_records(args.gold)]
    schema: dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    schema.update(annotate_xeval(infer_schema(records)))
    if args.id_field:
        schema["x-eval-id"] = args.id_field
    emit(json_text(schema), args.output, kind="json", inputs=[Input("gold", args.gold)],
         force=args.force)
    return EXIT_OK


def _writable_json(doc: Any, source: str) -> None:
    """Refuse (exit 2, the file untouched) what JSON text cannot hold: a lone surrogate
    or a NaN/infinity would be changed or lost by writing the schema back."""
    bad = surrogate_pointer(doc)
    if bad is not None:
        raise InputError([Problem(
            "lone-surrogate", "this key or string holds a lone surrogate (a \\ud800-\\udfff "
            "escape without its pair): it is not Unicode text", bad, source=source,
            suggestion="fix or remove the escape; the schema was not changed")],
            "cannot annotate")
    bad = nonfinite_pointer(doc)
    if bad is not None:
        raise InputError([Problem(
            "not-finite", "this number is not finite (NaN or an infinity, e.g. 1e999): JSON "
            "has no such number", bad, source=source,
            suggestion="use a finite number; the schema was not changed")], "cannot annotate")


def _located(p: Problem, path: str) -> Problem:
    """``p`` naming the file it is about."""
    return Problem(p.code, p.message, p.pointer, p.suggestion, p.severity, p.target,
                   path, p.line, p.column, p.data)


def run_annotate(args: argparse.Namespace, parser: argparse.ArgumentParser,
                 argv: list[str] | None = None) -> int:
    if args.in_place:
        check_target(args.schema, force=args.force, option="--in-place")
    original = load_json(args.schema, "schema")  # strict: annotate writes JSON back, comments would be lost
    if not isinstance(original, dict):
        raise InputError([Problem("bad-node", "an eval schema must be a JSON object",
                                  source=args.schema)], "cannot annotate")
    _writable_json(original, args.schema)
    if args.check:
        # What --metric struct_extract_eval requires: a comparator on every leaf it judges
        # (evaluation_config read as one counts, as it does there).
        check = check_eval_schema(original, base_uri=args.schema, defaults=False)
        missing = [p for p in check.problems if p.code == "missing-compare"]
        for p in check.errors:
            print(shown(_located(p, args.schema).format()), file=sys.stderr)
        if len(check.errors) > len(missing):
            return EXIT_INPUT  # an invalid schema: the metric refuses it too
        if missing:
            print(f"{shown(args.schema)}: {len(missing)} field(s) have no x-eval-compare (run "
                  "evalschema annotate --in-place to add the defaults)", file=sys.stderr)
            return EXIT_THRESHOLD
        print(f"{shown(args.schema)}: every field is annotated", file=sys.stderr)
        return EXIT_OK
    gold = [r.value for r in load_records(args.gold)] if args.gold else None
    result = annotate(copy.deepcopy(original), gold, base_uri=args.schema)
    annotated = result.schema
    added = len(result.added)
    text = json_text(annotated) + "\n"
    check = check_eval_schema(annotated, base_uri=args.schema)
    seen: set[str] = set()
    for p in [*result.problems, *check.problems]:
        line = shown(_located(p, args.schema).format())
        if line not in seen:
            seen.add(line)
            print(line, file=sys.stderr)
    if args.in_place:
        if annotated != original:
            try:
                write_text(args.schema, text)
            except OSError as exc:
                raise InputError([Problem("unwritable-file", f"cannot write: "
                                          f"{exc.strerror or exc}", source=args.schema,
                                          suggestion="the schema was not changed")],
                                 "cannot annotate") from None
        print(f"{shown(args.schema)}: annotated {added} field(s)", file=sys.stderr)
    else:
        emit(text, None, kind="json")
    return EXIT_INPUT if check.errors else EXIT_OK
