"""The extension's generated copies of the contracts are current.

package.json's settings sections, src/generated/settings.ts, src/generated/protocol.ts and
src/generated/protocol.schema.json are generated from the server's settings table and payload
TypedDicts by vscode-extension/scripts/gen_contracts.py (``npm run contracts``). Here the
generator runs in memory and every committed file must equal its output.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from evalschema.results import FINDINGS
from evalschema_server import protocol
from evalschema_server.settings import SECTION, SETTINGS

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "vscode-extension"


def _generator() -> ModuleType:
    path = EXTENSION / "scripts" / "gen_contracts.py"
    spec = importlib.util.spec_from_file_location("gen_contracts", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


gen = _generator()


@pytest.mark.parametrize("rel", list(gen.outputs()))
def test_committed_file_is_what_the_generator_writes(rel: str) -> None:
    committed = (EXTENSION / rel).read_text(encoding="utf-8")
    assert committed == gen.outputs()[rel], (
        f"vscode-extension/{rel} is out of date: run `npm run contracts` in vscode-extension "
        "(or python vscode-extension/scripts/gen_contracts.py)")


def test_a_hand_edit_of_package_json_settings_is_overwritten() -> None:
    """Only the settings sections are generated; the rest of package.json is kept."""
    package = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    props = package["contributes"]["configuration"]["properties"]
    props["evalschema.debounceMs"]["default"] = 1
    props["evalschema.stale"] = {"type": "string"}
    package["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"] = []
    package["displayName"] = "kept"
    out = json.loads(gen.outputs(lambda rel: json.dumps(package))["package.json"])
    got = out["contributes"]["configuration"]["properties"]
    assert got["evalschema.debounceMs"]["default"] == 40
    assert "evalschema.stale" not in got
    assert out["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"] == [
        "evalschema.interpreter", "evalschema.serverArgs", "evalschema.comparatorModules"]
    assert out["displayName"] == "kept"


def test_package_json_declares_each_setting_of_the_table() -> None:
    package = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    props = package["contributes"]["configuration"]["properties"]
    assert list(props) == [f"{SECTION}.{n}" for n, s in SETTINGS.items() if not s.hidden]
    for name, spec in SETTINGS.items():
        if spec.hidden:
            continue
        prop = props[f"{SECTION}.{name}"]
        assert prop["default"] == gen.plain(spec.default), name
        assert prop["markdownDescription"] == spec.description, name
        assert prop.get("scope") == spec.scope, name
        assert prop.get("enum", []) == list(spec.enum), name
        assert prop["type"] == (list(spec.type) if isinstance(spec.type, tuple) else spec.type), name
        assert (prop.get("minimum"), prop.get("maximum")) == (spec.minimum, spec.maximum), name


def test_the_extension_reads_every_setting_it_declares_with_the_same_default() -> None:
    """src/generated/settings.ts: each setting the extension offers is in ``Settings`` and
    ``DEFAULTS`` with settings.py's default (test/settings.test.ts checks that readSettings
    reads each one and passes the server's on)."""
    text = (EXTENSION / "src" / "generated" / "settings.ts").read_text(encoding="utf-8")
    defaults = text.split("export const DEFAULTS", 1)[1].split("});", 1)[0]
    for name, spec in SETTINGS.items():
        if spec.hidden or spec.reader == "languageclient":
            continue
        assert f"\n  {name}: " in text.split("export const DEFAULTS", 1)[0], name
        assert f"\n  {name}: {gen._ts_value(spec.default)},\n" in defaults, name


def test_the_settings_are_documented() -> None:
    """The hand-written tables in the docs name every setting (their prose is their own)."""
    server_doc = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    extension_doc = (EXTENSION / "README.md").read_text(encoding="utf-8")
    for name, spec in SETTINGS.items():
        if not spec.client_only:
            assert f"| `{name}` |" in server_doc, f"docs/server.md: {name}"
        if not spec.hidden:
            assert f"| `{SECTION}.{name}` |" in extension_doc, f"vscode-extension/README.md: {name}"


def test_the_schema_covers_every_command_and_notification() -> None:
    schema = gen.protocol_schema()
    assert set(schema["x-commands"]) == {protocol.COMMAND_PREFIX + n for n in protocol.COMMANDS}
    assert set(schema["x-notifications"]) == {protocol.RUN_QUEUED, protocol.RUN_STARTED,
                                            protocol.RUN_FINISHED, protocol.SUITES_CHANGED}
    # A field that is not always there is optional in the schema and the TypeScript.
    summary = schema["$defs"]["SuiteSummary"]
    assert "problems" in summary["properties"] and "problems" not in summary["required"]
    assert "problems?: number;" in gen.protocol_ts(schema)
    # Payloads are closed: a field sent but not declared fails validation.
    assert all(d["additionalProperties"] is False for d in schema["$defs"].values())


def test_the_finding_statuses_are_the_engines() -> None:
    """The Findings view's status filter (src/findings.ts) has no copy of its own."""
    assert protocol.FINDING_STATUSES == (
        "mismatch", "omission", "hallucination", "error", "batch_error")
    assert set(protocol.FINDING_STATUSES) == {str(s) for s in FINDINGS}
    assert ('export const FINDING_STATUSES = ["mismatch", "omission", "hallucination", '
            '"error", "batch_error"] as const;') in gen.outputs()["src/generated/protocol.ts"]


def test_typescript_types_of_json_schemas() -> None:
    t = gen.ts_type
    assert t({"type": ["number", "null"]}) == "number | null"
    assert t({"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}) \
        == "(A | null)[]"
    assert t({"type": "object", "additionalProperties": {"type": "integer"}}) \
        == "Record<string, number>"
    assert t({"type": "object", "properties": {"a-b": {"type": "string"}}, "required": []}) \
        == '{ "a-b"?: string; }'
    assert t({"enum": ["x", 1]}) == '"x" | 1'
    assert t({}) == "unknown"
