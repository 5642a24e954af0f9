"""The JSON meta-schema of eval schemas: JSON Schema (draft-07) with the shape of each
``x-eval-*`` value, from the keyword table and the registry, so there is no second,
hand-written list of keys or names.

``evalschema meta-schema`` prints it, for any editor's JSON or YAML language server (an eval
schema names it with ``$schema``); the VS Code extension writes the same text at build time
(``vscode-extension/scripts/gen_metaschema.py``) for its ``jsonValidation``. What it gives:
- JSON Schema itself (the draft-07 meta-schema, which editors ship): completion and checks
  of ``type``, ``properties``, ``items``... at every schema node, recursively;
- the shape of each ``x-eval-*`` value (``x-eval-skip`` a boolean, ``x-eval-threshold`` in
  [0, 1], ``x-eval-null`` one of its values, ``match_by`` one of the alignment strategies...).
The ``x-eval-*`` keys and registry names are marked ``doNotSuggest`` (a VS Code keyword others
ignore): evalschema's language server completes them with context (only the keys that fit
the node, comparators that fit the field's type first) and documentation, so VS Code does not
offer them twice. The extension drops the server's value items that this schema's enums
already give (see its src/completion.ts).
"""

from __future__ import annotations

import json
from typing import Any

from evalschema.rules.keywords import KEYWORDS
from evalschema.rules.registry import default_registry

NODE = {"$ref": "#/definitions/node"}
NODE_OR_BOOL = {"anyOf": [NODE, {"type": "boolean"}]}
NODE_MAP = {"type": "object", "additionalProperties": NODE_OR_BOOL}
NODE_LIST = {"type": "array", "items": NODE_OR_BOOL}


def keyword_schema(name: str) -> dict[str, Any]:
    kw = KEYWORDS[name]
    value: dict[str, Any] = json.loads(json.dumps(kw.value_schema))
    if name == "x-eval-align":
        strategies = sorted(default_registry.strategies)
        value = {
            "type": "object",
            "properties": {
                "match_by": {"type": "string", "enum": strategies},
                "key": {"type": "string", "minLength": 1},
                "ordered": {"type": "boolean"},
            },
        }
        for spec in value["properties"].values():
            spec["doNotSuggest"] = True
    value["doNotSuggest"] = True
    return value


def metaschema() -> dict[str, Any]:
    node_props: dict[str, Any] = {
        "properties": NODE_MAP,
        "patternProperties": NODE_MAP,
        "definitions": NODE_MAP,
        "$defs": NODE_MAP,
        "dependentSchemas": NODE_MAP,
        "items": {"anyOf": [NODE_OR_BOOL, NODE_LIST]},
        "prefixItems": NODE_LIST,
        "additionalItems": NODE_OR_BOOL,
        "additionalProperties": NODE_OR_BOOL,
        "contains": NODE_OR_BOOL,
        "allOf": NODE_LIST,
        "anyOf": NODE_LIST,
        "oneOf": NODE_LIST,
        "not": NODE_OR_BOOL,
        "if": NODE_OR_BOOL,
        "then": NODE_OR_BOOL,
        "else": NODE_OR_BOOL,
    }
    for name in KEYWORDS:
        node_props[name] = keyword_schema(name)
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "evalschema eval schema",
        "$comment": "Generated from evalschema's keyword table and registry (`evalschema "
                    "meta-schema`); do not edit.",
        "definitions": {
            "node": {
                "allOf": [{"$ref": "http://json-schema.org/draft-07/schema#"}],
                "properties": node_props,
            }
        },
        "allOf": [NODE],
    }


def metaschema_text() -> str:
    """The meta-schema as written to a file: indented JSON and a final newline."""
    return json.dumps(metaschema(), indent=2, sort_keys=False) + "\n"
