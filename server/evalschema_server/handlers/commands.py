"""The ``workspace/executeCommand`` commands: run suites, list them, report, infer a
schema, annotate one, compare runs, list findings and a field's worst values, clear
results, and from a finding to its gold (see docs/server.md, "Commands").

Every command is ``(ls, *args)`` and reads one optional object argument; bad input
answers a JSON-RPC error (``ClientError``).
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
from evalschema.results import FieldResult, show_value
from evalschema.rules.registry import Registry
from evalschema.run.compare import compare_runs
from evalschema.safetext import finite

from ..authoring import actions
from ..authoring.analysis import SchemaAnalysis, analyze
from ..document import LineIndex
from ..evaluation import goldactions, record_tests, views
from ..evaluation.locate import RecordLocator
from ..evaluation.runner import RunOutcome, ScoredRecord, SuiteOutcome
from ..evaluation.suites import Suite
from ..files import in_thread
from ..guard import ClientError as CommandError
from ..guard import guarded
from ..protocol import (
    AnnotateResult,
    CompareField,
    CompareRecord,
    CompareResult,
    FieldExample,
    FieldExamples,
    Finding,
    FindingList,
    GoldLocation,
    InferResult,
    Place,
    RecordDiff,
    SuiteList,
    SuiteReports,
    SuiteSummaries,
    TestResults,
    TestSuite,
    TestTree,
    WorstExample,
)
from ..ranges import range_json, to_range
from .shared import PREFIX, findings_at_range, path_of

if TYPE_CHECKING:
    from ..server import EvalSchemaServer


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
    path = path_of(arg.get("uri"))
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


def _place(loc: RecordLocator, lines: LineIndex, uri: str, encoding: str,
           scored: ScoredRecord, r: FieldResult) -> WorstExample:
    """Where a result of a record of the run is in the run's file (``lines``: its line
    table; a missing value: its nearest parent present)."""
    ext = scored.extracted
    assert ext is not None
    span = loc.value(ext.text, r.extracted_pointer) or \
        loc.near(ext.text, r.extracted_pointer or r.gold_pointer)
    return {"uri": uri, "range": range_json(lines, ext.start + span[0], ext.start + span[1],
                                            encoding),
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


async def run_suite(ls: EvalSchemaServer, *args: Any) -> SuiteSummaries:
    await ls.evaluation.wait_ready()
    suites = _pick(ls, _arg(args))
    return {"suites": [views.summary(o, ls.store.uri_of, ls.encoding) for o in await _run(ls, suites)]}


async def run_all(ls: EvalSchemaServer, *args: Any) -> SuiteSummaries:
    await ls.evaluation.wait_ready()
    suites = list(ls.evaluation.discovery.suites)
    return {"suites": [views.summary(o, ls.store.uri_of, ls.encoding) for o in await _run(ls, suites)]}


async def list_suites(ls: EvalSchemaServer, *args: Any) -> SuiteList:
    await ls.evaluation.wait_ready()
    uri = ls.store.uri_of
    return {"suites": [{"name": s.name, "key": s.key, "folder": uri(s.root),
                        "schema": uri(s.config.schema), "gold": uri(s.config.gold),
                        "extracted": [uri(p) for p in s.config.extracted],
                        "config": uri(s.origin) if s.origin else None}
                       for s in ls.evaluation.discovery.suites]}


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
            out.append(views.report(o, ls.store.uri_of, ls.encoding))
    return {"suites": out}


async def infer(ls: EvalSchemaServer, *args: Any) -> InferResult:
    path = path_of(_arg(args).get("uri"))
    if path is None:
        raise CommandError("inferSchema needs {\"uri\": <a gold file>}")
    text = await ls.evaluation.text_of(path)
    if text is None:
        raise CommandError(f"cannot read {path}")
    return await in_thread(_infer, text, path)


async def annotate(ls: EvalSchemaServer, *args: Any) -> AnnotateResult:
    arg = _arg(args)
    uri = arg.get("uri")
    path = path_of(uri)
    if path is None or not isinstance(uri, str):
        raise CommandError("annotate needs {\"uri\": <an eval schema>}")
    text = await ls.evaluation.text_of(path)
    if text is None:
        raise CommandError(f"cannot read {path}")
    if ls.store.get(uri):
        analysis = ls.schemas.analysis(uri)
        if analysis.deferred:  # its check may read files: run it off the event loop
            analysis.set_check(await in_thread(analysis.run_check))
        edits = actions.annotate_edits(analysis)
    else:  # a file on disk, maybe large: parsed and checked off the event loop
        analysis, edits = await in_thread(_annotations, text, ls.registry, str(path))
    if not edits:
        return {"applied": False, "edits": 0}
    lines = analysis.doc.lines
    lsp_edits = [types.TextEdit(to_range(lines, e.start, e.end, ls.encoding), e.new_text)
                 for e in edits]
    result = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
        types.WorkspaceEdit(changes={ls.store.uri_of(path): lsp_edits}),
        label="evalschema: annotate schema with defaults"))
    return {"applied": bool(result and result.applied), "edits": len(lsp_edits)}


async def _one_outcome(ls: EvalSchemaServer, arg: dict[str, Any], command: str
                       ) -> SuiteOutcome:
    """The last outcome of the one suite ``arg`` names, run first if it has none."""
    await ls.evaluation.wait_ready()
    suites = _pick(ls, arg)
    if len(suites) != 1:
        raise CommandError(f"{command} needs {{\"suite\": NAME}}")
    suite = suites[0]
    outcome = ls.evaluation.outcomes.get(suite.key)
    if outcome is None:
        ran = await _run(ls, [suite])
        outcome = ran[0] if ran else None
    if outcome is None:
        raise CommandError(f"suite {suite.name} could not be run")
    return outcome


async def compare(ls: EvalSchemaServer, *args: Any) -> CompareResult:
    arg = _arg(args)
    outcome = await _one_outcome(ls, arg, "compareRuns")
    suite = outcome.suite
    runs = list(outcome.runs)
    wanted = [p for u in arg.get("runs") or [] if (p := path_of(u)) is not None]
    if wanted:
        runs = [r for p in wanted for r in runs if r.path == p]
    if len(runs) < 2:
        raise CommandError(f"suite {suite.name} has {len(runs)} readable run(s); compare "
                           "needs two")
    uris = {r.path: ls.store.uri_of(r.path) for r in runs}
    # Every record of every run is scored again, and the bootstrap resamples them: seconds
    # for a large suite, so off the event loop (outcomes are not changed once made).
    return await in_thread(_compare, outcome, runs, uris, ls.encoding)


def _compare(outcome: SuiteOutcome, runs: list[RunOutcome], uris: dict[Path, str],
             encoding: str) -> CompareResult:
    c = compare_runs([outcome.full_result(r) for r in runs], [r.label for r in runs])
    result = finite(c.to_dict())
    lines = {r.path: LineIndex(r.data.text) for r in runs}
    changed = list(dict.fromkeys(f["gold_index"] for f in result["flips"]))
    records = []
    for gold_index in changed:
        places: list[Place] = []
        label = None
        for r in runs:
            at = r.by_gold.get(gold_index)
            scored = r.scored[at] if at is not None else None
            if scored is None or scored.extracted is None:
                continue
            label = scored.record.label
            ext = scored.extracted
            places.append({"run": r.label, "uri": uris[r.path], "range": range_json(
                lines[r.path], ext.start, ext.start, encoding)})
        if label is not None:
            records.append(CompareRecord(record=label, places=places))
    loc = RecordLocator()  # its own: the event loop's is not shared with a thread

    def worst(r: RunOutcome, field: str) -> WorstExample | None:
        found = views.worst_example(outcome, r, field)
        return None if found is None else _place(loc, lines[r.path], uris[r.path], encoding,
                                                 *found)

    fields = [CompareField(field=f["field"], worst=[worst(r, f["field"]) for r in runs])
              for f in result["fields"]]
    return {"markdown": compare_markdown(c), "result": result, "records": records,
            "fields": fields}


async def list_findings(ls: EvalSchemaServer, *args: Any) -> FindingList:
    await ls.evaluation.wait_ready()
    arg = _arg(args)
    field = arg.get("field") if isinstance(arg.get("field"), str) else None
    run_path = path_of(arg.get("run"))
    raw_status = arg.get("status")
    statuses = frozenset(x for x in raw_status if isinstance(x, str)) \
        if isinstance(raw_status, list) else None
    limit = arg.get("limit", 5000)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise CommandError("listFindings: limit must be a whole number >= 0")
    suites = _pick(ls, {k: v for k, v in arg.items() if k in ("suite", "uri")})
    outcomes = [o for s in suites if (o := ls.evaluation.outcomes.get(s.key)) is not None]
    uris = {p: ls.store.uri_of(p) for o in outcomes for p in o.suite.files}
    # Locating thousands of findings parses their records: off the event loop, with a
    # locator of its own (outcomes are not changed once made).
    return await in_thread(_findings, outcomes, field, statuses, run_path, limit, uris,
                           ls.encoding)


async def field_examples(ls: EvalSchemaServer, *args: Any) -> FieldExamples:
    arg = _arg(args)
    field, run_path = arg.get("field"), path_of(arg.get("run"))
    limit = arg.get("limit", 10)
    if not isinstance(field, str) or run_path is None:
        raise CommandError("fieldExamples needs {\"suite\", \"run\": <its extracted file's "
                           "URI>, \"field\": <a field path>}")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise CommandError("fieldExamples: limit must be a whole number >= 0")
    # The suite by name, else the one the run's file belongs to.
    outcome = await _one_outcome(ls, {"suite": arg["suite"]} if arg.get("suite")
                                 else {"uri": arg["run"]}, "fieldExamples")
    run = next((r for r in outcome.runs if r.path == run_path), None)
    if run is None:
        raise CommandError(f"suite {outcome.suite.name} has no run {run_path.name}; its runs: "
                           f"{', '.join(r.path.name for r in outcome.runs) or 'none'}")
    # Off the event loop, with a locator of its own, as listFindings.
    return await in_thread(_examples, outcome, run, field, limit, ls.store.uri_of(run.path),
                           ls.encoding)


def _examples(outcome: SuiteOutcome, run: RunOutcome, field: str, limit: int, uri: str,
              encoding: str) -> FieldExamples:
    found, total = views.worst_examples(outcome, run, field, limit)
    loc, lines = RecordLocator(), LineIndex(run.data.text)
    examples = [FieldExample(
        **_place(loc, lines, uri, encoding, s, r), record=s.record.label,
        gold=None if r.gold_pointer is None else show_value(r.gold),
        extracted=None if r.extracted_pointer is None else show_value(r.extracted))
        for s, r in found]
    return {"examples": examples, "total": total}


def _findings(outcomes: list[SuiteOutcome], field: str | None,
              statuses: frozenset[str] | None, run_path: Path | None, limit: int,
              uris: dict[Path, str], encoding: str) -> FindingList:
    loc = RecordLocator()
    out: list[Finding] = []
    total = 0
    for o in outcomes:
        for run in o.runs:
            if run_path is not None and run.path != run_path:
                continue
            found = views.findings(run, field, statuses)
            total += len(found)
            tables: dict[Path, LineIndex] = {}
            for scored, r in views.whole(o, found[: max(limit - len(out), 0)]):
                # In the run's file; a gold record missing from the run: in the gold file.
                where, pointer, path = (scored.extracted, r.extracted_pointer, run.path) \
                    if scored.extracted is not None else \
                    (scored.gold, r.gold_pointer, o.suite.config.gold)
                assert where is not None
                span = loc.value(where.text, pointer) or \
                    loc.near(where.text, pointer or r.gold_pointer)
                if path not in tables:
                    tables[path] = LineIndex(run.data.text if path == run.path
                                             else o.gold.text if o.gold else "")
                out.append(Finding(
                    suite=o.suite.key, run=run.label, field=r.field, path=r.path,
                    record=scored.record.label, status=str(r.status), score=r.score,
                    message=r.explanation or str(r.status), uri=uris[path],
                    range=range_json(tables[path], where.start + span[0],
                                     where.start + span[1], encoding)))
    return {"findings": out, "total": total}


def _position(value: Any) -> types.Position | None:
    if isinstance(value, dict):
        line, character = value.get("line"), value.get("character")
        if isinstance(line, int) and isinstance(character, int) and not isinstance(line, bool) \
                and not isinstance(character, bool) and line >= 0 and character >= 0:
            return types.Position(line, character)
    return None


async def open_gold(ls: EvalSchemaServer, *args: Any) -> GoldLocation:
    """From a finding's diagnostic to its gold value: the client is asked to show it
    (``window/showDocument``, selected), and the answer says where it is."""
    arg = _arg(args)
    uri, code, rng = arg.get("uri"), arg.get("code"), arg.get("range")
    doc = ls.store.get(uri) if isinstance(uri, str) else None
    start = _position(rng.get("start")) if isinstance(rng, dict) else None
    end = _position(rng.get("end")) if isinstance(rng, dict) else None
    if doc is None or not isinstance(code, str) or start is None or end is None:
        raise CommandError("openGold needs {\"uri\": <an open extracted file>, \"range\": "
                           "<a finding's range>, \"code\": <its code>}")
    found = findings_at_range(ls, doc, types.Range(start, end), code)
    span = goldactions.gold_place(found[0], ls.evaluation.locator) if found else None
    if span is None:
        raise CommandError("no current finding there: save the file to evaluate it again")
    gold = found[0].pair.outcome.suite.config.gold
    read = found[0].pair.outcome.texts.get(gold, "")
    gold_uri = ls.store.uri_of(gold)
    lines = LineIndex(read)
    shown = False
    window = ls.client_capabilities.window
    if window is not None and window.show_document is not None and window.show_document.support:
        # Selected only in the text the run read: in another, the offsets are elsewhere.
        current = await ls.evaluation.text_of(gold) == read
        answer = await ls.window_show_document_async(types.ShowDocumentParams(
            gold_uri, take_focus=True,
            selection=to_range(lines, *span, ls.encoding) if current else None))
        shown = bool(answer is not None and answer.success)
    return {"uri": gold_uri, "range": range_json(lines, *span, ls.encoding), "shown": shown}


async def record_diff(ls: EvalSchemaServer, *args: Any) -> RecordDiff:
    """The record of an extracted file at a position and its gold record, pretty-printed
    for a side-by-side view (the VS Code extension opens them in a diff editor)."""
    await ls.evaluation.wait_ready()
    arg = _arg(args)
    path = path_of(arg.get("uri"))
    at = _position(arg.get("position"))
    if path is None or at is None:
        raise CommandError("recordDiff needs {\"uri\": <an extracted file>, \"position\": "
                           "<a position in one of its records>}")
    text = await ls.evaluation.text_of(path)
    if text is None:
        raise CommandError(f"cannot read {path}")
    offset = LineIndex(text).offset(at.line, at.character, ls.encoding)
    suite = arg.get("suite")
    pairs = [p for p in goldactions.records_at(ls.evaluation.outcomes_for(path), path, text,
                                               offset)
             if not isinstance(suite, str) or p.outcome.suite.key == suite]
    if not pairs:
        raise CommandError(f"no evaluated record at line {at.line + 1} of {path.name} (save "
                           "the file to evaluate it again)")
    pair = goldactions.record_pair(pairs[0])
    return {"gold": {"title": pair.gold_title, "text": pair.gold_text},
            "extracted": {"title": pair.extracted_title, "text": pair.extracted_text}}


def _suite_uris(ls: EvalSchemaServer, suite: Suite) -> record_tests.ToUri:
    """The suite's files' URIs, taken on the event loop for a worker thread."""
    uris = {p: ls.store.uri_of(p) for p in suite.files}
    return lambda p: uris.get(p) or p.as_uri()


async def list_tests(ls: EvalSchemaServer, *args: Any) -> TestTree:
    """Suites, runs and records with their last statuses; runs nothing."""
    await ls.evaluation.wait_ready()
    arg = _arg(args)
    svc = ls.evaluation
    run_path = path_of(arg.get("run"))
    out: list[TestSuite] = []
    for suite in _pick(ls, {k: v for k, v in arg.items() if k in ("suite", "uri")}):
        outcome = svc.outcomes.get(suite.key)
        current = None
        if outcome is None or outcome.gold is None or outcome.stale \
                or svc.stale_paths(outcome):  # no current results: the records, not run
            current = {p: t for p in suite.files if (t := await svc.text_of(p)) is not None}
        got = await in_thread(record_tests.tree, suite, outcome, current,
                              svc.versions(suite.files), _suite_uris(ls, suite), ls.encoding)
        if run_path is not None:
            got["runs"] = [r for r in got["runs"] if path_of(r["uri"]) == run_path]
        out.append(got)
    return {"suites": out}


async def run_tests(ls: EvalSchemaServer, *args: Any) -> TestResults:
    """Scores the suite (the run machinery: unchanged records are not scored again) and
    answers the results of the records asked for. ``$/cancelRequest`` cancels the run."""
    await ls.evaluation.wait_ready()
    arg = _arg(args)
    name = arg.get("suite")
    if not isinstance(name, str) or not name:
        raise CommandError("runTests needs {\"suite\": KEY}")
    raw = arg.get("records")
    if raw is not None and not (isinstance(raw, list) and all(isinstance(x, str) for x in raw)):
        raise CommandError("runTests: records must be a list of record ids")
    ids = frozenset(raw) if raw else None
    [suite] = _pick(ls, {"suite": name})
    ran = await _run(ls, [suite])
    if not ran:
        raise CommandError(f"the run of suite {suite.name} was cancelled")
    outcome = ran[0]
    if outcome.stopped is not None:  # a field with an error is scored (error): not this
        first = outcome.stopped.problem
        raise CommandError(f"suite {suite.name} cannot run: the schema has errors "
                           f"({first.code}: {first.message})")
    svc = ls.evaluation
    runs = await in_thread(record_tests.results, outcome, path_of(arg.get("run")), ids,
                           set(svc.stale_paths(outcome)), svc.versions(suite.files),
                           _suite_uris(ls, suite), ls.encoding)
    return {"suite": suite.key, "runs": runs}


def clear(ls: EvalSchemaServer, *args: Any) -> None:
    ls.evaluation.clear()
    return None


#: Command name (after ``PREFIX``) -> handler, in the order the server announces them.
COMMANDS = {"runSuite": run_suite, "runAll": run_all, "listSuites": list_suites,
            "showReport": show_report, "inferSchema": infer, "annotate": annotate,
            "compareRuns": compare, "listFindings": list_findings,
            "fieldExamples": field_examples, "listTests": list_tests, "runTests": run_tests,
            "clearResults": clear, "openGold": open_gold, "recordDiff": record_diff}


def register(server: EvalSchemaServer) -> None:
    for name, handler in COMMANDS.items():
        server.command(PREFIX + name)(guarded()(handler))
