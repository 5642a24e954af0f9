"""What the commands share: exit codes, options, printing problems, writing output."""

from __future__ import annotations

import argparse
import dataclasses
import re
import shlex
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from evalschema.calibration import REVIEW_BUDGETS, check_budgets
from evalschema.errors import (
    EvalSchemaError,
    GoldValidationError,
    InputError,
    Problem,
    SchemaError,
    did_you_mean,
)
from evalschema.frames import need
from evalschema.io.atomicwrite import Input, check_target, write_text
from evalschema.judge.settings import (
    JudgeLimits,
    JudgeSettings,
    ProfileSpec,
    check_url,
    load_judge_settings,
)
from evalschema.safetext import for_document, for_json, shown

if TYPE_CHECKING:
    from evalschema.cli.suites import Suite

EXIT_OK, EXIT_THRESHOLD, EXIT_INPUT = 0, 1, 2

EXIT_CODES = "exit codes: 0 ok, 1 threshold not met, 2 bad input or configuration"


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keep the examples in epilogs as written."""


_CHOICE = re.compile(r"^argument (?P<arg>[^:]+): invalid choice: '?(?P<got>.*?)'? "
                     r"\(choose from (?P<choices>.*)\)$")


class Parser(argparse.ArgumentParser):
    """argparse with did-you-mean: a mistyped option (``--formt``) or choice (``--format
    jsn``, ``evl``) gets the closest name; still exit 2 with the usage, never a traceback."""

    def error(self, message: str) -> NoReturn:
        got = _CHOICE.match(message)
        if got:
            choices = [c.strip().strip("'\"") for c in got["choices"].split(",")]
            hint = did_you_mean(got["got"], choices)
            if hint:
                message += f"; did you mean {hint!r}?"
        super().error(message)

    def parse_strict(self, argv: Sequence[str]) -> argparse.Namespace:
        """``parse_args``, unknown options reported by the (sub)command that got them,
        each with the closest option it has."""
        args, extra = self.parse_known_args(argv)
        if extra:
            owner: argparse.ArgumentParser = getattr(args, "command_parser", self)
            owner.error(unrecognized(extra, owner, self))
        return args


def unrecognized(extra: Sequence[str], *parsers: argparse.ArgumentParser) -> str:
    """argparse's "unrecognized arguments" message, with did-you-mean for each option
    (among the options of ``parsers``: the command's, then the program's)."""
    known = list(dict.fromkeys(o for p in parsers for o in p._option_string_actions
                               if o.startswith("--")))
    hints = []
    for token in extra:
        name = token.split("=", 1)[0]
        if name.startswith("--") and (hint := did_you_mean(name, known)):
            hints.append(f"{name}: did you mean {hint}?")
    if len(hints) == 1:
        hints = [hints[0].split(": ", 1)[1]]
    return "; ".join([f"unrecognized arguments: {' '.join(extra)}", *hints])


def fraction(text: str) -> float:
    """An argparse type: a number between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def review_budgets(text: str) -> tuple[float, ...]:
    """An argparse type: comma-separated percents in (0, 100], e.g. ``5,10,20``."""
    try:
        return check_budgets([float(x) for x in text.split(",")])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            str(exc) if "review budget" in str(exc) else
            f"{text!r} is not a comma-separated list of percents (e.g. 5,10,20)") from None


def add_budget_option(g: argparse._ActionsContainer) -> None:
    g.add_argument("--review-budgets", type=review_budgets, default=REVIEW_BUDGETS,
                   metavar="K,K,...", help="calibration: report the errors caught among the "
                   "K%% least confident values, for each K (default 5,10,20; only for schemas "
                   "with x-eval-confidence)")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not at least 1")
    return value


def workers(text: str) -> int:
    """``N`` processes, or ``0``/``auto`` for one per CPU."""
    import os

    if text in ("0", "auto"):
        return max(1, os.cpu_count() or 1)
    return positive_int(text)


def add_source_options(p: argparse.ArgumentParser, *, extracted: bool = True) -> None:
    """Where a suite comes from: flags, or the configuration file."""
    g = p.add_argument_group("suite (flags, or a suite of the configuration file)")
    g.add_argument("--schema", metavar="FILE", help="eval schema (JSON Schema with x-eval-* keys)")
    g.add_argument("--gold", metavar="PATH", help="gold records: a JSON array, JSONL, one document, "
                   "or a folder of them (one document per file; see docs/reading-files.md)")
    if extracted:
        g.add_argument("--extracted", action="append", metavar="PATH",
                       help="extracted records (repeat for several runs); with --suite, "
                       "replaces the suite's runs")
    g.add_argument("--config", metavar="FILE", help="configuration file (default: "
                   "evalschema.toml, else pyproject.toml [tool.evalschema], in the current "
                   "folder)")
    g.add_argument("--suite", action="append", metavar="NAME",
                   help="run this suite of the configuration (repeatable; default: all)")
    add_module_options(g)
    s = p.add_argument_group("scoring")
    s.add_argument("--id-field", help="pair records by this field (default: x-eval-id, "
                   "else by file name for folders of one document per file, else by "
                   "position)")
    s.add_argument("--null-policy", choices=("value", "absent"),
                   help="null as an ordinary value (default) or as absent")
    s.add_argument("--field", action="append", dest="fields", metavar="PATH",
                   help="only score this field (dot path, $.jsonpath or /pointer); repeatable")
    s.add_argument("--target", metavar="PATH", help="only score this sub-tree of each record")
    s.add_argument("--workers", type=workers, default=1, metavar="N",
                   help="score in N processes (0 or 'auto': one per CPU); results are "
                   "identical to one worker")
    s.add_argument("--allow-schema-errors", action="store_true",
                   help="score a schema that has errors: each field with one is an error in "
                   "every record and the rest is scored as usual; the errors are printed as "
                   "warnings and the exit code follows the thresholds (default: any schema "
                   "error stops the command, exit 2). A schema that does not parse, or whose "
                   "root is unusable, still stops it")
    add_judge_options(p)


def add_suite_arguments(p: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    """``SCHEMA`` (or ``--schema``), the suite's sources and the output: a command that runs
    a suite given as ``eval`` takes it."""
    p.add_argument("schema_pos", nargs="?", metavar="SCHEMA",
                   help="eval schema (same as --schema)")
    add_source_options(p)
    add_output_options(p, formats)


def add_label_option(g: argparse._ActionsContainer) -> None:
    """``--label``: the names of a command's runs (``run_labels``)."""
    g.add_argument("--label", action="append", metavar="NAME",
                   help="name of each run, in order (default: file names)")


def add_judge_options(p: argparse.ArgumentParser) -> None:
    """The LLM judge's endpoint and key: the user's choice, never the schema's."""
    j = p.add_argument_group(
        "LLM judge (the semantic comparator; overrides EVALSCHEMA_JUDGE_* and the default "
        "profile of ~/.config/evalschema/judges.toml)")
    j.add_argument("--judge-base-url", metavar="URL",
                   help="OpenAI-compatible endpoint of the default judge profile")
    j.add_argument("--judge-model", metavar="NAME", help="model of the default judge profile")
    j.add_argument("--judge-api-key-env", metavar="VAR",
                   help="environment variable holding the judge's API key (default: "
                   "EVALSCHEMA_JUDGE_API_KEY, else OPENAI_API_KEY)")
    j.add_argument("--judge-concurrency", type=positive_int, metavar="N",
                   help="judge requests in flight at once, for the whole run (default 4; "
                   "with --workers, each worker gets its share)")
    j.add_argument("--judge-cache", metavar="PATH",
                   help="SQLite file of the judge's verdicts, read and added to, so a "
                   "re-run asks nothing it asked before (default: [cache] path of "
                   "judges.toml, else ~/.cache/evalschema/judge/verdicts.sqlite3)")
    j.add_argument("--judge-cache-shared", action="store_true", default=None,
                   help="the cache file is on storage several machines share (NFS, a "
                   "cluster's file system): a rollback journal instead of WAL")
    j.add_argument("--no-judge-cache", action="store_false", dest="judge_cache_enabled",
                   default=None, help="neither read nor write cached verdicts: ask for all")


def judge_settings(args: argparse.Namespace) -> JudgeSettings:
    """The judge settings of a scoring command: its flags over the environment and the
    user's judges.toml (``InputError`` when those are invalid)."""
    problems: list[Problem] = []
    default = ProfileSpec(getattr(args, "judge_base_url", None),
                          getattr(args, "judge_model", None),
                          getattr(args, "judge_api_key_env", None))
    if default.base_url is not None:
        check_url(default.base_url, "", None, problems, label="--judge-base-url")
    concurrency = getattr(args, "judge_concurrency", None)
    limits = JudgeLimits(concurrency=concurrency) if concurrency else None
    settings, found = load_judge_settings(default=default, limits=limits,
                                          origin="command line")
    problems.extend(found)
    if problems:
        raise InputError(problems, "the judge settings are invalid")
    cache = settings.cache
    path = getattr(args, "judge_cache", None)
    if path:
        cache = dataclasses.replace(cache, path=str(Path(path).expanduser().absolute()))
    if getattr(args, "judge_cache_shared", None):
        cache = dataclasses.replace(cache, shared=True)
    if getattr(args, "judge_cache_enabled", None) is False:
        cache = dataclasses.replace(cache, enabled=False)
    return dataclasses.replace(settings, cache=cache)


def add_module_options(g: Any) -> None:
    """``--comparator-module`` and ``--trust-workspace``: the only ways custom code runs."""
    g.add_argument("--comparator-module", action="append", default=[], metavar="MODULE",
                   help="import this module first (it registers custom comparators): a "
                   "dotted name from the installed environment, or the path of a .py file "
                   "or package folder; repeatable")
    g.add_argument("--trust-workspace", action="store_true",
                   help="also import the comparator_modules the configuration names: they "
                   "are code and run with your rights, so only for a folder you trust")


def add_output_options(p: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    g = p.add_argument_group("output")
    g.add_argument("--format", choices=formats, default=formats[0])
    g.add_argument("--output", "-o", metavar="FILE",
                   help="write the report to FILE instead of standard output (atomically; "
                   "never over an input of the run)")
    add_force_option(g)
    g.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it only shows on a terminal, for long runs)")


def add_mlflow_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("MLflow (the optional extra: pip install 'evalschema[mlflow]')")
    g.add_argument("--mlflow", action="store_true",
                   help="also log to MLflow: the tracking server and experiment you configured "
                   "(MLFLOW_TRACKING_URI, MLFLOW_EXPERIMENT_NAME), else MLflow's defaults "
                   "(docs/integrations.md)")
    g.add_argument("--mlflow-experiment", metavar="NAME",
                   help="the MLflow experiment, created when missing (implies --mlflow)")


def wants_mlflow(args: argparse.Namespace, parser: argparse.ArgumentParser) -> bool:
    """--mlflow was asked for; checked before anything is scored, so a missing extra
    fails at once."""
    if not (args.mlflow or args.mlflow_experiment):
        return False
    try:
        need("mlflow", "--mlflow")
    except ImportError as exc:
        parser.error(str(exc))
    return True


def to_mlflow(log: Callable[[], str], what: str) -> bool:
    """Run ``log`` (which returns the MLflow run's id) and say where it went; a failure
    of the tracking store (an unreachable server, a refused value) is one line, and
    False."""
    try:
        run_id = log()
    except Exception as exc:  # whatever the user's tracking store raises
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        print(f"evalschema: could not log {shown(what)} to MLflow: {shown(first)}",
              file=sys.stderr)
        return False
    print(f"evalschema: logged {shown(what)} to MLflow run {run_id}", file=sys.stderr)
    return True


def add_force_option(g: argparse._ActionsContainer) -> None:
    g.add_argument("--force", action="store_true",
                   help="write through a symbolic link that points out of the file's folder "
                   "(refused otherwise; an input of the run is never overwritten)")


def print_problems(problems: Sequence[Problem], default_source: str | None = None,
                   limit: int | None = 50) -> None:
    for prob in problems[:limit]:
        if default_source and not prob.source:
            prob = dataclasses.replace(prob, source=default_source)
        print(shown(prob.format()), file=sys.stderr)
    if limit is not None and len(problems) > limit:
        print(f"… and {len(problems) - limit} more problem(s)", file=sys.stderr)


def error_source(exc: EvalSchemaError, suite: Suite | None) -> str | None:
    """The file a problem without one is in: the suite's schema or gold file."""
    return None if suite is None else {SchemaError: suite.schema_path,
                                       GoldValidationError: suite.gold}.get(type(exc))


def print_error(exc: EvalSchemaError, suite: Suite | None = None) -> int:
    """An input error as the CLI shows it: its summary, then each problem, located (a
    suite's schema or gold file when the problem names no file); returns ``EXIT_INPUT``."""
    print(f"evalschema: {shown(str(exc).splitlines()[0])}", file=sys.stderr)
    print_problems(exc.problems, error_source(exc, suite))
    return EXIT_INPUT


def warn(message: str) -> None:
    print(f"evalschema: warning: {shown(message)}", file=sys.stderr)


def run_inputs(suites: Iterable[Suite]) -> list[Input]:
    """Every file (or folder) the suites read: never a place to write a report."""
    out: list[Input] = []
    for s in suites:
        if s.config is not None:
            out.append(Input("configuration", str(s.config.path)))
        out += [Input("schema", s.schema_path), Input("gold", s.gold)]
        out += [Input("extracted records", x) for x in s.extracted]
    return out


def emit(text: str, output: str | None, *, kind: Literal["text", "json"] = "text",
         inputs: Sequence[Input] = (), force: bool = False) -> None:
    """Print, or write to ``output`` (the only way a report reaches a file): control
    characters neutralised, lone surrogates escaped (and reported), written atomically,
    never over an input or through a symbolic link out of its folder unless forced."""
    doc, surrogates = (for_json if kind == "json" else for_document)(text)
    if not doc.endswith("\n"):
        doc += "\n"
    if surrogates:
        warn(f"the report holds {surrogates} lone surrogate(s) (invalid Unicode from the "
             "input, such as the JSON escape \"\\ud800\"), written as escapes (\\ud800)")
    if output is None:
        _print(doc)
        return
    check_target(output, inputs, force=force)
    try:
        size = write_text(output, doc)
    except OSError as exc:
        raise InputError([Problem("unwritable-file", f"cannot write the report: "
                                  f"{exc.strerror or exc}", source=output,
                                  suggestion="check that the folder exists and is writable, "
                                  "and that the disk has room; the previous file, if any, is "
                                  "unchanged")], "cannot write the report") from None
    print(f"wrote {shown(output)} ({size / 1024:,.1f} KiB)", file=sys.stderr)


def _print(text: str) -> None:
    """Standard output in an encoding that lacks a character still gets the rest."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        sys.stdout.flush()
        encoding = sys.stdout.encoding or "utf-8"
        sys.stdout.buffer.write(text.encode(encoding, "backslashreplace"))
    sys.stdout.flush()


def command_line(argv: Sequence[str] | None) -> str:
    args = list(sys.argv[1:] if argv is None else argv)
    return shlex.join(["evalschema", *args])


def table_top(args: argparse.Namespace) -> int:
    """How many fields the terminal table shows: ``--top``, ``--all``, else the default."""
    from evalschema.report.text import DEFAULT_TOP

    if args.all_fields:
        return 0
    return DEFAULT_TOP if args.top is None else int(args.top)


def run_labels(runs: list[str], given: list[str] | None, parser: argparse.ArgumentParser
               ) -> list[str]:
    """The runs' names in reports: ``--label`` when given (once per run), else the file
    names, shortened by what they share (``short_labels``), else the paths."""
    if given:
        if len(given) != len(runs):
            parser.error(f"--label given {len(given)} time(s) for {len(runs)} runs")
        return given
    names = [Path(r).name for r in runs]
    if len(set(names)) < len(names):
        return runs
    return short_labels(names)


def _common_prefix(names: list[str]) -> str:
    first = min(names)
    last = max(names)
    n = 0
    while n < len(first) and n < len(last) and first[n] == last[n]:
        n += 1
    return first[:n]


def short_labels(names: list[str]) -> list[str]:
    """Names without the dot-separated prefix and suffix they all share
    (``invoices.model-a.extracted.jsonl`` -> ``model-a``); unchanged when that would
    leave an empty or repeated name."""
    cut = _common_prefix(names).rfind(".") + 1
    suffix = _common_prefix([n[::-1] for n in names])[::-1]
    end = len(suffix) - suffix.find(".") if "." in suffix else 0
    out = [n[cut:len(n) - end] for n in names]
    if any(not x for x in out) or len(set(out)) < len(out):
        return names
    return out
