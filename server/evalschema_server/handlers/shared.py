"""What several handlers need: the command prefix, file paths of URIs, whether a document is
a schema or data, a schema's results, the findings at a diagnostic of a data file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from lsprotocol import types

from ..authoring.analysis import SchemaAnalysis
from ..evaluation.goldactions import Located, findings_at
from ..evaluation.runner import SuiteOutcome
from ..evaluation.suites import Suite
from ..ranges import to_offset
from ..store import OpenDocument
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


class AtPosition(Protocol):
    """A request about one position of a document (hover, definition)."""

    text_document: types.TextDocumentIdentifier
    position: types.Position


def at_position(ls: EvalSchemaServer, params: AtPosition
                ) -> tuple[OpenDocument, SchemaAnalysis | None, int] | None:
    """The open document a request is about, its analysis when it is an eval schema (None
    for any other document: a data file, where hover and definition show results), and the
    offset of the position. None when the document is not open."""
    doc = ls.store.get(params.text_document.uri)
    if doc is None:
        return None
    analysis = ls.schemas.analysis(doc.uri) if ls.schemas.is_eval_schema(doc) else None
    lines = analysis.doc.lines if analysis is not None else doc.line_index
    return doc, analysis, to_offset(lines, params.position, ls.encoding)


def suite_of_table(ls: EvalSchemaServer, doc: OpenDocument, index: int) -> Suite | None:
    """The suite the ``index``-th ``[[suite]]`` table of a configuration file declares."""
    for s in ls.evaluation.discovery.suites:
        if s.origin == doc.path and s.config.pointer.rsplit("/", 1)[-1] == str(index):
            return s
    return None


def findings_at_range(ls: EvalSchemaServer, doc: OpenDocument, rng: types.Range, code: str
                      ) -> list[Located]:
    """The findings of kind ``code`` the server shows at ``rng`` of the extracted file
    ``doc``, from its own last outcomes computed on the text the editor has now."""
    if doc.path is None:
        return []
    lines = doc.line_index
    start = to_offset(lines, rng.start, ls.encoding)
    end = to_offset(lines, rng.end, ls.encoding)
    svc = ls.evaluation
    return findings_at(svc.outcomes_for(doc.path), doc.path, doc.text, start, end, code,
                       svc.locator)
