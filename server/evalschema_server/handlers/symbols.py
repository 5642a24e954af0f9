"""Document symbols: the outline of a schema's fields with their comparators
(``authoring.symbols``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..authoring import symbols
from ..guard import guarded
from ..ranges import to_range

if TYPE_CHECKING:
    from ..server import EvalSchemaServer

KINDS = {"object": types.SymbolKind.Object, "array": types.SymbolKind.Array,
         "field": types.SymbolKind.Field}


def on_symbols(ls: EvalSchemaServer, params: types.DocumentSymbolParams
               ) -> list[types.DocumentSymbol] | None:
    analysis = ls.schemas.open_analysis(params.text_document.uri)
    if analysis is None:
        return None
    lines = analysis.doc.lines
    enc = ls.encoding

    def convert(sym: symbols.Symbol) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=sym.name, detail=sym.detail or None, kind=KINDS[sym.kind],
            range=to_range(lines, sym.start, sym.end, enc),
            selection_range=to_range(lines, sym.sel_start, sym.sel_end, enc),
            children=[convert(c) for c in sym.children] or None)

    return [convert(s) for s in symbols.outline(analysis)]


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)(guarded(default=None)(on_symbols))
