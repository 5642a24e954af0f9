"""The JSON type of a Python value, for every message that names one.

Users write JSON, so messages say ``null``, ``object`` and ``array``, never Python's
``NoneType``, ``dict`` and ``list``. A top-level module, so reading files (``io``) and
the rules above it name types the same way.
"""

from __future__ import annotations

from typing import Any


def json_type(value: Any) -> str:
    """The JSON type name of a Python value (bool before int: bool is an int subclass)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def is_number(value: Any) -> bool:
    """A JSON number: int or float, not bool (an int subclass in Python, a flag in JSON)."""
    return isinstance(value, int | float) and not isinstance(value, bool)
