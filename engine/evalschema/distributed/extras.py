"""The optional engines' packages: imported when a run asks for them, else a located
error that says what to install (never an ImportError's traceback)."""

from __future__ import annotations

import importlib
from typing import Any

from evalschema.errors import InputError, Problem


def need_engine(module: str, engine: str) -> Any:
    """Import ``module`` for ``--engine <engine>``, or raise ``engine-unavailable``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise InputError([Problem(
            "engine-unavailable", f"the {engine} engine needs {module.split('.')[0]}, which "
            f"cannot be imported here ({exc})", source="--engine",
            suggestion=f"pip install 'evalschema[{engine}]'")],
            f"the {engine} engine is not installed") from None
