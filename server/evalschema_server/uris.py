"""File URIs and paths: the form open documents come in, and the form suites use."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse


def uri_to_path(uri: str) -> str | None:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else None


def file_path(uri: str) -> Path | None:
    """The resolved path of a file URI (the form suites use), or None."""
    path = uri_to_path(uri)
    if not path:
        return None
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return None
