"""Per-run figures on a schema: a code lens per run at the top (and "▶ Evaluate"), and
an inlay hint with each run's F1 after every field's key; the same lenses on each
``[[suite]]`` of the configuration.

Both show the evaluation's results where the schema is written; inlay hints live here
with the lenses rather than in a module of their own.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types

from evalschema.project.gate import meets
from evalschema.report.figures import f1_figure, figure

from ..evaluation import views
from ..evaluation.service import CONFIG_NAMES
from ..evaluation.suites import Suite
from ..guard import guarded
from ..ranges import to_offset
from .shared import PREFIX, path_of, schema_outcomes

if TYPE_CHECKING:
    from ..evaluation.runner import RunOutcome, SuiteOutcome
    from ..server import EvalSchemaServer


#: VS Code's icon syntax, ``$(name)`` or ``$(name~modifier)``, and its escape ``\$(name)``
#: (the pattern of VS Code's own ``escapeIcons``).
_ICON = re.compile(r"(\\)?\$\([a-z0-9-]+?(?:~[a-z0-9-]*?)?\)", re.IGNORECASE)


def escape_icons(text: str) -> str:
    r"""``text`` as it must appear in a code lens title to show as written: VS Code renders
    ``$(name)`` in a lens title as an icon, so a run label or suite name from a file name
    (``model.$(alert)x.extracted.jsonl``) is escaped (``\$(alert)x``)."""
    return _ICON.sub(lambda m: m[0] if m[1] else "\\" + m[0], text)


def on_code_lens(ls: EvalSchemaServer, params: types.CodeLensParams
                 ) -> list[types.CodeLens] | None:
    return code_lenses(ls, params.text_document.uri) or None


def code_lenses(ls: EvalSchemaServer, uri: str) -> list[types.CodeLens]:
    """On a schema, at its top: each suite it judges; in evalschema.toml (or pyproject.toml),
    on each ``[[suite]]`` header: that suite."""
    path = path_of(uri)
    if path is None:
        return []
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    suites = [s for s in ls.evaluation.suites_for(path) if s.config.schema == path]
    out = []
    for suite in suites:
        out += _suite_lenses(ls, suite, top, named=len(suites) > 1)
    if path.name in CONFIG_NAMES:
        for suite in ls.evaluation.discovery.suites:
            if suite.origin == path and suite.config.line:
                at = types.Position(suite.config.line - 1, 0)
                out += _suite_lenses(ls, suite, types.Range(at, at), named=False)
    return out


def _suite_lenses(ls: EvalSchemaServer, suite: Suite, where: types.Range, *, named: bool
                  ) -> list[types.CodeLens]:
    """Short lenses, the action first (a long one is cut off at the window's edge): "▶
    Evaluate", "stale: …" when the results are, then one per run with its F1 and verdict."""
    outcome = ls.evaluation.outcomes.get(suite.key)
    args = [{"suite": suite.key}]
    running = suite.key in ls.evaluation.scheduler.active
    # The titles are VS Code's label text (the spinner is an icon): names from files escaped.
    name = f" {escape_icons(suite.name)}" if named else ""
    out = [types.CodeLens(where, types.Command(
        f"$(sync~spin) evaluating{name}…" if running else f"▶ Evaluate{name}",
        PREFIX + "runSuite", arguments=args))]
    if outcome is None:
        return out
    if outcome.stale:
        out.append(types.CodeLens(where, types.Command(
            f"stale: {outcome.stale}", PREFIX + "showReport", arguments=args,
            tooltip="These figures are the last good run's: the schema has errors now, "
                    "so it was not evaluated again.")))
    for run in outcome.runs:
        badge = views.verdict(outcome, run)
        out.append(types.CodeLens(where, types.Command(
            f"{escape_icons(run.label)} F1 {figure(run.result.mean_f1)}"
            + (f" {badge}" if badge else ""),
            PREFIX + "showReport", arguments=args, tooltip=_run_tooltip(outcome, run))))
    return out


def _run_tooltip(outcome: SuiteOutcome, run: RunOutcome) -> str:
    r = run.result
    lines = [f"{outcome.suite.name} · {run.label}: precision {figure(r.mean_precision)} · "
             f"recall {figure(r.mean_recall)} · F1 {figure(r.mean_f1)} macro, "
             f"{figure(r.micro_f1)} micro ({r.total_records} records)"]
    if (share := r.coverage.share) is not None and share < 1:
        lines.append(f"gold coverage {share:.0%}")
    lines += [c.describe() for c in views.run_checks(outcome, run)]
    lines.append("Click to show the report.")
    return "\n".join(lines)


def on_inlay_hints(ls: EvalSchemaServer, params: types.InlayHintParams
                   ) -> list[types.InlayHint] | None:
    uri = params.text_document.uri
    analysis = ls.schemas.open_analysis(uri)
    if analysis is None:
        return None
    outcomes = schema_outcomes(ls, uri)
    if not outcomes:
        return None
    doc = analysis.doc
    lo = to_offset(doc.lines, params.range.start, ls.encoding)
    hi = to_offset(doc.lines, params.range.end, ls.encoding)
    out = []
    by_pointer: dict[str, str] = {}
    for o in outcomes:
        for name, ptr in o.field_pointers.items():
            by_pointer.setdefault(ptr, name)
    for ptr, name in by_pointer.items():
        prop = doc.property_at_pointer(ptr)
        if prop is None or prop.key_node is None or not lo <= prop.key_node.offset <= hi:
            continue
        runs = views.field_runs(outcomes, name)
        if not runs:
            continue
        default = ls.settings.evaluation.field_threshold
        figures, tips = [], []
        for o, r, c in runs:
            limit = o.suite.config.thresholds.get(name, default)
            low = limit is not None and not meets(c.f1, limit)
            # Named runs (``a 0.95 · b 0.85 ✗``): which figure is whose, and which fails.
            figures.append(f"{r.label} {f1_figure(c, c.f1, 2)}" + (" ✗" if low else ""))
            tips.append(f"{o.suite.name} · {r.label}: {views.field_line(c)}"
                        + (f" (below its threshold {limit:g})" if low else ""))
        line, char = doc.lines.position(prop.key_node.end, ls.encoding)
        out.append(types.InlayHint(types.Position(line, char), f"F1 {' · '.join(figures)}",
                                   kind=types.InlayHintKind.Type, padding_left=True,
                                   tooltip="\n".join([*tips, views.LEGEND])))
    return out or None


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(
        resolve_provider=False))(guarded(default=None)(on_code_lens))
    server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(
        resolve_provider=False))(guarded(default=None)(on_inlay_hints))
