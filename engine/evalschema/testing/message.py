"""What a failed extraction check says, in a pytest item and in ``assert_extraction`` alike:
the thresholds not met, the run's headline, the worst fields, and the worst record's wrong
fields as pytest's own assertion diff shows ``extracted == gold`` for two dicts (differing
items, items only on one side, then the full ``ndiff`` with ``-`` gold and ``+`` extracted).

Plain text with no pytest import, so the helper works without pytest and both say the same.
Everything from the data is shown by ``repr`` (control characters escaped) or ``one_line``.
"""

from __future__ import annotations

import difflib
import pprint
from collections.abc import Mapping, Sequence
from typing import Any

from evalschema.report.figures import figure
from evalschema.report.model import RunReport
from evalschema.report.text import field_table, summary_lines
from evalschema.results import FINDINGS, FieldResult, RecordResult, Status
from evalschema.safetext import one_line

#: Fields listed under "worst fields" (those below F1 1.0, worst first).
TOP_FIELDS = 5
#: Wrong fields of one record shown, in the list and the diff.
TOP_WRONG = 10
#: A value's ``repr`` is cut to this many characters.
REPR_CHARS = 200
_DIFFED = frozenset({Status.MISMATCH, Status.OMISSION, Status.HALLUCINATION})


def record_passed(rec: RecordResult) -> bool:
    """A record passes when every field of it matches and it could be read (as in the
    editor's Test Explorer): any mismatch, omission, hallucination or error fails it."""
    return not rec.problem and not any(r.status in FINDINGS for r in rec.field_results)


def run_message(report: RunReport) -> str:
    """Why a run failed its thresholds, with the story of its worst fields and record."""
    failed = report.failed_checks
    lines = [f"{one_line(report.label)}: {len(failed)} of {len(report.checks)} "
             f"threshold(s) not met"]
    lines += [f"  FAIL  {one_line(c.describe())}" for c in failed]
    problems = [(p.label, p.problem) for p in report.problems]
    lines += ["", *summary_lines(report.run, repaired=report.repaired_count,
                                 truncated=report.truncated_count,
                                 problems=problems if report.from_digest else None,
                                 n_problems=report.problem_count
                                 if report.from_digest else None)]
    table = field_table(report.run.per_field, sort="f1", failing=True, top=TOP_FIELDS)
    table = [line for line in table if not line.startswith("… ")]  # names CLI options
    if len(table) > 2:
        lines += ["", "worst fields:", *table]
    if report.worst:
        lines += ["", "worst " + record_message(report.worst[0].record)]
    return "\n".join(lines)


def record_message(rec: RecordResult) -> str:
    """A record's wrong fields, each with why, then their values diffed."""
    wrong = [r for r in rec.field_results if r.status in FINDINGS]
    head = (f"record {one_line(rec.label)}: F1 {figure(rec.f1, 4)}, "
            f"{len(wrong)} wrong field(s)")
    lines = [head]
    if rec.problem:
        lines.append(f"  {one_line(rec.problem)}")
    for r in wrong[:TOP_WRONG]:
        lines.append(f"  {one_line(r.path or '(record)')}: {r.status}"
                     + (f": {one_line(r.explanation)}" if r.explanation else ""))
    if len(wrong) > TOP_WRONG:
        lines.append(f"  … and {len(wrong) - TOP_WRONG} more")
    diffed = [r for r in wrong[:TOP_WRONG] if r.status in _DIFFED]
    if diffed:
        lines += ["", "extracted (left) == gold (right)", *dict_diff(*_sides(diffed))]
    return "\n".join(lines)


def _sides(results: Sequence[FieldResult]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The wrong values keyed by path: extracted (left) and gold (right); an omitted value
    is only on the right, an invented one only on the left."""
    left = {r.path: r.extracted for r in results if r.status is not Status.OMISSION}
    right = {r.path: r.gold for r in results if r.status is not Status.HALLUCINATION}
    return left, right


def _r(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= REPR_CHARS else text[:REPR_CHARS - 1] + "…"


def _pformat(d: Mapping[str, Any]) -> list[str]:
    """A dict one item a line, as pytest's pretty printer lays it out in a full diff."""
    if not d:
        return ["{}"]
    return ["{", *(f"    {_r(k)}: {_r(v)}," for k, v in d.items()), "}"]


def _one(d: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{_r(k)}: {_r(v)}" for k, v in d.items()) + "}"


def _more(side: str, extra: Mapping[str, Any]) -> list[str]:
    n = len(extra)
    return [f"{side} contains {n} more item{'' if n == 1 else 's'}:",
            *pprint.pformat(dict(extra), sort_dicts=False).splitlines()] if n else []


def dict_diff(left: Mapping[str, Any], right: Mapping[str, Any]) -> list[str]:
    """``left == right`` explained the way pytest explains a failed dict comparison."""
    lines: list[str] = []
    differing = [k for k in left if k in right]  # the scorer found each one different
    if differing:
        lines.append("Differing items:")
        lines += [f"{_one({k: left[k]})} != {_one({k: right[k]})}" for k in differing]
    lines += _more("Left", {k: v for k, v in left.items() if k not in right})
    lines += _more("Right", {k: v for k, v in right.items() if k not in left})
    lines += ["", "Full diff: (-: missing in left side, +: extra in left side)",
              *(line.rstrip() for line in difflib.ndiff(_pformat(right), _pformat(left)))]
    return lines
