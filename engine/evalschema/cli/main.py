"""The ``evalschema`` command line: the parser and the dispatch.

Each command lives in its own module (``eval_cmd``, ``compare_cmd``, ``gold_audit_cmd``,
``schema_cmds``, ``import_cmd``, ``list_cmd``, ``serve_cmd``). Exit codes: 0 ok, 1 a threshold was not
met, 2 bad input or configuration, always with a located message and never a traceback.
Nothing writes a user's file unless told to (``--output``, ``annotate --in-place``).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import TextIO

from evalschema.cli import (
    compare_cmd,
    eval_cmd,
    gold_audit_cmd,
    import_cmd,
    list_cmd,
    schema_cmds,
    serve_cmd,
)
from evalschema.cli.options import (
    EXIT_CODES,
    EXIT_INPUT,
    EXIT_OK,
    Formatter,
    Parser,
    judge_settings,
    print_error,
    print_problems,
)
from evalschema.errors import EvalSchemaError, ProblemWarning
from evalschema.judge.settings import configure_judges, configured_judges
from evalschema.run.parallel import WorkerError
from evalschema.safetext import shown

EPILOG = f"""\
examples:
  evalschema eval examples/invoices.eval.json --gold examples/invoices.gold.jsonl \\
      --extracted examples/invoices.model-a.extracted.jsonl
  evalschema eval                                   # every suite of ./evalschema.toml
  evalschema eval --suite invoices --fail-under 0.9 --format junit -o eval.xml
  evalschema eval --suite invoices --format html -o report.html
  evalschema compare --suite invoices v1.jsonl v2.jsonl
  evalschema gold-audit --suite invoices            # gold values the runs agree against
  evalschema check schema.eval.json
  evalschema infer gold.jsonl --id-field invoice_id > schema.eval.json
  evalschema annotate schema.json --in-place
  evalschema meta-schema > evalschema.schema.json   # for "$schema" in any editor
  evalschema import stickler product.schema.json -o product.eval.json
  evalschema list --kind comparators
  evalschema serve --stdio

'evalschema COMMAND --help' shows each command's options and examples.

{EXIT_CODES}
"""


def build_parser() -> Parser:
    p = Parser(
        prog="evalschema", description="Score LLM structured extraction against gold JSON, "
        "field by field.", epilog=EPILOG, formatter_class=Formatter)
    from evalschema.version import __version__

    p.add_argument("--version", action="version", version=f"evalschema {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    eval_cmd.add_parser(sub)
    compare_cmd.add_parser(sub)
    gold_audit_cmd.add_parser(sub)
    schema_cmds.add_parsers(sub)
    import_cmd.add_parser(sub)
    list_cmd.add_parser(sub)
    serve_cmd.add_parser(sub)
    return p


_shown: set[str] = set()


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
    """Located warnings (duplicate keys) print as problems do, each once (a file may be
    read twice); others as Python's."""
    if isinstance(message, ProblemWarning):
        text = message.problem.format()
        if text not in _shown:
            _shown.add(text)
            print_problems([message.problem])
    else:
        print(warnings.formatwarning(message, category, filename, lineno, line),
              end="", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["serve"]:
        return serve_cmd.run(args_list[1:])
    parser = build_parser()
    args = parser.parse_strict(args_list)
    before = configured_judges()
    _shown.clear()
    try:
        if hasattr(args, "judge_base_url"):  # a scoring command: its judge settings
            configure_judges(judge_settings(args))
        with warnings.catch_warnings():
            warnings.simplefilter("always", ProblemWarning)
            warnings.showwarning = _show_warning
            return int(args.run(args, args.command_parser, args_list))
    except EvalSchemaError as exc:
        return print_error(exc)
    except WorkerError as exc:
        print(f"evalschema: {shown(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except UnicodeError as exc:  # text no encoder can write, from the input
        print(f"evalschema: invalid text in the input: {shown(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except RecursionError:
        print("evalschema: input is nested too deeply to process", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        print("evalschema: interrupted", file=sys.stderr)
        return 130
    finally:
        configure_judges(before)


if __name__ == "__main__":
    sys.exit(main())
