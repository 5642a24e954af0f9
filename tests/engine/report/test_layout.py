"""Paths shortened in the middle to fit the terminal (``report.layout``)."""

from __future__ import annotations

from evalschema.report.layout import shorten, shorten_all


def test_a_path_without_a_fitting_last_segment_keeps_two_thirds_for_its_end() -> None:
    assert shorten("abcdefghijklmnopqrstuvwxyz0123456789", 10) == "abc…456789"


def test_two_paths_that_would_read_alike_keep_where_they_differ() -> None:
    paths = ["itinerary_section_00.details.name", "itinerary_section_01.details.name"]
    short = shorten_all(paths, 20)
    assert short[paths[0]] != short[paths[1]]
    assert "00" in short[paths[0]] and "01" in short[paths[1]]
