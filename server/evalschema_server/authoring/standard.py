"""The JSON Schema keywords an eval schema is written with, offered by completion.

VS Code's JSON support used to complete them from a meta-schema. The extension now opens
eval schemas in a language of its own (so that support's meta-schema hovers stay out), and
other editors may run no JSON language server at all: the server offers them itself, after
its ``x-eval-*`` keys. Only the keywords that describe data: the engine reads ``type``,
``properties``, ``items``, the map keywords and references; the rest document the schema.
"""

from __future__ import annotations

from dataclasses import dataclass

#: JSON Schema's type names, the values of ``type``.
TYPE_NAMES = ("string", "number", "integer", "boolean", "object", "array", "null")


@dataclass(frozen=True)
class Keyword:
    #: What a snippet puts after ``"key": ``.
    snippet: str
    doc: str
    root_only: bool = False


_TYPES = "|" + ",".join(TYPE_NAMES) + "|"

KEYWORDS: dict[str, Keyword] = {
    "type": Keyword(f'"${{1{_TYPES}}}"', "The JSON type of the value. evalschema picks the "
                    "default comparator and the fitting ones by it."),
    "properties": Keyword("{$1}", "The fields of an object: each is scored (and reported) "
                          "on its own."),
    "items": Keyword("{$1}", "The schema of an array's items; `x-eval-align` says how gold "
                     "and extracted items are paired."),
    "required": Keyword('["$1"]', "Keys an object must have. evalschema scores a missing "
                        "field as an omission whether it is required or not."),
    "title": Keyword('"$1"', "A short name for the field (documentation)."),
    "description": Keyword('"$1"', "What the field holds (documentation; shown on hover)."),
    "enum": Keyword("[$1]", "The values allowed."),
    "const": Keyword("$1", "The one value allowed."),
    "format": Keyword('"${1|date,date-time,time,email,uri,uuid|}"',
                      "A semantic format of a string. `evalschema annotate` gives `date` and "
                      "`date-time` fields the date comparator; otherwise the comparator "
                      "decides how values compare."),
    "additionalProperties": Keyword("${1|false,true|}", "Whether keys not in `properties` "
                                    "are allowed, or the schema of their values (a map)."),
    "patternProperties": Keyword('{"$1": {}}', "Schemas of keys matching a pattern (a map)."),
    "$ref": Keyword('"#/$defs/$1"', "Use the schema at this reference (followed when "
                    "scoring)."),
    "$defs": Keyword("{$1}", "Schemas for `$ref` to use."),
    "anyOf": Keyword("[{$1}]", "The value matches at least one of these schemas."),
    "oneOf": Keyword("[{$1}]", "The value matches exactly one of these schemas."),
    "allOf": Keyword("[{$1}]", "The value matches all of these schemas."),
    "minimum": Keyword("${1:0}", "The smallest number allowed."),
    "maximum": Keyword("${1:0}", "The largest number allowed."),
    "minLength": Keyword("${1:1}", "The shortest string allowed."),
    "maxLength": Keyword("${1:1}", "The longest string allowed."),
    "pattern": Keyword('"$1"', "A regular expression the string matches."),
    "minItems": Keyword("${1:1}", "The fewest items allowed."),
    "maxItems": Keyword("${1:1}", "The most items allowed."),
    "default": Keyword("$1", "The value when none is given (documentation)."),
    "examples": Keyword("[$1]", "Example values (documentation)."),
    "$schema": Keyword('"https://json-schema.org/draft/2020-12/schema"',
                       "The JSON Schema dialect of this schema.", root_only=True),
    "$id": Keyword('"$1"', "The schema's URI: the base that `$ref`s resolve against.",
                   root_only=True),
}
