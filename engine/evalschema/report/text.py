"""Plain-text reports of a run: the summary, the per-field table, the thresholds.

Field names, labels, record ids and problems come from the data: each is shown on one
line with its control characters escaped (``safetext.one_line``), so a key cannot move
the cursor or print a line of its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len

from evalschema.io.lenient import TRUNCATED
from evalschema.report.calibration import text_lines
from evalschema.report.figures import f1_figure, figure, sort_key, undefined_note
from evalschema.report.layout import fit_lines, shorten, shorten_all
from evalschema.results import FieldAggregation, RunResult
from evalschema.safetext import one_line

if TYPE_CHECKING:
    from evalschema.report.model import RunReport

_BAR = 12


def _bar(value: float | None) -> str:
    if value is None:
        return " " * _BAR
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
        f"  F1 {figure(run.mean_f1, 4)} (macro)  {figure(run.micro_f1, 4)} (micro)   "
        f"precision {figure(run.mean_precision, 4)}  recall {figure(run.mean_recall, 4)}   "
        f"weighted score {figure(run.mean_weighted_score, 4)}",
        f"  {t.matches} match  {t.mismatches} mismatch  {t.omissions} omission  "
        f"{t.hallucinations} hallucination  {t.skipped} skipped  {t.errors} error"
        + (f"  {t.batch_errors} batch_error" if t.batch_errors else ""),
    ]
    note = undefined_note(run)
    if note:
        lines.append(f"  {note}")
    lines.append(f"  {one_line(run.coverage.describe())}")
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


#: Fields the terminal table shows by default (the worst; ``--top 0``/``--all`` shows all).
DEFAULT_TOP = 40


@dataclass(frozen=True)
class _Column:
    """A numeric column of the field table: its header and how a field's cell reads."""

    head: str
    cell: Callable[[FieldAggregation], str]
    #: Right-aligned (numbers); the bar is left-aligned.
    right: bool = True


def _score(a: FieldAggregation, scores_only: bool) -> float | None:
    return a.mean_score if scores_only else a.f1


def _failing(a: FieldAggregation, scores_only: bool) -> bool:
    """Below 1.0, or undefined because every judgement was an error (--failing)."""
    value = _score(a, scores_only)
    return a.counts.errors > 0 if value is None else value < 1.0 - 1e-12


def _columns(scores_only: bool) -> list[_Column]:
    """The table's columns in display order."""
    value = _Column("mean" if scores_only else "F1",
                    lambda a: f1_figure(a.counts, _score(a, scores_only), 3))
    bar = _Column("", lambda a: _bar(_score(a, scores_only)), right=False)
    counts = [_Column("match", lambda a: str(a.counts.matches)),
              _Column("mism", lambda a: str(a.counts.mismatches)),
              _Column("omit", lambda a: str(a.counts.omissions)),
              _Column("hall", lambda a: str(a.counts.hallucinations)),
              _Column("skip", lambda a: str(a.counts.skipped)),
              _Column("err", lambda a: str(a.counts.errors))]
    if scores_only:
        return [value, bar, *counts]
    return [value, bar, _Column("prec", lambda a: figure(a.precision, 3)),
            _Column("recall", lambda a: figure(a.recall, 3)), *counts]


#: Which columns stay when the terminal is narrow, most important first.
_KEEP = ("F1", "mean", "match", "mism", "omit", "hall", "prec", "recall", "skip", "err", "")
#: The field column's width is kept up to this many cells before columns are dropped.
_NAME_MIN = 30


def select_fields(per_field: dict[str, FieldAggregation], *, sort: str | None = "schema",
                  scores_only: bool = False, failing: bool = False,
                  top: int | None = None) -> tuple[list[FieldAggregation], str | None]:
    """The rows the table shows and, when some are hidden, the line that says how many
    and how to see them. ``failing``: only fields below 1.0; ``top``: the ``top`` worst
    (0 or None: all). Cut rows are listed worst first unless ``sort`` is ``"schema"``."""
    rows = list(per_field.values())
    total = len(rows)
    if failing:
        rows = [a for a in rows if _failing(a, scores_only)]
    passing = total - len(rows)
    worst = sorted(rows, key=lambda a: (sort_key(_score(a, scores_only)), a.field))
    cut = 0
    if top and len(rows) > top:
        cut = len(rows) - top
        keep = {id(a) for a in worst[:top]}
        rows = [a for a in rows if id(a) in keep]
        if sort is None:
            sort = "f1"
    if sort == "f1":
        rows.sort(key=lambda a: (sort_key(_score(a, scores_only)), a.field))
    if not passing and not cut:
        return rows, None
    why, how = [], []
    if passing:
        undefined = sum(1 for a in per_field.values()
                        if _score(a, scores_only) is None and not _failing(a, scores_only))
        head = "mean" if scores_only else "F1"
        why.append(f"{passing - undefined} at {head} 1.000"
                   + (f" and {undefined} skipped or undefined" if undefined else "")
                   + " (--failing)")
        how.append("without --failing")
    if cut:
        why.append(f"{cut} beyond the {top} worst (--top {top})")
        how.append("with --all (or --top 0)")
    return rows, (f"{passing + cut} of {total} fields hidden: {', '.join(why)}; "
                  f"see them {' and '.join(how)}")


def field_table(per_field: dict[str, FieldAggregation], *, sort: str | None = "schema",
                scores_only: bool = False, width: int | None = None, failing: bool = False,
                top: int | None = None) -> list[str]:
    """The per-field table; ``scores_only`` shows mean credit (for peer metrics, whose
    fields are explanations, not precision/recall). With a ``width`` every line fits
    it: long field paths are shortened in the middle and, on a narrow terminal, the
    least needed columns are left out (the bar first). ``failing``/``top`` as in
    ``select_fields``; a last line says what is hidden."""
    rows, note = select_fields(per_field, sort=sort, scores_only=scores_only,
                               failing=failing, top=top)
    names = {a.field: one_line(a.field) or "(record)" for a in rows}
    columns = _columns(scores_only)
    cells = [[c.cell(a) for c in columns] for a in rows]
    widths = [max([cell_len(c.head), *(cell_len(r[k]) for r in cells)])
              for k, c in enumerate(columns)]
    longest = max([len("field"), *(cell_len(n) for n in names.values())])
    shown = list(range(len(columns)))
    name_w = longest
    if width is not None:
        name_min = min(longest, _NAME_MIN, max(8, width - 2 - widths[0]))
        used, shown = name_min, []
        for head in _KEEP:
            k = next((i for i, c in enumerate(columns) if c.head == head), None)
            if k is not None and used + 2 + widths[k] <= width:
                shown.append(k)
                used += 2 + widths[k]
        shown.sort()
        name_w = max(1, min(longest, width - (used - name_min)))

    def line(name: str, values: list[str]) -> str:
        out = name + " " * (name_w - cell_len(name))
        for k in shown:
            pad = " " * (widths[k] - cell_len(values[k]))
            out += "  " + (pad + values[k] if columns[k].right else values[k] + pad)
        return out.rstrip()

    header = line("field", [c.head for c in columns])
    lines = [header, "─" * cell_len(line("field", ["x" * w for w in widths]))]
    short = shorten_all(list(names.values()), name_w)
    lines += [line(short[names[a.field]], r) for a, r in zip(rows, cells, strict=True)]
    if note:
        lines += fit_lines([f"… {note}"], width, words=True)
    return lines


def _fit_label(label: str, run: RunResult, width: int | None) -> str:
    """The run's label shortened in the middle so the headline fits ``width``."""
    if width is None or not label:
        return label
    rest = f": {run.total_records} records, {run.total_fields} fields judged"
    return shorten(one_line(label), max(12, width - cell_len(rest)))


def text_report(run: RunResult, label: str = "", *, sort: str | None = "schema",
                width: int | None = None, failing: bool = False, top: int | None = None
                ) -> str:
    cal = run.calibration()
    return "\n".join(fit_lines([*summary_lines(run, _fit_label(label, run, width)), ""],
                               width) + field_table(run.per_field, sort=sort, width=width,
                                                    failing=failing, top=top)
                     + (fit_lines(text_lines(cal), width) if cal is not None else []))


def run_text(report: RunReport, *, sort: str | None = "schema", width: int | None = None,
             failing: bool = False, top: int | None = None) -> str:
    """A run's summary, per-field table and thresholds (what ``evalschema eval`` prints),
    every line within ``width`` cells when it is given."""
    problems = [(p.label, p.problem) for p in report.problems]
    label = _fit_label(report.label, report.run, width)
    lines = [*summary_lines(report.run, label, repaired=report.repaired_count,
                            truncated=report.truncated_count,
                            problems=problems if report.from_digest else None,
                            n_problems=report.problem_count if report.from_digest else None),
             ""]
    table = field_table(report.run.per_field, sort=sort, width=width, failing=failing, top=top)
    after = []
    cal = report.run.calibration(report.budgets)
    if cal is not None:
        after += text_lines(cal)
    if report.checks:
        after += ["", f"thresholds: {'passed' if report.passed else 'FAILED'}"]
        after += [f"  {'ok  ' if c.passed else 'FAIL'}  {one_line(c.describe())}"
                  for c in report.checks]
    return "\n".join([*fit_lines(lines, width), *table, *fit_lines(after, width)])
