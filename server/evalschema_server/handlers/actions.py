"""Code actions: in a schema, quick fixes from our diagnostics' data and "Annotate schema"
(``authoring.actions``); on a Stickler model, "Convert Stickler keys to x-eval-*" (a new
eval schema next to it, ``authoring.stickler``); on a finding in an extracted file, accept its value as gold, open
the gold value, compare the record with gold (``evaluation.goldactions``); on suspect gold
in a gold file, accept the value the runs agree on; on the note of
findings not shown, the way to all of them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..authoring import actions, stickler
from ..authoring.analysis import SchemaAnalysis
from ..diagnostic_store import DIAGNOSTIC_SOURCE
from ..document import LineIndex
from ..evaluation import goldactions
from ..evaluation.suspects import CODE as SUSPECT_CODE
from ..guard import guarded
from ..open_schemas import JSON_LANGUAGES
from ..ranges import to_offset, to_range
from ..store import OpenDocument
from .shared import PREFIX, findings_at_range

if TYPE_CHECKING:
    from ..server import EvalSchemaServer

KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.Source]


async def on_code_action(ls: EvalSchemaServer, params: types.CodeActionParams
                         ) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    out = _show_all(uri, params.context.diagnostics)
    doc = ls.store.get(uri)
    if doc is None:
        return out or None
    out.extend(_stickler_action(ls, doc))
    if not ls.schemas.is_eval_schema(doc):  # a data file (or too large to be a schema)
        out.extend(await _gold_actions(ls, doc, params.context.diagnostics))
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


def _stickler_action(ls: EvalSchemaServer, doc: OpenDocument) -> list[types.CodeAction]:
    """On a Stickler JSON Schema or model configuration: its eval schema as a new file
    beside it, created and filled by the editor when the user picks the action (clients
    that cannot create files through an edit are not offered it)."""
    ws = ls.client_capabilities.workspace
    edits = ws.workspace_edit if ws is not None else None
    if edits is None or not edits.document_changes or types.ResourceOperationKind.Create \
            not in (edits.resource_operations or []):
        return []
    if doc.path is None or doc.language_id not in JSON_LANGUAGES or ls.schemas.too_large(doc):
        return []
    found = stickler.conversion(doc.text, doc.path, lambda p: p.exists() or ls.store.get(
        ls.store.uri_of(p)) is not None)
    if found is None:
        return []
    new_uri = found.path.as_uri()
    return [types.CodeAction(
        title=found.title, kind=types.CodeActionKind.Source,
        edit=types.WorkspaceEdit(document_changes=[
            types.CreateFile(new_uri, options=types.CreateFileOptions(
                overwrite=False, ignore_if_exists=False)),
            types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(new_uri, None),
                                   [types.TextEdit(types.Range(types.Position(0, 0),
                                                               types.Position(0, 0)),
                                                   found.text)])]))]


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


async def _gold_actions(ls: EvalSchemaServer, doc: OpenDocument,
                        diagnostics: Sequence[types.Diagnostic]) -> list[types.CodeAction]:
    """On a mismatch, omission or hallucination of an extracted file: accept the extracted
    value as gold (while results are current), open the gold value, compare the record
    with gold (once per record)."""
    out: list[types.CodeAction] = []
    records: set[tuple[str, int]] = set()
    golds: dict[Path, str | None] = {}  # read once per request, not once per finding
    for diag in diagnostics:
        code = diag.code
        if diag.source == DIAGNOSTIC_SOURCE and code == SUSPECT_CODE:
            out.extend(_suspect_actions(ls, doc, diag))
            continue
        if diag.source != DIAGNOSTIC_SOURCE or not isinstance(code, str) \
                or code not in goldactions.KINDS:
            continue
        found = findings_at_range(ls, doc, diag.range, code)
        suites = {f.pair.outcome.suite.key for f in found}
        for f in found:
            outcome = f.pair.outcome
            which = f" ({outcome.suite.name})" if len(suites) > 1 else ""
            gold = outcome.suite.config.gold
            if gold not in golds:
                golds[gold] = await ls.evaluation.text_of(gold)
            gold_text = golds[gold]
            change = goldactions.accept(f, gold_text, ls.evaluation.locator) \
                if gold_text is not None else None
            if change is not None and gold_text is not None:
                out.append(types.CodeAction(
                    title=change.title + which, kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag], edit=_gold_edit(ls, change, gold_text)))
            at = {"start": {"line": diag.range.start.line,
                            "character": diag.range.start.character},
                  "end": {"line": diag.range.end.line, "character": diag.range.end.character}}
            out.append(types.CodeAction(
                title="Open gold value" + which, kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag], command=types.Command(
                    "Open gold value", PREFIX + "openGold",
                    arguments=[{"uri": doc.uri, "range": at, "code": code}])))
            key = (outcome.suite.key, f.pair.scored.record.index)
            if key not in records:
                records.add(key)
                out.append(types.CodeAction(
                    title="Compare record with gold" + which,
                    kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                    command=types.Command("Compare record with gold", PREFIX + "recordDiff",
                                          arguments=[{"uri": doc.uri, "position": at["start"],
                                                      "suite": outcome.suite.key}])))
    return out


def _suspect_actions(ls: EvalSchemaServer, doc: OpenDocument, diag: types.Diagnostic
                     ) -> list[types.CodeAction]:
    """On a suspect gold value in the gold file: put the value the runs agree on there."""
    if doc.path is None:
        return []
    lines = doc.line_index
    start = to_offset(lines, diag.range.start, ls.encoding)
    end = to_offset(lines, diag.range.end, ls.encoding)
    svc = ls.evaluation
    return [types.CodeAction(title=change.title, kind=types.CodeActionKind.QuickFix,
                             diagnostics=[diag], edit=_gold_edit(ls, change, doc.text))
            for change in goldactions.accept_suspects(svc.outcomes_for(doc.path), doc.path,
                                                      doc.text, start, end, svc.locator)]


def _gold_edit(ls: EvalSchemaServer, change: goldactions.GoldChange, gold_text: str
               ) -> types.WorkspaceEdit:
    """The edit of the gold file, for the editor to apply (so it can be undone): tied to
    the gold document's version when it is open, so a stale edit is refused."""
    uri = ls.store.uri_of(change.path)
    open_doc = ls.store.get(uri)
    lines = open_doc.line_index if open_doc is not None else LineIndex(gold_text)
    e = change.edit
    edit = types.TextEdit(to_range(lines, e.start, e.end, ls.encoding), e.new_text)
    ws = ls.client_capabilities.workspace
    versioned = ws is not None and ws.workspace_edit is not None \
        and bool(ws.workspace_edit.document_changes)
    if open_doc is not None and open_doc.version is not None and versioned:
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            types.OptionalVersionedTextDocumentIdentifier(uri, open_doc.version), [edit])])
    return types.WorkspaceEdit(changes={uri: [edit]})


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
