"""Located, coded problems and the exceptions that carry them.

A schema or gold file can be wrong in many places at once; users fix them in one
pass only if they see all of them, each with where, what, and what to do. The
language server reads the same ``Problem`` objects to place diagnostics.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    #: A note: what was read and how (an extract-bench wrapper unwrapped); never a failure.
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Problem:
    """One located problem.

    ``pointer`` is an RFC 6901 JSON Pointer into the document named by ``source``
    (a file path or a label such as ``"schema"``). ``target`` says whether the
    problem is about the key at that pointer or its value, so an editor can mark
    the right token. ``data`` carries machine-readable fix hints (replacements,
    required parameters) for quick fixes.
    """

    code: str
    message: str
    pointer: str = ""
    suggestion: str | None = None
    severity: Severity = Severity.ERROR
    target: str = "value"  # "key" or "value"
    source: str | None = None
    line: int | None = None  # 1-based, when known (data files)
    column: int | None = None  # 1-based
    data: dict[str, Any] = field(default_factory=dict)

    def location(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        if self.pointer or not where:
            where += f"#{self.pointer}" if where else (self.pointer or "/")
        return where

    def format(self) -> str:
        text = f"{self.location()}: {self.severity} {self.code}: {self.message}"
        if self.suggestion:
            text += f" ({self.suggestion})"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "pointer": self.pointer,
            "suggestion": self.suggestion,
            "severity": str(self.severity),
            "target": self.target,
            "source": self.source,
            "line": self.line,
            "column": self.column,
            "data": self.data,
        }


#: Problems spelled out in an exception's message (all stay in ``.problems``).
_SHOWN = 20


class EvalSchemaError(Exception):
    """Base class: an input that cannot be scored, with every problem found."""

    def __init__(self, problems: Iterable[Problem], summary: str | None = None) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        head = summary or f"{len(self.problems)} problem(s)"
        shown = ["  " + p.format() for p in self.problems[:_SHOWN]]
        if len(self.problems) > _SHOWN:
            shown.append(f"  … and {len(self.problems) - _SHOWN} more")
        super().__init__("\n".join([head, *shown]))


class SchemaError(EvalSchemaError):
    """The eval schema is invalid; ``problems`` lists all of it, not just the first."""


class GoldValidationError(EvalSchemaError):
    """Gold records are unusable (not objects, missing or duplicate ids, wrong types)."""


class InputError(EvalSchemaError):
    """A file could not be read or parsed, or an option is invalid."""


class ProblemWarning(UserWarning):
    """A located warning found while reading (a duplicate key): a Python warning, so API
    users can filter or turn it into an error, and the CLI prints ``problem.format()``."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.format())
        self.problem = problem


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate, if it is close enough to be a likely typo."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    best = process.extractOne(
        name, list(candidates), scorer=Levenshtein.normalized_similarity, score_cutoff=0.5
    )
    return str(best[0]) if best else None
