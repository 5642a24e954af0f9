"""``gc_paused``: the collector is off during a burst and back as it was after; with
``promote=True`` what the burst allocated goes straight to the oldest generation,
unless the process has frozen objects of its own."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from evalschema import evaluate
from evalschema.run.gcpause import gc_paused


@pytest.fixture
def gc_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


class Tracked:
    """A GC-tracked object we can find in a generation."""


def _generation_of(obj: object) -> int | None:
    for gen in range(3):
        if any(o is obj for o in gc.get_objects(generation=gen)):
            return gen
    return None


def test_collector_is_off_inside_and_on_after(gc_enabled: None) -> None:
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled(gc_enabled: None) -> None:
    gc.disable()
    with gc_paused(promote=True):
        kept = Tracked()
    assert not gc.isenabled()
    assert _generation_of(kept) == 0  # not promoted either


def test_promote_moves_the_burst_to_the_oldest_generation(gc_enabled: None) -> None:
    gc.unfreeze()  # in-process server runs of other tests freeze theirs (freeze=True)
    with gc_paused(promote=True):
        kept = [Tracked() for _ in range(1000)]
        assert _generation_of(kept[0]) == 0
    assert gc.isenabled()
    assert _generation_of(kept[0]) == 2
    assert gc.get_freeze_count() == 0
    assert gc.get_count()[0] < 100  # no young collection pending over the burst


def test_promote_leaves_frozen_objects_frozen(gc_enabled: None) -> None:
    # Checked on one frozen object, not on the freeze count: other threads of the test
    # process (a Spark session's, Ray's) may free frozen objects meanwhile.
    before = Tracked()
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0 and _generation_of(before) is None
        with gc_paused(promote=True):
            kept = Tracked()
        assert _generation_of(before) is None  # still frozen: in no generation
        assert _generation_of(kept) == 0
    finally:
        gc.unfreeze()


def test_evaluate_restores_the_collector(gc_enabled: None) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    evaluate([{"a": "x"}], [{"a": "y"}], schema)
    assert gc.isenabled()
    gc.disable()
    try:
        evaluate([{"a": "x"}], [{"a": "y"}], schema)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_freeze_leaves_the_burst_frozen_and_nothing_young(gc_enabled: None) -> None:
    """``freeze=True`` (the language server, which keeps a run's results until the next):
    the burst goes to the permanent generation, none of it is left for a young scan."""
    try:
        with gc_paused(freeze=True):
            kept = [Tracked() for _ in range(1000)]
        assert gc.isenabled()
        assert _generation_of(kept[0]) is None  # in no generation the collector scans
        assert _generation_of(kept[-1]) is None
        assert gc.get_count()[0] < 100
    finally:
        gc.unfreeze()
