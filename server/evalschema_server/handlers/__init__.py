"""The LSP adapters: one module per feature, each registering itself with ``register(server)``.

A handler maps positions to offsets, asks ``authoring/`` (a schema being written) or the
evaluation service and ``evaluation/views`` (results), and maps the answer back. Handlers
do not import each other (what they share is in ``shared``), nor the server at run time:
``EvalSchemaServer`` is imported for type checking only, and pygls never reads the
handlers' annotations (see ``jsonrpc.Protocol.lsp_workspace__execute_command``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import (
    actions,
    commands,
    completion,
    definition,
    diagnostics,
    documents,
    hover,
    lenses,
    symbols,
    tokens,
)

if TYPE_CHECKING:
    from ..server import EvalSchemaServer

FEATURES = (documents, diagnostics, completion, hover, definition, lenses, actions, symbols,
            tokens, commands)


def register_all(server: EvalSchemaServer) -> None:
    for feature in FEATURES:
        feature.register(server)
