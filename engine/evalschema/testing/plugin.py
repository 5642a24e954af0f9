"""The pytest plugin: the suites of ``evalschema.toml`` (or ``[tool.evalschema]`` in
``pyproject.toml``) as test items, one per suite and run, gated by the suite's thresholds
exactly as ``evalschema eval`` gates them (``project.gate``).

Opt-in, so that installing evalschema changes no one's test run: ``pytest --evalschema``
(or ``evalschema = true`` in pytest's ini options) collects every configuration file met
while collecting, plus the one at the rootdir when no paths are named (it is usually
outside ``testpaths``). Naming a configuration file (``pytest evalschema.toml``) collects it
without the flag. ``--evalschema-records`` adds one item per record (passing when every
field matches). Comparator modules the configuration names are imported: pytest already
runs the folder's ``conftest.py``, so it is trusted as ``--trust-workspace`` trusts it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from evalschema.cli.options import error_source
from evalschema.cli.suites import Suite, configured_suite
from evalschema.errors import EvalSchemaError, Problem
from evalschema.project.config import (
    CONFIG_FILE,
    PYPROJECT,
    Config,
    SuiteConfig,
    find_config,
    load_config,
)
from evalschema.project.gate import check_run
from evalschema.report.figures import figure
from evalschema.report.model import RunReport
from evalschema.results import RecordResult
from evalschema.run.parallel import EvalOutcome, evaluate_files
from evalschema.safetext import one_line
from evalschema.testing.assertion import check_extraction
from evalschema.testing.message import record_message, record_passed, run_message


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("evalschema", "evalschema suites as tests")
    group.addoption("--evalschema", action="store_true", default=None,
                    help="collect the suites of evalschema.toml / [tool.evalschema] as tests")
    group.addoption("--evalschema-records", action="store_true", default=None,
                    help="also one test per record of each run (implies --evalschema)")
    parser.addini("evalschema", type="bool", default=False,
                  help="collect the suites of evalschema configurations (as --evalschema)")
    parser.addini("evalschema_records", type="bool", default=False,
                  help="one test per record of each run (as --evalschema-records)")


def _flag(config: pytest.Config, name: str) -> bool:
    option = config.getoption(name)
    return bool(config.getini(name) if option is None else option)


def _records(config: pytest.Config) -> bool:
    return _flag(config, "evalschema_records")


def _enabled(config: pytest.Config) -> bool:
    return _flag(config, "evalschema") or _records(config)


def pytest_configure(config: pytest.Config) -> None:
    """With no paths named, the rootdir's configuration joins the paths to collect."""
    if not _enabled(config) or config.args_source is pytest.Config.ArgsSource.ARGS:
        return
    found = find_config(config.rootpath)
    if found is None:
        return
    here = config.invocation_params.dir
    named = [(here / arg.split("::")[0]).resolve() for arg in config.args]
    if not any(found.resolve().is_relative_to(p) for p in named):
        config.args.append(str(found))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A configuration, when asked for; not a ``pyproject.toml`` without ``[tool.evalschema]``
    or beside an ``evalschema.toml`` (``find_config``: the one the CLI would read)."""
    if file_path.name not in (CONFIG_FILE, PYPROJECT) or not (
            _enabled(parent.config) or parent.session.isinitpath(file_path)):
        return None
    if find_config(file_path.parent) != file_path:
        return None
    return ConfigFile.from_parent(parent, path=file_path)


@pytest.fixture
def assert_extraction(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """``evalschema.testing.assert_extraction`` that also records the run's figures as the
    test's properties (in ``--junitxml``)."""
    def check(*args: Any, **kwargs: Any) -> Any:
        report = check_extraction(*args, **kwargs)
        request.node.user_properties.extend(run_properties(report))
        if not report.passed:
            raise AssertionError(run_message(report))
        return report.run
    return check


def run_properties(report: RunReport) -> list[tuple[str, str]]:
    """The per-field story as JUnit properties: the overall F1s, each field's F1, each
    threshold's verdict."""
    run = report.run
    out = [("records", str(run.total_records)), ("f1", figure(run.mean_f1, 4)),
           ("f1_micro", figure(run.micro_f1, 4))]
    out += [(f"f1/{one_line(path)}", figure(agg.f1, 4)) for path, agg in run.per_field.items()]
    out += [(f"threshold/{one_line(c.name)}", ("ok " if c.passed else "FAIL ") +
             one_line(c.describe())) for c in report.checks]
    return out


class ProblemFailure(Exception):
    """Input that cannot be scored, shown as its located problems."""

    def __init__(self, head: str, problems: Sequence[Problem]) -> None:
        super().__init__(head)
        self.head, self.problems = head, tuple(problems)
        self.text = "\n".join([head, *(one_line(p.format()) for p in problems)])


class RunFailure(Exception):
    """A run or a record that did not pass, with what to show."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class _Node(pytest.Item):
    """An item whose expected failures are shown as their message, never a traceback."""

    #: No fixtures. Declared because other plugins' hooks read it from every item, as from
    #: a test function's (pytest-lsp's ``pytest_runtest_call`` fails an item without it).
    funcargs: Mapping[str, object] = MappingProxyType({})

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str | Any:
        if isinstance(excinfo.value, ProblemFailure | RunFailure):
            return excinfo.value.text
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Headed as the CLI names a run, ``suite · run`` (and `` · record``): pytest
        shows a Python domain's dots as ``::``, a name with `` · `` as it is."""
        return self.path, None, " · ".join(self.nodeid.split("::")[1:])


class ProblemItem(_Node):
    """A configuration or suite that cannot run: fails with its located problems."""

    def __init__(self, *, head: str, problems: Sequence[Problem], **kw: Any) -> None:
        super().__init__(**kw)
        self.head, self.problems = head, tuple(problems)

    def runtest(self) -> None:
        raise ProblemFailure(self.head, self.problems)


class ConfigFile(pytest.File):
    """An evalschema configuration: its suites, and an item for each that cannot run."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        loaded = load_config(self.path)
        by_suite: dict[str | None, list[Problem]] = {}
        for p in loaded.errors:
            by_suite.setdefault(p.data.get("suite"), []).append(p)
        if None in by_suite or loaded.config is None:
            yield ProblemItem.from_parent(self, name="configuration", problems=by_suite.pop(
                None, []), head=f"{self.path.name}: the configuration is invalid")
        for name, problems in by_suite.items():
            yield ProblemItem.from_parent(self, name=str(name), problems=problems,
                                          head=f"suite {name!r} cannot run")
        if loaded.config is not None:
            for cfg in loaded.config.suites:
                yield SuiteNode.from_parent(self, name=cfg.name, cfg=cfg,
                                            project=loaded.config)


class SuiteNode(pytest.Collector):
    """One suite: a node per run (an item, or with records a collector of records)."""

    def __init__(self, *, cfg: SuiteConfig, project: Config, **kw: Any) -> None:
        super().__init__(**kw)
        self.cfg, self.project = cfg, project

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        names = [p.name for p in self.cfg.extracted]
        node = RecordsNode if _records(self.config) else RunItem
        for path, name in zip(self.cfg.extracted, names, strict=True):
            shown = name if names.count(name) == 1 else \
                path.relative_to(self.project.folder).as_posix()
            yield node.from_parent(self, name=shown, extracted=str(path))

    @cached_property
    def suite(self) -> Suite:
        """The suite as ``evalschema eval`` runs it (``InputError`` when its schema cannot
        be read)."""
        return configured_suite(self.cfg, self.project, trusted=True)


class _Scored:
    """A run of a suite, scored once (by the first of its nodes that needs it)."""

    parent: Any
    config: pytest.Config
    extracted: str

    @property
    def _suite_node(self) -> SuiteNode:
        node = self.parent
        while not isinstance(node, SuiteNode):
            node = node.parent
        return node

    @property
    def suite(self) -> Suite:
        return self._suite_node.suite

    @property
    def suite_label(self) -> str:
        """``suite · run``, as the CLI names a run."""
        return f"{self._suite_node.name} · {Path(self.extracted).name}"

    @cached_property
    def outcome(self) -> EvalOutcome:
        if isinstance(self.parent, _Scored):  # the thresholds of a run with record items
            return self.parent.outcome
        suite = self.suite
        return evaluate_files(suite.spec(), suite.gold, self.extracted, workers=1,
                              keep_records=_records(self.config), worst=1)

    def report(self) -> RunReport:
        """The run checked against the suite's thresholds (``EvalSchemaError`` for input
        that cannot be scored, or a threshold on a field the schema does not have)."""
        suite = self.suite
        checks = check_run(self.outcome.run, fail_under=suite.fail_under,
                           fail_metric=suite.fail_metric, thresholds=suite.check_thresholds())
        return RunReport.from_outcome(self.outcome, suite.label(self.extracted),
                                      suite=suite.name, extracted=self.extracted,
                                      checks=checks)

    def failure(self, exc: EvalSchemaError) -> ProblemFailure:
        """The error as the CLI shows it: its summary, then each problem, located."""
        try:
            source = error_source(exc, self.suite)
        except EvalSchemaError:
            source = None
        head = f"{self.suite_label} cannot be scored: {str(exc).splitlines()[0]}"
        return ProblemFailure(one_line(head), [
            p if p.source or source is None else replace(p, source=source)
            for p in exc.problems])


class RunItem(_Scored, _Node):
    """One run of a suite: passes when it meets the suite's thresholds."""

    def __init__(self, *, extracted: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.extracted = extracted

    def runtest(self) -> None:
        try:
            report = self.report()
        except EvalSchemaError as exc:
            raise self.failure(exc) from None
        self.user_properties.extend(run_properties(report))
        if not report.passed:
            raise RunFailure(run_message(report))


class RecordsNode(_Scored, pytest.Collector):
    """A run with ``--evalschema-records``: its thresholds, then one item per record (the
    run is scored while collecting, to know its records)."""

    def __init__(self, *, extracted: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.extracted = extracted

    def collect(self) -> Iterator[pytest.Item]:
        try:
            records = self.outcome.run.records
        except EvalSchemaError as exc:
            failure = self.failure(exc)
            yield ProblemItem.from_parent(self, name="run", head=failure.head,
                                          problems=failure.problems)
            return
        yield RunItem.from_parent(self, name="thresholds", extracted=self.extracted)
        seen: dict[str, int] = {}
        for rec in records:
            n = seen[rec.label] = seen.get(rec.label, 0) + 1
            yield RecordItem.from_parent(self, name=rec.label if n == 1 else
                                         f"{rec.label} ({n})", record=rec)


class RecordItem(_Node):
    """One record of a run: passes when every field of it matches."""

    def __init__(self, *, record: RecordResult, **kw: Any) -> None:
        super().__init__(**kw)
        self.record = record

    def runtest(self) -> None:
        if not record_passed(self.record):
            raise RunFailure(record_message(self.record))
