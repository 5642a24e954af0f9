"""Custom comparator modules: what an entry names, and importing it without ever putting a
folder of the workspace on ``sys.path``.

An entry is either

- a dotted module name (``my_package.comparators``), imported from the installed Python
  environment exactly as the interpreter set up ``sys.path`` (never the current folder or the
  configuration's folder: a stray ``html.py`` there must not replace the standard library's); or
- the path of a ``.py`` file or of a package folder holding ``__init__.py`` (anything ending in
  ``.py`` or holding a ``/``: ``my_comparators.py``, ``./comparators/``), loaded from that file
  alone under a private module name, so it never shadows another module.

Whether an entry may be imported at all (the user's opt-in) is the caller's decision: the
command line and the language server decide it; this module only imports.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: Prefix of the private names that modules loaded from a path get in ``sys.modules``.
PRIVATE_PREFIX = "evalschema_custom_"


def is_path_entry(entry: str) -> bool:
    """Whether an entry names a file or folder (else it is a dotted module name)."""
    return entry.endswith(".py") or "/" in entry or "\\" in entry


def resolve_entry(entry: str, base: Path | str) -> str:
    """A dotted name as it is; a path made absolute against ``base`` (the configuration's
    folder, or the current folder for a command-line flag)."""
    if not is_path_entry(entry):
        return entry
    return str((Path(base) / entry).resolve())


def private_name(path: Path) -> str:
    """The module name a file is loaded under: its stem plus a digest of its path."""
    stem = re.sub(r"\W", "_", path.stem if path.name != "__init__.py" else path.parent.name)
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{PRIVATE_PREFIX}{stem}_{digest}"


def load_module(entry: str) -> ModuleType:
    """Import one entry (a dotted name, or an absolute path from ``resolve_entry``); loading
    the same entry again returns the module already loaded. Raises what the import raises
    (``ModuleNotFoundError`` when the file or module does not exist)."""
    if not is_path_entry(entry):
        return importlib.import_module(entry)
    path = Path(entry)
    search: list[str] | None = None
    if path.is_dir():
        search = [str(path)]
        path = path / "__init__.py"
    if not path.is_file():
        raise ModuleNotFoundError(f"no such file: {path}")
    name = private_name(path)
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(name, path,
                                                  submodule_search_locations=search)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def load_entries(names: Sequence[str], base: Path | str | None
                 ) -> tuple[tuple[str, ...], list[tuple[int, str, Exception]]]:
    """Load every entry (paths relative to ``base``; None: already resolved), going on past
    failures: the entries loaded, and ``(index, name, exception)`` of each that was not, for
    the caller to report where the name was written."""
    loaded: list[str] = []
    failed: list[tuple[int, str, Exception]] = []
    for k, name in enumerate(names):
        entry = name if base is None else resolve_entry(name, base)
        try:
            load_module(entry)
        except Exception as exc:  # user code: any failure is reported, located by the caller
            failed.append((k, name, exc))
        else:
            loaded.append(entry)
    return tuple(loaded), failed


def import_hint(entry: str, folder: Path) -> str:
    """What to do when an entry did not import, given the folder its paths resolve from."""
    if is_path_entry(entry):
        return f"paths are relative to {folder}; name a .py file or a folder with __init__.py"
    as_path = entry.replace(".", "/")
    for candidate in (f"{as_path}.py", f"{as_path}/"):
        if (folder / candidate).exists():
            return (f"dotted names are imported from the installed Python environment only; "
                    f"to load {candidate} from {folder}, name it by its path: {candidate!r}")
    return ("dotted names are imported from the installed Python environment only (install "
            "the package there), or name a .py file by its path")
