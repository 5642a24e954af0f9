"""What several handlers need: the command prefix, file paths of URIs, a schema's results."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..evaluation.runner import SuiteOutcome
from ..uris import file_path

if TYPE_CHECKING:
    from ..server import EvalSchemaServer

#: Every command's name starts with this (the code lens runs two of them).
PREFIX = "evalschema.server."


def path_of(uri: object) -> Path | None:
    """The resolved file path of a ``file:`` URI (as suites name files), else None."""
    return file_path(uri) if isinstance(uri, str) else None


def schema_outcomes(ls: EvalSchemaServer, uri: str) -> list[SuiteOutcome]:
    """The last outcome of each suite whose schema is ``uri``."""
    path = path_of(uri)
    if path is None:
        return []
    return [o for o in ls.evaluation.outcomes_for(path) if o.suite.config.schema == path]
