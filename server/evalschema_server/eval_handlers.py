"""LSP handlers for evaluation results: hovers and definitions on data values,
per-field figures on the schema (code lens, inlay hints, hover), and the commands.

Registered on the server by ``register``; each maps positions to offsets, asks the
evaluation service or ``evaluation/views`` and maps the answer back.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from evalschema import annotate_xeval, infer_schema
from evalschema.errors import EvalSchemaError
from evalschema.io.records import parse_records_text
from evalschema.report.markdown import compare_markdown
from evalschema.rules.registry import Registry
from evalschema.run.compare import compare_runs
from evalschema.safetext import finite

from .analysis import SchemaAnalysis, analyze
from .document import LineIndex
from .evaluation import views
from .evaluation.runner import RunOutcome, SuiteOutcome
from .evaluation.suites import Suite
from .features import actions
from .files import in_thread
from .guard import ClientError as CommandError
from .guard import guarded
from .protocol import (
    AnnotateResult,
    CompareResult,
    InferResult,
    SuiteList,
    SuiteReports,
    SuiteSummaries,
    WorstExample,
)
from .uris import file_path

if TYPE_CHECKING:
    from .server import EvalSchemaServer
else:
    EvalSchemaServer = Any  # pygls evaluates handler annotations at run time

COMMANDS = ("runSuite", "runAll", "listSuites", "showReport", "inferSchema", "annotate",
            "compareRuns", "clearResults")
PREFIX = "evalschema.server."


def _range(lines: LineIndex, start: int, end: int, encoding: str) -> types.Range:
    return types.Range(types.Position(*lines.position(start, encoding)),
                       types.Position(*lines.position(max(start, end), encoding)))


def _path(uri: str | None) -> Path | None:
    return file_path(uri) if isinstance(uri, str) else None


# -- data files ---------------------------------------------------------------

def data_hover(ls: EvalSchemaServer, uri: str, text: str, position: types.Position,
               lines: LineIndex | None = None) -> types.Hover | None:
    path = _path(uri)
    if path is None:
        return None
    svc = ls.evaluation
    lines = lines or LineIndex(text)
    offset = lines.offset(position.line, position.character, ls.encoding)
    hits = views.hits(svc.outcomes_for(path), path, text, offset, svc.locator)
    if not hits:
        return None
    parts = []
    for hit in hits:
        parts.append(views.hover_markdown(hit, hit.outcome.labels))
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(parts)),
                       _range(lines, *hits[0].span, ls.encoding))


def data_definition(ls: EvalSchemaServer, uri: str, text: str, position: types.Position,
                    lines: LineIndex | None = None) -> list[types.Location] | None:
    path = _path(uri)
    if path is None:
        return None
    svc = ls.evaluation
    offset = (lines or LineIndex(text)).offset(position.line, position.character, ls.encoding)
    hits = [h for h in views.hits(svc.outcomes_for(path), path, text, offset, svc.locator)
            if h.side == "extracted"]
    if not hits:
        return None
    hit = hits[0]
    out = []
    for target, (start, end) in views.definitions(hit, svc.locator,
                                                  svc.schema_span(hit.outcome)):
        target_text = hit.outcome.texts.get(target, "")
        out.append(types.Location(ls.to_uri(target),
                                  _range(LineIndex(target_text), start, end, ls.encoding)))
    return out or None


# -- the schema ---------------------------------------------------------------

def _schema_outcomes(ls: EvalSchemaServer, uri: str) -> list[SuiteOutcome]:
    path = _path(uri)
    if path is None:
        return []
    return [o for o in ls.evaluation.outcomes_for(path) if o.suite.config.schema == path]


def field_hover(ls: EvalSchemaServer, uri: str, analysis: SchemaAnalysis, offset: int
                ) -> str | None:
    """Each run's figures for the field whose key is under the cursor."""
    outcomes = _schema_outcomes(ls, uri)
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


def code_lenses(ls: EvalSchemaServer, uri: str) -> list[types.CodeLens]:
    path = _path(uri)
    if path is None:
        return []
    suites = [s for s in ls.evaluation.suites_for(path) if s.config.schema == path]
    out = []
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    for suite in suites:
        outcome = ls.evaluation.outcomes.get(suite.key)
        args = [{"suite": suite.key}]
        for run in outcome.runs if outcome else ():
            r = run.result
            out.append(types.CodeLens(top, types.Command(
                f"{suite.name} · {run.label}: P {r.mean_precision:.3f} · R {r.mean_recall:.3f}"
                f" · F1 {r.mean_f1:.3f} ({r.total_records} records)",
                PREFIX + "showReport", arguments=args)))
        running = suite.key in ls.evaluation.scheduler.active
        out.append(types.CodeLens(top, types.Command(
            "$(sync~spin) evaluating…" if running else f"▶ Evaluate {suite.name}",
            PREFIX + "runSuite", arguments=args)))
    return out


def inlay_hints(ls: EvalSchemaServer, uri: str, analysis: SchemaAnalysis,
                rng: types.Range) -> list[types.InlayHint]:
    outcomes = _schema_outcomes(ls, uri)
    if not outcomes:
        return []
    doc = analysis.doc
    lo = doc.lines.offset(rng.start.line, rng.start.character, ls.encoding)
    hi = doc.lines.offset(rng.end.line, rng.end.character, ls.encoding)
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
        figures = [f"{c.f1:.2f}" for _, _, c in runs]
        tips = [f"{o.suite.name} · {r.label}: {views.field_line(c)}" for o, r, c in runs]
        if not figures:
            continue
        line, char = doc.lines.position(prop.key_node.end, ls.encoding)
        out.append(types.InlayHint(types.Position(line, char), f"F1 {' | '.join(figures)}",
                                   kind=types.InlayHintKind.Type, padding_left=True,
                                   tooltip="\n".join(tips)))
    return out


# -- commands -----------------------------------------------------------------

def _arg(args: tuple[Any, ...]) -> dict[str, Any]:
    first = args[0] if args else {}
    if isinstance(first, list):  # some clients wrap the arguments once more
        first = first[0] if first else {}
    return first if isinstance(first, dict) else {}


def _pick(ls: EvalSchemaServer, arg: dict[str, Any]) -> list[Suite]:
    svc = ls.evaluation
    name = arg.get("suite")
    if isinstance(name, str) and name:
        got = svc.discovery.suite(name)
        if got is None:
            raise CommandError(f"no suite named {name!r}; known: "
                               f"{', '.join(s.key for s in svc.discovery.suites) or 'none'}")
        return [got]
    path = _path(arg.get("uri"))
    if path is not None:
        found = svc.suites_for(path)
        if not found:
            raise CommandError(f"{path.name} belongs to no suite (see evalschema.toml, or name "
                               "files NAME.eval.json, NAME.gold.jsonl, NAME.*.extracted.jsonl)")
        return found
    return list(svc.discovery.suites)


async def _run(ls: EvalSchemaServer, suites: list[Suite]) -> list[SuiteOutcome]:
    got = await asyncio.gather(*(ls.evaluation.scheduler.run(s) for s in suites))
    return [o for o in got if o is not None]


def _worst(ls: EvalSchemaServer, run: RunOutcome, field: str) -> WorstExample | None:
    found = views.worst_example(run, field)
    if found is None:
        return None
    scored, r = found
    ext = scored.extracted
    assert ext is not None
    loc = ls.evaluation.locator
    span = loc.value(ext.text, r.extracted_pointer) or \
        (loc.nearest(ext.text, r.extracted_pointer or r.gold_pointer) or ((0, 1), ""))[0]
    lines = LineIndex(run.data.text)
    rng = _range(lines, ext.start + span[0], ext.start + span[1], ls.encoding)
    return {"uri": ls.to_uri(run.path), "range": ls.protocol._converter.unstructure(rng),
            "path": r.path, "status": str(r.status), "score": r.score}


def _annotations(text: str, registry: Registry, path: str
                 ) -> tuple[SchemaAnalysis, list[actions.TextEdit]]:
    analysis = analyze(text, registry, base_uri=path)
    return analysis, actions.annotate_edits(analysis)


def _infer(text: str, path: Path) -> InferResult:
    """A schema inferred from gold records (on a worker thread: the file may be large)."""
    try:
        records = [r.value for r in parse_records_text(text, str(path), strict=True)]
    except EvalSchemaError as exc:
        raise CommandError("; ".join(p.format() for p in exc.problems[:3])) from None
    schema = annotate_xeval(infer_schema(records))
    return {"schema": schema, "text": json.dumps(schema, indent=2, ensure_ascii=False) + "\n"}


def register(server: EvalSchemaServer) -> None:
    @server.command(PREFIX + "runSuite")
    @guarded()
    async def run_suite(ls: EvalSchemaServer, *args: Any) -> SuiteSummaries:
        await ls.evaluation.wait_ready()
        suites = _pick(ls, _arg(args))
        return {"suites": [views.summary(o, ls.to_uri) for o in await _run(ls, suites)]}

    @server.command(PREFIX + "runAll")
    @guarded()
    async def run_all(ls: EvalSchemaServer, *args: Any) -> SuiteSummaries:
        await ls.evaluation.wait_ready()
        suites = list(ls.evaluation.discovery.suites)
        return {"suites": [views.summary(o, ls.to_uri) for o in await _run(ls, suites)]}

    @server.command(PREFIX + "listSuites")
    @guarded()
    async def list_suites(ls: EvalSchemaServer, *args: Any) -> SuiteList:
        await ls.evaluation.wait_ready()
        return {"suites": [{"name": s.name, "key": s.key, "folder": ls.to_uri(s.root),
                            "schema": ls.to_uri(s.config.schema),
                            "gold": ls.to_uri(s.config.gold),
                            "extracted": [ls.to_uri(p) for p in s.config.extracted],
                            "config": ls.to_uri(s.origin) if s.origin else None}
                           for s in ls.evaluation.discovery.suites]}

    @server.command(PREFIX + "showReport")
    @guarded()
    async def show_report(ls: EvalSchemaServer, *args: Any) -> SuiteReports:
        await ls.evaluation.wait_ready()
        suites = _pick(ls, _arg(args))
        todo = [s for s in suites if s.key not in ls.evaluation.outcomes]
        if todo:
            await _run(ls, todo)
        out = []
        for s in suites:
            o = ls.evaluation.outcomes.get(s.key)
            if o is not None:
                out.append(views.report(o, ls.to_uri, lambda r, f: _worst(ls, r, f)))
        return {"suites": out}

    @server.command(PREFIX + "inferSchema")
    @guarded()
    async def infer(ls: EvalSchemaServer, *args: Any) -> InferResult:
        path = _path(_arg(args).get("uri"))
        if path is None:
            raise CommandError("inferSchema needs {\"uri\": <a gold file>}")
        text = await ls.evaluation.text_of(path)
        if text is None:
            raise CommandError(f"cannot read {path}")
        return await in_thread(_infer, text, path)

    @server.command(PREFIX + "annotate")
    @guarded()
    async def annotate(ls: EvalSchemaServer, *args: Any) -> AnnotateResult:
        arg = _arg(args)
        uri = arg.get("uri")
        path = _path(uri)
        if path is None or not isinstance(uri, str):
            raise CommandError("annotate needs {\"uri\": <an eval schema>}")
        text = await ls.evaluation.text_of(path)
        if text is None:
            raise CommandError(f"cannot read {path}")
        if ls.store.get(uri):
            analysis = ls.analysis(uri)
            if analysis.deferred:  # its check may read files: run it off the event loop
                analysis.set_check(await in_thread(analysis.run_check))
            edits = actions.annotate_edits(analysis)
        else:  # a file on disk, maybe large: parsed and checked off the event loop
            analysis, edits = await in_thread(_annotations, text, ls.registry, str(path))
        if not edits:
            return {"applied": False, "edits": 0}
        lines = analysis.doc.lines
        lsp_edits = [types.TextEdit(_range(lines, e.start, e.end, ls.encoding), e.new_text)
                     for e in edits]
        result = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
            types.WorkspaceEdit(changes={ls.to_uri(path): lsp_edits}),
            label="evalschema: annotate schema with defaults"))
        return {"applied": bool(result and result.applied), "edits": len(lsp_edits)}

    @server.command(PREFIX + "compareRuns")
    @guarded()
    async def compare(ls: EvalSchemaServer, *args: Any) -> CompareResult:
        arg = _arg(args)
        await ls.evaluation.wait_ready()
        suites = _pick(ls, arg)
        if len(suites) != 1:
            raise CommandError("compareRuns needs {\"suite\": NAME}")
        suite = suites[0]
        outcome = ls.evaluation.outcomes.get(suite.key)
        if outcome is None:
            ran = await _run(ls, [suite])
            outcome = ran[0] if ran else None
        if outcome is None:
            raise CommandError(f"suite {suite.name} could not be run")
        runs = list(outcome.runs)
        wanted = [p for u in arg.get("runs") or [] if (p := _path(u)) is not None]
        if wanted:
            runs = [r for p in wanted for r in runs if r.path == p]
        if len(runs) < 2:
            raise CommandError(f"suite {suite.name} has {len(runs)} readable run(s); compare "
                               "needs two")
        c = compare_runs([r.result for r in runs], [r.label for r in runs])
        return {"markdown": compare_markdown(c), "result": finite(c.to_dict())}

    @server.command(PREFIX + "clearResults")
    @guarded()
    def clear(ls: EvalSchemaServer, *args: Any) -> None:
        ls.evaluation.clear()
        return None

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    @guarded()
    def progress_cancel(ls: EvalSchemaServer, params: types.WorkDoneProgressCancelParams
                        ) -> None:
        ls.evaluation.scheduler.cancel_run(str(params.token))

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @guarded()
    async def folders(ls: EvalSchemaServer, params: types.DidChangeWorkspaceFoldersParams
                      ) -> None:
        removed = {_path(f.uri) for f in params.event.removed}
        roots = [r for r in ls.roots if r not in removed]
        roots += [p for f in params.event.added if (p := _path(f.uri)) is not None]
        ls.roots = roots
        await ls.evaluation.set_roots(roots)
