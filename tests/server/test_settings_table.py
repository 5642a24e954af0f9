"""The settings table (``settings.SETTINGS``) and the server's reading of it.

``Settings.from_dict`` is pinned value by value (what it takes, what falls back to the
default), so that parsing driven by the table keeps the behaviour the hand-written parser
had. The editor's copies (package.json, src/generated/settings.ts) are checked in
test_contracts_generated.py.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from evalschema_server.evaluation.findings import DEFAULT_SEVERITY
from evalschema_server.settings import SETTINGS, EvalSettings, Settings


def test_no_settings_give_the_defaults() -> None:
    assert Settings.from_dict(None) == Settings()
    assert Settings.from_dict([]) == Settings()
    assert Settings.from_dict({}) == Settings(extra={})
    s = Settings()
    assert s.comparator_modules == ()
    assert s.schema_patterns == ("*.eval.json", "*.eval.jsonc")
    assert s.debounce_ms == 40
    assert s.max_document_size == 5_000_000
    assert s.judge == {}
    assert s.evaluation == EvalSettings("save", True, True, False, {}, None, 50, 900, "finding")


def test_the_section_may_be_wrapped() -> None:
    s = Settings.from_dict({"evalschema": {"debounceMs": 7}})
    assert s.debounce_ms == 7
    assert s.extra == {"debounceMs": 7}


def test_values_of_the_right_type_are_taken() -> None:
    raw = {"comparatorModules": ["a.b", "c.py"], "schemaPatterns": ["*.s.json"],
           "debounceMs": 120, "maxDocumentSize": 0, "runOn": "change",
           "runOnStartup": False, "watchFiles": False, "goldDiagnostics": True,
           "helperProcess": False,
           "severity": {"omission": "off", "record": "hint"}, "fieldThreshold": 0.5,
           "evaluationDebounceMs": 9000, "maxDiagnosticsPerFile": 0,
           "judge": {"model": "m", "profiles": {"x": {"baseUrl": "u"}}}}
    s = Settings.from_dict(raw)
    assert s.comparator_modules == ("a.b", "c.py")
    assert s.schema_patterns == ("*.s.json",)
    assert s.debounce_ms == 120
    assert s.max_document_size == 0
    assert s.evaluation == EvalSettings("change", False, False, True,
                                        {"omission": "off", "record": "hint"}, 0.5, 9000, 0,
                                        helper_process=False)
    assert s.judge == {"model": "m", "profiles": {"x": {"baseUrl": "u"}}}
    assert s.extra == raw


@pytest.mark.parametrize(("raw", "attr", "expected"), [
    # lists: non-strings dropped, an empty list kept, another type -> default
    ({"comparatorModules": ["m", 3, None]}, "comparator_modules", ("m",)),
    ({"comparatorModules": "m"}, "comparator_modules", ()),
    ({"schemaPatterns": []}, "schema_patterns", ()),
    ({"schemaPatterns": ("a", 1)}, "schema_patterns", ("a",)),
    ({"schemaPatterns": None}, "schema_patterns", ("*.eval.json", "*.eval.jsonc")),
    # snake_case spellings of the first settings
    ({"comparator_modules": ["m"]}, "comparator_modules", ("m",)),
    ({"schema_patterns": ["p"]}, "schema_patterns", ("p",)),
    ({"debounce_ms": 9}, "debounce_ms", 9),
    ({"debounceMs": 9, "debounce_ms": 11}, "debounce_ms", 9),
    # numbers: in range (floats truncated), else the default
    ({"debounceMs": 12.7}, "debounce_ms", 12),
    ({"debounceMs": 10_000}, "debounce_ms", 10_000),
    ({"debounceMs": 10_001}, "debounce_ms", 40),
    ({"debounceMs": -1}, "debounce_ms", 40),
    ({"debounceMs": True}, "debounce_ms", 40),
    ({"debounceMs": "5"}, "debounce_ms", 40),
    ({"debounceMs": math.inf}, "debounce_ms", 40),
    ({"debounceMs": math.nan}, "debounce_ms", 40),
    ({"maxDocumentSize": 100_000_000}, "max_document_size", 100_000_000),
    ({"maxDocumentSize": -5}, "max_document_size", 5_000_000),
    ({"maxDocumentSize": False}, "max_document_size", 5_000_000),
    # a fraction: truncated for the delays only; any other integer keeps its default
    ({"maxDocumentSize": 2.7}, "max_document_size", 5_000_000),
    ({"maxDocumentSize": 0.0}, "max_document_size", 5_000_000),
    # integers past a float's range are still integers (no OverflowError)
    ({"maxDocumentSize": 10 ** 400}, "max_document_size", 10 ** 400),
    ({"debounceMs": 10 ** 400}, "debounce_ms", 40),
    ({"judge": "x"}, "judge", {}),
    ({"judge": None}, "judge", {}),
])
def test_values_are_checked(raw: dict[str, Any], attr: str, expected: Any) -> None:
    assert getattr(Settings.from_dict(raw), attr) == expected


@pytest.mark.parametrize(("raw", "attr", "expected"), [
    ({"runOn": "always"}, "run_on", "save"),
    ({"runOn": ["change"]}, "run_on", "save"),
    ({"runOnStartup": "no"}, "run_on_startup", True),
    ({"watchFiles": 0}, "watch_files", True),
    ({"helperProcess": "no"}, "helper_process", True),
    ({"helperProcess": False}, "helper_process", False),
    ({"goldDiagnostics": 1}, "gold_diagnostics", False),
    ({"severity": {"omission": "loud", "record": 3, "mismatch": "error"}}, "severity",
     {"mismatch": "error"}),
    ({"severity": ["error"]}, "severity", {}),
    ({"fieldThreshold": 1}, "field_threshold", 1.0),
    ({"fieldThreshold": 1.5}, "field_threshold", None),
    ({"fieldThreshold": True}, "field_threshold", None),
    ({"fieldThreshold": None}, "field_threshold", None),
    ({"evaluationDebounceMs": 10_001}, "debounce_ms", 50),
    ({"evaluationDebounceMs": 3.9}, "debounce_ms", 3),
    ({"maxDiagnosticsPerFile": -1}, "max_diagnostics_per_file", 900),
    ({"maxDiagnosticsPerFile": 10 ** 9}, "max_diagnostics_per_file", 10 ** 9),
    ({"maxDiagnosticsPerFile": 0.5}, "max_diagnostics_per_file", 900),
    ({"diagnosticsMode": "record"}, "diagnostics_mode", "record"),
    ({"diagnosticsMode": "line"}, "diagnostics_mode", "finding"),
    ({"diagnosticsMode": 1}, "diagnostics_mode", "finding"),
    ({"fieldThreshold": 10 ** 400}, "field_threshold", None),
])
def test_evaluation_values_are_checked(raw: dict[str, Any], attr: str, expected: Any) -> None:
    value = getattr(Settings.from_dict(raw).evaluation, attr)
    assert value == expected
    assert type(value) is type(expected)


def test_the_table_gives_the_dataclass_defaults() -> None:
    s, e = Settings(), EvalSettings()
    got = {"comparatorModules": s.comparator_modules, "schemaPatterns": s.schema_patterns,
           "debounceMs": s.debounce_ms, "maxDocumentSize": s.max_document_size,
           "judge": s.judge, "runOn": e.run_on, "runOnStartup": e.run_on_startup,
           "watchFiles": e.watch_files, "helperProcess": e.helper_process,
           "goldDiagnostics": e.gold_diagnostics,
           "severity": e.severity, "fieldThreshold": e.field_threshold,
           "evaluationDebounceMs": e.debounce_ms,
           "maxDiagnosticsPerFile": e.max_diagnostics_per_file,
           "diagnosticsMode": e.diagnostics_mode}
    server = {name: spec for name, spec in SETTINGS.items() if not spec.client_only}
    assert set(got) == set(server), "every setting the server reads has an attribute"
    for name, value in got.items():
        assert value == server[name].default, name


def test_the_table_is_consistent() -> None:
    for name, spec in SETTINGS.items():
        assert spec.name == name
        assert len(spec.description) > 20, name
        assert spec.hidden is False or not spec.client_only, name
        if spec.restricted:
            assert spec.scope not in ("application", "machine"), name  # a workspace could set it
    # The severity kinds offered in the editor are kinds of finding the server knows.
    assert set(SETTINGS["severity"].schema["properties"]) <= set(DEFAULT_SEVERITY)
