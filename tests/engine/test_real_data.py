"""Real extraction schemas and human-validated gold (extract-bench, MIT) in tests/data.

Every schema must resolve and parse once annotated with default comparators (the
schemas carry extract-bench's own ``evaluation_config`` keys, which are not x-eval
keys and must be ignored), and every gold document must score perfectly against
itself.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from evalschema import (
    SchemaNode,
    Status,
    annotate_xeval,
    check_eval_schema,
    evaluate,
    parse_eval_schema,
    resolve_schema_references,
    validate_gold,
)

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "tests" / "data" / "extract-bench"

SCHEMAS = sorted(BENCH.glob("*/*/*-schema.json"))
GOLDS = sorted(BENCH.glob("*/*/gold/*.gold.json"))

#: Nodes in each parsed tree (objects, arrays, items and leaves), as resolved today.
NODE_COUNTS = {
    "research-schema.json": 24,
    "10kq-schema.json": 479,
    "credit_agreement-schema.json": 19,
    "resume-schema.json": 49,
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
    resolved = resolve_schema_references(_body(raw), base_uri=str(schema_path))
    return parse_eval_schema(annotate_xeval(copy.deepcopy(resolved)), base_uri=str(schema_path))


def _schema_for(gold_path: Path) -> Path:
    task = gold_path.parent.parent
    return task / f"{task.name}-schema.json"


def test_the_data_is_all_there() -> None:
    assert {p.name for p in SCHEMAS} == set(NODE_COUNTS)
    assert len(GOLDS) == 35
    assert all(_schema_for(g).is_file() for g in GOLDS)


@pytest.mark.parametrize("schema_path", SCHEMAS, ids=lambda p: p.name)
def test_schema_resolves_and_parses(schema_path: Path) -> None:
    raw = json.loads(schema_path.read_text(encoding="utf-8"))
    body = _body(raw)
    assert any("evaluation_config" in d for d in _walk_dicts(body))
    resolved = resolve_schema_references(body, base_uri=str(schema_path))
    # references inlined, combiners folded
    for d in _walk_dicts(resolved):
        assert not {"$ref", "anyOf", "oneOf", "allOf"} & d.keys(), d
    annotated = annotate_xeval(copy.deepcopy(resolved))
    check = check_eval_schema(annotated, base_uri=str(schema_path))
    # evaluation_config is not an x-eval key: nothing to report, not even a warning
    assert [p.format() for p in check.problems] == []
    root = parse_eval_schema(annotated, base_uri=str(schema_path))
    assert root.kind == "object"
    nodes = root.walk()
    assert len(nodes) == NODE_COUNTS[schema_path.name]
    leaves = [n for n in nodes if n.kind == "leaf" and not n.skip]
    assert leaves
    for leaf in leaves:
        # the default for the leaf's type, never anything read from evaluation_config
        assert leaf.comparator in ("exact", "numeric"), (leaf.path, leaf.comparator)
        assert leaf.compare is not None
        if leaf.types - {"null"} <= {"number", "integer"} and leaf.types - {"null"}:
            assert leaf.comparator == "numeric", leaf.path
    # every node knows where it is in the schema document
    for n in nodes:
        if n is not root:
            assert n.pointer.startswith("/"), n.path


def test_wrapped_resume_schema_root_is_one_leaf() -> None:
    """Without unwrapping, the resume file's root has no type and no properties, so the
    engine scores the whole document as one exact leaf (and reports nothing)."""
    path = next(p for p in SCHEMAS if p.name == "resume-schema.json")
    raw = json.loads(path.read_text(encoding="utf-8"))
    check = check_eval_schema(annotate_xeval(copy.deepcopy(raw)), base_uri=str(path))
    assert check.root.kind == "leaf"
    assert check.errors == ()


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
