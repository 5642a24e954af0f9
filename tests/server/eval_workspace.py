"""A small suite on disk for the evaluation tests: schema, gold and one extracted run,
written so that each kind of finding sits at a known place."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from evalschema.results import RecordResult
from evalschema_server.evaluation.datafile import RecordSlice
from evalschema_server.evaluation.kept import Findings
from evalschema_server.evaluation.runner import (
    CancelToken,
    ScoredRecord,
    SuiteCache,
    SuiteOutcome,
    run_suite,
)
from evalschema_server.evaluation.suites import Suite, discover

SCHEMA = {
    "type": "object",
    "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string", "x-eval-compare": "normalized"},
        "price": {"type": "number",
                  "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
        "currency": {"type": "string"},
        "items": {
            "type": "array",
            "x-eval-align": {"match_by": "key_field", "key": "sku"},
            "items": {"type": "object", "properties": {
                "sku": {"type": "string"},
                "qty": {"type": "integer", "x-eval-compare": "numeric"}}},
        },
    },
}

GOLD = [
    {"id": "a", "name": "Crème brûlée 🍮", "price": 12.5, "currency": "EUR",
     "items": [{"sku": "x1", "qty": 1}, {"sku": "x2", "qty": 2}]},
    {"id": "b", "name": "Widget", "price": 3.0, "currency": "USD",
     "items": [{"sku": "y1", "qty": 5}]},
    {"id": "c", "name": "Gadget", "price": 7.25, "currency": "GBP", "items": []},
]

#: Line 0: accents and an emoji before a wrong price; line 1: an invented key and a
#: missing currency; line 2: not JSON at all; line 3: record c, right.
EXTRACTED_LINES = [
    '{"id": "a", "name": "Crème brûlée 🍮", "price": 13.9, "currency": "EUR", '
    '"items": [{"sku": "x2", "qty": 2}, {"sku": "x1", "qty": 1}]}',
    '{"id": "b", "name": "widget", "price": 3.0, "color": "red", '
    '"items": [{"sku": "y1", "qty": 4}]}',
    "I could not read the document.",
    '{"id": "c", "name": "Gadget", "price": 7.25, "currency": "GBP", "items": []}',
]


def write_suite(folder: Path, *, name: str = "shop", config: bool = False) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    schema = folder / f"{name}.eval.json"
    gold = folder / f"{name}.gold.jsonl"
    extracted = folder / f"{name}.run1.extracted.jsonl"
    schema.write_text(json.dumps(SCHEMA, indent=2) + "\n", encoding="utf-8")
    gold.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in GOLD),
                    encoding="utf-8")
    extracted.write_text("\n".join(EXTRACTED_LINES) + "\n", encoding="utf-8")
    if config:
        (folder / "evalschema.toml").write_text(
            f'[[suite]]\nname = "{name}-suite"\nschema = "{schema.name}"\n'
            f'gold = "{gold.name}"\nextracted = ["{name}.*.extracted.jsonl"]\n'
            '[suite.thresholds]\nprice = 0.9\n', encoding="utf-8")
    return {"schema": schema, "gold": gold, "extracted": extracted}


def scored_suite(folder: Path, *, config: bool = False) -> tuple[dict[str, Path], Suite,
                                                                 SuiteOutcome]:
    """``write_suite``, found and run once from disk, for unit tests of what is shown."""
    files = {k: p.resolve() for k, p in write_suite(folder, config=config).items()}
    [suite] = discover([files["schema"].parent], lambda p: p.read_text("utf-8")).suites
    return files, suite, run_suite(suite, {}, SuiteCache(), CancelToken())


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


# -- a slow suite: runs that take long enough to cancel --------------------------------

SLOW_MODULE = '''\
"""A comparator that takes its time: sleeps delay.txt seconds per call (tests)."""
import time
from pathlib import Path

from evalschema import register_comparator

_DELAY = Path(__file__).with_name("delay.txt")


def slow_equal(gold, extracted, params):
    try:
        delay = float(_DELAY.read_text())
    except (OSError, ValueError):
        delay = 0.0
    if delay:
        time.sleep(delay)
    return float(gold == extracted)


register_comparator("slow_equal", slow_equal, doc="Equal, slowly.")
'''
SLOW_OPTIONS = {"comparatorModules": ["evalschema_slow_cmp.py"], "workspaceTrusted": True}


def slow_suite(folder: Path, records: int, delay: float) -> dict[str, Path]:
    """Suite ``slow``: ``records`` records whose price is judged by ``slow_equal``; the
    extracted price of the first record (line 0) is wrong."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "evalschema_slow_cmp.py").write_text(SLOW_MODULE, encoding="utf-8")
    set_delay(folder, delay)
    schema = {"type": "object", "x-eval-id": "id", "properties": {
        "id": {"type": "string"},
        "price": {"type": "number", "x-eval-compare": "slow_equal"}}}
    gold = [{"id": f"r{i:05d}", "price": i} for i in range(records)]
    extracted = [dict(r) for r in gold]
    extracted[0]["price"] = 999
    paths = {"schema": folder / "slow.eval.json", "gold": folder / "slow.gold.jsonl",
             "extracted": folder / "slow.run1.extracted.jsonl"}
    paths["schema"].write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    paths["gold"].write_text(jsonl(gold), encoding="utf-8")
    paths["extracted"].write_text(jsonl(extracted), encoding="utf-8")
    return {k: p.resolve() for k, p in paths.items()}


def set_delay(folder: Path, seconds: float) -> None:
    (folder / "delay.txt").write_text(str(seconds), encoding="utf-8")


def scored_whole(record: RecordResult, gold: RecordSlice | None,
                 extracted: RecordSlice | None) -> ScoredRecord:
    """A record kept with every result, as a run keeps an LLM judge's (nothing to score
    again): for results built by hand."""
    return ScoredRecord(record, Findings.of(record.field_results), gold, extracted)


def many_records_suite(folder: Path, records: int, seed: int = 7) -> dict[str, Path]:
    """Suite ``shop``: ``records`` gold records and two runs (JSONL and a JSON array) with
    wrong, missing and invented values, unreadable lines, a repeated id and records gold
    does not have."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    gold = [{"id": f"r{i}", "name": f"Item {i}", "price": float(i % 17) + 0.5,
             "currency": rng.choice(["EUR", "USD"]),
             "items": [{"sku": f"s{i}-{k}", "qty": k + 1} for k in range(i % 3)]}
            for i in range(records)]

    def run() -> list[str]:
        lines = []
        for g in gold:
            r: dict[str, Any] = json.loads(json.dumps(g))
            roll = rng.random()
            if roll < 0.1:
                r["price"] *= 1.5
            elif roll < 0.15:
                r.pop("currency")
            elif roll < 0.2:
                r["color"] = "red"
            elif roll < 0.22:
                r["items"].reverse()
            lines.append(json.dumps(r))
        lines[5] = "I could not read the document."
        lines[40] = lines[39]  # id r39 again
        lines.append(json.dumps({"id": "extra", "name": "Not in gold"}))
        return lines

    (folder / "shop.eval.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (folder / "shop.gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gold),
                                            encoding="utf-8")
    (folder / "shop.a.extracted.jsonl").write_text("\n".join(run()) + "\n", encoding="utf-8")
    (folder / "shop.b.extracted.json").write_text("[\n" + ",\n".join(run()) + "\n]\n",
                                                  encoding="utf-8")
    return {"schema": folder / "shop.eval.json", "gold": folder / "shop.gold.jsonl",
            "a": folder / "shop.a.extracted.jsonl", "b": folder / "shop.b.extracted.json"}
