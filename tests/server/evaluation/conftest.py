"""The evaluation's end-to-end tests share one client session (``eval_session``)."""

from eval_session import lsp, session_client

__all__ = ["lsp", "session_client"]
