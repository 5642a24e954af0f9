"""Code actions: quick fixes from our diagnostics' data, "Annotate schema"
(``authoring.actions``), and on the note of findings not shown, the way to all of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from ..authoring import actions
from ..authoring.analysis import SchemaAnalysis
from ..diagnostic_store import DIAGNOSTIC_SOURCE
from ..guard import guarded
from ..ranges import to_offset, to_range
from .shared import PREFIX

if TYPE_CHECKING:
    from ..server import EvalSchemaServer

KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.Source]


def on_code_action(ls: EvalSchemaServer, params: types.CodeActionParams
                   ) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    out = _show_all(uri, params.context.diagnostics)
    doc = ls.store.get(uri)
    if doc is None or ls.schemas.too_large(doc):
        return out or None
    analysis = ls.schemas.analysis(uri)
    lines = analysis.doc.lines
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


def _show_all(uri: str, diagnostics: Sequence[types.Diagnostic]) -> list[types.CodeAction]:
    """On "N more findings … not shown": the report of the file's suites (the VS Code
    extension opens its results view; another client gets the report as the answer)."""
    for diag in diagnostics:
        if diag.source == DIAGNOSTIC_SOURCE and diag.code == "more-findings":
            return [types.CodeAction(
                title="Show every finding (evalschema results)",
                kind=types.CodeActionKind.QuickFix, diagnostics=[diag], is_preferred=True,
                command=types.Command("Show every finding", PREFIX + "showReport",
                                      arguments=[{"uri": uri}]))]
    return []


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
