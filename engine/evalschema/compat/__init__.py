"""Peer-system metrics, reproduced exactly and explained field by field.

Teams moving to evalschema keep their existing numbers: each submodule scores
the way one peer system's code does (quirks included, documented in
docs/compat.md) and, with ``explain=True``, says which field earned or lost what.

``METRICS`` maps dotted names (``"lynxius.json_diff"``) to a uniform callable
``metric(expected, actual, **options) -> CompatScore`` for ``evalschema eval
--metric``; ``explain`` defaults to True there.
"""

from __future__ import annotations

from evalschema.compat import agenta, galtea, lynxius, uipath
from evalschema.compat._explain import CompatScore, Metric
from evalschema.compat.errors import CompatInputError

METRICS: dict[str, Metric] = {
    **lynxius.METRICS,
    **uipath.METRICS,
    **agenta.METRICS,
    **galtea.METRICS,
}

__all__ = [
    "METRICS",
    "CompatInputError",
    "CompatScore",
    "Metric",
    "agenta",
    "galtea",
    "lynxius",
    "uipath",
]
