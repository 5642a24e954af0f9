"""Per-run figures on a schema: a code lens per run at the top (and "▶ Evaluate"), and
an inlay hint with each run's F1 after every field's key.

Both show the evaluation's results where the schema is written; inlay hints live here
with the lenses rather than in a module of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from evalschema.report.figures import f1_figure, figure

from ..evaluation import views
from ..guard import guarded
from ..ranges import to_offset
from .shared import PREFIX, path_of, schema_outcomes

if TYPE_CHECKING:
    from ..server import EvalSchemaServer


def on_code_lens(ls: EvalSchemaServer, params: types.CodeLensParams
                 ) -> list[types.CodeLens] | None:
    return code_lenses(ls, params.text_document.uri) or None


def code_lenses(ls: EvalSchemaServer, uri: str) -> list[types.CodeLens]:
    path = path_of(uri)
    if path is None:
        return []
    suites = [s for s in ls.evaluation.suites_for(path) if s.config.schema == path]
    out = []
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    for suite in suites:
        outcome = ls.evaluation.outcomes.get(suite.key)
        args = [{"suite": suite.key}]
        for run in outcome.runs if outcome else ():
            r = run.result
            out.append(types.CodeLens(top, types.Command(
                f"{suite.name} · {run.label}: P {figure(r.mean_precision)} · "
                f"R {figure(r.mean_recall)} · F1 {figure(r.mean_f1)} ({r.total_records} records)"
                + (f" · gold coverage {share:.0%}" if (share := r.coverage.share) is not None
                   and share < 1 else ""),
                PREFIX + "showReport", arguments=args)))
        running = suite.key in ls.evaluation.scheduler.active
        out.append(types.CodeLens(top, types.Command(
            "$(sync~spin) evaluating…" if running else f"▶ Evaluate {suite.name}",
            PREFIX + "runSuite", arguments=args)))
    return out


def on_inlay_hints(ls: EvalSchemaServer, params: types.InlayHintParams
                   ) -> list[types.InlayHint] | None:
    uri = params.text_document.uri
    analysis = ls.schemas.open_analysis(uri)
    if analysis is None:
        return None
    outcomes = schema_outcomes(ls, uri)
    if not outcomes:
        return None
    doc = analysis.doc
    lo = to_offset(doc.lines, params.range.start, ls.encoding)
    hi = to_offset(doc.lines, params.range.end, ls.encoding)
    out = []
    by_pointer: dict[str, str] = {}
    for o in outcomes:
        for name, ptr in o.field_pointers.items():
            by_pointer.setdefault(ptr, name)
    for ptr, name in by_pointer.items():
        prop = doc.property_at_pointer(ptr)
        if prop is None or prop.key_node is None or not lo <= prop.key_node.offset <= hi:
            continue
        runs = views.field_runs(outcomes, name)
        figures = [f1_figure(c, c.f1, 2) for _, _, c in runs]
        tips = [f"{o.suite.name} · {r.label}: {views.field_line(c)}" for o, r, c in runs]
        if not figures:
            continue
        line, char = doc.lines.position(prop.key_node.end, ls.encoding)
        out.append(types.InlayHint(types.Position(line, char), f"F1 {' | '.join(figures)}",
                                   kind=types.InlayHintKind.Type, padding_left=True,
                                   tooltip="\n".join(tips)))
    return out or None


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(
        resolve_provider=False))(guarded(default=None)(on_code_lens))
    server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(
        resolve_provider=False))(guarded(default=None)(on_inlay_hints))
