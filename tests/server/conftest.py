"""A real LSP client (pytest-lsp) talking to the server over stdio."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_lsp
from lsp_helpers import SERVER, start
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from evalschema.judge.settings import configure_judges, configured_judges


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    await start(lsp_client, client_capabilities("visual-studio-code"))
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.fixture(autouse=True)
def judges_put_back() -> Iterator[None]:
    """A server run in-process sets the process's judge profiles (``configure_judges``);
    put them back, so a later test (``judge/test_security_judge.py``) starts with none."""
    before = configured_judges()
    yield
    configure_judges(before)
