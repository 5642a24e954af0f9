"""Markdown reports: for pull-request comments and CI job summaries (GitHub-flavoured
tables)."""

from __future__ import annotations

from collections.abc import Sequence

from evalschema.report.model import RunReport
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
        f"F1 **{run.mean_f1:.4f}** (macro), {run.micro_f1:.4f} (micro); "
        f"precision {run.mean_precision:.4f}, recall {run.mean_recall:.4f}, "
        f"weighted score {run.mean_weighted_score:.4f}.", "",
        "| match | mismatch | omission | hallucination | skipped | error |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {t.matches} | {t.mismatches} | {t.omissions} | {t.hallucinations} | {t.skipped} "
        f"| {t.errors} |", ""]
    if report.repaired_count:
        lines += [f"{report.repaired_note}.", ""]
    if report.checks:
        lines += [f"{h}# Thresholds", "", "| check | value | threshold | |", "|---|---:|---:|:-:|"]
        lines += [f"| {code(c.field) if c.field is not None else cell(c.name)} | {c.value:.4f} "
                  f"| {c.threshold:.4f} | {'✅' if c.passed else '❌'} |" for c in report.checks]
        lines.append("")
    thresholds = report.field_thresholds
    rows = list(run.per_field.values())
    if sort == "f1":
        rows.sort(key=lambda a: (a.f1, a.field))
    lines += [f"{h}# Fields", "",
              "| field | F1 | precision | recall | match | mismatch | omission | hallucination "
              "| threshold |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for a in rows:
        c = a.counts
        th = thresholds.get(a.field)
        mark = "" if th is None else f"{th:.2f} {'✅' if a.f1 + 1e-9 >= th else '❌'}"
        lines.append(f"| {code(a.field)} | {a.f1:.3f} | {a.precision:.3f} | {a.recall:.3f} | "
                     f"{c.matches} | {c.mismatches} | {c.omissions} | {c.hallucinations} | "
                     f"{mark} |")
    if report.worst:
        lines += ["", f"{h}# Worst records", "", "| record | F1 | wrong fields |", "|---|---:|---|"]
        for w in report.worst[:10]:
            rec = w.record
            wrong = [r for r in rec.field_results if r.status in
                     ("mismatch", "omission", "hallucination", "error")]
            shown = ", ".join(f"{code(r.path)} ({r.status})" for r in wrong[:6])
            more = f", … {len(wrong) - 6} more" if len(wrong) > 6 else ""
            lines.append(f"| {cell(rec.label)} | {rec.f1:.3f} | {shown}{more} |")
    return "\n".join(lines) + "\n"


def runs_markdown(reports: Sequence[RunReport], *, sort: str = "schema") -> str:
    if len(reports) == 1:
        return run_markdown(reports[0], sort=sort)
    head = "# evalschema report\n\n"
    rows = ["| run | records | F1 (macro) | F1 (micro) | thresholds |", "|---|---:|---:|---:|:-:|"]
    for r in reports:
        gate = "" if not r.checks else ("✅" if r.passed else "❌")
        rows.append(f"| {cell(r.label)} | {r.run.total_records} | {r.run.mean_f1:.4f} | "
                    f"{r.run.micro_f1:.4f} | {gate} |")
    return head + "\n".join(rows) + "\n\n" + "\n".join(
        run_markdown(r, sort=sort) for r in reports)


def _diff(d: Difference) -> str:
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
        lines.append(f"| {m.metric} | " + " | ".join(f"{v:.4f}" for v in m.values) + " | "
                     + " | ".join(_diff(d) for d in m.differences) + " |")
    lines += ["", "## Fields (F1)", "",
              "| field | " + " | ".join(cell(x) for x in c.labels) + " | "
              + " | ".join(f"Δ {cell(x)}" for x in others) + " | regressed | fixed |",
              "|---|" + "---:|" * (len(c.labels) + len(others)) + "---:|---:|"]
    for f in c.fields:
        if f.only_extracted:
            continue
        lines.append(f"| {code(f.field)} | " + " | ".join(f"{v:.3f}" for v in f.f1.values)
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
