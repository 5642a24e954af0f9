"""A schema being written, for the end-to-end tests of the authoring features."""

from __future__ import annotations

from lsprotocol import types

URI = "file:///tmp/evalschema-tests/invoice.eval.json"

SCHEMA = """{
  "type": "object",
  "x-eval-id": "id",
  "properties": {
    "id": {"type": "string"},
    "name": {"type": "string", "x-eval-compare": "levenstein"},
    "total": {"type": "number", "x-eval-compar": "numeric"},
    "items": {
      "type": "array",
      "x-eval-align": {"match_by": "key_field", "key": "skuu"},
      "items": {"type": "object", "properties": {"sku": {"type": "string"}}}
    }
  }
}
"""


def labels(result: types.CompletionList | list[types.CompletionItem] | None) -> list[str]:
    items = result.items if isinstance(result, types.CompletionList) else result or []
    return [i.label for i in items]
