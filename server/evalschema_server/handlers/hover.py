"""Hover: in a schema, docs for x-eval keys and registry names, a field's effective
evaluation and each run's figures for it; in a data file, the result at the value."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..authoring import hover
from ..authoring.analysis import SchemaAnalysis
from ..document import LineIndex
from ..evaluation import views
from ..guard import guarded
from ..ranges import to_offset, to_range
from .shared import path_of, schema_outcomes

if TYPE_CHECKING:
    from ..server import EvalSchemaServer


def on_hover(ls: EvalSchemaServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    doc = ls.store.get(uri)
    if doc is None:
        return None
    if not ls.schemas.is_eval_schema(doc):
        return data_hover(ls, uri, doc.text, params.position, doc.line_index)
    analysis = ls.schemas.analysis(uri)
    lines = analysis.doc.lines
    offset = to_offset(lines, params.position, ls.encoding)
    found = hover.hover(analysis, offset, ls.registry)
    figures = field_figures(ls, uri, analysis, offset)
    if found is None and figures is None:
        return None
    text, start, end = found if found is not None else ("", offset, offset)
    if figures:
        text = f"{text}\n\n---\n\n{figures}" if text else figures
        if found is None:
            node = analysis.doc.node_at(offset)
            start, end = (node.offset, node.end) if node is not None else (offset, offset)
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text),
                       to_range(lines, start, end, ls.encoding))


def field_figures(ls: EvalSchemaServer, uri: str, analysis: SchemaAnalysis, offset: int
                  ) -> str | None:
    """Each run's figures for the field whose key is under the cursor."""
    outcomes = schema_outcomes(ls, uri)
    if not outcomes:
        return None
    node = analysis.doc.node_at(offset)
    if node is None or node.parent is None or node.parent.kind != "property" \
            or node.parent.key_node is not node:
        return None
    pointer = analysis.doc.pointer(node)
    for o in outcomes:
        for name, ptr in o.field_pointers.items():
            if ptr == pointer:
                return views.field_hover(outcomes, name)
    return None


def data_hover(ls: EvalSchemaServer, uri: str, text: str, position: types.Position,
               lines: LineIndex) -> types.Hover | None:
    """The results at a value of a gold or extracted file, one section per run."""
    path = path_of(uri)
    if path is None:
        return None
    svc = ls.evaluation
    offset = to_offset(lines, position, ls.encoding)
    hits = views.hits(svc.outcomes_for(path), path, text, offset, svc.locator)
    if not hits:
        return None
    parts = []
    for hit in hits:
        parts.append(views.hover_markdown(hit, hit.outcome.labels))
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(parts)),
                       to_range(lines, *hits[0].span, ls.encoding))


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_HOVER)(guarded(default=None)(on_hover))
