"""Hover: in a schema, docs for x-eval keys and registry names, a field's effective
evaluation and each run's figures for it; in a data file, the result at the value."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from evalschema.project.config import SUITE_KEY_DOCS
from evalschema.project.gate import meets
from evalschema.report.figures import f1_figure, figure

from ..authoring import hover
from ..authoring.analysis import SchemaAnalysis
from ..evaluation import views
from ..evaluation.config_text import SUITE_TABLES, THRESHOLD_TABLES, key_at
from ..evaluation.service import CONFIG_NAMES
from ..guard import guarded
from ..ranges import to_range
from ..store import OpenDocument
from .shared import at_position, path_of, schema_outcomes, suite_of_table

if TYPE_CHECKING:
    from ..server import EvalSchemaServer


def on_hover(ls: EvalSchemaServer, params: types.HoverParams) -> types.Hover | None:
    found = at_position(ls, params)
    if found is None:
        return None
    doc, analysis, offset = found
    if analysis is None and doc.path is not None and doc.path.name in CONFIG_NAMES:
        return config_hover(ls, doc, offset)
    return data_hover(ls, doc, offset) if analysis is None \
        else schema_hover(ls, doc.uri, analysis, offset)


def config_hover(ls: EvalSchemaServer, doc: OpenDocument, offset: int) -> types.Hover | None:
    """In evalschema.toml: what a suite key does; on a ``[[suite]]`` header, the suite's
    last figures; on a field threshold, each run's F1 for that field against it."""
    at = key_at(doc.text, offset)
    if at is None:
        return None
    suite = suite_of_table(ls, doc, at.suite)
    outcome = ls.evaluation.outcomes.get(suite.key) if suite is not None else None
    if at.table in SUITE_TABLES and at.key in SUITE_KEY_DOCS:
        text = f"**`{at.key}`** · evalschema suite key\n\n{SUITE_KEY_DOCS[at.key]}"
    elif at.table in SUITE_TABLES and not at.key and suite is not None:
        runs = [f"- `{r.label}`: F1 {figure(r.result.mean_f1)}"
                + (f" {badge}" if (badge := views.verdict(outcome, r)) else "")
                for r in outcome.runs] if outcome is not None else []
        text = "\n".join([f"**suite `{suite.name}`**", "", *(runs or ["not evaluated yet"])])
    elif at.table in THRESHOLD_TABLES and at.key and suite is not None:
        limit = suite.config.thresholds.get(at.key)
        rows = [f"| `{o.suite.name} · {r.label}` | {f1_figure(c, c.f1)} | "
                f"{'✓' if limit is not None and meets(c.f1, limit) else '✗'} |"
                for o, r, c in views.field_runs([outcome] if outcome else [], at.key)]
        text = "\n".join([f"**`{at.key}`**: F1 threshold"
                           + (f" {limit:g}" if limit is not None else ""), "",
                           *(["| run | F1 | |", "|---|---|---|", *rows] if rows
                             else ["no results for this field yet"])])
    else:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text),
                       to_range(doc.line_index, at.start, at.end, ls.encoding))


def schema_hover(ls: EvalSchemaServer, uri: str, analysis: SchemaAnalysis, offset: int
                 ) -> types.Hover | None:
    """Docs of the key or name at ``offset``, and each run's figures of a field's key."""
    found = hover.hover(analysis, offset, ls.registry)
    figures = field_figures(ls, uri, analysis, offset)
    if found is None and figures is None:
        return None
    text, start, end = found if found is not None else ("", offset, offset)
    if figures:
        text = f"{text}\n\n---\n\n{figures}" if text else figures
        if found is None:
            node = analysis.doc.node_at(offset)
            start, end = (node.offset, node.end) if node is not None else (offset, offset)
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text),
                       to_range(analysis.doc.lines, start, end, ls.encoding))


def field_figures(ls: EvalSchemaServer, uri: str, analysis: SchemaAnalysis, offset: int
                  ) -> str | None:
    """Each run's figures for the field whose key is under the cursor."""
    outcomes = schema_outcomes(ls, uri)
    if not outcomes:
        return None
    node = analysis.doc.node_at(offset)
    if node is None or node.parent is None or node.parent.kind != "property" \
            or node.parent.key_node is not node:
        return None
    pointer = analysis.doc.pointer(node)
    for o in outcomes:
        for name, ptr in o.field_pointers.items():
            if ptr == pointer:
                return views.field_hover(outcomes, name)
    return None


def data_hover(ls: EvalSchemaServer, doc: OpenDocument, offset: int) -> types.Hover | None:
    """The results at a value of a gold or extracted file, one section per run."""
    path = path_of(doc.uri)
    if path is None:
        return None
    svc = ls.evaluation
    hits = views.hits(svc.outcomes_for(path), path, doc.text, offset, svc.locator)
    if not hits:
        return None
    parts = []
    for hit in hits:
        parts.append(views.hover_markdown(hit, hit.outcome.labels))
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(parts)),
                       to_range(doc.line_index, *hits[0].span, ls.encoding))


def register(server: EvalSchemaServer) -> None:
    server.feature(types.TEXT_DOCUMENT_HOVER)(guarded(default=None)(on_hover))
