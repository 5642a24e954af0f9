"""Stickler's models (stickler-eval 1.0) read as eval schemas: the fixtures written after the
examples Stickler ships (tests/data/stickler/README.md), each converted to an exact schema
and an exact report; every comparator's mapping; what Stickler refuses; a gold/extracted
pair scored with a converted schema against figures derived by hand from Stickler's
rules; and ``evalschema import stickler`` on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import evaluate
from evalschema.cli.main import main
from evalschema.schema.stickler import import_stickler, stickler_form
from evalschema.schema.stickler_compare import Where, map_comparator
from evalschema.schema.tree import check_eval_schema

DATA = Path(__file__).resolve().parents[2] / "data" / "stickler"
HUNGARIAN = {"match_by": "hungarian"}
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _load(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def lev(threshold: float, transforms: tuple[str, ...] = ("lowercase", "normalize_whitespace"),
        **more: Any) -> dict[str, Any]:
    """A string field Stickler judges with LevenshteinComparator (or FuzzyComparator)."""
    return {"type": "string", "x-eval-compare": "levenshtein",
            "x-eval-transform": list(transforms), "x-eval-threshold": threshold, **more}


def num(kind: str = "number", **more: Any) -> dict[str, Any]:
    return {"type": kind, "x-eval-compare": "numeric", **more}


def report(name: str) -> list[tuple[str, str, str]]:
    return [(p.pointer, str(p.severity), p.code) for p in import_stickler(_load(name)).problems]


COUNTS = ("", "info", "stickler-counts")

EXPECTED: dict[str, dict[str, Any]] = {
    "product.schema.json": {
        "type": "object", "title": "Product",
        "properties": {
            "name": lev(0.5), "price": num(),
            "in_stock": {"type": "boolean", "x-eval-compare": "exact"},
            "tags": {"type": "array", "items": lev(0.5), "x-eval-align": HUNGARIAN}},
        "required": ["name", "price"], "x-eval-null": "absent"},
    "invoice.schema.json": {
        "type": "object", "title": "Invoice",
        "properties": {
            "invoice_number": lev(0.5), "total": num(),
            "customer": {"type": "object", "properties": {"name": lev(0.5), "email": lev(0.5)},
                         "required": ["name"]},
            "items": {"type": "array", "items": {
                "type": "object",
                "properties": {"description": lev(0.5), "quantity": num("integer"),
                               "unit_price": num()},
                "required": ["description", "quantity", "unit_price"]},
                "x-eval-align": HUNGARIAN}},
        "required": ["invoice_number", "total", "customer", "items"],
        "x-eval-null": "absent"},
    "document.schema.json": {
        "type": "object", "title": "Document",
        "properties": {
            "title": lev(0.5), "content": lev(0.5), "priority": num("integer"),
            "tags": {"type": "array", "items": lev(0.5), "x-eval-align": HUNGARIAN}},
        "required": ["title", "content", "priority"], "x-eval-null": "absent"},
    "order.schema.json": {
        "type": "object",
        "definitions": {
            "Address": {"type": "object",
                        "properties": {"street": lev(0.85, **{"x-eval-weight": 1.2}),
                                       "city": lev(0.9, **{"x-eval-weight": 1.5})},
                        "required": ["street", "city"]},
            "Customer": {"type": "object",
                         "properties": {"name": lev(0.9, **{"x-eval-weight": 2.0}),
                                        "address": {"$ref": "#/definitions/Address"}},
                         "required": ["name", "address"]}},
        "properties": {
            "order_id": {"type": "string", "x-eval-compare": "exact", "x-eval-weight": 3.0},
            "customer": {"$ref": "#/definitions/Customer"},
            "shipping_address": {"$ref": "#/definitions/Address"},
            "total_amount": num(**{"x-eval-weight": 2.5}),
            "items": {"type": "array", "items": {
                "type": "object",
                "properties": {"product_name": lev(0.7, **{"x-eval-weight": 1.3}),
                               "price": num(**{"x-eval-weight": 1.5})},
                "required": ["product_name", "price"]},
                "x-eval-align": HUNGARIAN, "x-eval-weight": 2.0}},
        "required": ["order_id", "customer", "shipping_address", "total_amount", "items"],
        "x-eval-null": "absent"},
    "person.config.json": {
        "$schema": DRAFT, "title": "Person", "type": "object",
        "properties": {
            "name": lev(0.8), "age": num("integer", **{"x-eval-weight": 0.5}),
            "email": {"type": "string", "x-eval-compare": "exact", "x-eval-weight": 1.5}},
        "required": ["name", "age"], "x-eval-null": "absent"},
    "company.config.json": {
        "$schema": DRAFT, "title": "Company", "type": "object",
        "properties": {
            "name": lev(0.8, **{"x-eval-weight": 2.0}),
            "ceo": {"type": "object",
                    "properties": {"name": lev(0.8), "salary": num(**{"x-eval-weight": 0.8})},
                    "x-eval-weight": 1.5},
            "employees": {"type": "array", "items": {"type": "object", "properties": {
                "name": lev(0.8),
                "department": {"type": "string", "x-eval-compare": "exact",
                               "x-eval-weight": 0.5},
                "salary": num(**{"x-eval-weight": 0.7})}},
                "x-eval-align": HUNGARIAN}},
        "x-eval-null": "absent"},
    "product.config.json": {
        "$schema": DRAFT, "title": "Product", "type": "object",
        "properties": {
            "name": lev(0.8),
            "sku": {"type": "string", "x-eval-compare": "exact", "x-eval-weight": 2.0},
            "price": {"type": "number",
                      "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.05}}},
                      "x-eval-weight": 1.5},
            "description": lev(0.7, ("strip", "lowercase"), **{"x-eval-weight": 0.8}),
            "tags": {"type": "array",
                     "items": {"x-eval-compare": "exact",
                               "x-eval-transform": [{"type_convert": {"to": "str"}}]},
                     "x-eval-align": HUNGARIAN, "x-eval-weight": 0.5}},
        "x-eval-null": "absent"},
    "invoice.config.json": {
        "$schema": DRAFT, "title": "Invoice", "type": "object",
        "properties": {
            "invoice_id": {"type": "string", "x-eval-compare": "exact", "x-eval-weight": 3.0},
            "customer_name": lev(0.8, **{"x-eval-weight": 2.0}),
            "total_amount": num(**{"x-eval-weight": 2.5}),
            "line_items": {"type": "array", "items": {"type": "object", "properties": {
                "product_name": lev(0.8, ("strip", "lowercase")),
                "quantity": num("integer", **{"x-eval-weight": 0.8}),
                "unit_price": num(**{"x-eval-weight": 1.2})}},
                "x-eval-align": HUNGARIAN, "x-eval-weight": 1.5}},
        "required": ["invoice_id", "customer_name", "total_amount"], "x-eval-null": "absent"},
}

REPORTS: dict[str, list[tuple[str, str, str]]] = {
    "product.schema.json": [
        COUNTS, ("/properties/name", "info", "partial-credit"),
        ("/properties/tags", "info", "partial-credit"),
        ("/properties/tags", "warning", "list-pairing")],
    "invoice.schema.json": [
        COUNTS, ("/properties/invoice_number", "info", "partial-credit"),
        ("/properties/customer/properties/name", "info", "partial-credit"),
        ("/properties/customer/properties/email", "info", "partial-credit"),
        ("/properties/items/items/properties/description", "info", "partial-credit"),
        ("/properties/items", "warning", "list-pairing")],
    "document.schema.json": [
        COUNTS,
        ("/properties/title/x-stickler-comparator", "error", "unknown-stickler-key"),
        ("/properties/title/x-stickler-threshold", "error", "unknown-stickler-key"),
        ("/properties/content/x-stickler-comparator", "error", "unknown-stickler-key"),
        ("/properties/priority/x-stickler-weight", "error", "unknown-stickler-key"),
        ("/properties/title", "info", "partial-credit"),
        ("/properties/content", "info", "partial-credit"),
        ("/properties/tags", "info", "partial-credit"),
        ("/properties/tags", "warning", "list-pairing")],
    "order.schema.json": [
        COUNTS, ("/x-aws-stickler-match-threshold", "info", "no-scoring-effect"),
        ("/properties/order_id/x-aws-stickler-aggregate", "info", "no-scoring-effect"),
        ("/definitions/Customer/properties/name", "info", "partial-credit"),
        ("/definitions/Customer/properties/name/x-aws-stickler-aggregate", "info",
         "no-scoring-effect"),
        ("/definitions/Address/properties/street", "info", "partial-credit"),
        ("/definitions/Address/properties/city", "info", "partial-credit"),
        ("/properties/total_amount/x-aws-stickler-aggregate", "info", "no-scoring-effect"),
        ("/properties/items/items/properties/product_name", "info", "partial-credit"),
        ("/properties/items", "warning", "list-pairing"),
        ("/properties/items/x-aws-stickler-weight", "warning", "object-weight")],
    "person.config.json": [COUNTS, ("/fields/name", "info", "partial-credit")],
    "company.config.json": [
        COUNTS, ("/fields/name", "info", "partial-credit"),
        ("/fields/ceo/fields/name", "info", "partial-credit"),
        ("/fields/ceo/threshold", "info", "object-score"),
        ("/fields/ceo/weight", "warning", "object-weight"),
        ("/fields/employees/match_threshold", "warning", "match-threshold"),
        ("/fields/employees/fields/name", "info", "partial-credit"),
        ("/fields/employees", "warning", "list-pairing")],
    "product.config.json": [
        COUNTS, ("/fields/name/comparator_config", "warning", "comparator-config-ignored"),
        ("/fields/name", "info", "partial-credit"),
        ("/fields/description/comparator", "warning", "approximate-comparator"),
        ("/fields/description", "info", "partial-credit"),
        ("/fields/tags", "warning", "list-pairing"),
        ("/fields/tags/weight", "warning", "object-weight")],
    "invoice.config.json": [
        COUNTS, ("/match_threshold", "info", "no-scoring-effect"),
        ("/fields/customer_name", "info", "partial-credit"),
        ("/fields/line_items/match_threshold", "warning", "match-threshold"),
        ("/fields/line_items/fields/product_name/comparator", "warning",
         "approximate-comparator"),
        ("/fields/line_items/fields/product_name", "info", "partial-credit"),
        ("/fields/line_items", "warning", "list-pairing"),
        ("/fields/line_items/weight", "warning", "object-weight")],
}


# -- the fixtures ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fixture_converts_to_the_exact_schema_and_report(name: str) -> None:
    result = import_stickler(_load(name))
    assert result.form == ("model-config" if ".config." in name else "json-schema")
    assert result.schema == EXPECTED[name]
    assert report(name) == REPORTS[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_converted_schema_passes_our_schema_check(name: str) -> None:
    check = check_eval_schema(import_stickler(_load(name)).schema)
    assert [p.format() for p in check.problems] == []


def test_report_items_say_what_and_what_to_do() -> None:
    problems = {p.pointer: p for p in import_stickler(_load("document.schema.json")).problems}
    wrong = problems["/properties/title/x-stickler-comparator"]
    assert wrong.message == ("Stickler refuses x-stickler-comparator: it reads x-aws-stickler-* "
                             "keys, not x-stickler-*")
    assert wrong.suggestion == "rename it x-aws-stickler-comparator"
    config = {p.pointer: p for p in import_stickler(_load("product.config.json")).problems}
    dropped = config["/fields/name/comparator_config"]
    assert dropped.message == ("Stickler drops 'case_sensitive': not a parameter of "
                               "LevenshteinComparator")
    assert dropped.suggestion == "LevenshteinComparator takes normalize, threshold; remove the others"


def test_the_input_is_not_changed() -> None:
    doc = _load("order.schema.json")
    before = json.dumps(doc, sort_keys=True)
    import_stickler(doc)
    assert json.dumps(doc, sort_keys=True) == before


def test_forms() -> None:
    assert stickler_form(_load("person.config.json")) == "model-config"
    assert stickler_form(_load("order.schema.json")) == "json-schema"
    assert stickler_form({"type": "object"}) is None
    assert stickler_form([1]) is None
    result = import_stickler({"fields": "x"})
    assert (result.form, [(p.pointer, p.code) for p in result.problems]) == (
        "", [("", "not-stickler")])


# -- comparators ------------------------------------------------------------------------------

AT = Where("/c", "/cfg")


@pytest.mark.parametrize(("name", "config", "kind", "keys", "codes"), [
    ("LevenshteinComparator", None, "string",
     {"x-eval-compare": "levenshtein", "x-eval-transform": ["lowercase", "normalize_whitespace"]},
     []),
    ("LevenshteinComparator", {"normalize": False}, "string",
     {"x-eval-compare": "levenshtein"}, []),
    ("LevenshteinComparator", None, "integer",
     {"x-eval-compare": "levenshtein",
      "x-eval-transform": [{"type_convert": {"to": "str"}}, "lowercase", "normalize_whitespace"]},
     []),
    ("LevenshteinComparator", None, "number",
     {"x-eval-compare": "levenshtein",
      "x-eval-transform": [{"type_convert": {"to": "str"}}, "lowercase", "normalize_whitespace"]},
     ["approximate-comparator"]),
    ("ExactComparator", None, "string", {"x-eval-compare": "exact"}, []),
    ("ExactComparator", {"case_sensitive": False}, "string",
     {"x-eval-compare": "exact", "x-eval-transform": ["casefold"]}, []),
    ("ExactComparator", None, "boolean", {"x-eval-compare": "exact"}, []),
    ("ExactComparator", None, "integer", {"x-eval-compare": "numeric"}, []),
    ("ExactComparator", None, None,
     {"x-eval-compare": "exact", "x-eval-transform": [{"type_convert": {"to": "str"}}]}, []),
    ("NormalizedComparator", None, "string",
     {"x-eval-compare": "exact", "x-eval-transform": [{"normalize_unicode": {"form": "NFC"}},
                                                      "casefold"]},
     ["approximate-comparator"]),
    ("NormalizedComparator", {"ignore_whitespace": False, "ignore_punctuation": False,
                              "case_sensitive": True}, "string",
     {"x-eval-compare": "exact", "x-eval-transform": [{"normalize_unicode": {"form": "NFC"}}]},
     []),
    ("NumericComparator", None, "number", {"x-eval-compare": "numeric"}, []),
    ("NumericComparator", {"relative_tolerance": 0.01}, "number",
     {"x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}}, []),
    ("NumericComparator", {"absolute_tolerance": 0.5}, "integer",
     {"x-eval-compare": {"numeric": {"tolerance": {"abs": 0.5}}}}, []),
    ("NumericComparator", {"relative_tolerance": 0.01, "tolerance": 2}, "number",
     {"x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01, "abs": 2}}}},
     ["approximate-comparator"]),
    ("NumericComparator", None, "string", {"x-eval-compare": "numeric"},
     ["approximate-comparator"]),
    ("NumericComparator", {"tolerance": 1, "absolute_tolerance": 2}, "number", {},
     ["invalid-value"]),
    ("NumericComparator", {"tolerance": "1"}, "number", {}, ["invalid-value"]),
    ("DateComparator", {"dayfirst": True, "tolerance": 2}, "date",
     {"x-eval-compare": {"date": {"dayfirst": True, "tolerance_days": 2}}},
     ["approximate-comparator"]),
    ("FuzzyComparator", {"method": "token_sort_ratio"}, "string",
     {"x-eval-compare": "levenshtein", "x-eval-transform": ["strip", "lowercase", "sort_tokens"]},
     ["approximate-comparator"]),
    ("FuzzyComparator", {"method": "nonsense", "normalize": False}, "string",
     {"x-eval-compare": "levenshtein", "x-eval-transform": []}, ["approximate-comparator"]),
    ("StructuredModelComparator", None, "string", {"x-eval-compare": "exact"}, []),
    ("PhoneComparator", None, "string", {}, ["no-equivalent-comparator"]),
    ("ANLSStarComparator", None, "string", {}, ["no-equivalent-comparator"]),
    ("BBoxIoUComparator", None, None, {}, ["no-equivalent-comparator"]),
    ("SemanticComparator", None, "string", {}, ["no-equivalent-comparator"]),
    ("BERTComparator", None, "string", {}, ["no-equivalent-comparator"]),
    ("LLMComparator", {"model": "us.amazon.nova-lite-v1:0"}, "string", {},
     ["no-equivalent-comparator"]),
    ("auto", None, "string", {}, ["no-equivalent-comparator"]),
    ("fuzzy", None, "string", {}, ["unknown-comparator"]),
    ("ExactComparator", ["case_sensitive"], "string", {}, ["invalid-value"]),
    ("ExactComparator", {"threshold": 0.9, "strict": True}, "string",
     {"x-eval-compare": "exact"}, ["comparator-config-ignored", "no-scoring-effect"]),
])
def test_comparator_mapping(name: str, config: Any, kind: str | None, keys: dict[str, Any],
                            codes: list[str]) -> None:
    mapped = map_comparator(name, config, kind, AT)
    assert mapped.keys == keys
    assert [p.code for p in mapped.problems] == codes


def test_continuous_comparators_carry_the_threshold_and_the_rest_only_zero() -> None:
    schema = {"properties": {
        "a": {"type": "string", "x-aws-stickler-threshold": 0.75},
        "b": {"type": "string", "x-aws-stickler-comparator": "ExactComparator",
              "x-aws-stickler-threshold": 0.75},
        "c": {"type": "string", "x-aws-stickler-comparator": "ExactComparator",
              "x-aws-stickler-threshold": 0},
        "d": {"type": "string", "format": "date"},
        "e": {"type": "string", "enum": ["A", "B"]},
        "f": {"type": "string", "format": "uuid"},
        "g": {"anyOf": [{"type": "number"}, {"type": "null"}], "x-aws-stickler-weight": 2},
        "h": {"type": ["integer", "null"], "x-aws-stickler-comparator": "ExactComparator"},
    }}
    props = import_stickler(schema).schema["properties"]
    assert props["a"]["x-eval-threshold"] == 0.75
    assert "x-eval-threshold" not in props["b"]  # 0/1 scores: 0.75 decides as 1.0 does
    assert props["c"]["x-eval-threshold"] == 0
    assert (props["d"]["x-eval-compare"], props["d"]["x-eval-threshold"]) == ("date", 1.0)
    assert props["e"]["x-eval-compare"] == "exact"
    assert props["f"]["x-eval-compare"] == "exact"
    assert (props["g"]["x-eval-compare"], props["g"]["x-eval-weight"]) == ("numeric", 2)
    assert props["h"]["x-eval-compare"] == "numeric"
    assert check_eval_schema(import_stickler(schema).schema).problems == ()


# -- what Stickler refuses, and what it does not read ------------------------------------------

def test_values_and_places_stickler_refuses_are_errors_at_the_key() -> None:
    schema = {
        "x-aws-stickler-weight": 2,
        "properties": {
            "a": {"type": "string", "x-aws-stickler-threshold": 1.5},
            "b": {"type": "string", "x-aws-stickler-weight": 0},
            "c": {"type": "string", "x-aws-stickler-clip-under-threshold": "yes"},
            "d": {"type": "string", "x-aws-stickler-match-threshold": 0.5},
            "e": {"type": "string", "x-aws-stickler-comparater": "ExactComparator"},
            "f": {"$ref": "other.json#/x"},
            "g": {"type": "object", "properties": {"h": {"type": "string"}},
                  "x-aws-stickler-model-name": "not valid"},
        }}
    errors = [(p.pointer, p.code) for p in import_stickler(schema).errors]
    assert errors == [
        ("/x-aws-stickler-weight", "misplaced-stickler-key"),
        ("/properties/d/x-aws-stickler-match-threshold", "misplaced-stickler-key"),
        ("/properties/e/x-aws-stickler-comparater", "unknown-stickler-key"),
        ("/properties/a/x-aws-stickler-threshold", "invalid-value"),
        ("/properties/b/x-aws-stickler-weight", "invalid-value"),
        ("/properties/c/x-aws-stickler-clip-under-threshold", "invalid-value"),
        ("/properties/f/$ref", "unsupported-ref"),
        ("/properties/g/x-aws-stickler-model-name", "invalid-value"),
    ]


def test_model_configuration_refusals() -> None:
    config = {"fields": {
        "a": {"type": "str"},
        "b": {"type": "structured_model", "comparator": "ExactComparator",
              "fields": {"c": {"type": "int", "comparator": "NumericComparator"}}},
        "d": {"type": "str", "comparator": "ExactComparator", "fields": {}},
        "e": {"type": "Dict[str, int]", "comparator": "ExactComparator"},
        "f": {"type": "str", "comparator": "ExactComparator", "aggregate": True,
              "alias": "F", "default": "n/a"},
    }}
    result = import_stickler(config)
    assert [(p.pointer, str(p.severity), p.code) for p in result.problems[1:]] == [
        ("/fields/a", "error", "missing-comparator"),
        ("/fields/a", "info", "partial-credit"),
        ("/fields/b/comparator", "error", "invalid-value"),
        ("/fields/d/fields", "error", "invalid-value"),
        ("/fields/e/type", "warning", "unsupported-type"),
        ("/fields/f/aggregate", "warning", "not-read-by-stickler"),
        ("/fields/f/alias", "info", "alias"),
        ("/fields/f/default", "warning", "default-value"),
    ]
    assert result.schema["properties"]["F"] == {"type": "string", "x-eval-compare": "exact"}
    assert result.schema["properties"]["e"] == {"x-eval-compare": "exact"}


def test_inferred_comparators_keep_our_defaults_and_say_so() -> None:
    config = {"infer_unspecified_fields": True, "fields": {"a": {"type": "str"},
                                                             "b": {"type": "str",
                                                                   "comparator": "auto"}}}
    result = import_stickler(config)
    assert result.schema["properties"] == {"a": {"type": "string"}, "b": {"type": "string"}}
    assert [(p.pointer, p.code) for p in result.problems[1:]] == [
        ("/infer_unspecified_fields", "no-equivalent-comparator"),
        ("/fields/b/comparator", "no-equivalent-comparator")]


def test_keys_stickler_does_not_read_are_reported_and_removed() -> None:
    schema = {"properties": {"a": {"type": "string"}},
              "definitions": {"Unused": {"type": "object", "properties": {
                  "b": {"type": "string", "x-aws-stickler-weight": 2}}}},
              "x-note": {"x-aws-stickler-threshold": 0.5}}
    result = import_stickler(schema)
    assert [(p.pointer, p.code) for p in result.problems if p.code == "not-read-by-stickler"] \
        == [("/definitions/Unused/properties/b/x-aws-stickler-weight", "not-read-by-stickler"),
            ("/x-note/x-aws-stickler-threshold", "not-read-by-stickler")]
    assert "x-aws-stickler-weight" not in json.dumps(result.schema)
    assert "x-aws-stickler-threshold" not in json.dumps(result.schema)


# -- scores ----------------------------------------------------------------------------------

GOLD = {"name": "Wireless Headphones", "sku": "WBH-001", "price": 99.99,
        "description": "Noise cancelling", "tags": ["audio", "wireless"]}
EXTRACTED = {"name": "wireless headphone", "sku": "WBH-01", "price": 100.02,
             "description": None, "tags": ["wireless", "audio", "bluetooth"]}


def test_scoring_with_a_converted_schema_gives_the_hand_derived_figures() -> None:
    """product.config.json's rules, by hand (stickler-eval 1.0):
    name: Levenshtein of "wireless headphones" / "wireless headphone" = 1 - 1/19 >= 0.8: TP;
    sku: ExactComparator, case-sensitive, "WBH-001" vs "WBH-01": FD;
    price: |99.99 - 100.02| = 0.03 <= absolute tolerance 0.05: TP;
    description: gold present, extracted null: FN;
    tags: Hungarian pairs audio-audio and wireless-wireless (TP, TP), bluetooth left: FA.
    Stickler: TP 4, FD 1, FN 1, FA 1. Each maps onto one of our statuses, so we count
    4 matches, 1 mismatch, 1 omission and 1 hallucination, and our figures follow from
    them: S = 18/19 + 1 + 1 + 1 = 3.947368…; P = S / 6, R = S / 6."""
    schema = import_stickler(_load("product.config.json")).schema
    run = evaluate([GOLD], [EXTRACTED], schema)
    [record] = run.records
    assert [(f.path, str(f.status), round(f.score, 6)) for f in record.field_results] == [
        ("name", "match", round(18 / 19, 6)), ("sku", "mismatch", 0.0),
        ("price", "match", 1.0), ("description", "omission", 0.0),
        ("tags[0]", "match", 1.0), ("tags[1]", "match", 1.0),
        ("tags[2]", "hallucination", 0.0)]
    counts = record.counts
    tp, fd, fn, fa = counts.matches, counts.mismatches, counts.omissions, counts.hallucinations
    assert (tp, fd, fn, fa) == (4, 1, 1, 1)
    s = 18 / 19 + 3
    assert counts.metrics()[:3] == pytest.approx((s / 6, s / 6, s / 6))
    # Stickler's own figures from the same counts: precision TP/(TP+FD+FA), recall TP/(TP+FN)
    assert (tp / (tp + fd + fa), tp / (tp + fn)) == pytest.approx((2 / 3, 0.8))


def test_where_the_counts_part_ways_as_the_report_says() -> None:
    """By hand, Stickler 1.0: tags ["audio", "wireless"] vs ["audio", "bluetooth"] pairs
    both (Hungarian, min(2, 2) pairs): TP 1, FD 1. Gold "" is null there, so "" vs "x" is
    an FA. Ours: the 0-scoring pair stays unpaired (an omission and a hallucination), and
    "" is a value (a mismatch): the list-pairing warning and the stickler-counts note."""
    schema = import_stickler({"properties": {
        "tags": {"type": "array", "items": {"type": "string"},
                 "x-aws-stickler-comparator": "ExactComparator"},
        "note": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}}}).schema
    run = evaluate([{"tags": ["audio", "wireless"], "note": ""}],
                   [{"tags": ["audio", "bluetooth"], "note": "x"}], schema)
    assert [(f.path, str(f.status)) for f in run.records[0].field_results] == [
        ("tags[0]", "match"), ("tags[1]", "omission"), ("tags[1]", "hallucination"),
        ("note", "mismatch")]


# -- the command line --------------------------------------------------------------------------

def _run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_writes_the_schema_and_lists_the_report(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    source = DATA / "product.config.json"
    out = tmp_path / "product.eval.json"
    code, stdout, err = _run(capsys, "import", "stickler", source, "-o", out)
    assert code == 0
    assert stdout == ""
    assert json.loads(out.read_text(encoding="utf-8")) == EXPECTED["product.config.json"]
    lines = err.splitlines()
    assert lines[0].startswith(f"{source}: info stickler-counts: Stickler counts TP, FD, FA")
    assert lines[1] == (
        f"{source}#/fields/name/comparator_config: warning comparator-config-ignored: "
        "Stickler drops 'case_sensitive': not a parameter of LevenshteinComparator "
        "(LevenshteinComparator takes normalize, threshold; remove the others)")
    assert len(lines) == 8 and lines[-1] == f"wrote {out} ({out.stat().st_size / 1024:,.1f} KiB)"


def test_cli_prints_to_stdout_and_exits_2_when_stickler_refuses(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = _run(capsys, "import", "stickler", DATA / "document.schema.json")
    assert code == 2
    assert json.loads(stdout) == EXPECTED["document.schema.json"]
    assert f"{DATA / 'document.schema.json'}#/properties/title/x-stickler-comparator: error " \
        "unknown-stickler-key" in err


def test_cli_refuses_what_is_not_stickler_and_never_overwrites_the_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.json"
    other.write_text("[1, 2]", encoding="utf-8")
    code, stdout, err = _run(capsys, "import", "stickler", other)
    assert (code, stdout) == (2, "")
    assert "not-stickler" in err
    source = tmp_path / "person.config.json"
    source.write_text((DATA / "person.config.json").read_text(encoding="utf-8"), encoding="utf-8")
    before = source.read_text(encoding="utf-8")
    code, _, err = _run(capsys, "import", "stickler", source, "-o", source)
    assert code == 2
    assert source.read_text(encoding="utf-8") == before
    broken = tmp_path / "broken.json"
    broken.write_text('{"fields": ', encoding="utf-8")
    code, _, err = _run(capsys, "import", "stickler", broken)
    assert code == 2 and f"{broken}:1:" in err and "Traceback" not in err


def test_objects_and_list_pairs_count_as_the_docs_say() -> None:
    """company.config.json by hand (stickler-eval 1.0), the CEO's salary wrong and one
    employee replaced:
    name: equal: TP.
    ceo: name Levenshtein 1 - 1/13 >= 0.8 (TP), salary 250000 vs 255000 (FD); the object's
    weighted similarity (12/13 * 1.0 + 0 * 0.8) / 1.8 = 0.51 < 0.7: one FD in `overall`.
    employees: Hungarian pairs Carol with Carol (TP) and Bob with Zed (similarity < 0.7: FD,
    its fields in no count). Stickler: overall TP 2, FD 2; aggregate TP 5 (name, ceo.name,
    Carol's three fields), FD 1 (ceo.salary). evalschema: the same 5 matches and 1
    mismatch, and Bob and Zed, who share no field (pair F1 0), stay unpaired: 3 omissions
    and 3 hallucinations."""
    schema = import_stickler(_load("company.config.json")).schema
    gold = {"name": "TechCorp Inc", "ceo": {"name": "Alice Johnson", "salary": 250000.0},
            "employees": [{"name": "Bob Smith", "department": "Engineering", "salary": 85000.0},
                          {"name": "Carol Davis", "department": "Marketing", "salary": 70000.0}]}
    extracted = {"name": "TechCorp Inc", "ceo": {"name": "Alice Jonson", "salary": 255000.0},
                 "employees": [{"name": "Carol Davis", "department": "Marketing",
                                "salary": 70000.0},
                               {"name": "Zed", "department": "Sales", "salary": 1.0}]}
    [record] = evaluate([gold], [extracted], schema).records
    assert [(f.path, str(f.status)) for f in record.field_results] == [
        ("name", "match"), ("ceo.name", "match"), ("ceo.salary", "mismatch"),
        ("employees[1].name", "match"), ("employees[1].department", "match"),
        ("employees[1].salary", "match"),
        ("employees[0].name", "omission"), ("employees[0].department", "omission"),
        ("employees[0].salary", "omission"),
        ("employees[1].name", "hallucination"), ("employees[1].department", "hallucination"),
        ("employees[1].salary", "hallucination")]
    counts = record.counts
    assert (counts.matches, counts.mismatches, counts.omissions, counts.hallucinations) == (
        5, 1, 3, 3)
