"""Code actions: quick fixes from our diagnostics' data, and "Annotate schema"
(``authoring.actions``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..authoring import actions
from ..authoring.analysis import SchemaAnalysis
from ..diagnostic_store import DIAGNOSTIC_SOURCE
from ..guard import guarded
from ..ranges import to_offset, to_range

if TYPE_CHECKING:
    from ..server import EvalSchemaServer

KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.Source]


def on_code_action(ls: EvalSchemaServer, params: types.CodeActionParams
                   ) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    doc = ls.store.get(uri)
    if doc is None or ls.schemas.too_large(doc):
        return None
    analysis = ls.schemas.analysis(uri)
    lines = analysis.doc.lines
    out: list[types.CodeAction] = []
    for i, diag in enumerate(params.context.diagnostics):
        if diag.source != DIAGNOSTIC_SOURCE or not isinstance(diag.data, dict):
            continue
        start = to_offset(lines, diag.range.start, ls.encoding)
        end = to_offset(lines, diag.range.end, ls.encoding)
        for fix in actions.quick_fixes(analysis, i, start, end, diag.data, ls.registry):
            out.append(_code_action(ls, analysis, uri, fix, [diag]))
    edits = actions.annotate_edits(analysis)
    if edits:
        out.append(_code_action(ls, analysis, uri, actions.Fix(
            "Annotate schema: make every default comparator explicit", edits,
            kind=types.CodeActionKind.Source), []))
    return out


def _code_action(ls: EvalSchemaServer, analysis: SchemaAnalysis, uri: str, fix: actions.Fix,
                 diags: list[types.Diagnostic]) -> types.CodeAction:
    lines = analysis.doc.lines
    edits = [types.TextEdit(to_range(lines, e.start, e.end, ls.encoding), e.new_text)
             for e in fix.edits]
    return types.CodeAction(
        title=fix.title,
        kind=types.CodeActionKind.QuickFix if fix.kind == "quickfix" else fix.kind,
        diagnostics=diags or None, is_preferred=fix.preferred or None,
        edit=types.WorkspaceEdit(changes={uri: edits}))


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=KINDS))(guarded(default=None)(on_code_action))
