"""A real LSP client (pytest-lsp) talking to the server over stdio."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_lsp
from lsp_helpers import SERVER, start
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    await start(lsp_client, client_capabilities("visual-studio-code"))
    yield lsp_client
    await lsp_client.shutdown_session()
