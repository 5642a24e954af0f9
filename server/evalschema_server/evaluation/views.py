"""What the editor shows of results, besides diagnostics: hovers on values, the way
to the gold value and the schema rule, per-field figures on the schema, and the
report and summary that commands return. Plain functions over ``SuiteOutcome``s.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalschema.project.gate import Check, check_run, passed
from evalschema.report.figures import f1_figure, figure
from evalschema.results import (
    FINDINGS,
    Counts,
    FieldResult,
    RecordResult,
    RunResult,
    Status,
    show_value,
)

from ..document import LineIndex, parse
from ..protocol import (
    CheckRow,
    CoverageFigures,
    FieldRow,
    Figures,
    GateFigures,
    NotEvaluated,
    RunReport,
    SuiteProblem,
    SuiteReport,
    SuiteSummary,
)
from ..ranges import range_json
from .findings import short_label
from .kept import Kept
from .locate import RecordLocator, Span, problem_span
from .runner import RunOutcome, ScoredRecord, SuiteOutcome

ToUri = Callable[[Path], str]
#: Off-schema gold keys a run summary lists.
_OFF_SCHEMA_KEYS = 10


@dataclass(frozen=True, slots=True)
class Hit:
    """The results at an offset of a data file: one per run that scored it."""

    outcome: SuiteOutcome
    run: RunOutcome
    side: str  # "extracted" or "gold"
    scored: ScoredRecord
    #: Pointer within the record, and the results at or under it.
    pointer: str
    results: tuple[FieldResult, ...]
    span: Span  # absolute, in the file


def hits(outcomes: Iterable[SuiteOutcome], path: Path, text: str, offset: int,
         locator: RecordLocator) -> list[Hit]:
    """Results at ``offset`` of ``path``, from outcomes computed on this very text."""
    out: list[Hit] = []
    for o in outcomes:
        if o.texts.get(path) != text:
            continue  # stale or unrelated: never show results at wrong positions
        is_gold = o.suite.config.gold == path
        runs = o.runs if is_gold else [r for r in o.runs if r.path == path]
        for run in runs:
            data = o.gold if is_gold else run.data
            if data is None:
                continue
            rec = data.record_at(offset)
            if rec is None:
                continue
            index = (run.by_gold if is_gold else run.by_extracted).get(rec.index)
            if index is None:
                continue
            scored = run.scored[index]
            rel = offset - rec.start
            pointer = locator.pointer_at(rec.text, rel)
            if pointer is None:
                continue
            results = _results_at(o.full(scored), pointer, is_gold)
            if not results:
                continue
            span = locator.value(rec.text, pointer) or (rel, rel)
            out.append(Hit(o, run, "gold" if is_gold else "extracted", scored, pointer,
                           results, (rec.start + span[0], rec.start + span[1])))
    return out


def _results_at(record: RecordResult, pointer: str, is_gold: bool
                ) -> tuple[FieldResult, ...]:
    def ptr(r: FieldResult) -> str | None:
        return r.gold_pointer if is_gold else r.extracted_pointer

    exact = tuple(r for r in record.field_results if ptr(r) == pointer)
    if exact:
        return exact
    prefix = pointer + "/"
    return tuple(r for r in record.field_results
                 if (p := ptr(r)) is not None and (p.startswith(prefix) or pointer == ""))


def _item_of(pointer: str | None) -> str | None:
    """The innermost array item of a pointer: ``/line_items/2/price`` -> ``/line_items/2``."""
    if pointer is None:
        return None
    segs = pointer.split("/")
    for i in range(len(segs) - 1, 0, -1):
        if segs[i].isdigit():
            return "/".join(segs[: i + 1])
    return None


def hover_markdown(hit: Hit, labels: dict[str, str]) -> str:
    head = (f"**evalschema** · suite `{hit.outcome.suite.name}` · run `{hit.run.label}` · "
            f"record `{short_label(hit.scored.record.label)}`")
    if hit.outcome.stale:
        head += f" · **stale**: {hit.outcome.stale}"
    results = hit.results
    if len(results) == 1 and (results[0].extracted_pointer if hit.side == "extracted"
                              else results[0].gold_pointer) == hit.pointer:
        r = results[0]
        label = labels.get(r.schema_pointer) or r.comparator or "—"
        lines = [head, "", f"`{r.path}`: **{r.status}** · score {r.score:.2f} · {label}", "",
                 "| | value (after transforms) |", "|---|---|",
                 f"| gold | `{_cell(r.gold, r.status is Status.HALLUCINATION)}` |",
                 f"| extracted | `{_cell(r.extracted, r.status is Status.OMISSION)}` |"]
        why = r.explanation
        if why:
            lines += ["", why]
        g_item, e_item = _item_of(r.gold_pointer), _item_of(r.extracted_pointer)
        if g_item and e_item and hit.side == "extracted":
            lines += ["", f"aligned with gold element `{g_item}`"]
        return "\n".join(lines)
    counts: dict[str, int] = {}
    for r in results:
        counts[str(r.status)] = counts.get(str(r.status), 0) + 1
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    lines = [head, "", f"`{hit.pointer or '/'}`: {len(results)} fields: {summary}"]
    pairs = {(_item_of(r.gold_pointer), _item_of(r.extracted_pointer)) for r in results}
    pairs = {(g, e) for g, e in pairs if g and e and e == hit.pointer}
    if hit.side == "extracted" and len(pairs) == 1:
        g, _ = next(iter(pairs))
        lines += ["", f"aligned with gold element `{g}`"]
    elif hit.side == "extracted" and not pairs and _item_of(hit.pointer) == hit.pointer:
        lines += ["", "not aligned with any gold element"]
    wrong = [r for r in results if r.status is not Status.MATCH][:8]
    if wrong:
        lines += [""] + [f"- `{r.path}`: {r.status} ({r.score:.2f})" for r in wrong]
    return "\n".join(lines)


def _cell(value: Any, absent: bool) -> str:
    return "(none)" if absent else show_value(value).replace("|", "\\|").replace("`", "'")


def definitions(hit: Hit, locator: RecordLocator, schema_span: Callable[[str], Span | None]
                ) -> list[tuple[Path, Span]]:
    """From an extracted value to its gold value and the schema rule that judged it."""
    out: list[tuple[Path, Span]] = []
    cfg = hit.outcome.suite.config
    r = hit.results[0]
    g = hit.scored.gold
    if hit.side == "extracted" and g is not None:
        gp = r.gold_pointer if len(hit.results) == 1 else _item_of(r.gold_pointer)
        span = locator.value(g.text, gp)
        if span is not None:
            out.append((cfg.gold, (g.start + span[0], g.start + span[1])))
    span = schema_span(r.schema_pointer)
    if span is not None:
        out.append((cfg.schema, span))
    return out


def figures(result: RunResult) -> Figures:
    return {"precision": result.mean_precision, "recall": result.mean_recall,
            "f1": result.mean_f1, "micro_f1": result.micro_f1}


def coverage(result: RunResult) -> CoverageFigures:
    c = result.coverage
    return {"coverage": c.share,
            "off_schema": [{"pointer": k, "values": n} for k, n in c.keys[:_OFF_SCHEMA_KEYS]]}


def run_checks(outcome: SuiteOutcome, run: RunOutcome) -> tuple[Check, ...]:
    """The configuration's gate on ``run``, as ``evalschema eval`` applies it."""
    cfg = outcome.suite.config
    return check_run(run.result, fail_under=cfg.fail_under, fail_metric=cfg.fail_metric,
                     thresholds=cfg.thresholds)


def gate(outcome: SuiteOutcome, run: RunOutcome) -> GateFigures:
    checks = run_checks(outcome, run)
    return {"checks": [CheckRow(field=c.field, metric=c.metric, value=c.value,
                                threshold=c.threshold, passed=c.passed, text=c.describe())
                       for c in checks],
            "passed": passed(checks) if checks else None, "badge": badge(checks)}


def verdict(outcome: SuiteOutcome, run: RunOutcome) -> str:
    """The run's pass/fail badge (``badge``)."""
    return badge(run_checks(outcome, run))


def badge(checks: tuple[Check, ...]) -> str:
    """A short pass/fail badge: "✓", "✗ < 0.85" (the overall threshold), "✗ 2 fields
    below threshold"; "" without checks."""
    if not checks:
        return ""
    failed = [c for c in checks if not c.passed]
    if not failed:
        return "✓"
    overall = next((c for c in failed if c.field is None), None)
    if overall is not None:
        return f"✗ < {overall.threshold:g}"
    return f"✗ {len(failed)} field{'s' if len(failed) != 1 else ''} below threshold"


def not_evaluated(outcome: SuiteOutcome, to_uri: ToUri, encoding: str) -> NotEvaluated | None:
    """Why the suite has no current results, located: the schema's first error that
    stopped its run (``SuiteOutcome.stopped``); None when it was scored."""
    stopped = outcome.stopped
    if stopped is None:
        return None
    p, text = stopped.problem, stopped.schema_text
    start, end = problem_span(parse(text), text, p)
    return {"message": p.message + (f" ({p.suggestion})" if p.suggestion else ""),
            "code": p.code, "uri": to_uri(outcome.suite.config.schema),
            "range": range_json(LineIndex(text), start, end, encoding)}


def summary(outcome: SuiteOutcome, to_uri: ToUri, encoding: str = "utf-16") -> SuiteSummary:
    out: SuiteSummary = {
        "name": outcome.suite.name, "key": outcome.suite.key,
        "runs": [{"extracted": to_uri(r.path), "label": r.label,
                  "records": r.result.total_records, **figures(r.result),
                  **coverage(r.result), **gate(outcome, r)}
                 for r in outcome.runs],
        "problems": len(outcome.issues) + len(outcome.schema_problems)}
    if outcome.stale:
        out["stale"] = outcome.stale
    why = not_evaluated(outcome, to_uri, encoding)
    if why is not None:
        out["notEvaluated"] = why
    return out


def report(outcome: SuiteOutcome, to_uri: ToUri, encoding: str = "utf-16") -> SuiteReport:
    """What the results view shows of each run: figures and per-field counts. Neither the
    results nor the fields' worst values: the view asks for those when they are clicked
    (fieldExamples, listFindings), so a report stays a few kilobytes however big the run."""
    cfg = outcome.suite.config
    runs: list[RunReport] = []
    for r in outcome.runs:
        rows: list[FieldRow] = []
        for name, agg in sorted(r.result.per_field.items()):
            c = agg.counts
            rows.append({"field": name, "precision": c.precision, "recall": c.recall,
                         "f1": c.f1, "skipped": c.skipped, "matches": c.matches,
                         "mismatches": c.mismatches, "omissions": c.omissions,
                         "hallucinations": c.hallucinations,
                         "errors": c.errors + c.batch_errors, "invented": agg.invented})
        runs.append({"extracted": to_uri(r.path), "label": r.label,
                     "records": r.result.total_records, **figures(r.result),
                     **coverage(r.result), **gate(outcome, r), "fields": rows})
    out: SuiteReport = {
        "name": cfg.name, "key": outcome.suite.key, "schema": to_uri(cfg.schema),
        "gold": to_uri(cfg.gold), "runs": runs,
        "problems": [SuiteProblem(uri=to_uri(i.path), code=i.code, message=i.message)
                     for i in outcome.issues]
        + [SuiteProblem(uri=to_uri(cfg.schema), code=p.code, message=p.message)
           for p in outcome.schema_problems]}
    if outcome.stale:
        out["stale"] = outcome.stale
    why = not_evaluated(outcome, to_uri, encoding)
    if why is not None:
        out["notEvaluated"] = why
    return out


def findings(run: RunOutcome, field: str | None = None,
             statuses: frozenset[str] | None = None) -> list[tuple[ScoredRecord, Kept]]:
    """The run's findings, by field then in the extracted file's order; those of gold
    records missing from the run last (they are in the gold file only). As the run keeps
    them: ``whole`` gives their values and pointers."""
    out = []
    for s in sorted((s for s in run.scored if s.extracted is not None or s.gold is not None),
                    key=lambda s: (0, s.extracted.index) if s.extracted else (1, 0)):
        for k in s.findings if field is None else s.findings.of_field(field):
            if k.status in FINDINGS and (statuses is None or str(k.status) in statuses):
                out.append((s, k))
    out.sort(key=lambda sk: sk[1].field)  # stable: file order within a field
    return out


def whole(outcome: SuiteOutcome, found: Iterable[tuple[ScoredRecord, Kept]]
          ) -> list[tuple[ScoredRecord, FieldResult]]:
    """``found``'s findings with their values, reasons and pointers: each record scored
    again once (``SuiteOutcome.findings_of``)."""
    scored: dict[int, tuple[FieldResult, ...]] = {}
    out = []
    for s, k in found:
        results = scored.get(id(s))
        if results is None:
            results = scored[id(s)] = outcome.findings_of(s)
        out.append((s, results[k.at]))
    return out


def worst_examples(outcome: SuiteOutcome, run: RunOutcome, field: str, limit: int
                   ) -> tuple[list[tuple[ScoredRecord, FieldResult]], int]:
    """The ``limit`` lowest-scoring wrong results of ``field`` in ``run``'s file (not a
    match, not skipped; records missing from the run have no place there), lowest score
    first, file order on ties; and how many there are.

    File order: by record, then by the value's array positions in the record (results come
    in gold's order, which alignment may have shuffled); an omission by its gold positions.
    The run keeps no pointers: the records of the lowest (score, record) are scored again,
    those tied with the last one included, and ordered by positions among themselves."""
    found = [(k.score, s.extracted.index, k.at, s, k) for s in run.scored
             if s.extracted is not None for k in s.findings.of_field(field)]
    if not found or limit <= 0:
        return [], len(found)
    if any(x[0] != x[0] for x in found):  # a NaN score orders nothing: every one, as ever
        pool = whole(outcome, ((s, k) for *_, s, k in found))
    else:
        edge = heapq.nsmallest(limit, found, key=lambda x: x[:3])[-1][:2]
        pool = whole(outcome, ((s, k) for score, at, _, s, k in found if (score, at) <= edge))
    # A list, as before: ``nsmallest`` sorts one no longer than ``limit`` (NaN orders differ).
    best = heapq.nsmallest(limit, [(r.score, s.extracted.index,  # type: ignore[union-attr]
                                    _positions(r.extracted_pointer or r.gold_pointer), i, s, r)
                                   for i, (s, r) in enumerate(pool)], key=lambda x: x[:4])
    return [(s, r) for *_, s, r in best], len(found)


def _positions(pointer: str | None) -> tuple[int, ...]:
    """The array indices along a pointer: ``/items/2/tags/0`` -> ``(2, 0)``."""
    return tuple(int(seg) for seg in (pointer or "").split("/") if seg.isascii() and seg.isdigit())


def worst_example(outcome: SuiteOutcome, run: RunOutcome, field: str
                  ) -> tuple[ScoredRecord, FieldResult] | None:
    """The lowest-scoring wrong result of ``field`` in ``run`` (first such, in file order)."""
    best, _ = worst_examples(outcome, run, field, 1)
    return best[0] if best else None


def field_line(counts: Counts) -> str:
    c = counts
    return (f"P {figure(c.precision, 2)} · R {figure(c.recall, 2)} · "
            f"F1 {f1_figure(c, c.f1, 2)} · ✓{c.matches} "
            f"≠{c.mismatches} ∅{c.omissions} +{c.hallucinations}")


def field_runs(outcomes: Iterable[SuiteOutcome], field: str
               ) -> list[tuple[SuiteOutcome, RunOutcome, Counts]]:
    """Each run's counts for ``field`` (runs that did not score it are left out)."""
    return [(o, r, agg.counts) for o in outcomes for r in o.runs
            if (agg := r.result.per_field.get(field)) is not None]


def field_hover(outcomes: Iterable[SuiteOutcome], field: str) -> str | None:
    rows = [f"| {o.suite.name} · {r.label} | {figure(c.precision)} | {figure(c.recall)} | "
            f"{f1_figure(c, c.f1)} | "
            f"{c.matches} | {c.mismatches} | {c.omissions} | {c.hallucinations} |"
            for o, r, c in field_runs(outcomes, field)]
    if not rows:
        return None
    return "\n".join([f"**`{field}`** in the last runs", "",
                      "| run | P | R | F1 | ✓ | ≠ | ∅ | + |", "|---|---|---|---|---|---|---|---|",
                      *rows, "", LEGEND])


#: What the symbols of the figures stand for (hovers and tooltips that use them).
LEGEND = "✓ matched · ≠ wrong · ∅ missing · + invented"
