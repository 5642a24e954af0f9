"""``assert_extraction``: Python objects or paths in, the run out, or an AssertionError
saying what a pytest item of the plugin says (tests/engine/testing/test_plugin.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from failure_text import RUN_STORY

from evalschema.errors import InputError, SchemaError
from evalschema.testing import assert_extraction

PROJECT = Path(__file__).parent / "project"
SCHEMA: dict[str, Any] = json.loads((PROJECT / "inv.eval.json").read_text(encoding="utf-8"))
GOLD = [{"id": "A", "total": 10.0, "vendor": "Acme"}, {"id": "B", "total": 20.0, "vendor": "Bolt"}]


def test_a_matching_extraction_returns_the_run() -> None:
    run = assert_extraction(GOLD, GOLD, SCHEMA)
    assert (run.total_records, run.mean_f1, run.total_matches) == (2, 1.0, 6)


def test_one_record_is_a_dict() -> None:
    run = assert_extraction(GOLD[0], {"id": "A", "total": 10.0, "vendor": "Acme"}, SCHEMA)
    assert (run.total_records, run.mean_f1) == (1, 1.0)


def test_below_min_f1_raises_with_the_story() -> None:
    """B: total 25.0 for 20.0 and no vendor, F1 0.4 (P 1/2, R 1/3); macro (1 + 0.4) / 2."""
    extracted = [GOLD[0], {"id": "B", "total": 25.0}]
    with pytest.raises(AssertionError) as caught:
        assert_extraction(GOLD, extracted, SCHEMA, min_f1=0.75, fields={"vendor": 0.6})
    assert str(caught.value) == """\
extraction: 1 of 2 threshold(s) not met
  FAIL  overall macro F1 0.7000 < 0.7500

""" + RUN_STORY


def test_fields_alone_gate_with_min_f1_none() -> None:
    extracted = [GOLD[0], {"id": "B", "total": 25.0, "vendor": "Bolt"}]
    run = assert_extraction(GOLD, extracted, SCHEMA, min_f1=None, fields={"vendor": 1.0})
    assert run.per_field["total"].f1 == 0.5
    with pytest.raises(AssertionError, match=r"^extraction: 1 of 1 threshold\(s\) not met\n"
                       r"  FAIL  total: F1 0\.5000 < 1\.0000\n"):
        assert_extraction(GOLD, extracted, SCHEMA, min_f1=None, fields={"total": 1.0})


def test_micro_metric_pools_the_fields() -> None:
    """Micro: 4 matches of 5 extracted and 6 gold values, F1 8/11 = 0.7273 >= 0.72, while
    the macro 0.7 would fail."""
    extracted = [GOLD[0], {"id": "B", "total": 25.0}]
    assert_extraction(GOLD, extracted, SCHEMA, min_f1=0.72, metric="micro")
    with pytest.raises(AssertionError):
        assert_extraction(GOLD, extracted, SCHEMA, min_f1=0.72)


def test_paths_name_the_run_by_its_file() -> None:
    assert_extraction(PROJECT / "gold.jsonl", str(PROJECT / "good.jsonl"),
                      PROJECT / "inv.eval.json")
    with pytest.raises(AssertionError, match=r"^bad\.jsonl: 1 of 1 threshold"):
        assert_extraction(str(PROJECT / "gold.jsonl"), PROJECT / "bad.jsonl",
                          str(PROJECT / "inv.eval.json"))


def test_a_threshold_on_an_unknown_field_is_an_input_error() -> None:
    with pytest.raises(InputError) as caught:
        assert_extraction(GOLD, GOLD, SCHEMA, fields={"totl": 1.0})
    [problem] = caught.value.problems
    assert problem.format() == ("fields: error unknown-field: threshold for 'totl': the schema "
                                "has no such field (did you mean 'total'?)")


def test_a_bad_schema_is_the_engines_located_error() -> None:
    bad = {**SCHEMA, "properties": {**SCHEMA["properties"],
                                    "total": {"type": "number", "x-eval-compare": "numerc"}}}
    with pytest.raises(SchemaError) as caught:
        assert_extraction(GOLD, GOLD, bad)
    assert [p.pointer for p in caught.value.problems] == ["/properties/total/x-eval-compare"]


def test_values_and_labels_from_the_data_stay_inert() -> None:
    """A control character in a value or an id is shown escaped, never sent raw."""
    gold = [{"id": "B\x1b[2J", "total": 1.0, "vendor": "x\x1b]0;pwned\x07"}]
    extracted = [{"id": "B\x1b[2J", "total": 1.0, "vendor": "y"}]
    with pytest.raises(AssertionError) as caught:
        assert_extraction(gold, extracted, SCHEMA)
    text = str(caught.value)
    assert "\x1b" not in text and "\x07" not in text
    assert "worst record B\\x1b[2J: F1 0.6667, 1 wrong field(s)" in text
    assert "{'vendor': 'y'} != {'vendor': 'x\\x1b]0;pwned\\x07'}" in text
