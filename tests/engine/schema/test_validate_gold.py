"""validate_gold refuses exactly the gold records pairing refuses, with the same problems."""

from __future__ import annotations

from typing import Any

import pytest

from evalschema import GoldValidationError, evaluate, validate_gold

#: Every gold problem (as in tests/engine/run/test_pairing.py): a list, an id repeated, no
#: id, an id that is an object, a string, null, an id repeated again.
BAD_GOLD: list[Any] = [{"id": "a", "v": 1}, [1, 2], {"id": "b"}, {"id": "a", "v": 2},
                       {"v": "no id"}, {"id": {"nested": 1}}, "a string", None, {"id": 7},
                       {"id": 7}, {"id": "a"}]
SCHEMA: dict[str, Any] = {"type": "object", "properties": {"id": {"type": ["string", "integer"]},
                                                           "v": {}}}


@pytest.mark.parametrize("id_field", ["id", None], ids=["by-id", "by-position"])
def test_validate_gold_reports_what_pairing_refuses(id_field: str | None) -> None:
    with pytest.raises(GoldValidationError) as scored:
        evaluate(BAD_GOLD, [], SCHEMA, id_field=id_field)
    with pytest.raises(GoldValidationError) as checked:
        validate_gold(BAD_GOLD, SCHEMA, id_field, warn_missing=False)
    pairing = [(p.code, p.message, p.pointer) for p in scored.value.problems]
    validation = [(p.code, p.message, p.pointer) for p in checked.value.problems]
    assert validation == pairing
    assert {c for c, _, _ in pairing} == (
        {"gold-not-object", "gold-missing-id", "duplicate-id"} if id_field
        else {"gold-not-object"})


def test_an_id_that_is_an_object_has_no_usable_id() -> None:
    """Not a duplicate of an id never seen (the old checks said 'already used by ?')."""
    with pytest.raises(GoldValidationError) as info:
        validate_gold([{"id": {"nested": 1}}], SCHEMA, "id", warn_missing=False)
    [problem] = info.value.problems
    assert (problem.code, problem.pointer) == ("gold-missing-id", "/0")
    assert problem.message == "gold record 1 has no usable 'id'"


def test_schema_problems_still_follow_a_refused_id() -> None:
    """A record refused for its id is still an object: its fields are checked too."""
    problems = validate_gold([{"v": 1, "zzz": 2}], SCHEMA, None)
    assert [(p.code, p.pointer) for p in problems] == [("gold-missing-field", "/0/id"),
                                                      ("gold-extra-field", "/0/zzz")]
