"""How results show themselves in a notebook (``_repr_html_``) and a REPL (``__repr__``).

The result types sit below the reports (docs/architecture.md), so they cannot import
the renderers; the package (``evalschema/__init__``) hands its renderer to ``use`` and
a result asks ``show``. Until one is set (never, once ``evalschema`` is imported),
results fall back to a plain one-line description.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

Kind = Literal["html", "text"]
#: ``render(kind, result)``: the HTML fragment or the few lines of text of a result,
#: or None for a result it does not know.
Renderer = Callable[[Kind, Any], str | None]

_renderer: list[Renderer] = []


def use(renderer: Renderer) -> None:
    """Make ``renderer`` the one results show themselves with."""
    _renderer[:] = [renderer]


def show(result: Any, kind: Kind) -> str | None:
    """``result`` rendered as ``kind``, or None when no renderer knows it."""
    return _renderer[0](kind, result) if _renderer else None
