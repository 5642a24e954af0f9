"""``x-eval-confidence`` in the schema: where each leaf's confidence sits, which keys of the
extracted record are confidences (not extra keys), and every bad value a located error."""

from __future__ import annotations

from typing import Any

import pytest

from evalschema import check_eval_schema
from evalschema.schema.confidence import ConfidenceAt


def _obj(props: dict[str, Any], **keys: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, **keys}


INVOICE = _obj({
    "id": {"type": "string", "x-eval-confidence": False},
    "total": {"type": "number"},
    "vendor": _obj({"name": {"type": "string"}}),
    "items": {"type": "array", "items": _obj({"sku": {"type": "string"},
                                              "qty": {"type": "integer",
                                                      "x-eval-confidence": "qty_p"}})},
    "tags": {"type": "array", "items": {"type": "string"}},
}, **{"x-eval-confidence": "{key}_confidence"})


def _at(schema: dict[str, Any]) -> dict[str, tuple[str | None, str | None, str]]:
    check = check_eval_schema(schema)
    assert check.problems == ()
    return {n.path: (n.confidence.key, n.confidence.pointer, n.confidence.where)
            for n in check.root.walk() if n.confidence is not None}


def test_a_root_key_template_reaches_every_named_leaf() -> None:
    assert _at(INVOICE) == {
        "total": ("total_confidence", None, "/x-eval-confidence"),
        "vendor.name": ("name_confidence", None, "/x-eval-confidence"),
        "items[].sku": ("sku_confidence", None, "/x-eval-confidence"),
        "items[].qty": ("qty_p", None, "/properties/items/items/properties/qty/x-eval-confidence"),
    }  # id: false; tags[]: an array item has no name, so no sibling key


def test_sibling_keys_are_ignored_by_their_object() -> None:
    root = check_eval_schema(INVOICE).root
    assert {n.path: n.ignored for n in root.walk() if n.ignored} == {
        "": frozenset({"total_confidence"}),
        "vendor": frozenset({"name_confidence"}),
        "items[]": frozenset({"sku_confidence", "qty_p"}),
    }


def test_a_pointer_template_reaches_array_items_too() -> None:
    schema = {**INVOICE, "x-eval-confidence": "/confidence/{path}"}
    assert _at(schema)["tags[]"] == (None, "/confidence/{path}", "/x-eval-confidence")
    root = check_eval_schema(schema).root
    assert {n.path: n.ignored for n in root.walk() if n.ignored} == {
        "": frozenset({"confidence"}), "items[]": frozenset({"qty_p"})}


def test_a_pointer_through_declared_objects_ignores_the_first_undeclared_key() -> None:
    schema = _obj({"meta": _obj({"source": {"type": "string"}}), "total": {"type": "number"}},
                  **{"x-eval-confidence": "/meta/scores/{path}"})
    root = check_eval_schema(schema).root
    assert {n.path: n.ignored for n in root.walk() if n.ignored} == {
        "meta": frozenset({"scores"})}


@pytest.mark.parametrize(("at", "pointer", "located"), [
    (ConfidenceAt(key="total_confidence"), "/total", "/total_confidence"),
    (ConfidenceAt(key="qty_p"), "/items/2/qty", "/items/2/qty_p"),
    (ConfidenceAt(key="a/b~"), "/x", "/a~1b~0"),
    (ConfidenceAt(pointer="/confidence/{path}"), "/items/2/qty", "/confidence/items/2/qty"),
    (ConfidenceAt(pointer="/c/{path}/p"), "/tags/0", "/c/tags/0/p"),
    (ConfidenceAt(pointer="/scores/total"), "/total", "/scores/total"),
])
def test_locate(at: ConfidenceAt, pointer: str, located: str) -> None:
    assert at.locate(pointer) == located


LEAF = "/properties/total/x-eval-confidence"
ROOT = "/x-eval-confidence"


@pytest.mark.parametrize(("schema", "code", "pointer", "message"), [
    (_obj({"total": {"type": "number", "x-eval-confidence": 0.5}}), "bad-confidence", LEAF,
     'x-eval-confidence must be a key ("{key}_confidence"), a JSON Pointer '
     '("/confidence/{path}") or false'),
    (_obj({"total": {"type": "number", "x-eval-confidence": ""}}), "bad-confidence", LEAF,
     'x-eval-confidence must be a key ("{key}_confidence"), a JSON Pointer '
     '("/confidence/{path}") or false'),
    (_obj({"total": {"type": "number", "x-eval-confidence": "{name}_p"}}), "bad-confidence",
     LEAF, "x-eval-confidence: unknown placeholder {name} in a key (it takes {key} only)"),
    (_obj({"total": {"type": "number", "x-eval-confidence": "/c/{key}"}}), "bad-confidence",
     LEAF, "x-eval-confidence: unknown placeholder {key} in a pointer (it takes {path} only)"),
    (_obj({"total": {"type": "number", "x-eval-confidence": "{key_p"}}), "bad-confidence",
     LEAF, "x-eval-confidence: an unmatched brace (placeholders are {key} or {path})"),
    (_obj({"total": {"type": "number", "x-eval-confidence": "/c{path}"}}), "bad-confidence",
     LEAF, 'x-eval-confidence: {path} must stand for whole segments ("/confidence/{path}")'),
    (_obj({"total": {"type": "number", "x-eval-confidence": "/c/{path}/{path}"}}),
     "bad-confidence", LEAF, "x-eval-confidence: {path} may appear once"),
    (_obj({"total": {"type": "number", "x-eval-confidence": "/c~2/{path}"}}), "bad-confidence",
     LEAF, "x-eval-confidence: '~' in a JSON Pointer must be '~0' or '~1'"),
    (_obj({"total": {"type": "number"}}, **{"x-eval-confidence": "total_p"}), "bad-confidence",
     ROOT, "x-eval-confidence on an object, array or the root applies to every field below "
     "it, so it must hold {key} (else they would share one confidence)"),
    (_obj({"tags": {"type": "array", "items": {"type": "string",
                                               "x-eval-confidence": "/c/tags"}}}),
     "bad-confidence", "/properties/tags/items/x-eval-confidence",
     "x-eval-confidence: a field inside array items or map values needs {path} in its "
     "pointer (else every element would share one confidence)"),
    (_obj({"tags": {"type": "array", "items": {"type": "string",
                                               "x-eval-confidence": "{key}_p"}}}),
     "bad-confidence", "/properties/tags/items/x-eval-confidence",
     "x-eval-confidence: a key form names a key beside the field, and array items and map "
     "values have no name"),
    (_obj({"total": {"type": "number", "x-eval-confidence": "score"},
           "score": {"type": "number"}}), "confidence-is-a-field", LEAF,
     "x-eval-confidence: 'total''s confidence key 'score' is a property the schema scores"),
    (_obj({"total": {"type": "number"}, "meta": _obj({"c": {"type": "number"}})},
          **{"x-eval-confidence": "/meta/c"}), "bad-confidence", ROOT,
     "x-eval-confidence on an object, array or the root applies to every field below it, "
     "so it must hold {path} (else they would share one confidence)"),
    (_obj({"total": {"type": "number", "x-eval-confidence": "/meta/c"},
           "meta": _obj({"c": {"type": "number"}})}), "confidence-is-a-field", LEAF,
     "x-eval-confidence '/meta/c' points into meta.c, which the schema scores"),
    (_obj({"total": {"type": "number"}}, **{"x-eval-confidence": "/{path}"}),
     "confidence-is-a-field", ROOT,
     "x-eval-confidence '/{path}' points into the record itself, which the schema scores"),
])
def test_a_bad_value_is_a_located_error(schema: dict[str, Any], code: str, pointer: str,
                                        message: str) -> None:
    problems = [(p.code, p.pointer, p.message, p.severity.value)
                for p in check_eval_schema(schema).problems]
    assert problems == [(code, pointer, message, "error")]


def test_an_error_on_a_field_belongs_to_that_field() -> None:
    schema = _obj({"total": {"type": "number", "x-eval-confidence": 3},
                   "name": {"type": "string"}})
    check = check_eval_schema(schema)
    assert [f for f, _ in check.field_errors] == ["total"]
    assert check.fatal == ()


def test_an_error_at_the_root_is_fatal() -> None:
    check = check_eval_schema(_obj({"total": {"type": "number"}},
                                   **{"x-eval-confidence": "p"}))
    assert [p.code for p in check.fatal] == ["bad-confidence"]
