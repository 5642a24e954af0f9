"""What a report shows about one run: the run, its digest, its thresholds and the
configuration that produced it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evalschema.calibration import REVIEW_BUDGETS
from evalschema.io.lenient import TRUNCATED
from evalschema.project.gate import Check
from evalschema.results import RunResult
from evalschema.run.parallel import EvalOutcome, RecordProblem, WorstRecord


@dataclass(frozen=True)
class RunReport:
    """One scored run, ready to render in any format.

    ``settings`` is the configuration that produced it (suite, files, options),
    shown as is; ``schema`` the eval schema document. Repaired records and record
    problems come from the digest when the run was streamed (``from_digest``), else
    from the run's records.
    """

    run: RunResult
    label: str
    suite: str | None = None
    extracted: str | None = None
    worst: tuple[WorstRecord, ...] = ()
    #: Extracted records that could not be read, with their gold (``Digest.unreadable``).
    unreadable: tuple[WorstRecord, ...] = ()
    repaired: int | None = None
    truncated: int | None = None
    problems: tuple[RecordProblem, ...] = ()
    n_problems: int | None = None
    checks: tuple[Check, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    schema: Any = None
    seconds: float | None = None
    workers: int = 1
    #: Review budgets (percent) of the calibration figures (``--review-budgets``).
    budgets: tuple[float, ...] = REVIEW_BUDGETS

    @classmethod
    def from_outcome(cls, outcome: EvalOutcome, label: str, **kw: Any) -> RunReport:
        d = outcome.digest
        return cls(outcome.run, label, worst=tuple(d.worst),
                   unreadable=tuple(d.unreadable), repaired=d.repaired,
                   truncated=d.truncated,
                   problems=tuple(d.problems), n_problems=d.n_problems,
                   seconds=outcome.seconds, workers=outcome.workers, **kw)

    @property
    def from_digest(self) -> bool:
        return self.n_problems is not None

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def failed_checks(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.passed)

    @property
    def repaired_count(self) -> int:
        if self.repaired is not None:
            return self.repaired
        return sum(1 for r in self.run.records if r.repaired)

    @property
    def truncated_count(self) -> int:
        """Of the repaired records, those cut short (``max_tokens``)."""
        if self.truncated is not None:
            return self.truncated
        return sum(1 for r in self.run.records if r.repaired == TRUNCATED)

    @property
    def repaired_note(self) -> str:
        """"N extracted record(s) needed lenient parsing (k truncated)", or ""."""
        n, cut = self.repaired_count, self.truncated_count
        if not n:
            return ""
        return (f"{n:,} extracted record(s) needed lenient parsing"
                + (f" ({cut:,} truncated)" if cut else ""))

    @property
    def problem_count(self) -> int:
        if self.n_problems is not None:
            return self.n_problems
        return sum(1 for r in self.run.records if r.problem)

    def first_problems(self, limit: int) -> list[tuple[str, str]]:
        """(label, problem) of the first ``limit`` records with a problem: the digest's
        when the run was streamed, else the run's records."""
        if self.from_digest:
            return [(p.label, p.problem) for p in self.problems[:limit]]
        return [(r.label, r.problem) for r in self.run.records if r.problem][:limit]

    @property
    def field_thresholds(self) -> dict[str, float]:
        return {c.field: c.threshold for c in self.checks if c.field is not None}

    def to_dict(self, *, include_records: bool = True) -> dict[str, Any]:
        """The run as JSON (``RunResult.to_dict``), plus where it came from, its
        thresholds and, for a streamed run, what its digest kept."""
        out: dict[str, Any] = {}
        if self.suite is not None:
            out["suite"] = self.suite
        if self.extracted is not None:
            out["extracted"] = self.extracted
        out.update(self.run.to_dict(include_records=include_records, budgets=self.budgets))
        if not include_records and self.from_digest:
            out["repaired_records"] = self.repaired_count
            out["truncated_records"] = self.truncated_count
            out["record_problems"] = {"count": self.problem_count,
                                      "first": [p.to_dict() for p in self.problems]}
        if self.checks:
            out["thresholds"] = {"passed": self.passed,
                                 "checks": [c.to_dict() for c in self.checks]}
        return out
