"""The house rules of handlers/: a handler imports no other handler (what they share is in
``shared``), and the server class only for type checking (it imports the handlers)."""

from __future__ import annotations

import ast
from pathlib import Path

import evalschema_server.handlers as handlers_pkg

HANDLERS = Path(handlers_pkg.__file__).parent
NAMES = {p.stem for p in HANDLERS.glob("*.py")} - {"__init__", "shared"}


def imports(tree: ast.Module) -> list[tuple[str, bool]]:
    """(module, for type checking only) of each relative import, as ``..x`` or ``.y``."""
    out = []
    checking = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) \
                and node.test.id == "TYPE_CHECKING":
            checking.update(id(n) for b in node.body for n in ast.walk(b))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = "." * node.level + (node.module or "")
            names = [base] if node.module else [base + a.name for a in node.names]
            out.extend((n, id(node) in checking) for n in names)
    return out


def test_every_feature_module_is_registered() -> None:
    assert {m.__name__.rsplit(".", 1)[1] for m in handlers_pkg.FEATURES} == NAMES


def test_handlers_import_no_other_handler_and_the_server_only_for_types() -> None:
    for name in sorted(NAMES | {"shared"}):
        tree = ast.parse((HANDLERS / f"{name}.py").read_text(encoding="utf-8"))
        for module, for_types in imports(tree):
            assert module.lstrip(".") not in NAMES, f"handlers/{name}.py imports {module}"
            if module == "..server":
                assert for_types, f"handlers/{name}.py imports the server at run time"
