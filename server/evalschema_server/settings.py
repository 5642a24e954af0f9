"""Server settings, from initializationOptions and workspace/configuration ("evalschema")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Settings:
    #: Python modules to import so their custom comparators/transforms register.
    comparator_modules: tuple[str, ...] = ()
    #: File name patterns treated as eval schemas (besides content with x-eval-* keys).
    schema_patterns: tuple[str, ...] = ("*.eval.json", "*.eval.jsonc")
    #: Delay after the last keystroke before diagnostics are recomputed.
    debounce_ms: int = 40
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, raw: Any) -> Settings:
        if not isinstance(raw, Mapping):
            return cls()
        if isinstance(raw.get("evalschema"), Mapping):
            raw = raw["evalschema"]
        modules = raw.get("comparatorModules", raw.get("comparator_modules", ()))
        patterns = raw.get("schemaPatterns", raw.get("schema_patterns"))
        debounce = raw.get("debounceMs", raw.get("debounce_ms", 40))
        return cls(
            comparator_modules=tuple(m for m in modules if isinstance(m, str))
            if isinstance(modules, list | tuple) else (),
            schema_patterns=tuple(p for p in patterns if isinstance(p, str))
            if isinstance(patterns, list | tuple) else cls.schema_patterns,
            debounce_ms=int(debounce) if isinstance(debounce, int | float)
            and not isinstance(debounce, bool) and 0 <= debounce <= 10_000 else 40,
            extra=dict(raw),
        )
