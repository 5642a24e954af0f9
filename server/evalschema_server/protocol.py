"""What the server sends the editor extension besides LSP: the answers of its
``workspace/executeCommand`` commands and its ``evalschema/*`` notifications.

Typed once, here. ``vscode-extension/scripts/gen_contracts.py`` generates from these types
the extension's mirror (``src/generated/protocol.ts``) and a JSON Schema
(``src/generated/protocol.schema.json``); tests/server/test_contracts_payloads.py validates
real answers against that schema, so a field sent but not declared (or declared and not
sent) fails there. ``#:`` comments become the generated documentation.

No ``from __future__ import annotations``: ``NotRequired`` must stay visible at run time
(``__required_keys__``) for clients that introspect these types.
"""

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from evalschema.results import FINDINGS, Status

#: Every command's name starts with this.
COMMAND_PREFIX = "evalschema.server."
#: A run of a suite is pending (debounce, or waiting behind a run it supersedes): its
#: figures are about to change. Sent once when the suite stops being idle.
RUN_QUEUED = "evalschema/runQueued"
RUN_STARTED = "evalschema/runStarted"
RUN_FINISHED = "evalschema/runFinished"
#: The statuses a finding can have (the engine's ``results.FINDINGS``), in the engine's
#: order: what listFindings' ``status`` filter takes.
FINDING_STATUSES: tuple[str, ...] = tuple(str(s) for s in Status if s in FINDINGS)
#: The suites were found again and some are new, changed or gone: list the tests again.
SUITES_CHANGED = "evalschema/suitesChanged"


class LspPosition(TypedDict):
    line: int
    #: In the position encoding agreed at initialize (UTF-16 for VS Code).
    character: int


class LspRange(TypedDict):
    start: LspPosition
    end: LspPosition


class CommandArgs(TypedDict, total=False):
    """The one argument object of every command (all keys optional)."""

    #: A suite by key (or name when unique).
    suite: str
    #: A file: the suites that use it (or the gold file to infer from, the schema to annotate).
    uri: str
    #: compareRuns: the extracted files of the two runs, the baseline first.
    runs: list[str]
    #: listFindings: only this field; fieldExamples: this field (its path with ``[]``:
    #: ``line_items[].amount``).
    field: str
    #: listFindings, listTests, runTests: only this run; fieldExamples: this run (its
    #: extracted file's URI).
    run: str
    #: listFindings: only these statuses.
    status: list[str]
    #: At most this many (listFindings: default 5,000; fieldExamples: default 10);
    #: ``total`` counts them all.
    limit: int
    #: openGold: the range of a finding's diagnostic in ``uri`` (an extracted file).
    range: LspRange
    #: openGold: the diagnostic's code (mismatch, omission or hallucination).
    code: str
    #: recordDiff: a position in the record of ``uri`` (an extracted file) to compare.
    position: LspPosition
    #: runTests: only these records (their ``TestRecord.id``s; all when absent).
    records: list[str]


class Figures(TypedDict):
    """A run's figures: precision, recall and F1 macro (mean over records), F1 micro.
    null when undefined (nothing was judged for it; docs/metrics.md): shown as "—"."""

    precision: float | None
    recall: float | None
    f1: float | None
    micro_f1: float | None


class OffSchemaKey(TypedDict):
    """Gold values under a key no schema node covers (never scored)."""

    #: A JSON Pointer pattern into the gold records, array indices as ``*``: ``/results/*/split``.
    pointer: str
    values: int


class CoverageFigures(TypedDict):
    """How much of the gold the schema judges."""

    #: The share of gold values the schema judges (null: gold had no value).
    coverage: float | None
    #: The gold keys no schema node covers, most values first (the first 10).
    off_schema: list[OffSchemaKey]


class CheckRow(TypedDict):
    """One of the configuration's thresholds and how the run fared (``evalschema eval``'s
    gate: ``fail_under`` on the overall F1, ``[suite.thresholds]`` per field)."""

    #: A field path; null for the overall F1 (``fail_under``).
    field: str | None
    #: "macro F1", "micro F1" (overall) or "F1" (a field).
    metric: str
    #: null when undefined (nothing judged): the check fails.
    value: float | None
    threshold: float
    passed: bool
    #: As ``evalschema eval`` prints it: ``overall macro F1 0.8059 < 0.8500``.
    text: str


class GateFigures(TypedDict):
    """The run against the configuration's thresholds."""

    #: The overall check first, then one per field threshold; empty when none are set.
    checks: list[CheckRow]
    #: Whether every check passed; null when there are none.
    passed: bool | None
    #: The verdict in a few characters, for badges: "✓", "✗ < 0.85" (the overall F1's
    #: threshold), "✗ 2 fields below threshold"; "" when there are no checks.
    badge: str


class RunSummary(Figures, CoverageFigures, GateFigures):
    #: The URI of the run's extracted file.
    extracted: str
    label: str
    records: int


class NotEvaluated(TypedDict):
    """Why a suite has no current results: the first problem that stops its schema from
    being scored at all (it does not parse, or its root is unusable; a field with errors
    only makes that field an error)."""

    message: str
    #: The engine's problem code (``invalid-json``, ``bad-node``, ``id-unknown``, …).
    code: str
    #: The schema's URI.
    uri: str
    #: Where the problem is in the schema.
    range: LspRange


class SuiteSummary(TypedDict):
    name: str
    #: Unique in the workspace (names may repeat across folders).
    key: str
    runs: list[RunSummary]
    #: Problems with the suite's files and schema (absent when the run was cancelled).
    problems: NotRequired[int]
    #: Set when the runs shown are the last good results, no longer current, and why
    #: ("schema has errors": it stopped parsing or checking since).
    stale: NotRequired[str]
    #: Set when the schema stopped the last run: why, and where (the runs shown, if
    #: any, are the last good ones, marked ``stale``).
    notEvaluated: NotRequired[NotEvaluated]


class SuiteSummaries(TypedDict):
    """The answer of runSuite and runAll."""

    suites: list[SuiteSummary]


class SuiteInfo(TypedDict):
    name: str
    key: str
    #: The URI of the workspace folder the suite belongs to.
    folder: str
    schema: str
    gold: str
    extracted: list[str]
    #: The URI of the configuration file that declares it (null: found by file names).
    config: str | None


class SuiteList(TypedDict):
    """The answer of listSuites."""

    suites: list[SuiteInfo]


class WorstExample(TypedDict):
    """Where a field did worst: its lowest-scoring wrong value (not a match, not skipped)
    in the run's file, first in file order."""

    uri: str
    range: LspRange
    #: The field's path in its record.
    path: str
    status: str
    score: float


class FieldRow(TypedDict):
    field: str
    #: null when undefined (nothing extracted, nothing in gold, nothing judged): "—".
    precision: float | None
    recall: float | None
    f1: float | None
    #: Results skipped (x-eval-skip, both sides null): a field only skipped shows "skipped".
    skipped: int
    matches: int
    mismatches: int
    omissions: int
    hallucinations: int
    #: Results that could not be judged (``error``, ``batch_error``): a field whose schema
    #: has errors has only these, and its F1 is null, shown "error".
    errors: int
    #: A key the model produced that gold never has: listed apart from the schema's fields.
    invented: bool


class RunReport(RunSummary):
    """A run's figures and its fields' counts: what the results view shows, no more (a
    field's worst values come from fieldExamples, every finding from listFindings)."""

    fields: list[FieldRow]


class SuiteProblem(TypedDict):
    uri: str
    code: str
    message: str


class SuiteReport(TypedDict):
    name: str
    key: str
    schema: str
    gold: str
    runs: list[RunReport]
    problems: list[SuiteProblem]
    #: As in SuiteSummary: why the runs shown are not current.
    stale: NotRequired[str]
    #: As in SuiteSummary: the schema's problem that stopped the last run.
    notEvaluated: NotRequired[NotEvaluated]


class SuiteReports(TypedDict):
    """The answer of showReport."""

    suites: list[SuiteReport]


class FieldExample(WorstExample):
    """One of a field's worst values in a run, with both values to show beside it."""

    #: The record's label (its id, else its number).
    record: str
    #: The gold value as judged (after transforms) as JSON text, cut to 60 characters;
    #: null when gold has none.
    gold: str | None
    #: The extracted value, the same way; null when the run has none (an omission).
    extracted: str | None


class FieldExamples(TypedDict):
    """The answer of fieldExamples: the field's wrong values in the run, lowest score
    first, file order on ties."""

    examples: list[FieldExample]
    #: Wrong values of the field in the run's file, including those past ``limit``.
    total: int


class InferResult(TypedDict):
    """The answer of inferSchema: the schema, and as text to open in an editor."""

    schema: dict[str, Any]
    text: str


class AnnotateResult(TypedDict):
    """The answer of annotate (the edits themselves go through workspace/applyEdit)."""

    applied: bool
    edits: int


class Place(TypedDict):
    """Where something is in one run's extracted file."""

    #: The run's label.
    run: str
    uri: str
    range: LspRange


class CompareRecord(TypedDict):
    """A record whose fields changed between the runs, and where it is in each run."""

    #: The record's label (its id, else its number), as in ``result.flips``.
    record: str
    places: list[Place]


class CompareField(TypedDict):
    field: str
    #: Each run's worst example of the field, in the order of ``result.labels``.
    worst: list[WorstExample | None]


class CompareResult(TypedDict):
    """The answer of compareRuns: the comparison as markdown and as JSON, and where its
    records and fields are, for a view that jumps to them."""

    markdown: str
    result: dict[str, Any]
    records: list[CompareRecord]
    fields: list[CompareField]


class Finding(TypedDict):
    """One wrong, missing or invented value (or a field that could not be judged)."""

    #: The suite's key.
    suite: str
    #: The run's label.
    run: str
    field: str
    #: The value's path in its record (``line_items[2].amount``).
    path: str
    #: The record's label (its id, else its number).
    record: str
    #: mismatch, omission, hallucination, error or batch_error.
    status: str
    score: float
    #: The engine's reason (``FieldResult.explanation``), or the status.
    message: str
    #: Where it is in the run's extracted file (a missing value: its nearest parent present).
    uri: str
    range: LspRange


class FindingList(TypedDict):
    """The answer of listFindings: by field, then in file order."""

    findings: list[Finding]
    #: Findings that matched, including those past ``limit``.
    total: int


class GoldLocation(TypedDict):
    """The answer of openGold: where the finding's gold value is (for a key gold does not
    have, its nearest parent's key), shown with ``window/showDocument`` when the client
    supports it."""

    uri: str
    range: LspRange
    #: The client was asked to show it and said it did.
    shown: bool


class RecordText(TypedDict):
    #: For a tab or a buffer name: the file, the record and the side.
    title: str
    #: The record as JSON, indented by 2 spaces ("" when there is no such record).
    text: str


class RecordDiff(TypedDict):
    """The answer of recordDiff: a record of an extracted file and its gold record, both
    pretty-printed, the extracted keys in gold's order, to show side by side."""

    gold: RecordText
    extracted: RecordText


class TestLocation(TypedDict):
    uri: str
    range: LspRange


class TestRecord(TypedDict):
    """One record of a run, as a test: it passes when every field of it matches."""

    #: Unique in its run and stable across runs: the record's id, else ``#N`` (its place
    #: in the run); a repeated id gets `` (2)``, `` (3)``…
    id: str
    #: The record's id, else the file's name, its place and line: ``run1.jsonl #3 (line 3)``.
    label: str
    #: The whole record in the run's file; a record only in gold: in the gold file.
    uri: str
    range: LspRange
    #: The gold record (null: gold has none).
    gold: TestLocation | None
    #: passed, failed, errored (unreadable, its scoring failed, a field errored) or
    #: "not run" (the suite has not run, or a file changed since).
    status: str


class TestRun(TypedDict):
    """One extracted file of a suite and its records, in the order of the run."""

    uri: str
    label: str
    #: The LSP version of the open document the records were read from (null: the disk's
    #: text). Results for another version are of an older text: not current.
    version: int | None
    records: list[TestRecord]


class TestSuite(TypedDict):
    key: str
    name: str
    #: The schema's URI.
    uri: str
    runs: list[TestRun]


class TestTree(TypedDict):
    """The answer of listTests: suites, their runs, their records."""

    suites: list[TestSuite]


class TestMessage(TypedDict):
    """Why a record failed: one per wrong field, or one about the whole record."""

    message: str
    #: The field's path (``items[0].qty``); null for a message about the whole record.
    field: str | None
    #: The field's status (mismatch, omission, hallucination, error, batch_error), or
    #: record-omitted, record-hallucinated, unreadable-record.
    status: str
    #: At the extracted value (an invented key: the key; a missing value: its nearest
    #: parent present); a record missing from the run: the gold record.
    uri: str
    range: LspRange
    #: The gold and extracted sub-trees of the field (of the whole record for a message
    #: about it), as 2-space indented JSON; "" for a side that has no value.
    expected: str
    actual: str


class TestRecordResult(TypedDict):
    id: str
    status: str
    messages: list[TestMessage]


class TestRunResult(TypedDict):
    uri: str
    label: str
    #: As in TestRun: the document version the results are for.
    version: int | None
    #: A file of the suite changed while it ran: the results are of an older text.
    stale: bool
    records: list[TestRecordResult]


class TestResults(TypedDict):
    """The answer of runTests."""

    #: The suite's key.
    suite: str
    runs: list[TestRunResult]


class SuitesChangedParams(TypedDict):
    #: Keys of the suites that are new or changed, and of those that are gone.
    changed: list[str]
    removed: list[str]


class RunStartedParams(TypedDict):
    """The params of runQueued and runStarted."""

    #: The suite's name (for display).
    suite: str
    key: str


class RunFinishedParams(TypedDict):
    suite: SuiteSummary
    #: The run stopped early (superseded, cancelled, or failed: the log says why); its
    #: summary has no runs and the last figures stay.
    cancelled: bool
    #: Another run of the suite is already queued: its figures are still being updated.
    pending: bool


#: Command name (after ``COMMAND_PREFIX``) -> the type of its answer (None: null).
COMMANDS: Mapping[str, type | None] = {
    "runSuite": SuiteSummaries,
    "runAll": SuiteSummaries,
    "listSuites": SuiteList,
    "showReport": SuiteReports,
    "inferSchema": InferResult,
    "annotate": AnnotateResult,
    "compareRuns": CompareResult,
    "listFindings": FindingList,
    "fieldExamples": FieldExamples,
    "listTests": TestTree,
    "runTests": TestResults,
    "clearResults": None,
    "openGold": GoldLocation,
    "recordDiff": RecordDiff,
}

#: Notification method -> the type of its params.
NOTIFICATIONS: Mapping[str, type] = {
    RUN_QUEUED: RunStartedParams,
    RUN_STARTED: RunStartedParams,
    RUN_FINISHED: RunFinishedParams,
    SUITES_CHANGED: SuitesChangedParams,
}
