"""Go to definition: from a local ``$ref`` to its target; from an extracted value to the
gold value it was judged against and the schema rule that judged it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..authoring import symbols
from ..document import LineIndex
from ..evaluation import views
from ..guard import guarded
from ..ranges import to_range
from ..store import OpenDocument
from .shared import at_position, path_of

if TYPE_CHECKING:
    from ..server import EvalSchemaServer


def on_definition(ls: EvalSchemaServer, params: types.DefinitionParams
                  ) -> types.Location | list[types.Location] | None:
    found = at_position(ls, params)
    if found is None:
        return None
    doc, analysis, offset = found
    if analysis is None:
        return data_definition(ls, doc, offset)
    target = symbols.definition(analysis, offset)
    if target is None:
        return None
    return types.Location(doc.uri, to_range(analysis.doc.lines, *target, ls.encoding))


def data_definition(ls: EvalSchemaServer, doc: OpenDocument, offset: int
                    ) -> list[types.Location] | None:
    path = path_of(doc.uri)
    if path is None:
        return None
    svc = ls.evaluation
    hits = [h for h in views.hits(svc.outcomes_for(path), path, doc.text, offset, svc.locator)
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
