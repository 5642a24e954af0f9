"""The project configuration: ``evalschema.toml``, or ``[tool.evalschema]`` in
``pyproject.toml``.

```toml
[[suite]]
name = "invoices"
schema = "invoices.eval.json"
gold = "invoices.gold.jsonl"
extracted = ["runs/*.jsonl"]          # files or globs, relative to this file
id_field = "invoice_id"               # optional: else the schema's x-eval-id, else position
null_policy = "absent"                # optional: "value" (default) or "absent"
fail_under = 0.85                     # optional: overall F1 below this fails (exit 1)
fail_metric = "macro"                 # optional: "macro" (mean over records) or "micro"
comparator_modules = ["my_comparators.py"]  # optional, imported (to register comparators)
                                          # only when the user trusts the folder
fields = ["total", "line_items[].amount"] # optional: only score these fields
target = "vendor"                     # optional: only score this sub-tree

[suite.thresholds]                    # optional: per-field F1 thresholds
total = 0.95
"line_items[].amount" = 0.9
```

``load_config`` never raises on a bad file: it returns what it could read and every
problem found, each a ``Problem`` located by ``line``/``column`` where the text
shows it and by a JSON Pointer into the configuration (``/suite/0/fail_under``)
always. Only suites without errors are in ``Config.suites``. The language server
reads the same objects (``parse_config`` takes an unsaved buffer's text).

Where keys sit in the text is ``toml_locations``' concern; expanding a suite's glob
patterns without running away, ``bounded_glob``'s.
"""

from __future__ import annotations

import re
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from evalschema import limits
from evalschema.errors import Problem, Severity, did_you_mean
from evalschema.io.regularfile import read_regular
from evalschema.judge.settings import ENDPOINT_KEYS, HOW_TO_CONFIGURE
from evalschema.pointer import escape
from evalschema.project.bounded_glob import GLOB_CHARS, bounded_glob
from evalschema.project.gate import FailMetric
from evalschema.project.toml_locations import error_position, key_locations
from evalschema.rules.custom_modules import is_path_entry

CONFIG_FILE = "evalschema.toml"
PYPROJECT = "pyproject.toml"

#: Each key of a ``[[suite]]`` table and what it does (the editor's hover shows these).
SUITE_KEY_DOCS: Mapping[str, str] = MappingProxyType({
    "name": "The suite's name: how the CLI, the reports and the editor call it.",
    "schema": "The eval schema (JSON Schema with `x-eval-*` keys), relative to this file.",
    "gold": "The gold records (JSONL, or a JSON array), relative to this file.",
    "extracted": "The runs to score: files or globs (`runs/*.jsonl`), relative to this file, "
                 "in this order (the first is the baseline of comparisons).",
    "id_field": "The key that pairs gold and extracted records; else the schema's "
                "`x-eval-id`, else records pair by position.",
    "null_policy": "`\"value\"` (default): `null` is a value to match; `\"absent\"`: `null` "
                   "counts as missing.",
    "fail_under": "The overall F1 a run must reach (a fraction): below it `evalschema eval` "
                  "exits 1, and the editor marks the run ✗.",
    "fail_metric": "Which overall F1 `fail_under` reads: `\"macro\"` (mean over records, "
                   "default) or `\"micro\"` (pooled).",
    "thresholds": "Per-field F1 thresholds (`[suite.thresholds]`, field path = fraction): a "
                  "field below its threshold fails the run and is flagged in the schema.",
    "comparator_modules": "Modules that register custom comparators and transforms; "
                          "imported only when the user trusts the folder.",
    "fields": "Only score these fields (paths such as `line_items[].amount`).",
    "target": "Only score this sub-tree of each record.",
})
SUITE_KEYS = tuple(SUITE_KEY_DOCS)
_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def _frozen(d: Mapping[str, float] | None = None) -> Mapping[str, float]:
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True, slots=True)
class SuiteConfig:
    """One suite: a schema, a gold file, extraction runs, and how to gate them.

    Paths are resolved against the configuration file's folder; ``extracted`` holds
    the files the ``extracted_patterns`` matched, in pattern order, each sorted.
    """

    name: str
    schema: Path
    gold: Path
    extracted: tuple[Path, ...]
    extracted_patterns: tuple[str, ...] = ()
    id_field: str | None = None
    null_policy: str | None = None
    fail_under: float | None = None
    fail_metric: FailMetric = "macro"
    thresholds: Mapping[str, float] = field(default_factory=_frozen)
    comparator_modules: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    target: str | None = None
    #: JSON Pointer of this suite's table in the configuration document.
    pointer: str = ""
    #: 1-based line of the suite's ``[[suite]]`` header, when known.
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "schema": str(self.schema), "gold": str(self.gold),
            "extracted": [str(p) for p in self.extracted],
            "extracted_patterns": list(self.extracted_patterns),
            "id_field": self.id_field, "null_policy": self.null_policy,
            "fail_under": self.fail_under, "fail_metric": self.fail_metric,
            "thresholds": dict(self.thresholds),
            "comparator_modules": list(self.comparator_modules),
            "fields": list(self.fields), "target": self.target,
        }


@dataclass(frozen=True, slots=True)
class Config:
    """A configuration file and its valid suites."""

    path: Path
    suites: tuple[SuiteConfig, ...]
    #: Pointer of the evalschema table: "" in evalschema.toml, "/tool/evalschema" in
    #: pyproject.toml.
    prefix: str = ""
    #: Pointer -> (line, column) of the keys and tables found in the text.
    locations: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    def locate(self, pointer: str) -> tuple[int | None, int | None]:
        """Line and column of ``pointer``, or of its nearest located parent."""
        p = pointer
        while True:
            if p in self.locations:
                return self.locations[p]
            if not p:
                return None, None
            p = p.rsplit("/", 1)[0]

    def problem(self, code: str, message: str, pointer: str, *, suite: str | None = None,
                suggestion: str | None = None, target: str = "value") -> Problem:
        """A problem located in this file (for checks made after loading, such as a
        threshold naming a field the schema does not have)."""
        line, col = self.locate(pointer)
        return Problem(code, message, pointer, suggestion, Severity.ERROR, target,
                       str(self.path), line, col, {"suite": suite} if suite else {})

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.suites)

    def suite(self, name: str) -> SuiteConfig | None:
        return next((s for s in self.suites if s.name == name), None)


@dataclass(frozen=True, slots=True)
class LoadedConfig:
    """The result of reading a configuration: what could be read, and every problem.

    ``config`` is ``None`` only when the file could not be read or parsed at all.
    A problem about one suite carries the suite's name in ``data["suite"]``.
    """

    config: Config | None
    problems: tuple[Problem, ...] = ()

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.ERROR)

    def errors_for(self, suites: set[str] | None) -> tuple[Problem, ...]:
        """Errors that concern the named suites (all when ``None``) or no suite."""
        return tuple(p for p in self.errors if suites is None or p.data.get("suite") is None
                     or p.data["suite"] in suites)


#: The largest configuration file read (a project's file is not trusted: it may be a
#: FIFO, a device or huge, and ``read_regular`` refuses those without blocking).
CONFIG_MAX_BYTES = 16 * 2**20


def _read(path: Path) -> str:
    return read_regular(path, CONFIG_MAX_BYTES).decode("utf-8")


def find_config(directory: str | Path = ".") -> Path | None:
    """``evalschema.toml`` in ``directory``, else its ``pyproject.toml`` when that has a
    ``[tool.evalschema]`` table."""
    folder = Path(directory)
    own = folder / CONFIG_FILE
    if own.is_file():
        return own
    pyproject = folder / PYPROJECT
    if pyproject.is_file():
        try:
            data = tomllib.loads(_read(pyproject))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None
        tool = data.get("tool")
        if isinstance(tool, dict) and "evalschema" in tool:
            return pyproject
    return None


def load_config(path: str | Path) -> LoadedConfig:
    """Read and check a configuration file (never raises for a bad one)."""
    p = Path(path)
    try:
        text = _read(p)
    except FileNotFoundError:
        return LoadedConfig(None, (Problem("file-not-found", "configuration file not found",
                                           source=str(p), suggestion="check the path"),))
    except (OSError, UnicodeDecodeError) as exc:
        return LoadedConfig(None, (Problem("unreadable-file", f"cannot read: {exc}",
                                           source=str(p)),))
    return parse_config(text, p)


def parse_config(text: str, path: str | Path, *, pyproject: bool | None = None) -> LoadedConfig:
    """Check configuration ``text`` as if read from ``path`` (relative paths in it resolve
    from ``path``'s folder). ``pyproject`` defaults to whether the file is named
    ``pyproject.toml``."""
    p = Path(path)
    source = str(p)
    is_pyproject = p.name == PYPROJECT if pyproject is None else pyproject
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg, line, col = error_position(str(exc))
        return LoadedConfig(None, (Problem("invalid-toml", f"not valid TOML: {msg}",
                                           source=source, line=line, column=col),))
    checker = _Checker(text, source, p.parent, "/tool/evalschema" if is_pyproject else "")
    if is_pyproject:
        tool = data.get("tool")
        table = tool.get("evalschema") if isinstance(tool, dict) else None
        if table is None:
            checker.problem("no-config", "pyproject.toml has no [tool.evalschema] table", "",
                            suggestion="add [[tool.evalschema.suite]] tables, or use "
                            "evalschema.toml")
            return LoadedConfig(None, tuple(checker.problems))
        if not isinstance(table, dict):
            checker.problem("bad-type", "tool.evalschema must be a table", "")
            return LoadedConfig(None, tuple(checker.problems))
        data = table
    suites = checker.check(data)
    return LoadedConfig(Config(p, tuple(suites), checker.prefix, MappingProxyType(checker.where)),
                        tuple(checker.problems))


def _judge_key(key: str) -> bool:
    return key in ENDPOINT_KEYS or key in ("judge", "judges")


class _Checker:
    def __init__(self, text: str, source: str, folder: Path, prefix: str) -> None:
        self.source = source
        self.folder = folder
        self.prefix = prefix
        self.where = key_locations(text, prefix)
        self.problems: list[Problem] = []

    def locate(self, pointer: str) -> tuple[int | None, int | None]:
        return Config(Path(self.source), (), self.prefix, self.where).locate(pointer)

    def problem(self, code: str, message: str, pointer: str, *, suite: str | None = None,
                suggestion: str | None = None, target: str = "value",
                data: dict[str, Any] | None = None) -> None:
        line, col = self.locate(pointer)
        extra = dict(data or {})
        if suite is not None:
            extra["suite"] = suite
        self.problems.append(Problem(code, message, pointer, suggestion, Severity.ERROR, target,
                                     self.source, line, col, extra))

    def judge_key(self, key: str, pointer: str, suite: str | None = None) -> None:
        """A project file may not say where judge requests go or which key they carry."""
        self.problem("judge-endpoint-in-config", f"{key!r} in a project file would choose "
                     "where your data and API key are sent", pointer, suite=suite,
                     target="key", suggestion=HOW_TO_CONFIGURE)

    # -- the document ---------------------------------------------------------------

    def check(self, data: dict[str, Any]) -> list[SuiteConfig]:
        for key in data:
            if _judge_key(key):
                self.judge_key(key, f"{self.prefix}/{escape(key)}")
            elif key != "suite":
                hint = did_you_mean(key, ["suite"])
                self.problem("unknown-key", f"unknown key {key!r}",
                             f"{self.prefix}/{escape(key)}", target="key",
                             suggestion=f"did you mean {hint!r}?" if hint else
                             "the configuration holds [[suite]] tables")
        raw = data.get("suite")
        if raw is None:
            self.problem("no-suites", "no [[suite]] tables", self.prefix,
                         suggestion="add a [[suite]] table with name, schema, gold and extracted")
            return []
        if isinstance(raw, dict):
            raw = [raw]
        if not isinstance(raw, list):
            self.problem("bad-type", "suite must be an array of tables ([[suite]])",
                         f"{self.prefix}/suite")
            return []
        suites: list[SuiteConfig] = []
        names: dict[str, int] = {}
        for i, table in enumerate(raw):
            pointer = f"{self.prefix}/suite/{i}"
            if not isinstance(table, dict):
                self.problem("bad-type", f"suite {i} must be a table", pointer)
                continue
            name = table.get("name")
            label = name if isinstance(name, str) and name else f"#{i + 1}"
            if isinstance(name, str) and name in names:
                self.problem("duplicate-suite", f"suite name {name!r} is used again (first by "
                             f"suite {names[name] + 1})", f"{pointer}/name", suite=name,
                             suggestion="give every suite its own name")
                continue
            if isinstance(name, str) and name:
                names[name] = i
            suite = self.suite(table, pointer, label)
            if suite is not None:
                suites.append(suite)
        return suites

    def suite(self, t: dict[str, Any], pointer: str, label: str) -> SuiteConfig | None:
        before = len(self.problems)

        def bad(code: str, message: str, key: str, **kw: Any) -> None:
            self.problem(code, message, f"{pointer}/{escape(key)}" if key else pointer,
                         suite=label, **kw)

        for key in t:
            if _judge_key(key):
                self.judge_key(key, f"{pointer}/{escape(key)}", label)
            elif key not in SUITE_KEYS:
                hint = did_you_mean(key, SUITE_KEYS)
                bad("unknown-key", f"unknown key {key!r} in suite {label!r}", key, target="key",
                    suggestion=f"did you mean {hint!r}?" if hint else
                    "known keys: " + ", ".join(SUITE_KEYS),
                    data={"replacements": [hint]} if hint else None)
        for key in ("name", "schema", "gold", "extracted"):
            if key not in t:
                bad("missing-key", f"suite {label!r} has no {key!r}", "",
                    suggestion=f"add {key} = …")

        def text(key: str) -> str | None:
            v = t.get(key)
            if v is None:
                return None
            if not isinstance(v, str) or not v:
                bad("bad-type", f"{key} must be a non-empty string", key)
                return None
            return v

        def strings(key: str) -> tuple[str, ...]:
            v = t.get(key)
            if v is None:
                return ()
            if isinstance(v, str):
                v = [v]
            if not isinstance(v, list) or not v or not all(isinstance(x, str) and x for x in v):
                bad("bad-type", f"{key} must be a string or a non-empty list of strings", key)
                return ()
            return tuple(v)

        def fraction(value: Any, where: str, what: str) -> float | None:
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.problem("bad-type", f"{what} must be a number between 0 and 1", where,
                             suite=label)
                return None
            if not 0.0 <= float(value) <= 1.0:
                self.problem("bad-value", f"{what} {value} is not between 0 and 1", where,
                             suite=label, suggestion="F1 thresholds are fractions, e.g. 0.9")
                return None
            return float(value)

        name = text("name") or label
        schema = self.path(text("schema"), f"{pointer}/schema", label, "schema")
        gold = self.path(text("gold"), f"{pointer}/gold", label, "gold")
        patterns = strings("extracted")
        extracted: list[Path] = []
        for k, pattern in enumerate(patterns):
            where = f"{pointer}/extracted" + (f"/{k}" if isinstance(t.get("extracted"), list)
                                              else "")
            extracted.extend(self.expand(pattern, where, label))
        id_field = text("id_field")
        null_policy = text("null_policy")
        if null_policy is not None and null_policy not in ("value", "absent"):
            bad("bad-value", f"null_policy {null_policy!r} is not 'value' or 'absent'",
                "null_policy")
            null_policy = None
        fail_under = None
        if "fail_under" in t:
            fail_under = fraction(t["fail_under"], f"{pointer}/fail_under", "fail_under")
        fail_metric = t.get("fail_metric", "macro")
        if fail_metric not in ("macro", "micro"):
            bad("bad-value", f"fail_metric {fail_metric!r} is not 'macro' or 'micro'",
                "fail_metric")
            fail_metric = "macro"
        thresholds: dict[str, float] = {}
        raw_thresholds = t.get("thresholds", {})
        if not isinstance(raw_thresholds, dict):
            bad("bad-type", "thresholds must be a table of field path = F1", "thresholds")
        else:
            for fpath, value in raw_thresholds.items():
                v = fraction(value, f"{pointer}/thresholds/{escape(fpath)}",
                             f"threshold of {fpath!r}")
                if v is not None:
                    thresholds[fpath] = v
        modules = strings("comparator_modules")
        for k, mod in enumerate(modules):
            if not (_MODULE_NAME.match(mod) or is_path_entry(mod)):
                self.problem("bad-value", f"{mod!r} is not a Python module name nor a path",
                             f"{pointer}/comparator_modules/{k}", suite=label,
                             suggestion="a dotted name from the installed environment such as "
                             "my_package.comparators, or the path of a .py file such as "
                             "my_comparators.py")
        fields = strings("fields")
        target = text("target")
        if len(self.problems) > before or schema is None or gold is None or not extracted:
            return None
        line, _ = self.locate(pointer)
        return SuiteConfig(name, schema, gold, tuple(extracted), patterns, id_field,
                           null_policy, fail_under, fail_metric, _frozen(thresholds),
                           modules, fields, target, pointer, line)

    def path(self, value: str | None, pointer: str, suite: str, what: str) -> Path | None:
        if value is None:
            return None
        if not self.confined(value, pointer, suite, what):
            return None
        p = self.folder / value
        if not p.exists():
            self.problem("file-not-found", f"{what} {value!r} not found (looked for {p})",
                         pointer, suite=suite, suggestion="paths are relative to the "
                         "configuration file")
            return None
        return p if self.inside(p, value, pointer, suite, what) else None

    def confined(self, value: str, pointer: str, suite: str, what: str) -> bool:
        """A configured path or pattern stays in the configuration's folder tree: the
        configuration may be someone else's, and must not name the user's files
        elsewhere (or make a glob walk the whole disk). Paths given on the command line
        are the user's own and are not checked."""
        if Path(value).is_absolute() or value.startswith("~"):
            self.problem("path-outside-config", f"{what} {value!r} is an absolute path",
                         pointer, suite=suite, suggestion=_INSIDE)
            return False
        if ".." in Path(value).parts:
            self.problem("path-outside-config", f"{what} {value!r} leaves the "
                         "configuration's folder ('..')", pointer, suite=suite,
                         suggestion=_INSIDE)
            return False
        return True

    def inside(self, p: Path, value: str, pointer: str, suite: str, what: str) -> bool:
        """``p`` (symlinks resolved) is inside the folder and a regular file or folder."""
        try:
            real = p.resolve(strict=True)
            mode = real.stat().st_mode
        except (OSError, RuntimeError) as exc:
            self.problem("unreadable-file", f"{what} {value!r} cannot be read: {exc}",
                         pointer, suite=suite)
            return False
        if not real.is_relative_to(self.root):
            self.problem("path-outside-config", f"{what} {value!r} leads outside the "
                         f"configuration's folder (to {real})", pointer, suite=suite,
                         suggestion=_INSIDE)
            return False
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            self.problem("not-a-file", f"{what} {value!r} is not a regular file or folder",
                         pointer, suite=suite, suggestion=_INSIDE)
            return False
        return True

    @property
    def root(self) -> Path:
        return self.folder.resolve()

    def expand(self, pattern: str, pointer: str, suite: str) -> list[Path]:
        if not self.confined(pattern, pointer, suite, "extracted"):
            return []
        full = self.folder / pattern
        if not GLOB_CHARS.search(pattern):
            if full.exists():
                return [full] if self.inside(full, pattern, pointer, suite, "extracted") else []
            self.problem("file-not-found", f"extracted {pattern!r} not found (looked for "
                         f"{full})", pointer, suite=suite,
                         suggestion="paths are relative to the configuration file")
            return []
        lim = limits.current()
        found, capped = bounded_glob(self.folder, pattern, lim.glob_max_entries,
                                     lim.glob_max_files)
        if capped is not None:
            self.problem("glob-limit", f"{pattern!r} {capped}", pointer, suite=suite,
                         suggestion="narrow the pattern (a folder before '**'), or raise "
                         "EVALSCHEMA_GLOB_MAX_ENTRIES / EVALSCHEMA_GLOB_MAX_FILES")
            return []
        found = [f for f in found if self.inside(f, pattern, pointer, suite, "extracted")]
        if not found:
            self.problem("no-match", f"no file matches {pattern!r}", pointer, suite=suite,
                         suggestion="check the pattern; it is relative to the configuration "
                         "file")
        return found


_INSIDE = ("paths in a configuration are relative to its folder and stay inside it; pass "
           "a file elsewhere on the command line")


