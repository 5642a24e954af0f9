"""The schema checks as diagnostics: pushed with every publish of a schema, or pulled.

Push clients: the checks are a computed source of the ``DiagnosticStore``, worked out
from the current text whenever the document is published (after the debounce, and
with the evaluation's findings). Pull clients ask for them (``textDocument/diagnostic``)
and get only the evaluation's findings pushed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from evalschema.errors import Severity

from ..diagnostic_store import DIAGNOSTIC_SOURCE, Item
from ..guard import guarded
from ..ranges import to_range
from ..store import OpenDocument

if TYPE_CHECKING:
    from ..server import EvalSchemaServer

#: The diagnostic store's source for the schema checks.
SCHEMA_SOURCE = "schema"


def schema_diagnostics(ls: EvalSchemaServer, uri: str) -> list[types.Diagnostic]:
    """Syntax issues and the engine's problems of an open eval schema."""
    schemas = ls.schemas
    doc = ls.store.get(uri)
    if doc is not None and schemas.too_large(doc):
        return [size_notice(ls, doc)] if schemas.named_as_schema(doc) else []
    if doc is None or not schemas.might_be_schema(doc):
        return []
    analysis = schemas.analysis(uri)
    if not schemas.is_eval_schema(doc, analysis):
        return []
    lines = analysis.doc.lines
    out = []
    for loc in analysis.located:
        p = loc.problem
        message = p.message + (f" ({p.suggestion})" if p.suggestion else "")
        out.append(types.Diagnostic(
            range=to_range(lines, loc.start, loc.end, ls.encoding),
            message=message,
            severity=_SEVERITY[p.severity],
            code=p.code, source=DIAGNOSTIC_SOURCE,
            data={**p.data, "code": p.code, "pointer": p.pointer, "target": p.target},
        ))
    return out


_SEVERITY = {Severity.ERROR: types.DiagnosticSeverity.Error,
             Severity.WARNING: types.DiagnosticSeverity.Warning,
             Severity.INFO: types.DiagnosticSeverity.Information}


def size_notice(ls: EvalSchemaServer, doc: OpenDocument) -> types.Diagnostic:
    """What a schema over ``maxDocumentSize`` shows instead of its checks."""
    return types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        message=ls.schemas.size_message(doc), severity=types.DiagnosticSeverity.Information,
        code="document-too-large", source=DIAGNOSTIC_SOURCE)


def pushed(ls: EvalSchemaServer, uri: str) -> list[Item]:
    """The schema checks of ``uri`` as a push client gets them (plain JSON)."""
    if ls.pull_diagnostics:
        return []
    return [ls.converter.unstructure(d) for d in schema_diagnostics(ls, uri)]


def pull_diagnostics(ls: EvalSchemaServer, params: types.DocumentDiagnosticParams
                     ) -> types.RelatedFullDocumentDiagnosticReport:
    return types.RelatedFullDocumentDiagnosticReport(
        items=schema_diagnostics(ls, params.text_document.uri))


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier=DIAGNOSTIC_SOURCE, inter_file_dependencies=False,
        workspace_diagnostics=False))(guarded(
            default=types.RelatedFullDocumentDiagnosticReport(items=[]))(pull_diagnostics))
    server.diagnostics.computed(SCHEMA_SOURCE, lambda uri: pushed(server, uri))
