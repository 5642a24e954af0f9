"""Pairing (``evalschema.run.pairing``): one gold checker, one numbering, one set of codes,
in memory and streamed."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from evalschema import GoldValidationError
from evalschema.errors import Problem
from evalschema.io.extracted import NO_RECORD
from evalschema.io.gold import GoldChecker, GoldProblem
from evalschema.run.pairing import (
    GOLD_REFUSED,
    Pair,
    iter_pairs,
    match_ids,
    pairs_by_id,
    pairs_by_position,
)

#: Every gold problem: a list, an id repeated, no id, an id that is an object, a string,
#: null, an id repeated again (its first holder stays the first).
BAD_GOLD: list[Any] = [
    {"id": "a", "v": 1},
    [1, 2],
    {"id": "b"},
    {"id": "a", "v": 2},
    {"v": "no id"},
    {"id": {"nested": 1}},
    "a string",
    None,
    {"id": 7},
    {"id": 7},
    {"id": "a"},
]


def _problems(gold: Any, id_field: str | None, *, stream: bool) -> list[Problem]:
    with pytest.raises(GoldValidationError) as info:
        list(iter_pairs(gold, [{"id": "a"}], id_field, stream=stream))
    return list(info.value.problems)


def _sources(tmp_path: Path) -> dict[str, Any]:
    jsonl = tmp_path / "gold.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in BAD_GOLD), encoding="utf-8")
    array = tmp_path / "gold.json"
    array.write_text(json.dumps(BAD_GOLD, indent=1), encoding="utf-8")
    return {"jsonl": jsonl, "array": array, "list": list(BAD_GOLD)}


@pytest.mark.parametrize("id_field", ["id", None], ids=["by-id", "by-position"])
@pytest.mark.parametrize("source", ["jsonl", "array", "list"])
def test_gold_checks_in_memory_and_streamed_give_identical_problems(
        tmp_path: Path, source: str, id_field: str | None) -> None:
    gold = _sources(tmp_path)[source]
    loaded = _problems(gold, id_field, stream=False)
    streamed = _problems(gold, id_field, stream=True)
    assert [p.to_dict() for p in streamed] == [p.to_dict() for p in loaded]
    if id_field is None:
        assert [p.code for p in loaded] == ["gold-not-object"] * 3
    else:
        assert [(p.code, p.message) for p in loaded] == [
            # 1-based record numbers and ids as JSON, as the language server says them
            ("gold-not-object", "gold record 2 is array, not an object"),
            ("duplicate-id", 'gold id "a" appears again (first in record 1)'),
            ("gold-missing-id", "gold record 5 has no usable 'id'"),
            ("gold-missing-id", "gold record 6 has no usable 'id'"),
            ("gold-not-object", "gold record 7 is string, not an object"),
            ("gold-not-object", "gold record 8 is null, not an object"),
            ("duplicate-id", "gold id 7 appears again (first in record 9)"),
            ("duplicate-id", 'gold id "a" appears again (first in record 1)'),
        ]
    # Located by line in JSONL, by pointer otherwise.
    first = loaded[0]
    if source == "jsonl":
        assert (first.source, first.line, first.pointer) == (str(gold), 2, "")
    else:
        assert (first.line, first.pointer) == (None, "/1")


def test_the_checker_answers_per_record() -> None:
    check = GoldChecker("id")
    answers = [check.check(value, i) for i, value in enumerate(BAD_GOLD)]
    assert [a.code if a else None for a in answers] == [
        None, "gold-not-object", None, "duplicate-id", "gold-missing-id", "gold-missing-id",
        "gold-not-object", "gold-not-object", None, "duplicate-id", "duplicate-id"]
    assert answers[3] == GoldProblem("duplicate-id", 3, "a", 0)
    assert check.ids == {"a": 0, "b": 2, 7: 8}
    assert not check.problems  # check() keeps nothing; ok() keeps the located problem
    assert GoldChecker(None).check({"no": "id"}, 0) is None


def test_a_refused_gold_record_by_id_is_left_out_and_the_numbering_goes_on() -> None:
    gold = [{"id": "a"}, NO_RECORD, {"id": "b"}]
    read = [({"id": "b"}, False, None), (NO_RECORD, False, "unreadable"), ({"id": "z"}, True, None)]
    pairs = list(pairs_by_id(gold, read, "id"))
    assert [(p.number, p.record_id, p.gold_index, p.extracted_index, p.problem)
            for p in pairs] == [
        (0, "a", 0, None, "no extracted record with this id (1 extracted record(s) unreadable)"),
        (1, "b", 2, 0, None),
        (2, None, None, 1, "unreadable"),
        (3, "z", None, 2, "no gold record with this id"),
    ]
    assert pairs[3].repaired and pairs[2].extracted is NO_RECORD


def test_a_refused_gold_record_by_position_scores_neither_side() -> None:
    read = [({"v": 1}, False, None), ({"v": 2}, False, None), ({"v": 3}, False, None)]
    pairs = list(pairs_by_position([{"v": 1}, NO_RECORD], read))
    assert [(p.number, p.gold is NO_RECORD, p.extracted is NO_RECORD, p.problem)
            for p in pairs] == [(0, False, False, None), (1, True, True, GOLD_REFUSED),
                                (2, True, False, "no gold record at this position")]


def test_match_ids_codes() -> None:
    m = match_ids(["a", "b"], [({"id": "b"}, None), (NO_RECORD, "bad"), ({"x": 1}, None),
                               ({"id": "b"}, None), ({"id": "q"}, None)], "id")
    assert m.found == [None, 0]
    assert [(j, code) for j, code, _ in m.extra] == [
        (1, "unreadable-record"), (2, "missing-id"), (3, "duplicate-id"), (4, "no-gold-record")]
    assert m.extra[2][2] == "duplicate id 'b' (first at extracted record #1)"


def test_pairs_cross_process_boundaries_with_their_missing_side() -> None:
    pair = Pair(3, "a", {"id": "a"}, NO_RECORD, 3, None, problem="no extracted record")
    back = pickle.loads(pickle.dumps(pair))
    assert back == pair and back.extracted is NO_RECORD


@pytest.mark.parametrize("id_field", ["id", None], ids=["by-id", "by-position"])
def test_in_memory_and_streamed_pairs_are_numbered_alike(tmp_path: Path,
                                                         id_field: str | None) -> None:
    gold = [{"id": f"r{i}", "v": i} for i in range(5)]
    ext: list[Any] = [{"id": "r3"}, "{not json", {"id": "r0"}, {"v": "no id"}, {"id": "r0"},
                      {"id": "zz"}, {"id": "r9"}, "also not json"]
    g, e = tmp_path / "g.jsonl", tmp_path / "e.jsonl"
    g.write_text("".join(json.dumps(r) + "\n" for r in gold), encoding="utf-8")
    e.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in ext),
                 encoding="utf-8")

    def shape(stream: bool) -> list[tuple[Any, ...]]:
        return [(p.number, p.record_id, p.gold_index, p.extracted_index, p.problem)
                for p in (q.resolve() for q in iter_pairs(g, e, id_field, stream=stream))]

    assert shape(True) == shape(False)
    assert [n for n, *_ in shape(False)] == list(range(len(shape(False))))
