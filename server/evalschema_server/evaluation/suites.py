"""Which files go together: suites from ``evalschema.toml`` (or ``[tool.evalschema]``)
in each workspace folder, else by naming convention.

Convention, per folder: ``NAME.eval.json`` pairs with ``NAME.gold.json[l]`` and every
``NAME.*.extracted.json[l]`` beside it, or the JSON files of an ``extracted/`` folder
beside it. A folder whose configuration declares suites uses those only.

Discovery reads the configuration's text from the editor when it is open (so unsaved
edits count) and returns its problems for the server to show in that file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from evalschema.errors import Problem
from evalschema.project.config import Config, LoadedConfig, SuiteConfig, find_config, parse_config

#: Folders never searched for convention suites.
SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__",
                       ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox", "dist", "build"})
MAX_DEPTH = 6
SCHEMA_SUFFIXES = (".eval.json", ".eval.jsonc")
DATA_SUFFIXES = (".json", ".jsonl", ".ndjson")

#: Reads a file's text, from the editor when it is open: (text or None when unreadable).
ReadText = Callable[[Path], str | None]


@dataclass(frozen=True, slots=True)
class Suite:
    """A suite the server runs: the engine's suite configuration, and where it came from."""

    key: str
    config: SuiteConfig
    #: The configuration file that declares it; None for a suite found by convention.
    origin: Path | None = None
    #: The workspace folder it belongs to.
    root: Path = Path(".")

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def files(self) -> tuple[Path, ...]:
        c = self.config
        return (c.schema, c.gold, *c.extracted)

    def uses(self, path: Path) -> bool:
        return path in self.files


@dataclass(frozen=True)
class Discovery:
    """Every suite of the workspace, and the problems of its configuration files."""

    suites: tuple[Suite, ...] = ()
    #: Configuration file -> its problems (an empty tuple when it has none).
    config_problems: dict[Path, tuple[Problem, ...]] = field(default_factory=dict)
    #: Configuration files read, with the schemas they name.
    configs: tuple[Config, ...] = ()

    def suite(self, key_or_name: str) -> Suite | None:
        return next((s for s in self.suites if s.key == key_or_name), None) or next(
            (s for s in self.suites if s.name == key_or_name), None)

    def using(self, path: Path) -> list[Suite]:
        return [s for s in self.suites if s.uses(path)]

    @property
    def files(self) -> set[Path]:
        return {f for s in self.suites for f in s.files}


def discover(roots: Iterable[Path], read: ReadText) -> Discovery:
    roots = list(roots)
    suites: list[Suite] = []
    problems: dict[Path, tuple[Problem, ...]] = {}
    configs: list[Config] = []
    for root in roots:
        found = find_config(root)
        if found is not None:
            loaded = _load(found.resolve(), read)
            problems[found.resolve()] = loaded.problems
            if loaded.config is not None:
                configs.append(loaded.config)
                suites.extend(Suite(_key(root, c.name, len(roots)), _resolved(c),
                                    found.resolve(), root) for c in loaded.config.suites)
                continue
        # Keyed like configured suites: "folder:name" when there are several folders.
        suites.extend(replace(s, key=_key(root, s.name, len(roots)))
                      for s in by_convention(root))
    return Discovery(tuple(_unique_keys(suites)), problems, tuple(configs))


def _resolved(c: SuiteConfig) -> SuiteConfig:
    """Absolute, symlink-free paths: the same form as the paths of open documents."""
    return replace(c, schema=c.schema.resolve(), gold=c.gold.resolve(),
                   extracted=tuple(p.resolve() for p in c.extracted))


def _key(root: Path, name: str, n_roots: int) -> str:
    return name if n_roots <= 1 else f"{root.name}:{name}"


def _unique_keys(suites: list[Suite]) -> list[Suite]:
    """Two suites of the same name (convention suites in sibling folders) get their
    folder in the key, so commands can name each."""
    seen: dict[str, int] = {}
    for s in suites:
        seen[s.key] = seen.get(s.key, 0) + 1
    out = []
    for s in suites:
        if seen[s.key] > 1:
            rel = os.path.relpath(s.config.schema.parent, s.root)
            s = Suite(f"{s.key} ({rel})", s.config, s.origin, s.root)
        out.append(s)
    return out


def _load(path: Path, read: ReadText) -> LoadedConfig:
    text = read(path)
    if text is None:
        return LoadedConfig(None, (Problem("unreadable-file", "cannot read the configuration",
                                           source=str(path)),))
    return parse_config(text, path)


def by_convention(root: Path) -> list[Suite]:
    out: list[Suite] = []
    for folder, schemas in _schema_files(root):
        names = os.listdir(folder)
        for schema in sorted(schemas):
            suite = _convention_suite(root, folder, schema, names)
            if suite is not None:
                out.append(suite)
    return out


def _schema_files(root: Path) -> Iterable[tuple[Path, list[str]]]:
    base_depth = len(root.parts)
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        if len(here.parts) - base_depth >= MAX_DEPTH:
            dirnames[:] = []
        schemas = [f for f in filenames if f.endswith(SCHEMA_SUFFIXES)]
        if schemas:
            yield here, schemas


def _convention_suite(root: Path, folder: Path, schema: str, names: list[str]) -> Suite | None:
    stem = schema[: -len(".eval.json")] if schema.endswith(".eval.json") \
        else schema[: -len(".eval.jsonc")]
    gold = next((folder / f"{stem}.gold{ext}" for ext in (".jsonl", ".json", ".ndjson")
                 if f"{stem}.gold{ext}" in names), None)
    if gold is None:
        return None
    prefix = f"{stem}."
    extracted = sorted(folder / n for n in names
                       if n.startswith(prefix) and n.endswith(
                           tuple(f".extracted{e}" for e in DATA_SUFFIXES)))
    sub = folder / "extracted"
    if sub.is_dir():
        files = sorted(p for p in sub.iterdir() if p.is_file() and p.name.endswith(DATA_SUFFIXES))
        mine = [p for p in files if p.name.startswith(prefix)]
        extracted.extend(mine or files)
    if not extracted:
        return None
    config = SuiteConfig(stem, (folder / schema).resolve(), gold.resolve(),
                         tuple(p.resolve() for p in extracted))
    return Suite(stem, config, None, root)
