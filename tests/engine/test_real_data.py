"""Real extraction schemas and human-validated gold (extract-bench, MIT) in tests/data.

Every schema must load as the file is (the resume's {"name", "description",
"schema_definition"} wrapper unwrapped, with a note), each extract-bench
``evaluation_config`` read as the equivalent x-eval keys or reported as having none (never
ignored in silence), and every gold document must score perfectly against itself.
"""

from __future__ import annotations

import copy
import json
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from evalschema import (
    SchemaNode,
    Status,
    check_eval_schema,
    evaluate,
    parse_eval_schema,
    resolve_schema_references,
    validate_gold,
)
from evalschema.errors import ProblemWarning, Severity

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "tests" / "data" / "extract-bench"

SCHEMAS = sorted(BENCH.glob("*/*/*-schema.json"))
GOLDS = sorted(BENCH.glob("*/*/gold/*.gold.json"))

#: Nodes in each parsed tree (objects, arrays, items and leaves), as resolved today: a
#: regression pin, counted independently from the raw JSON by ``_reference_nodes`` below
#: (test_node_counts_agree_with_an_independent_count).
NODE_COUNTS = {
    "research-schema.json": 24,
    "10kq-schema.json": 479,
    "credit_agreement-schema.json": 19,
    # 49 plus the union branches judged one by one: skills (a list, or a map of lists:
    # 5 nodes) and the start and end dates of education and work (2 branches each: 8).
    "resume-schema.json": 62,
    "swimming-schema.json": 20,
}


def _body(raw: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema itself. The resume task wraps it as
    {"name", "description", "schema_definition": {...}}; the others are bare schemas."""
    return raw.get("schema_definition", raw)


def _walk_dicts(value: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            out.append(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


@cache
def _tree(schema_path: Path) -> SchemaNode:
    raw = json.loads(schema_path.read_text(encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProblemWarning)
        return parse_eval_schema(raw, base_uri=str(schema_path))


def _schema_for(gold_path: Path) -> Path:
    task = gold_path.parent.parent
    return task / f"{task.name}-schema.json"


def test_the_data_is_all_there() -> None:
    assert {p.name for p in SCHEMAS} == set(NODE_COUNTS)
    assert len(GOLDS) == 35
    assert all(_schema_for(g).is_file() for g in GOLDS)


# -- an independent count of the schema nodes -----------------------------------------------------
# Written from docs/schemas.md and docs/extract-bench.md, over the raw JSON, sharing no code
# with the engine: a ``$ref`` is inlined (its siblings win), an object with properties or a
# map is an object node, an array with items an array node (unless x-eval-compare makes
# either one leaf), a map's value schema is one node, and an anyOf/oneOf is folded: null
# branches make it nullable, one branch left is that branch, object shapes merge their
# properties, arrays their items, and branches of different types are one leaf with a node
# per branch when a branch is annotated or has fields of its own (else one plain leaf).

#: extract-bench evaluation_config metrics read as an x-eval-compare (docs/extract-bench.md).
_COMPARING_METRICS = frozenset({"string_exact", "string_case_insensitive", "string_fuzzy",
                                "number_tolerance", "number_exact", "integer_exact",
                                "boolean_exact"})


def _config_reading(node: dict[str, Any]) -> str | None:
    """What a node's evaluation_config becomes: "compare", "skip", or None (no equivalent)."""
    config = node.get("evaluation_config")
    if isinstance(config, dict) and isinstance(config.get("metrics"), list):
        metrics = config["metrics"]
        if not metrics:
            return "skip"
        config = metrics[0].get("metric_id") if len(metrics) == 1 else None
    if config == "string_exact" and node.get("format") in ("uri", "url", "iri"):
        return None  # extract-bench's string_url: no equivalent
    return "compare" if config in _COMPARING_METRICS else "skip" if config == "skip" else None


def _compares(node: dict[str, Any]) -> bool:
    return "x-eval-compare" in node or _config_reading(node) == "compare"


def _is_annotated(value: Any) -> bool:
    """An x-eval key, or an evaluation_config read as one, anywhere inside."""
    if isinstance(value, list):
        return any(map(_is_annotated, value))
    if not isinstance(value, dict):
        return False
    return any(k.startswith("x-eval-") for k in value) or _config_reading(value) is not None \
        or any(_is_annotated(v) for k, v in value.items() if k not in ("enum", "const"))


def _types(node: dict[str, Any]) -> list[str]:
    t = node.get("type")
    return [t] if isinstance(t, str) else list(t) if isinstance(t, list) else []


def _maps(node: dict[str, Any]) -> list[Any]:
    patterns = node.get("patternProperties")
    extra = node.get("additionalProperties")
    return [*(patterns.values() if isinstance(patterns, dict) else ()),
            *([extra] if isinstance(extra, dict) else [])]


def _deref(node: Any, root: dict[str, Any]) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), ref  # the vendored schemas refer only inside themselves
        target: Any = root
        for seg in ref[2:].split("/"):
            target = target[seg.replace("~1", "/").replace("~0", "~")]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _reference_nodes(node: Any, root: dict[str, Any], path: str = "") -> list[tuple[str, str]]:
    """(field path, kind) of every node the schema ``node`` makes."""
    node = _deref(node, root)
    if not isinstance(node, dict):
        return [(path, "leaf")]
    assert "allOf" not in node  # not in the vendored schemas, so not taught here
    for combiner in ("anyOf", "oneOf"):
        if combiner in node:
            return _union_nodes(node, combiner, root, path)
    types = _types(node)
    if not _compares(node):
        props = node.get("properties") or {}
        if (props or _maps(node)) and (not types or "object" in types):
            out = [(path, "object")]
            for key, sub in props.items():
                out += _reference_nodes(sub, root, f"{path}.{key}" if path else key)
            assert len(_maps(node)) <= 1  # several map schemas are named apart; none here
            for sub in _maps(node):
                out += _reference_nodes(sub, root, path + "{}")
            return out
        if isinstance(node.get("items"), dict) and (not types or "array" in types):
            return [(path, "array"), *_reference_nodes(node["items"], root, path + "[]")]
    return [(path, "leaf")]


def _union_nodes(node: dict[str, Any], combiner: str, root: dict[str, Any],
                 path: str) -> list[tuple[str, str]]:
    own = {k: v for k, v in node.items() if k != combiner}
    rest = [b for b in (_deref(a, root) for a in node[combiner]) if _types(b) != ["null"]]
    if not rest:
        return [(path, "leaf")]
    if len(rest) == 1:
        return _reference_nodes({**rest[0], **own}, root, path)
    if all(_types(b) == ["object"] for b in rest):
        props = {k: v for b in rest for k, v in (b.get("properties") or {}).items()}
        return _reference_nodes({"type": "object", "properties": props, **own}, root, path)
    if all(_types(b) == ["array"] for b in rest):
        items = [b["items"] for b in rest if isinstance(b.get("items"), dict)]
        merged = {"type": "array", **({"items": {"anyOf": items}} if items else {}), **own}
        return _reference_nodes(merged, root, path)
    if _compares(own) or not any(_is_annotated(b) or b.get("properties") or _maps(b)
                                 or isinstance(b.get("items"), dict) for b in rest):
        return [(path, "leaf")]
    return [(path, "leaf"), *(n for b in rest for n in _reference_nodes(b, root, path))]


@pytest.mark.parametrize("schema_path", SCHEMAS, ids=lambda p: p.name)
def test_node_counts_agree_with_an_independent_count(schema_path: Path) -> None:
    """The pinned count is what the reference walker finds in the raw JSON, and the engine's
    tree has the same nodes, path by path and kind by kind."""
    body = _body(json.loads(schema_path.read_text(encoding="utf-8")))
    expected = sorted(_reference_nodes(body, body))
    assert len(expected) == NODE_COUNTS[schema_path.name]
    assert sorted((n.path, n.kind) for n in _tree(schema_path).walk()) == expected


def test_the_independent_count_on_hand_counted_schemas() -> None:
    """The reference walker itself, on schemas small enough to count by eye."""
    def count(schema: dict[str, Any]) -> int:
        return len(_reference_nodes(schema, schema))

    dated = {"anyOf": [{"type": "string", "evaluation_config": "string_exact"},
                       {"type": "integer", "evaluation_config": "integer_exact"},
                       {"type": "null"}]}
    plain = {"anyOf": [{"type": "string"}, {"type": "integer"}],
             "evaluation_config": "string_semantic"}
    skills = {"anyOf": [{"type": "array", "items": {"type": "string"}},
                        {"type": "object", "additionalProperties": {
                            "type": "array", "items": {"type": "string"}}}]}
    schema = {"type": "object", "$defs": {"d": dated}, "properties": {
        "a": {"$ref": "#/$defs/d"},  # a union with two branches: 3
        "b": plain,  # a plain scalar union: 1
        "c": skills,  # 1 + (array, items) + (object, value array, items): 6
        "d": {"type": "object", "properties": {"x": {"type": "string"}},
              "evaluation_config": "boolean_exact"},  # compared whole: 1
        "e": {"anyOf": [{"type": "object", "properties": {"p": {}}},
                        {"type": "object", "properties": {"q": {}}}, {"type": "null"}]},  # 3
    }}
    assert count(schema) == 1 + 3 + 1 + 6 + 1 + 3
    check = check_eval_schema(schema)
    assert check.errors == () and count(schema) == len(check.root.walk())


AS_TEXT = {"type_convert": {"to": "str"}}
#: The x-eval keys each evaluation_config value occurring in the data is read as (None:
#: no equivalent, reported as evaluation-config-untranslated).
READINGS: dict[str, dict[str, Any] | None] = {
    '"string_exact"': {"x-eval-compare": "exact", "x-eval-transform": [AS_TEXT]},
    '"boolean_exact"': {"x-eval-compare": "exact"},
    '"integer_exact"': {"x-eval-compare": "numeric"},
    '"number_exact"': {"x-eval-compare": "numeric"},
    '"string_case_insensitive"': {"x-eval-compare": "exact",
                                  "x-eval-transform": [AS_TEXT, "casefold"]},
    '"string_fuzzy"': {"x-eval-compare": {"levenshtein": {"threshold": 0.8}},
                       "x-eval-transform": [AS_TEXT, "lowercase"]},
    '{"metrics": [{"metric_id": "number_tolerance", "params": {"tolerance": 0.001}}]}':
        {"x-eval-compare": {"numeric": {"tolerance": {"abs": 0.001}}}},
    '"string_semantic"': None,
    '"array_llm"': None,
}


@pytest.mark.parametrize("schema_path", SCHEMAS, ids=lambda p: p.name)
def test_schema_loads_with_its_evaluation_config_read(schema_path: Path) -> None:
    raw = json.loads(schema_path.read_text(encoding="utf-8"))
    body = _body(raw)
    configs = [d["evaluation_config"] for d in _walk_dicts(body) if "evaluation_config" in d]
    assert configs
    resolved = resolve_schema_references(body, base_uri=str(schema_path))
    # references inlined, combiners folded
    for d in _walk_dicts(resolved):
        assert not {"$ref", "anyOf", "oneOf", "allOf"} & d.keys(), d
    check = check_eval_schema(raw, base_uri=str(schema_path))
    assert check.errors == ()
    # every value in the data is one we map or report; each distinct one is noted once
    notes = [p for p in check.problems if p.code.startswith("evaluation-config")]
    assert {p.code for p in check.problems} <= {"evaluation-config-read",
                                                "evaluation-config-untranslated",
                                                "extract-bench-wrapper"}
    for p in notes:
        shown = json.dumps(p.data["evaluation_config"], sort_keys=True)
        if "URL" in p.message:  # string_exact on "format": "uri" (string_url)
            assert p.data["evaluation_config"] == "string_exact" and "URL" in p.message
            continue
        assert p.data["keys"] == READINGS[shown], shown
        assert p.code == ("evaluation-config-read" if READINGS[shown] else
                          "evaluation-config-untranslated")
        assert p.pointer == p.data["pointers"][0] and p.pointer.endswith("/evaluation_config")
    assert sum(len(p.data["pointers"]) for p in notes) == len(configs)
    root = check.root
    assert root.kind == "object"
    nodes = root.walk()
    assert len(nodes) == NODE_COUNTS[schema_path.name]
    leaves = [n for n in nodes if n.kind == "leaf" and not n.skip]
    assert leaves
    for leaf in leaves:
        # A union judged by its branches compares nothing itself; each branch does.
        assert (leaf.compare is not None) != bool(leaf.branches), leaf.pointer
    # every node knows where it is in the schema document
    prefix = "/schema_definition" if "schema_definition" in raw else ""
    for n in nodes:
        if n is not root:
            assert n.pointer.startswith(prefix + "/"), n.path


def test_the_fuzzy_and_tolerance_configs_take_effect() -> None:
    credit = next(p for p in SCHEMAS if p.name == "credit_agreement-schema.json")
    borrower = _tree(credit).find("parties.borrower")
    assert borrower is not None
    assert (borrower.comparator, borrower.threshold) == ("levenshtein", 0.8)
    assert [n for n, _ in borrower.transforms] == ["type_convert", "lowercase"]
    tenkq = _tree(next(p for p in SCHEMAS if p.name == "10kq-schema.json"))
    values = [n for n in tenkq.walk() if n.comparator == "numeric" and n.params]
    assert values and all(n.params == {"tolerance": {"abs": 0.001}} for n in values)


def test_wrapped_resume_schema_is_unwrapped_with_a_note() -> None:
    """The resume file's root has no type and no properties: unread, the engine scored the
    whole document as one exact leaf and reported nothing."""
    path = next(p for p in SCHEMAS if p.name == "resume-schema.json")
    raw = json.loads(path.read_text(encoding="utf-8"))
    check = check_eval_schema(raw, base_uri=str(path))
    assert check.root.kind == "object"
    assert len(check.root.walk()) == NODE_COUNTS["resume-schema.json"]
    [note] = [p for p in check.problems if p.code == "extract-bench-wrapper"]
    assert (note.pointer, note.severity) == ("/schema_definition", Severity.INFO)
    with pytest.warns(ProblemWarning, match="schema_definition"):
        parse_eval_schema(raw, base_uri=str(path))


@pytest.mark.parametrize("gold_path", GOLDS, ids=lambda p: p.name.removesuffix(".gold.json"))
def test_gold_scores_perfectly_against_itself(gold_path: Path) -> None:
    root = _tree(_schema_for(gold_path))
    gold = json.loads(gold_path.read_text(encoding="utf-8"))
    run = evaluate([gold], [copy.deepcopy(gold)], root)
    t = run.totals
    assert (t.mismatches, t.omissions, t.hallucinations, t.errors, t.batch_errors) == \
        (0, 0, 0, 0, 0)
    assert t.matches >= 1
    assert run.mean_f1 == run.micro_f1 == 1.0
    assert run.mean_precision == run.mean_recall == 1.0
    assert run.total_records == 1
    [rec] = run.records
    assert rec.problem is None
    assert all(fr.status in (Status.MATCH, Status.SKIPPED) for fr in rec.field_results)


@pytest.mark.parametrize("gold_path", GOLDS, ids=lambda p: p.name.removesuffix(".gold.json"))
def test_skipped_fields_are_exactly_the_gold_keys_outside_the_schema(gold_path: Path) -> None:
    """Self-scoring skips what validate_gold warns about (gold-extra-field), nothing else."""
    root = _tree(_schema_for(gold_path))
    gold = json.loads(gold_path.read_text(encoding="utf-8"))
    problems = validate_gold([gold], root, warn_missing=False)
    assert {p.code for p in problems} <= {"gold-extra-field"}
    extra = {p.pointer.removeprefix("/0") for p in problems}
    run = evaluate([gold], [copy.deepcopy(gold)], root)
    skipped = {fr.gold_pointer for fr in run.records[0].field_results
               if fr.status is Status.SKIPPED}
    assert skipped == extra


def test_gold_documents_have_the_expected_unknown_keys() -> None:
    """The data itself: which gold documents hold keys their schema does not declare."""
    found: dict[str, list[str]] = {}
    for gold_path in GOLDS:
        root = _tree(_schema_for(gold_path))
        gold = json.loads(gold_path.read_text(encoding="utf-8"))
        keys = sorted({p.pointer.rsplit("/", 1)[1]
                       for p in validate_gold([gold], root, warn_missing=False)})
        if keys:
            found[gold_path.name.removesuffix(".gold.json")] = keys
    assert len(found) == 21
    assert found["adp_10q_fy2025q2"] == ["commercial_paper_outstanding"]
    assert found["ma_2023_sw_M-table2"] == ["events"]
    assert found["Resume-Marketing"] == ["Location", "array_index", "emails", "phones"]
    assert all("array_index" in v for k, v in found.items() if k.startswith("Resume"))


def test_gold_folder_loads_and_scores_itself() -> None:
    """Regression: a folder of pretty-printed .json documents was read as JSONL, line by line."""
    folder = BENCH / "finance" / "credit_agreement" / "gold"
    root = _tree(_schema_for(next(folder.glob("*.gold.json"))))
    run = evaluate(folder, folder, root)
    assert run.total_records == 10
    assert run.mean_f1 == 1.0


def test_the_vendored_data_is_all_here() -> None:
    """The data lives in the repository, so an empty glob is a broken checkout, not a skip."""
    assert len(SCHEMAS) == 5 and len(GOLDS) >= 30
    assert (BENCH / "LICENSE").read_text().startswith("MIT License")
