"""Server settings, from initializationOptions and workspace/configuration ("evalschema")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EvalSettings:
    """The ``evalschema`` settings that concern evaluation."""

    #: "save" (default): runs follow saves and file changes on disk; "change": also edits.
    run_on: str = "save"
    run_on_startup: bool = True
    watch_files: bool = True
    gold_diagnostics: bool = False
    severity: dict[str, str] = field(default_factory=dict)
    field_threshold: float | None = None
    debounce_ms: int = 50
    #: Diagnostics per data file (in file order); 0 means no limit.
    max_diagnostics_per_file: int = 2000


@dataclass(frozen=True)
class Settings:
    #: Modules that register custom comparators/transforms: dotted names (installed
    #: environment) or paths relative to the workspace root; imported only when the client
    #: started the server with ``workspaceTrusted`` (see ``server.import_comparator_modules``).
    comparator_modules: tuple[str, ...] = ()
    #: File name patterns treated as eval schemas (besides content with x-eval-* keys).
    schema_patterns: tuple[str, ...] = ("*.eval.json", "*.eval.jsonc")
    #: Delay after the last keystroke before diagnostics are recomputed.
    debounce_ms: int = 40
    #: Documents longer than this (in characters) get no eval-schema features: they are
    #: not parsed, checked, completed or outlined (0: no limit). Evaluation of data
    #: files is not affected.
    max_document_size: int = 5_000_000
    #: Evaluation: when suites run, what is shown and how loudly.
    evaluation: EvalSettings = field(default_factory=EvalSettings)
    #: ``evalschema.judge`` as sent (see ``judges.py``); taken from initializationOptions
    #: and didChangeConfiguration only, never from a workspace/configuration answer.
    judge: Mapping[str, Any] = field(default_factory=dict)
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
        size = raw.get("maxDocumentSize", cls.max_document_size)
        return cls(
            comparator_modules=tuple(m for m in modules if isinstance(m, str))
            if isinstance(modules, list | tuple) else (),
            schema_patterns=tuple(p for p in patterns if isinstance(p, str))
            if isinstance(patterns, list | tuple) else cls.schema_patterns,
            debounce_ms=int(debounce) if isinstance(debounce, int | float)
            and not isinstance(debounce, bool) and 0 <= debounce <= 10_000 else 40,
            max_document_size=size if isinstance(size, int) and not isinstance(size, bool)
            and size >= 0 else cls.max_document_size,
            evaluation=_eval_settings(raw),
            judge=dict(raw["judge"]) if isinstance(raw.get("judge"), Mapping) else {},
            extra=dict(raw),
        )


def _eval_settings(raw: Mapping[str, Any]) -> EvalSettings:
    d = EvalSettings()
    run_on = raw.get("runOn", d.run_on)
    severity = raw.get("severity")
    threshold = raw.get("fieldThreshold")
    debounce = raw.get("evaluationDebounceMs", d.debounce_ms)
    limit = raw.get("maxDiagnosticsPerFile")
    return EvalSettings(
        run_on=run_on if run_on in ("save", "change") else d.run_on,
        run_on_startup=_flag(raw.get("runOnStartup"), d.run_on_startup),
        watch_files=_flag(raw.get("watchFiles"), d.watch_files),
        gold_diagnostics=_flag(raw.get("goldDiagnostics"), d.gold_diagnostics),
        severity={k: v for k, v in severity.items() if isinstance(k, str)
                  and v in ("error", "warning", "information", "hint", "off")}
        if isinstance(severity, Mapping) else {},
        field_threshold=float(threshold) if isinstance(threshold, int | float)
        and not isinstance(threshold, bool) and 0 <= threshold <= 1 else None,
        debounce_ms=int(debounce) if isinstance(debounce, int | float)
        and not isinstance(debounce, bool) and 0 <= debounce <= 10_000 else d.debounce_ms,
        max_diagnostics_per_file=int(limit) if isinstance(limit, int)
        and not isinstance(limit, bool) and limit >= 0 else d.max_diagnostics_per_file,
    )


def _flag(value: Any, default: bool) -> bool:
    return value if isinstance(value, bool) else default
