"""How a figure is shown: an undefined one (None, docs/metrics.md) is "—", a field that
was only skipped is "skipped", one only in error "error", never a number; every report and the language server
format figures here so they agree."""

from __future__ import annotations

from evalschema.results import Counts, RunResult
from evalschema.run.compare import Difference

#: What an undefined precision, recall or F1 shows as.
UNDEFINED = "—"


def figure(value: float | None, digits: int = 3, width: int = 0) -> str:
    """``value`` with ``digits`` decimals, right-aligned in ``width``; "—" when undefined."""
    text = UNDEFINED if value is None else f"{value:.{digits}f}"
    return f"{text:>{width}}"


def f1_figure(counts: Counts, value: float | None, digits: int = 3, width: int = 0) -> str:
    """A field's F1 (or mean score) cell: "skipped" when every result was skipped,
    "error" when nothing was judged for errors (a field whose schema has errors)."""
    if value is None and not counts.scored:
        if counts.errors or counts.batch_errors:
            return f"{'error':>{width}}"
        if counts.skipped:
            return f"{'skipped':>{width}}"
    return figure(value, digits, width)


def difference(d: Difference, digits: int = 4) -> str:
    """``+0.0500 [+0.0100, +0.0900] *`` (``*``: the interval excludes zero, else two
    spaces, so columns stay aligned); "—" when the difference is undefined."""
    if d.delta is None or d.low is None or d.high is None:
        return UNDEFINED  # undefined on one side
    return (f"{d.delta:+.{digits}f} [{d.low:+.{digits}f}, {d.high:+.{digits}f}]"
            + (" *" if d.significant else "  "))


def sort_key(value: float | None) -> tuple[bool, float]:
    """Worst first, undefined figures last (there is nothing to fix in them)."""
    return (value is None, 0.0 if value is None else value)


def undefined_note(run: RunResult) -> str | None:
    """How many records each macro mean left out because their figure was undefined, or
    None when none was: "precision undefined in 2 records (nothing extracted), …"."""
    u = run.undefined
    parts = [f"{what} undefined in {n} record{'s' if n != 1 else ''} ({why})"
             for what, n, why in (("precision", u.precision, "nothing extracted"),
                                  ("recall", u.recall, "nothing in gold"),
                                  ("F1", u.f1, "nothing judged")) if n]
    if not parts:
        return None
    return "left out of the means: " + "; ".join(parts)
