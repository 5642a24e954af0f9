"""The rules of the house (docs/architecture.md), checked over the source's imports.

Every ``import`` and ``from ... import`` in engine/ and server/ is read with ``ast``,
including imports inside functions (a lazy import is still a dependency) and excluding
those under ``if TYPE_CHECKING:`` (annotations only). Each rule below names what may
import what; a change that breaks one fails here with the offending file and line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"evalschema": ROOT / "engine" / "evalschema",
           "evalschema_server": ROOT / "server" / "evalschema_server"}

#: The engine's layers, bottom up: a module may import its own layer and those below it.
#: (``evalschema`` itself, the public API, sits on top: it re-exports from every stage.)
ENGINE_LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"results", "calibration", "errors", "pointer", "policy", "limits", "safetext",
               "jsontypes", "judge", "version", "display", "frames"}),
    frozenset({"io"}),
    frozenset({"rules"}),
    frozenset({"schema"}),
    frozenset({"scoring"}),
    frozenset({"run", "project"}),
    frozenset({"report", "compat", "mlflow", "distributed", "ray", "spark"}),
    frozenset({"cli", "testing"}),
)


@dataclass(frozen=True)
class Import:
    source: str  # importing module
    target: str  # imported module (resolved to a module where the name is one)
    where: str  # file:line

    def __str__(self) -> str:
        return f"{self.where}: {self.source} imports {self.target}"


def module_name(path: Path) -> str:
    for top, folder in SOURCES.items():
        if path.is_relative_to(folder):
            parts = [top, *path.relative_to(folder).with_suffix("").parts]
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    raise ValueError(path)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for folder in SOURCES.values() for p in sorted(folder.rglob("*.py"))}


MODULES = all_modules()


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(name: str, path: Path) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom) or _type_checking_only(node, parents):
            continue
        where = f"{rel}:{node.lineno}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(name, alias.name, where)
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            module = ".".join([*base, node.module] if node.module else base)
        else:
            module = node.module or ""
        for alias in node.names:
            sub = f"{module}.{alias.name}"
            yield Import(name, sub if sub in MODULES else module, where)


def internal_imports() -> list[Import]:
    out = []
    for name, path in MODULES.items():
        out.extend(i for i in imports_of(name, path)
                   if i.target.split(".")[0] in SOURCES and i.target != i.source)
    return out


IMPORTS = internal_imports()


def stage(module: str) -> str | None:
    """The engine stage a module belongs to (its first name under ``evalschema``)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "evalschema" and len(parts) > 1 else None


def layer(module: str) -> int | None:
    s = stage(module)
    for i, names in enumerate(ENGINE_LAYERS):
        if s in names:
            return i
    return None


def test_every_engine_module_has_a_layer() -> None:
    """A new top-level module or package must be placed in a layer (and in the docs)."""
    missing = sorted({m for m in MODULES if m.startswith("evalschema.")
                      and m != "evalschema.__main__" and layer(m) is None})
    assert missing == []


def test_the_engine_never_imports_the_server() -> None:
    """Not even lazily: ``evalschema serve`` finds the server through an entry point."""
    bad = [str(i) for i in IMPORTS
           if i.source.startswith("evalschema.") or i.source == "evalschema"
           if i.target.startswith("evalschema_server")]
    assert bad == []
    mentions = [str(path.relative_to(ROOT)) for name, path in MODULES.items()
                if name.split(".")[0] == "evalschema"
                and "import_module(\"evalschema_server" in path.read_text(encoding="utf-8")]
    assert mentions == []


def test_engine_stages_import_only_downwards() -> None:
    """files -> records -> pairs -> schema tree -> field results -> aggregates -> reports:
    no stage imports a later one (rules and schema know nothing of scoring or runs)."""
    bad = []
    for i in IMPORTS:
        src, dst = layer(i.source), layer(i.target)
        if src is not None and dst is not None and dst > src:
            bad.append(str(i))
        elif src is not None and i.target == "evalschema":
            bad.append(f"{i} (the public API: import from the defining module)")
    assert bad == []


def defined_names(path: Path) -> set[str]:
    """The names a module defines at its top level (not those it only imports)."""
    names: set[str] = set()
    body = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while body:
        node = body.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.If | ast.Try | ast.With):
            body.extend(node.body)
            body.extend(getattr(node, "orelse", []))
            body.extend(x for h in getattr(node, "handlers", []) for x in h.body)
    return names


def test_names_are_imported_from_the_module_that_defines_them() -> None:
    """No module passes on a name it imported (an old import path kept alive); only a
    package's ``__init__`` may gather its modules' names (the public API, ``document``)."""
    defined = {name: defined_names(path) for name, path in MODULES.items()
               if path.name != "__init__.py"}
    bad = []
    for name, path in MODULES.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)] \
                if node.level else []
            module = ".".join([*base, node.module] if node.module else base) if node.level \
                else node.module or ""
            if module not in defined:
                continue
            bad += [f"{path.relative_to(ROOT)}:{node.lineno}: {a.name} from {module}"
                    for a in node.names if a.name not in defined[module]
                    and f"{module}.{a.name}" not in MODULES]
    assert bad == []


def handler_modules() -> set[str]:
    """The server's feature handlers: the modules of ``handlers/`` that ``register``."""
    return {name for name, path in MODULES.items()
            if name.startswith("evalschema_server.handlers.")
            and any(isinstance(n, ast.FunctionDef) and n.name == "register"
                    for n in ast.parse(path.read_text(encoding="utf-8")).body)}


def test_handlers_do_not_import_each_other() -> None:
    handlers = handler_modules()
    assert len(handlers) >= 10
    bad = [str(i) for i in IMPORTS if i.source in handlers and i.target in handlers]
    assert bad == []


def test_the_server_uses_the_engine_not_its_cli() -> None:
    bad = [str(i) for i in IMPORTS if i.source.startswith("evalschema_server")
           and i.target.startswith("evalschema.cli")]
    assert bad == []


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def module_graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for i in IMPORTS:
        # A package's __init__ re-exporting its modules is not a dependency of theirs on it.
        if i.target in MODULES and not i.source.endswith("__main__"):
            edges.setdefault(i.source, set()).add(i.target)
    return edges


def test_no_import_cycles() -> None:
    assert _cycles(module_graph()) == []


@pytest.mark.parametrize("edges, cycles", [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
])
def test_cycle_finder(edges: dict[str, set[str]], cycles: list[list[str]]) -> None:
    assert _cycles(edges) == cycles


def test_imports_are_read_including_lazy_ones_but_not_type_checking(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\n"
                   "def f():\n    import y\n    from .z import w\n", encoding="utf-8")
    got = {i.target for i in imports_of("pkg.m", src) if i.target != "typing"}
    assert got == {"y", "pkg.z"}


DETAILED_STAGES = ("io", "rules", "schema", "scoring", "run", "project")


def _mapped(doc: str, heading: str) -> str:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_the_package_map_in_the_docs_names_every_module() -> None:
    """docs/architecture.md's map names every top-level module and package, and every
    module of the pipeline's stages; a module added without a line there fails here."""
    text = _mapped("architecture.md", "## The package map")
    engine = SOURCES["evalschema"]
    expected = [p.name + ("/" if p.is_dir() else "") for p in engine.iterdir()
                if (p.is_dir() and (p / "__init__.py").exists())
                or (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))]
    expected += [f"{p.stem}.py" for s in DETAILED_STAGES for p in (engine / s).glob("*.py")
                 if p.stem != "__init__"]
    missing = sorted(name for name in expected if name not in text)
    assert missing == []


def test_the_server_module_map_names_every_module() -> None:
    text = _mapped("server.md", "## How the server is built")
    server = SOURCES["evalschema_server"]
    names = [p.stem for p in server.glob("*.py") if p.stem not in ("__init__",)]
    names += [p.name for p in server.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    names += [p.stem for p in (server / "handlers").glob("*.py") if p.stem != "__init__"]
    missing = sorted(n for n in names if f"`{n}" not in text and f"{n}`" not in text)
    assert missing == []
