"""``evalschema import``: other tools' schemas as eval schemas (``import stickler``)."""

from __future__ import annotations

import argparse
from typing import Any

from evalschema.cli.options import (
    EXIT_CODES,
    EXIT_INPUT,
    EXIT_OK,
    Formatter,
    add_force_option,
    emit,
    print_problems,
)
from evalschema.errors import InputError, Severity
from evalschema.io.atomicwrite import Input, check_target
from evalschema.io.records import load_json
from evalschema.safetext import json_text
from evalschema.schema.stickler import import_stickler
from evalschema.schema.tree import check_eval_schema


def add_parser(sub: Any) -> None:
    imp = sub.add_parser(
        "import", help="convert another tool's schema into an eval schema",
        description="Convert another tool's schema into an eval schema.",
        formatter_class=Formatter)
    kinds = imp.add_subparsers(dest="kind", required=True, metavar="KIND")
    st = kinds.add_parser(
        "stickler", help="a Stickler JSON Schema (x-aws-stickler-* keys) or model "
        "configuration", formatter_class=Formatter,
        description="Convert a Stickler model (awslabs/stickler): a JSON Schema with "
        "x-aws-stickler-* keys, or a model configuration ({\"model_name\", "
        "\"match_threshold\", \"fields\"}), into an eval schema: comparators, thresholds, "
        "weights and list matching as x-eval-* keys, Stickler's defaults made explicit. "
        "Everything without an exact equivalent is listed on standard error with its JSON "
        "Pointer in FILE, a code and what to do (docs/compat.md#stickler). Exit 2 when "
        "Stickler itself would refuse FILE (the schema is still printed).",
        epilog="examples:\n  evalschema import stickler invoice.schema.json -o "
        "invoice.eval.json\n  evalschema import stickler model_config.json > "
        "model.eval.json\n\n" + EXIT_CODES)
    st.add_argument("file", metavar="FILE")
    st.add_argument("--output", "-o", metavar="OUT", help="write the eval schema to OUT "
                    "(atomically; never over FILE)")
    add_force_option(st)
    st.set_defaults(run=run_stickler, command_parser=st)


def run_stickler(args: argparse.Namespace, parser: argparse.ArgumentParser,
                 argv: list[str] | None = None) -> int:
    inputs = [Input("stickler", args.file)]
    if args.output:
        check_target(args.output, inputs, force=args.force)
    result = import_stickler(load_json(args.file, "stickler schema"))
    if not result.form:
        raise InputError([p for p in result.problems], "cannot import")
    check = check_eval_schema(result.schema)
    print_problems([*result.problems, *check.problems], default_source=args.file, limit=None)
    emit(json_text(result.schema), args.output, kind="json", inputs=inputs, force=args.force)
    refused = any(p.severity is Severity.ERROR for p in (*result.problems, *check.problems))
    return EXIT_INPUT if refused else EXIT_OK
