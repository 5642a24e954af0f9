"""The ``evalschema`` settings, declared once (``SETTINGS``) for every part that reads them.

The server reads initializationOptions and workspace/configuration with it
(``Settings.from_dict``). The VS Code extension's ``package.json`` (contributes.configuration
and the untrusted-workspace restrictions) and its TypeScript defaults and constants
(``src/generated/settings.ts``) are generated from it at build time by
``vscode-extension/scripts/gen_contracts.py``; tests/server/test_contracts_generated.py fails
when the committed copies drift from it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

#: The configuration section (``evalschema.*`` in VS Code, ``section: "evalschema"`` in
#: workspace/configuration).
SECTION = "evalschema"

JsonType = Literal["string", "integer", "number", "boolean", "array", "object", "null"]
#: VS Code's configuration scopes (None: not declared, VS Code's default ``window``).
Scope = Literal["application", "machine", "window", "resource", "language-overridable",
                "machine-overridable"]
#: Who reads a setting: the server (the extension passes it on), the extension itself, or
#: vscode-languageclient (``trace.server``).
Reader = Literal["server", "extension", "languageclient"]


@dataclass(frozen=True, slots=True)
class Setting:
    """One ``evalschema.<name>`` setting."""

    name: str
    #: JSON type(s) of the value; with ``enum``, ``minimum`` and ``maximum``, what the
    #: server checks (a value that fails gets the default).
    type: JsonType | tuple[JsonType, ...]
    #: Immutable (tuples for arrays, read-only mappings for objects); written out as JSON.
    default: Any
    #: Markdown, shown in the editor's settings.
    description: str
    enum: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    scope: Scope | None = "resource"
    #: Chooses what code runs: in an untrusted workspace only the user's own value counts.
    restricted: bool = False
    reader: Reader = "server"
    #: Read by the server, but not offered in the editor's settings (other clients, tests).
    hidden: bool = False
    #: Other spellings the server accepts (after the name itself).
    aliases: tuple[str, ...] = ()
    #: An ``integer`` that also takes a fraction, truncated (the delays); any other
    #: integer setting given a fraction gets its default.
    truncates: bool = False
    #: More JSON Schema for the editor: ``items``, ``properties``, ``enumDescriptions``...
    #: For an object, ``additionalProperties.enum`` (if any) is what the server keeps.
    schema: Mapping[str, Any] = field(default_factory=dict)

    @property
    def client_only(self) -> bool:
        """Never sent to the server: it decides how the server is started or shown."""
        return self.reader != "server"


SEVERITIES = ("error", "warning", "information", "hint", "off")
#: Finding kinds the editor offers for ``severity`` (the server accepts any key).
_SEVERITY_KINDS = ("mismatch", "omission", "hallucination", "error", "record", "input",
                   "threshold", "suspect")
SEVERITY_VALUE: Mapping[str, Any] = {"type": "string", "enum": list(SEVERITIES)}
_STRINGS: Mapping[str, Any] = {"items": {"type": "string"}}
_EMPTY: Mapping[str, Any] = MappingProxyType({})
JUDGE_PROFILE: Mapping[str, Any] = {
    "type": "object",
    "properties": {"baseUrl": {"type": "string"}, "model": {"type": "string"},
                   "apiKeyEnv": {"type": "string"}},
    "additionalProperties": False,
}
JUDGE: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "baseUrl": {"type": "string", "description": "OpenAI-compatible endpoint of the "
                    "default judge profile (else EVALSCHEMA_JUDGE_BASE_URL / OPENAI_BASE_URL)."},
        "model": {"type": "string", "description": "Model of the default profile (else "
                  "EVALSCHEMA_JUDGE_MODEL, else gpt-4o-mini)."},
        "apiKeyEnv": {"type": "string", "description": "Environment variable holding the "
                      "default profile's API key (else EVALSCHEMA_JUDGE_API_KEY, else "
                      "OPENAI_API_KEY)."},
        "profiles": {"type": "object", "description": "Named profiles a schema can pick with "
                     "\"judge\": \"NAME\".", "additionalProperties": JUDGE_PROFILE},
        "concurrency": {"type": "integer", "minimum": 1, "description": "Judge requests in "
                        "flight at once (default 4)."},
        "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "Seconds for a "
                    "whole judge request, retries included, when the schema sets none "
                    "(default 60)."},
        "retries": {"type": "integer", "minimum": 0, "description": "Retries after a 429 or "
                    "5xx answer (default 3)."},
        "breakerFailures": {"type": "integer", "minimum": 0, "description": "Consecutive "
                            "failures after which the judge is not asked for a while "
                            "(default 5; 0 = never)."},
    },
    "additionalProperties": False,
}

_SETTINGS = (
    Setting(
        "interpreter", "string", "",
        "Python interpreter that runs the language server (`python -P -m evalschema_server`). "
        "Empty: the Python extension's active interpreter when that extension is installed, "
        "else `python3` on `PATH`. `${workspaceFolder}` and `~` are expanded. The interpreter "
        "needs Python 3.11+ and `pip install 'evalschema[server]'`. Changing it restarts the "
        "server. In an untrusted workspace only your user setting counts, and an interpreter "
        "inside the workspace is not run.",
        restricted=True, reader="extension"),
    Setting(
        "serverArgs", "array", (),
        "Extra arguments after `-P -m evalschema_server`. Changing them restarts the server. "
        "In an untrusted workspace only your user setting counts.",
        restricted=True, reader="extension", schema=_STRINGS),
    Setting(
        "comparatorModules", "array", (),
        "Python modules that register your comparators/transforms (`register_comparator` / "
        "`register_transform`), so they are completed, documented and validated like the "
        "built-ins: a dotted name imported from the interpreter's environment "
        "(`my_package.comparators`), or the path of a `.py` file or package folder relative "
        "to the workspace root (`comparators/iban.py`). Imported only in a trusted workspace "
        "(it is code that runs with your rights).",
        restricted=True, aliases=("comparator_modules",), schema=_STRINGS),
    Setting(
        "schemaPatterns", "array", ("*.eval.json", "*.eval.jsonc"),
        "File name globs treated as eval schemas (besides the schemas named in "
        "`evalschema.toml` and any JSON holding an `x-eval-*` key).",
        aliases=("schema_patterns",), schema=_STRINGS),
    Setting(
        "debounceMs", "integer", 40,
        "Delay in milliseconds after the last edit before diagnostics are recomputed.",
        minimum=0, maximum=10_000, aliases=("debounce_ms",), truncates=True),
    Setting(
        "maxDocumentSize", "integer", 5_000_000,
        "Documents longer than this many characters get no eval-schema features (checks, "
        "completion, hover, outline): they are not parsed. A schema over the limit shows one "
        "information diagnostic saying so. `0` turns the limit off (the server never accepts "
        "a message over 64 MB). Evaluation of data files is not affected.",
        minimum=0),
    Setting(
        "runOn", "string", "save",
        "When the server evaluates a suite again by itself: on `save` (and changes on disk), "
        "or on every `change` in an editor.",
        enum=("save", "change"),
        schema={"enumDescriptions": [
            "Suites run again when one of their files is saved or changes on disk.",
            "Also while you type (debounced by evalschema.evaluationDebounceMs)."]}),
    Setting(
        "runOnStartup", "boolean", True,
        "Evaluate the workspace's suites when the server starts, so that diagnostics in "
        "extracted files and the status-bar F1 are there from the start."),
    Setting(
        "watchFiles", "boolean", True,
        "Evaluate a suite again when one of its files changes on disk (for example when an "
        "extraction run rewrites its output)."),
    Setting(
        "helperProcess", "boolean", True,
        "Score a run that scores many records (4,096 or more: the first run of a large suite, "
        "a change of its schema) on a second core too: in a helper process that the run starts "
        "and stops. Off: every run is scored on one core. The figures are the same either way."),
    Setting(
        "goldDiagnostics", "boolean", False,
        "Also mark the gold value of each finding in the gold file (by default the gold file "
        "shows only its unusable records and the suspect gold values, see `severity`)."),
    Setting(
        "severity", "object", _EMPTY,
        "Severity of each kind of finding in data files: `mismatch`, `omission`, "
        "`hallucination` (default warning), `error` and `input` (default error), `record` and "
        "`threshold` (default warning), `suspect` (a gold value two or more runs agree "
        "against; default information); `off` hides that kind. Example: "
        "`{\"omission\": \"information\"}`.",
        schema={"additionalProperties": SEVERITY_VALUE,
                "properties": {kind: SEVERITY_VALUE for kind in _SEVERITY_KINDS}}),
    Setting(
        "fieldThreshold", ("number", "null"), None,
        "A per-field F1 below which the field is flagged in the schema, for fields without a "
        "threshold in `evalschema.toml`. `null`: only the configured thresholds.",
        minimum=0, maximum=1),
    Setting(
        "evaluationDebounceMs", "integer", 50,
        "Delay in milliseconds before a suite is evaluated again after a change (with "
        "`evalschema.runOn` = `change`).",
        minimum=0, maximum=10_000, truncates=True),
    Setting(
        "showResultsAfterRun", "boolean", True,
        "Open the results view when **Evaluate suite** or **Evaluate all suites** finishes.",
        scope=None, reader="extension"),
    Setting(
        "judge", "object", _EMPTY,
        "The LLM judge (the `semantic` comparator): its endpoint, model, the environment "
        "variable holding its key, and named `profiles` a schema picks with "
        "`\"judge\": \"NAME\"`. **User settings only**: a workspace cannot set this, and a "
        "schema or `evalschema.toml` that names an endpoint is an error, so opening a folder "
        "never sends your key elsewhere. Example: `{\"profiles\": {\"local\": {\"baseUrl\": "
        "\"http://127.0.0.1:8000/v1\", \"model\": \"llama-3\"}}}`.",
        scope="application", schema=JUDGE),
    Setting(
        "trace.server", "string", "off",
        "Log the messages between VS Code and the language server in the **evalschema** "
        "output channel.",
        enum=("off", "messages", "verbose"), scope=None, reader="languageclient"),
    Setting(
        "maxDiagnosticsPerFile", "integer", 900,
        "Findings shown per data file, in file order, then one note at the top of the file "
        "with the number not shown and their records (`0`: no limit). VS Code lists at most "
        "1,000 problems per file and silently drops the rest, so keep this below 1,000.",
        minimum=0),
    Setting(
        "diagnosticsMode", "string", "finding",
        "How findings in data files are shown: one diagnostic per `finding` (on the wrong "
        "value), or one per `record` (on its first key, listing its wrong fields, each "
        "finding a related location), for very noisy runs.",
        enum=("finding", "record"),
        schema={"enumDescriptions": [
            "One diagnostic per wrong, missing or invented value, where it is.",
            "One diagnostic per record that has findings, listing them."]}),
)

#: Every setting by name, in the order the editor lists them.
SETTINGS: Mapping[str, Setting] = {s.name: s for s in _SETTINGS}


def _default(name: str) -> Any:
    return SETTINGS[name].default


def read_value(spec: Setting, raw: Mapping[str, Any]) -> Any:
    """The value of ``spec`` in ``raw`` if it passes the table's checks, else its default.

    Lists keep their strings, objects their entries with an allowed value (when the schema
    names the values); numbers are taken in range only, and an integer setting takes a
    fraction only when it ``truncates``."""
    for key in (spec.name, *spec.aliases):
        if key in raw:
            value = raw[key]
            break
    else:
        return dict(spec.default) if isinstance(spec.default, Mapping) else spec.default
    types = spec.type if isinstance(spec.type, tuple) else (spec.type,)
    if value is None and "null" in types:
        return None
    if "boolean" in types:
        return value if isinstance(value, bool) else spec.default
    if "integer" in types or "number" in types:
        whole = "integer" in types
        if not isinstance(value, int | float) or isinstance(value, bool) \
                or (isinstance(value, float)
                    and (not math.isfinite(value) or (whole and not spec.truncates))) \
                or (spec.minimum is not None and value < spec.minimum) \
                or (spec.maximum is not None and value > spec.maximum):
            return spec.default
        if whole:
            return int(value)
        return float(value) if abs(value) <= sys.float_info.max else spec.default
    if "array" in types:
        return tuple(v for v in value if isinstance(v, str)) \
            if isinstance(value, list | tuple) else spec.default
    if "object" in types:
        if not isinstance(value, Mapping):
            return dict(spec.default)
        allowed = spec.schema.get("additionalProperties")
        if isinstance(allowed, Mapping) and "enum" in allowed:
            return {k: v for k, v in value.items() if isinstance(k, str) and v in allowed["enum"]}
        return dict(value)
    if spec.enum:
        return value if value in spec.enum else spec.default
    return value if isinstance(value, str) else spec.default


@dataclass(frozen=True)
class EvalSettings:
    """The ``evalschema`` settings that concern evaluation."""

    #: "save" (default): runs follow saves and file changes on disk; "change": also edits.
    run_on: str = _default("runOn")
    run_on_startup: bool = _default("runOnStartup")
    watch_files: bool = _default("watchFiles")
    gold_diagnostics: bool = _default("goldDiagnostics")
    severity: dict[str, str] = field(default_factory=lambda: dict(_default("severity")))
    field_threshold: float | None = _default("fieldThreshold")
    debounce_ms: int = _default("evaluationDebounceMs")
    #: Diagnostics per data file (in file order); 0 means no limit.
    max_diagnostics_per_file: int = _default("maxDiagnosticsPerFile")
    #: "finding" (one diagnostic each) or "record" (one per record, listing its findings).
    diagnostics_mode: str = _default("diagnosticsMode")
    #: Whether a run that scores many records shares them with a helper process.
    helper_process: bool = _default("helperProcess")


@dataclass(frozen=True)
class Settings:
    #: Modules that register custom comparators/transforms: dotted names (installed
    #: environment) or paths relative to the workspace root; imported only when the client
    #: started the server with ``workspaceTrusted`` (see ``server.import_comparator_modules``).
    comparator_modules: tuple[str, ...] = _default("comparatorModules")
    #: File name patterns treated as eval schemas (besides content with x-eval-* keys).
    schema_patterns: tuple[str, ...] = _default("schemaPatterns")
    #: Delay after the last keystroke before diagnostics are recomputed.
    debounce_ms: int = _default("debounceMs")
    #: Documents longer than this (in characters) get no eval-schema features: they are
    #: not parsed, checked, completed or outlined (0: no limit). Evaluation of data
    #: files is not affected.
    max_document_size: int = _default("maxDocumentSize")
    #: Evaluation: when suites run, what is shown and how loudly.
    evaluation: EvalSettings = field(default_factory=EvalSettings)
    #: ``evalschema.judge`` as sent (see ``judges.py``); taken from initializationOptions
    #: and didChangeConfiguration only, never from a workspace/configuration answer.
    judge: Mapping[str, Any] = field(default_factory=lambda: dict(_default("judge")))
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, raw: Any) -> Settings:
        if not isinstance(raw, Mapping):
            return cls()
        if isinstance(raw.get(SECTION), Mapping):
            raw = raw[SECTION]
        v = {name: read_value(spec, raw) for name, spec in SETTINGS.items()
             if not spec.client_only}
        return cls(
            comparator_modules=v["comparatorModules"],
            schema_patterns=v["schemaPatterns"],
            debounce_ms=v["debounceMs"],
            max_document_size=v["maxDocumentSize"],
            evaluation=EvalSettings(
                run_on=v["runOn"],
                run_on_startup=v["runOnStartup"],
                watch_files=v["watchFiles"],
                helper_process=v["helperProcess"],
                gold_diagnostics=v["goldDiagnostics"],
                severity=v["severity"],
                field_threshold=v["fieldThreshold"],
                debounce_ms=v["evaluationDebounceMs"],
                max_diagnostics_per_file=v["maxDiagnosticsPerFile"],
                diagnostics_mode=v["diagnosticsMode"],
            ),
            judge=v["judge"],
            extra=dict(raw),
        )
