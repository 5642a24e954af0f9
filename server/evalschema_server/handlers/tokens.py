"""Semantic tokens: x-eval-* keys as ``keyword`` tokens (``authoring.tokens``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..authoring import tokens
from ..guard import guarded

if TYPE_CHECKING:
    from ..server import EvalSchemaServer


def on_semantic_tokens(ls: EvalSchemaServer, params: types.SemanticTokensParams
                       ) -> types.SemanticTokens | None:
    analysis = ls.schemas.open_analysis(params.text_document.uri)
    if analysis is None:
        return None
    lines = analysis.doc.lines
    data: list[int] = []
    prev_line = prev_char = 0
    for offset, length, kind in tokens.semantic_tokens(analysis):
        line, char = lines.position(offset, ls.encoding)
        _, end_char = lines.position(offset + length, ls.encoding)
        delta_line = line - prev_line
        delta_char = char - prev_char if delta_line == 0 else char
        data.extend([delta_line, delta_char, end_char - char, kind, 0])
        prev_line, prev_char = line, char
    return types.SemanticTokens(data=data)


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.SemanticTokensLegend(
        token_types=tokens.TOKEN_TYPES, token_modifiers=tokens.TOKEN_MODIFIERS))(
        guarded(default=None)(on_semantic_tokens))
