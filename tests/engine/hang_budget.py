"""The one wall-clock budget tests may assert: it catches hangs, never slowness.

A test that protects "this does not hang" or "this is not quadratic" asserts that the
work finishes within ``HANG_SECONDS``: far above what the work takes on a loaded 2-core
machine (well under a second for each use), far below what a hang or a quadratic
blow-up at the test's size would take (minutes to hours). Speed itself is measured by
the benchmarks in ``bench/``, not by tests.
"""

from __future__ import annotations

HANG_SECONDS = 60.0
