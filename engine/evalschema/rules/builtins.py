"""The built-in entries, registered in one place and one order (the order editors list them)."""

from __future__ import annotations

from evalschema.rules.alignment import BUILTIN_STRATEGIES
from evalschema.rules.comparators import BUILTIN_COMPARATORS
from evalschema.rules.registry import Registry
from evalschema.rules.semantic import SEMANTIC
from evalschema.rules.transforms import BUILTIN_TRANSFORMS


def register_builtins(registry: Registry) -> Registry:
    for c in (*BUILTIN_COMPARATORS, SEMANTIC):
        registry.add_comparator(c)
    for t in BUILTIN_TRANSFORMS:
        registry.add_transform(t)
    for s in BUILTIN_STRATEGIES:
        registry.add_strategy(s)
    return registry


def builtin_registry() -> Registry:
    """A fresh registry holding only the built-ins (custom registrations stay out)."""
    return register_builtins(Registry())
