"""Plain-text reports of a run: the summary, the per-field table, the thresholds.

Field names, labels, record ids and problems come from the data: each is shown on one
line with its control characters escaped (``safetext.one_line``), so a key cannot move
the cursor or print a line of its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from evalschema.io.lenient import TRUNCATED
from evalschema.results import FieldAggregation, RunResult
from evalschema.safetext import one_line

if TYPE_CHECKING:
    from evalschema.report.model import RunReport

_BAR = 12


def _bar(value: float) -> str:
    filled = round(max(0.0, min(1.0, value)) * _BAR)
    return "█" * filled + "·" * (_BAR - filled)


def summary_lines(run: RunResult, label: str = "", *, repaired: int | None = None,
                  problems: Sequence[tuple[Any, str]] | None = None,
                  n_problems: int | None = None, truncated: int | None = None) -> list[str]:
    """The run's headline. ``repaired``/``truncated``/``problems`` come from the run's
    records unless given (a streamed run keeps no records; its digest has them)."""
    t = run.totals
    head = f"{one_line(label)}: " if label else ""
    lines = [
        f"{head}{run.total_records} records, {run.total_fields} fields judged",
        f"  F1 {run.mean_f1:.4f} (macro)  {run.micro_f1:.4f} (micro)   "
        f"precision {run.mean_precision:.4f}  recall {run.mean_recall:.4f}   "
        f"weighted score {run.mean_weighted_score:.4f}",
        f"  {t.matches} match  {t.mismatches} mismatch  {t.omissions} omission  "
        f"{t.hallucinations} hallucination  {t.skipped} skipped  {t.errors} error"
        + (f"  {t.batch_errors} batch_error" if t.batch_errors else ""),
    ]
    if repaired is None:
        repaired = sum(1 for r in run.records if r.repaired)
    if truncated is None:
        truncated = sum(1 for r in run.records if r.repaired == TRUNCATED)
    if problems is None:
        unread = [r for r in run.records if r.problem]
        problems = [(r.label, r.problem or "") for r in unread[:5]]
        n_problems = len(unread)
    if n_problems is None:
        n_problems = len(problems)
    if repaired:
        lines.append(f"  {repaired} extracted record(s) needed lenient parsing"
                     + (f" ({truncated} truncated)" if truncated else ""))
    for rid, problem in list(problems)[:5]:
        lines.append(f"  record {one_line(rid)}: {one_line(problem)}")
    if n_problems > 5:
        lines.append(f"  … and {n_problems - 5} more record problem(s)")
    return lines


def field_table(per_field: dict[str, FieldAggregation], *, sort: str = "schema",
                scores_only: bool = False) -> list[str]:
    """The per-field table; ``scores_only`` shows mean credit (for peer metrics, whose
    fields are explanations, not precision/recall)."""
    rows = list(per_field.values())
    if sort == "f1":
        rows.sort(key=lambda a: (a.mean_score if scores_only else a.f1, a.field))
    names = {a.field: one_line(a.field) for a in rows}
    width = max([len("(record)"), *(len(n) for n in names.values())])
    head = "mean" if scores_only else "F1"
    tail = "" if scores_only else f"  {'prec':>6}  {'recall':>6}"
    header = (f"{'field':<{width}}  {head:>6}  {'':<{_BAR}}{tail}  "
              f"{'match':>6}  {'mism':>5}  {'omit':>5}  {'hall':>5}  {'skip':>5}  {'err':>4}")
    lines = [header, "─" * len(header)]
    for a in rows:
        c = a.counts
        value = a.mean_score if scores_only else a.f1
        cells = "" if scores_only else f"  {a.precision:6.3f}  {a.recall:6.3f}"
        lines.append(
            f"{names[a.field] or '(record)':<{width}}  {value:6.3f}  {_bar(value)}{cells}  "
            f"{c.matches:6d}  {c.mismatches:5d}  {c.omissions:5d}  {c.hallucinations:5d}  "
            f"{c.skipped:5d}  {c.errors:4d}"
        )
    return lines


def text_report(run: RunResult, label: str = "", *, sort: str = "schema") -> str:
    return "\n".join([*summary_lines(run, label), "", *field_table(run.per_field, sort=sort)])


def run_text(report: RunReport, *, sort: str = "schema") -> str:
    """A run's summary, per-field table and thresholds (what ``evalschema eval`` prints)."""
    problems = [(p.label, p.problem) for p in report.problems]
    lines = [*summary_lines(report.run, report.label, repaired=report.repaired_count,
                            truncated=report.truncated_count,
                            problems=problems if report.from_digest else None,
                            n_problems=report.problem_count if report.from_digest else None),
             "", *field_table(report.run.per_field, sort=sort)]
    if report.checks:
        lines += ["", f"thresholds: {'passed' if report.passed else 'FAILED'}"]
        lines += [f"  {'ok  ' if c.passed else 'FAIL'}  {one_line(c.describe())}"
                  for c in report.checks]
    return "\n".join(lines)
