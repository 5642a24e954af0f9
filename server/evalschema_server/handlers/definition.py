"""Go to definition: from a local ``$ref`` to its target; from an extracted value to the
gold value it was judged against and the schema rule that judged it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..authoring import symbols
from ..document import LineIndex
from ..evaluation import views
from ..guard import guarded
from ..ranges import to_offset, to_range
from .shared import path_of

if TYPE_CHECKING:
    from ..server import EvalSchemaServer


def on_definition(ls: EvalSchemaServer, params: types.DefinitionParams
                  ) -> types.Location | list[types.Location] | None:
    uri = params.text_document.uri
    doc = ls.store.get(uri)
    if doc is None:
        return None
    if not ls.schemas.is_eval_schema(doc):
        return data_definition(ls, uri, doc.text, params.position, doc.line_index)
    analysis = ls.schemas.analysis(uri)
    lines = analysis.doc.lines
    found = symbols.definition(analysis, to_offset(lines, params.position, ls.encoding))
    if found is None:
        return None
    return types.Location(uri, to_range(lines, *found, ls.encoding))


def data_definition(ls: EvalSchemaServer, uri: str, text: str, position: types.Position,
                    lines: LineIndex) -> list[types.Location] | None:
    path = path_of(uri)
    if path is None:
        return None
    svc = ls.evaluation
    offset = to_offset(lines, position, ls.encoding)
    hits = [h for h in views.hits(svc.outcomes_for(path), path, text, offset, svc.locator)
            if h.side == "extracted"]
    if not hits:
        return None
    hit = hits[0]
    out = []
    for target, (start, end) in views.definitions(hit, svc.locator,
                                                  svc.schema_span(hit.outcome)):
        target_text = hit.outcome.texts.get(target, "")
        out.append(types.Location(ls.store.uri_of(target),
                                  to_range(LineIndex(target_text), start, end, ls.encoding)))
    return out or None


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DEFINITION)(guarded(default=None)(on_definition))
