"""``fastinit.slot_constructor``: the object a frozen dataclass's own ``__init__`` makes."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass

import pytest

from evalschema_server.evaluation.datafile import RecordSlice
from evalschema_server.evaluation.kept import NO_FINDINGS
from evalschema_server.evaluation.runner import ScoredRecord, _Pair
from evalschema_server.fastinit import slot_constructor


@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    label: str = ""


def test_the_object_is_the_one_init_makes_and_stays_frozen() -> None:
    make = slot_constructor(Point)
    got = make(1, 2, "a")
    assert type(got) is Point and got == Point(1, 2, "a") and hash(got) == hash(Point(1, 2, "a"))
    assert (got.x, got.y, got.label) == (1, 2, "a")
    with pytest.raises(FrozenInstanceError):
        got.x = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        make(1, 2)  # every field is given


def test_the_editors_records_are_made_alike() -> None:
    values = (3, 10, "x" * 40, {"id": "a"}, False, None, True, 12, 77)
    assert slot_constructor(RecordSlice)(*values) == RecordSlice(*values)
    s = RecordSlice(*values)
    assert slot_constructor(_Pair)(None, s, None) == _Pair(None, s, None)  # type: ignore[arg-type]
    assert slot_constructor(ScoredRecord)(None, NO_FINDINGS, s, s, None) == ScoredRecord(
        None, NO_FINDINGS, s, s, None)  # type: ignore[arg-type]


def test_a_class_it_cannot_make_is_refused() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            raise ValueError

    for cls in (NoSlots, Checked):
        with pytest.raises(TypeError, match="not a slotted dataclass"):
            slot_constructor(cls)
