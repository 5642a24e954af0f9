"""The ``x-eval-*`` keywords: where each may stand, what its value looks like, its doc.

Validation, completion and hover read this table; it is the only list of keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Keyword:
    name: str
    doc: str
    #: Node kinds it fits: "leaf", "object", "array", "root".
    applies_to: frozenset[str]
    #: JSON Schema of the value (for simple keys validated generically, and the meta-schema).
    value_schema: dict[str, Any]
    #: A snippet body for editors (LSP snippet syntax).
    snippet: str


_ANY = frozenset({"leaf", "object", "array"})

KEYWORDS: dict[str, Keyword] = {
    k.name: k
    for k in (
        Keyword(
            "x-eval-compare",
            "How this field is judged: a comparator name (`\"numeric\"`) or a one-key object "
            "with parameters (`{\"numeric\": {\"tolerance\": {\"rel\": 0.01}}}`). On an object "
            "or array it turns the whole value into one leaf compared as a unit.",
            _ANY,
            {"oneOf": [{"type": "string"}, {"type": "object", "minProperties": 1,
                                             "maxProperties": 1}]},
            '"${1:exact}"',
        ),
        Keyword(
            "x-eval-transform",
            "Transforms applied, left to right, to both gold and extracted values before "
            "comparing: names or one-key objects with parameters "
            "(`[\"strip\", {\"round_digits\": {\"digits\": 2}}]`).",
            frozenset({"leaf"}),
            {"type": "array", "items": {"oneOf": [{"type": "string"}, {"type": "object"}]}},
            '["${1:strip}"]',
        ),
        Keyword(
            "x-eval-align",
            "How array elements are paired before their fields are judged: "
            "`{\"ordered\": true}` (by position, the default), "
            "`{\"match_by\": \"key_field\", \"key\": \"sku\"}`, `{\"match_by\": \"hungarian\"}` "
            "(optimal assignment) or `{\"match_by\": \"set\"}` (arrays of scalars).",
            frozenset({"array"}),
            {"type": "object"},
            '{"match_by": "${1:hungarian}"}',
        ),
        Keyword(
            "x-eval-skip",
            "`true` leaves this field out of scoring: it is reported as skipped and counts "
            "in no metric.",
            _ANY,
            {"type": "boolean"},
            "true",
        ),
        Keyword(
            "x-eval-weight",
            "How much this field counts in the weighted overall score (default 1; 0 keeps it "
            "in precision/recall but out of the weighted score). Inherited by the fields "
            "below it.",
            _ANY,
            {"type": "number", "minimum": 0},
            "${1:1}",
        ),
        Keyword(
            "x-eval-threshold",
            "Score at or above which the field counts as a match (default 1.0). Below it the "
            "field is a mismatch that still earns its partial score.",
            frozenset({"leaf"}),
            {"type": "number", "minimum": 0, "maximum": 1},
            "${1:0.8}",
        ),
        Keyword(
            "x-eval-null",
            "Null policy: `\"value\"` (default) treats null as an ordinary value (null vs null "
            "is a match, null vs \"x\" a mismatch); `\"absent\"` treats null as missing (gold "
            "null vs a value is a hallucination, a value vs extracted null an omission, both "
            "null is skipped). Inherited by the fields below it.",
            _ANY,
            {"enum": ["value", "absent"]},
            '"${1|value,absent|}"',
        ),
        Keyword(
            "x-eval-confidence",
            "Where this field's confidence sits in the extracted record, for calibration "
            "figures (ECE, Brier, AUROC, errors caught at a review budget): a sibling key, "
            "`{key}` standing for the field's name (`\"{key}_confidence\"`), or a JSON "
            "Pointer from the record's root, `{path}` standing for the value's own pointer "
            "(`\"/confidence/{path}\"`). On an object, array or the root it is a template "
            "for every field below (its placeholder required); `false` turns it off. The "
            "confidence keys are not scored as extra keys.",
            _ANY,
            {"oneOf": [{"type": "string", "minLength": 1}, {"const": False}]},
            '"${1:{key\\}_confidence}"',
        ),
        Keyword(
            "x-eval-id",
            "At the schema root: the property that identifies a record, used to pair gold "
            "and extracted records (instead of by position).",
            frozenset({"root"}),
            {"type": "string", "minLength": 1},
            '"${1:id}"',
        ),
    )
}

#: Keys validated generically against ``value_schema`` (the rest need registry lookups).
SIMPLE_KEYWORDS = ("x-eval-skip", "x-eval-weight", "x-eval-threshold", "x-eval-null", "x-eval-id")
