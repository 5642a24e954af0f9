"""Which suites a command runs: one from flags (``SCHEMA --gold --extracted``), or the
suites of the configuration file, with command-line options laid over them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from evalschema.cli.engines import EngineOptions, score
from evalschema.cli.options import print_problems, run_inputs, run_labels
from evalschema.cli.progress import ProgressBar, count_lines
from evalschema.errors import InputError, Problem, Severity, did_you_mean
from evalschema.io.atomicwrite import Input, check_target
from evalschema.io.records import load_json
from evalschema.project.config import Config, SuiteConfig, find_config, load_config
from evalschema.project.gate import UNKNOWN_THRESHOLDS, FailMetric, unknown_threshold
from evalschema.results import RunResult
from evalschema.rules.custom_modules import import_hint, load_entries
from evalschema.run.parallel import EvalSpec, evaluate_files
from evalschema.schema.node import SchemaNode
from evalschema.schema.tree import PartialSchema, parse_eval_schema, parse_partial


@dataclass(frozen=True)
class Suite:
    """A suite ready to run."""

    name: str | None
    schema_path: str
    schema: Any
    gold: str
    extracted: tuple[str, ...]
    id_field: str | None = None
    null_policy: str | None = None
    fields: tuple[str, ...] = ()
    target: str | None = None
    fail_under: float | None = None
    fail_metric: FailMetric = "macro"
    thresholds: Mapping[str, float] = field(default_factory=dict)
    #: Comparator modules to import (dotted names, absolute paths; see custom_modules).
    modules: tuple[str, ...] = ()
    config: Config | None = None
    #: The suite's pointer in the configuration (for located problems).
    pointer: str = ""
    #: Thresholds that came from the command line (not located in the config).
    cli_thresholds: frozenset[str] = frozenset()
    #: ``--allow-schema-errors``: a field with schema errors is scored as an error.
    allow_schema_errors: bool = False

    def spec(self) -> EvalSpec:
        return EvalSpec(self.schema, self.schema_path, self.id_field, self.fields, self.target,
                        self.null_policy, self.modules, self.allow_schema_errors)

    @cached_property
    def _partial(self) -> PartialSchema:
        """The schema parsed as ``--allow-schema-errors`` parses it: once, for the tree
        and the warnings both."""
        return parse_partial(self.schema, base_uri=self.schema_path,
                             null_policy=self.null_policy)

    def full_tree(self) -> SchemaNode:
        """The whole schema's tree (no --field/--target), as this suite parses it; raises
        ``SchemaError`` for a schema it cannot score."""
        if self.allow_schema_errors:
            return self._partial.root
        return parse_eval_schema(self.schema, base_uri=self.schema_path,
                                 null_policy=self.null_policy)

    def warn_schema_errors(self) -> None:
        """``--allow-schema-errors``: the schema's errors, printed as located warnings
        (each makes its field an error in every record); ``SchemaError`` when they stop
        the run all the same (the root is unusable)."""
        if not self.allow_schema_errors:
            return
        tolerated = self._partial.tolerated
        if tolerated:
            n = len(tolerated)
            print(f"evalschema: warning: the eval schema has {n} error{'s' if n != 1 else ''}"
                  "; the fields they are in are scored as errors (--allow-schema-errors)",
                  file=sys.stderr)
            print_problems([replace(p, severity=Severity.WARNING) for p in tolerated])

    def label(self, extracted: str) -> str:
        name = Path(extracted).name
        if len(self.extracted) > 1 and sum(Path(x).name == name for x in self.extracted) > 1:
            name = extracted
        return f"{self.name} · {name}" if self.name else name

    def settings(self, extracted: str | Sequence[str], workers: int,
                 command: str | None) -> dict[str, Any]:
        """The configuration that produced a report, as shown in it."""
        return {
            "suite": self.name, "config": str(self.config.path) if self.config else None,
            "schema": self.schema_path, "gold": self.gold,
            "extracted": extracted if isinstance(extracted, str) else list(extracted),
            "id field": self.id_field, "null policy": self.null_policy,
            "fields": list(self.fields), "target": self.target,
            "fail under": (f"{self.fail_under:g} ({self.fail_metric} F1)"
                           if self.fail_under is not None else None),
            "thresholds": dict(self.thresholds),
            "comparator modules": list(self.modules), "workers": workers,
            "command": command,
        }

    def check_thresholds(self) -> dict[str, float]:
        """The thresholds on fields this run scores; a field the schema does not have is
        a located problem (with the closest name)."""
        if not self.thresholds:
            return {}
        known = _paths(self.full_tree())
        problems = []
        for path in self.thresholds:
            unknown = unknown_threshold(path, known)
            if unknown is None:
                continue
            msg, suggestion = unknown
            if self.config is not None and path not in self.cli_thresholds:
                from evalschema.pointer import escape

                problems.append(self.config.problem(
                    "unknown-field", msg, f"{self.pointer}/thresholds/{escape(path)}",
                    suite=self.name, suggestion=suggestion, target="key"))
            else:
                problems.append(Problem("unknown-field", msg, suggestion=suggestion,
                                        source="--threshold"))
        if problems:
            raise InputError(problems, UNKNOWN_THRESHOLDS)
        if not (self.fields or self.target):
            return dict(self.thresholds)
        scored = _paths(self.spec().evaluator().root)
        return {k: v for k, v in self.thresholds.items() if k in scored}


def _paths(root: SchemaNode) -> set[str]:
    return {n.path for n in root.walk() if n.path}


def _threshold_options(pairs: Sequence[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in pairs:
        key, sep, value = item.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not sep or not key or not 0.0 <= number <= 1.0:
            raise InputError([Problem("bad-option", f"--threshold {item!r} is not FIELD=F1 "
                                      "with F1 between 0 and 1",
                                      suggestion="e.g. --threshold total=0.95")])
        out[key] = number
    return out


def import_config_modules(cfg: SuiteConfig, config: Config, *, trusted: bool
                          ) -> tuple[str, ...]:
    """Import a suite's comparator modules when the user trusts the configuration
    (``--trust-workspace``), and return them resolved (dotted names, absolute paths).

    Untrusted, nothing is imported: a warning located at ``comparator_modules`` says how to
    opt in, and the suite runs with what is registered (a field using a comparator only the
    module registers is then reported by the schema check). A module that fails to import is
    an error located at its entry."""
    if not cfg.comparator_modules:
        return ()
    if not trusted:
        names = ", ".join(cfg.comparator_modules)
        print_problems([replace(config.problem(
            "comparator-modules-untrusted",
            f"comparator modules not imported ({names}): they are code named by "
            f"{config.path.name}, and run only when you trust this folder",
            f"{cfg.pointer}/comparator_modules", suite=cfg.name, target="key",
            suggestion="if you trust the code in this folder, run again with "
            "--trust-workspace, or name a module yourself with --comparator-module"),
            severity=Severity.WARNING)])
        return ()
    out, failed = load_entries(cfg.comparator_modules, config.folder)
    if failed:
        raise InputError([config.problem(
            "module-import-failed", f"cannot import {name!r}: {type(exc).__name__}: {exc}",
            f"{cfg.pointer}/comparator_modules/{k}", suite=cfg.name,
            suggestion=import_hint(name, config.folder.resolve()))
            for k, name, exc in failed], "a comparator module could not be imported")
    return out


def resolve(args: argparse.Namespace, parser: argparse.ArgumentParser, *,
            positional_schema: str | None = None, runs: Sequence[str] | None = None,
            command: str = "eval") -> list[Suite]:
    """The suites to run, from flags or from the configuration; bad input raises
    ``InputError`` (located), a wrong combination of flags is a usage error."""
    schema = args.schema
    if positional_schema is not None:
        if schema is not None and schema != positional_schema:
            parser.error("give the schema once: either SCHEMA or --schema")
        schema = positional_schema
    extracted = list(runs or []) or list(getattr(args, "extracted", None) or [])
    thresholds = _threshold_options(getattr(args, "threshold", None) or [])
    fail_under = getattr(args, "fail_under", None)
    fail_metric = getattr(args, "fail_metric", None)
    modules = tuple(args.comparator_module)
    allow = bool(getattr(args, "allow_schema_errors", False))
    if schema is not None:
        if args.suite or args.config:
            parser.error("--suite and --config run suites of the configuration; with a schema "
                         "on the command line, leave them out")
        if not args.gold or not extracted:
            what = "RUN files (or --extracted)" if command == "compare" else "--extracted"
            parser.error(f"{command} with a schema needs --gold and {what} (or, without a "
                         "schema, runs the suites of evalschema.toml)")
        modules = import_modules_cli(modules)
        return [Suite(None, schema, load_json(schema, "schema", jsonc=True), args.gold,
                      tuple(extracted),
                      args.id_field, args.null_policy, tuple(args.fields or ()), args.target,
                      fail_under, fail_metric or "macro", thresholds, modules,
                      cli_thresholds=frozenset(thresholds), allow_schema_errors=allow)]
    if args.gold:
        parser.error("--gold needs a schema (SCHEMA or --schema); a configured suite has its "
                     "own gold file")
    path = Path(args.config) if args.config else find_config(".")
    if path is None:
        raise InputError([Problem(
            "no-config", f"no schema given, and no evalschema.toml (nor [tool.evalschema] in "
            f"pyproject.toml) in {Path.cwd()}",
            suggestion=f"run `evalschema {command} SCHEMA --gold GOLD "
            f"{'RUN_A RUN_B' if command == 'compare' else '--extracted RUN'}`, or write an "
            "evalschema.toml (see `evalschema eval --help`)")], "nothing to run")
    loaded = load_config(path)
    config = loaded.config
    wanted = set(args.suite) if args.suite else None
    problems = list(loaded.errors_for(wanted))
    if config is not None and wanted:
        every = sorted({*config.names, *(str(p.data["suite"]) for p in loaded.problems
                                         if p.data.get("suite"))})
        for name in args.suite:
            if name not in every:
                hint = did_you_mean(name, every)
                problems.append(Problem(
                    "unknown-suite", f"no suite named {name!r}", source=str(path),
                    suggestion=f"did you mean {hint!r}?" if hint else
                    "suites: " + (", ".join(every) or "none")))
    if problems or config is None:
        raise InputError(problems, "the configuration is invalid")
    chosen = [s for s in config.suites if wanted is None or s.name in wanted]
    if extracted and len(chosen) != 1:
        parser.error("--extracted / RUN files replace the runs of one suite; pick it with "
                     "--suite")
    modules = import_modules_cli(modules)
    trusted = bool(getattr(args, "trust_workspace", False))
    out = []
    for cfg in chosen:
        suite = configured_suite(cfg, config, trusted=trusted)
        out.append(replace(
            suite, extracted=tuple(extracted) or suite.extracted,
            id_field=args.id_field or suite.id_field,
            null_policy=args.null_policy or suite.null_policy,
            fields=tuple(args.fields or ()) or suite.fields, target=args.target or suite.target,
            fail_under=fail_under if fail_under is not None else suite.fail_under,
            fail_metric=fail_metric or suite.fail_metric,
            thresholds={**suite.thresholds, **thresholds}, modules=(*suite.modules, *modules),
            cli_thresholds=frozenset(thresholds), allow_schema_errors=allow))
    return out


def configured_suite(cfg: SuiteConfig, config: Config, *, trusted: bool) -> Suite:
    """A suite of the configuration as it stands (no command-line options): its schema
    read (``InputError``, located, when it cannot be) and its comparator modules imported
    when ``trusted`` (``import_config_modules``). ``resolve`` lays the options over it; the
    pytest plugin runs it as it is."""
    modules = import_config_modules(cfg, config, trusted=trusted)
    return Suite(cfg.name, str(cfg.schema), load_json(cfg.schema, "schema", jsonc=True),
                 str(cfg.gold), tuple(str(p) for p in cfg.extracted), cfg.id_field,
                 cfg.null_policy, cfg.fields, cfg.target, cfg.fail_under, cfg.fail_metric,
                 dict(cfg.thresholds), modules, config, cfg.pointer)


def import_modules_cli(modules: Sequence[str]) -> tuple[str, ...]:
    """Import the modules of ``--comparator-module`` (the user named them: that is the
    opt-in) and return them resolved: dotted names from the installed environment, paths
    relative to the current folder, which is never put on ``sys.path``."""
    out, failed = load_entries(modules, Path.cwd())
    if failed:
        raise InputError([Problem(
            "module-import-failed", f"cannot import {name!r}: {type(exc).__name__}: {exc}",
            source="--comparator-module", suggestion=import_hint(name, Path.cwd()))
            for _, name, exc in failed], "a comparator module could not be imported")
    return out


def one_suite_runs(args: argparse.Namespace, parser: argparse.ArgumentParser, command: str,
                   usage: str, *, positional_schema: str | None = None,
                   runs: Sequence[str] | None = None
                   ) -> tuple[Suite, list[str], list[str], list[Input]]:
    """The one suite of a command over several runs (``compare``, ``gold-audit``): the
    suite, its runs, their labels (``--label``) and every input (``--output`` checked
    against them); fewer than two runs is a usage error naming ``usage``."""
    suites = resolve(args, parser, positional_schema=positional_schema, runs=runs,
                     command=command)
    if len(suites) != 1:
        parser.error(f"{command} runs one suite; pick it with --suite")
    suite = suites[0]
    paths = list(suite.extracted)
    if len(paths) < 2:
        parser.error(f"{command} needs at least two runs ({usage})")
    labels = run_labels(paths, args.label, parser)
    inputs = run_inputs(suites)
    if args.output is not None:
        check_target(args.output, inputs, force=args.force)
    return suite, paths, labels, inputs


def score_runs(suite: Suite, runs: Sequence[str], labels: Sequence[str], *, workers: int,
               no_progress: bool, engine: str = "local",
               options: EngineOptions | None = None) -> list[RunResult]:
    """Each run of ``suite`` scored with its records kept (``EvalSchemaError`` for bad
    input, located), after the schema's tolerated errors (``--allow-schema-errors``) are
    printed: locally one progress bar a run; on another engine all runs in one pass,
    each with the bootstrap replicate sums of ``options``."""
    suite.warn_schema_errors()
    if engine != "local":
        options = replace(options or EngineOptions(), keep_records=True, worst=0)
        return [o.run for o in score(engine, suite.spec(), suite.gold, runs, options)]
    enabled = ProgressBar.wanted(no_progress)
    total = count_lines(suite.gold) if enabled else None
    out = []
    for extracted, label in zip(runs, labels, strict=True):
        with ProgressBar(f"scoring {label}", total, enabled=enabled) as bar:
            out.append(evaluate_files(suite.spec(), suite.gold, extracted, workers=workers,
                                      keep_records=True, worst=0, progress=bar.update).run)
    return out
