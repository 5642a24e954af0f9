"""Markdown reports: for pull-request comments and CI job summaries (GitHub-flavoured
tables)."""

from __future__ import annotations

from collections.abc import Sequence

from evalschema.calibration import ALL_FIELDS
from evalschema.report.calibration import (
    COMPARE_LEGEND,
    LEGEND,
    calibration_rows,
    comparison_table,
    headings,
    problem_notes,
)
from evalschema.report.figures import f1_figure, figure, sort_key, undefined_note
from evalschema.report.model import RunReport
from evalschema.results import FieldResult
from evalschema.run.compare import Comparison, Difference


def cell(text: object) -> str:
    """Text safe inside a table cell: pipes escaped, newlines flattened, HTML neutral."""
    s = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    return s.replace("<", "&lt;").replace(">", "&gt;")


def code(text: str) -> str:
    """An inline code span that survives backticks and pipes in the text."""
    s = text.replace("|", "\\|").replace("\n", " ") or "(record)"
    fence = "``" if "`" in s else "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def run_markdown(report: RunReport, *, sort: str = "schema", level: int = 2) -> str:
    run, t = report.run, report.run.totals
    h = "#" * level
    lines = [f"{h} {cell(report.label)}", ""]
    if report.checks:
        verdict = "✅ thresholds met" if report.passed else \
            f"❌ {len(report.failed_checks)} of {len(report.checks)} thresholds not met"
        lines += [f"**{verdict}**", ""]
    lines += [
        f"**{run.total_records}** records, **{run.total_fields}** fields judged. "
        f"F1 **{figure(run.mean_f1, 4)}** (macro), {figure(run.micro_f1, 4)} (micro); "
        f"precision {figure(run.mean_precision, 4)}, recall {figure(run.mean_recall, 4)}, "
        f"weighted score {figure(run.mean_weighted_score, 4)}."
        + (f" {_sentence(note)}" if (note := undefined_note(run)) else ""), "",
        _sentence(cell(run.coverage.describe())), "",
        "| match | mismatch | omission | hallucination | skipped | error |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {t.matches} | {t.mismatches} | {t.omissions} | {t.hallucinations} | {t.skipped} "
        f"| {t.errors} |", ""]
    if report.repaired_count:
        lines += [f"{report.repaired_note}.", ""]
    if report.checks:
        lines += [f"{h}# Thresholds", "", "| check | value | threshold | |", "|---|---:|---:|:-:|"]
        lines += [f"| {code(c.field) if c.field is not None else cell(c.name)} | {figure(c.value, 4)} "
                  f"| {c.threshold:.4f} | {'✅' if c.passed else '❌'} |" for c in report.checks]
        lines.append("")
    thresholds = report.field_thresholds
    rows = list(run.per_field.values())
    if sort == "f1":
        rows.sort(key=lambda a: (sort_key(a.f1), a.field))
    lines += [f"{h}# Fields", "",
              "| field | F1 | precision | recall | match | mismatch | omission | hallucination "
              "| threshold |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for a in rows:
        c = a.counts
        th = thresholds.get(a.field)
        ok = a.f1 is not None and a.f1 + 1e-9 >= th if th is not None else False
        mark = "" if th is None else f"{th:.2f} {'✅' if ok else '❌'}"
        lines.append(f"| {code(a.field)} | {f1_figure(c, a.f1)} | {figure(a.precision)} | "
                     f"{figure(a.recall)} | "
                     f"{c.matches} | {c.mismatches} | {c.omissions} | {c.hallucinations} | "
                     f"{mark} |")
    cal = run.calibration(report.budgets)
    if cal is not None:
        lines += ["", f"{h}# Calibration", "", _sentence(cell(LEGEND)), "",
                  "| field | " + " | ".join(headings(cal)) + " |",
                  "|---|" + "---:|" * len(headings(cal))]
        lines += [f"| {code(name) if name != ALL_FIELDS else '**all fields**'} | "
                  + " | ".join(values) + " |" for name, values in calibration_rows(cal)]
        notes = problem_notes(cal)
        if notes:
            lines += [""] + [f"- {cell(n)}" for n in notes]
    if report.worst:
        lines += ["", f"{h}# Worst records", "", "| record | F1 | wrong fields |", "|---|---:|---|"]
        for w in report.worst[:10]:
            rec = w.record
            wrong = [r for r in rec.field_results if r.status in
                     ("mismatch", "omission", "hallucination", "error")]
            shown = ", ".join(f"{code(r.path)} ({_why(r)})" for r in wrong[:6])
            more = f", … {len(wrong) - 6} more" if len(wrong) > 6 else ""
            lines.append(f"| {cell(rec.label)} | {figure(rec.f1)} | {shown}{more} |")
    if n := report.problem_count:
        # Missing, unreadable and stray records are not among the worst (paired) ones.
        shown_problems = report.first_problems(10)
        lines += ["", f"{h}# Record problems ({n:,})", ""]
        lines += [f"- record {code(label)}: {cell(problem)}" for label, problem in shown_problems]
        if n > len(shown_problems):
            lines.append(f"- … and {n - len(shown_problems):,} more")
    return "\n".join(lines) + "\n"


def _why(r: FieldResult) -> str:
    """A wrong field's status and its reason (``FieldResult.explanation``), for a cell."""
    why = r.explanation
    return str(r.status) if not why else cell(f"{r.status}: {why}")


def runs_markdown(reports: Sequence[RunReport], *, sort: str = "schema") -> str:
    if len(reports) == 1:
        return run_markdown(reports[0], sort=sort)
    head = "# evalschema report\n\n"
    rows = ["| run | records | F1 (macro) | F1 (micro) | thresholds |", "|---|---:|---:|---:|:-:|"]
    for r in reports:
        gate = "" if not r.checks else ("✅" if r.passed else "❌")
        rows.append(f"| {cell(r.label)} | {r.run.total_records} | {figure(r.run.mean_f1, 4)} | "
                    f"{figure(r.run.micro_f1, 4)} | {gate} |")
    return head + "\n".join(rows) + "\n\n" + "\n".join(
        run_markdown(r, sort=sort) for r in reports)


def _diff(d: Difference) -> str:
    if d.delta is None or d.low is None or d.high is None:
        return figure(d.delta)
    mark = (" ▲" if d.delta > 0 else " ▼") if d.significant else ""
    return f"{d.delta:+.4f} [{d.low:+.4f}, {d.high:+.4f}]{mark}"


def compare_markdown(c: Comparison) -> str:
    base = c.labels[0]
    others = c.labels[1:]
    pct = f"{c.confidence:.0%}"
    lines = ["# evalschema comparison", "",
             f"{c.records} records, baseline **{cell(base)}**; differences are against the "
             f"baseline with paired bootstrap {pct} intervals ({c.resamples} resamples, seed "
             f"{c.seed}); ▲/▼ marks an interval that excludes zero.", "",
             "## Overall", "",
             "| metric | " + " | ".join(cell(x) for x in c.labels) + " | "
             + " | ".join(f"Δ {cell(x)}" for x in others) + " |",
             "|---|" + "---:|" * (len(c.labels) + len(others))]
    for m in c.overall.values():
        lines.append(f"| {m.metric} | " + " | ".join(figure(v, 4) for v in m.values) + " | "
                     + " | ".join(_diff(d) for d in m.differences) + " |")
    lines += ["", "## Fields (F1)", "",
              "| field | " + " | ".join(cell(x) for x in c.labels) + " | "
              + " | ".join(f"Δ {cell(x)}" for x in others) + " | regressed | fixed |",
              "|---|" + "---:|" * (len(c.labels) + len(others)) + "---:|---:|"]
    for f in c.fields:
        if f.only_extracted:
            continue
        lines.append(f"| {code(f.field)} | " + " | ".join(figure(v) for v in f.f1.values)
                     + " | " + " | ".join(_diff(d) for d in f.f1.differences) + " | "
                     + " / ".join(str(x) for x in f.regressed) + " | "
                     + " / ".join(str(x) for x in f.fixed) + " |")
    extra = [f for f in c.fields if f.only_extracted]
    if extra:
        lines += ["", "## Keys only in extracted output (hallucinations per run)", "",
                  "| field | " + " | ".join(cell(x) for x in c.labels) + " |",
                  "|---|" + "---:|" * len(c.labels)]
        lines += [f"| {code(f.field)} | " + " | ".join(str(h) for h in f.hallucinations) + " |"
                  for f in extra]
    if c.calibration:
        lines += ["", "## Calibration", "", _sentence(cell(COMPARE_LEGEND)), "",
                  "| field | figure | " + " | ".join(cell(x) for x in c.labels) + " | "
                  + " | ".join(f"Δ {cell(x)}" for x in others) + " |",
                  "|---|---|" + "---:|" * (len(c.labels) + len(others))]
        lines += [f"| {code(f) if f != ALL_FIELDS else '**all fields**'} | {m} | "
                  + " | ".join(cs) + " |" for f, m, cs in comparison_table(c.calibration)]
    if c.flips:
        lines += ["", "## Records that flipped", "",
                  "| run | record | match → wrong | wrong → match |", "|---|---|---|---|"]
        for fl in c.flips[:50]:
            lines.append(f"| {cell(c.labels[fl.run])} | {cell(fl.label)} | "
                         + ", ".join(code(p) for p in fl.regressed[:8])
                         + (" …" if len(fl.regressed) > 8 else "") + " | "
                         + ", ".join(code(p) for p in fl.fixed[:8])
                         + (" …" if len(fl.fixed) > 8 else "") + " |")
        if len(c.flips) > 50:
            lines.append(f"\n… and {len(c.flips) - 50} more records.")
    return "\n".join(lines) + "\n"
