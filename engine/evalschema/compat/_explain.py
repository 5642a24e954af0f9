"""Helpers shared by the compat modules: result type, locations, parsing, edit distance.

Each peer system keeps its own scoring rules in its module; what they share
(how a location is written, how a FieldResult is built, how text is parsed or
rejected) lives here so the four modules read alike and never drift apart.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ParamSpec, Protocol, TypeVar

from rapidfuzz.distance import Levenshtein

from evalschema import limits
from evalschema.compat.errors import CompatInputError
from evalschema.io.lenient import LenientParseError, parse_lenient
from evalschema.pointer import escape
from evalschema.results import FieldResult, Status
from evalschema.rules.values import capped_similarity

#: A location inside a JSON value: object keys and array indices from the root.
Parts = tuple[str | int, ...]

ROOT: Parts = ()


@dataclass(frozen=True, slots=True)
class CompatScore:
    """A peer system's score, its extra outputs, and (when explained) the per-field breakdown.

    ``score`` is on the peer's own scale (``details["scale"]`` says which: 1.0 or
    100.0). ``fields`` is empty unless the call asked for an explanation.
    """

    score: float
    details: dict[str, Any] = field(default_factory=dict)
    fields: tuple[FieldResult, ...] = ()


class Metric(Protocol):
    """The uniform call the CLI uses: ``metric(expected, actual, **options)``."""

    def __call__(self, expected: Any, actual: Any, /, **options: Any) -> CompatScore: ...


# -- locations ---------------------------------------------------------------


def to_path(parts: Parts) -> str:
    """Instance path: ``menu[0].price`` (keys joined by dots, indices in brackets)."""
    return _join(parts, lambda i: f"[{i}]")


def to_field(parts: Parts) -> str:
    """Field path shared by every array element: ``menu[].price``."""
    return _join(parts, lambda _: "[]")


def _join(parts: Parts, index: Callable[[int], str]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += index(p)
        else:
            out += f".{p}" if out else p
    return out


def to_pointer(parts: Parts) -> str:
    """RFC 6901 pointer (``""`` is the whole document)."""
    return "".join("/" + escape(str(p)) for p in parts)


def status_for(score: float, gold_present: bool, extracted_present: bool) -> Status:
    """Status from presence and credit: full credit only is a match."""
    if not extracted_present:
        return Status.OMISSION
    if not gold_present:
        return Status.HALLUCINATION
    return Status.MATCH if score == 1.0 else Status.MISMATCH


def make_field(
    path: str,
    field: str,
    score: float,
    *,
    status: Status,
    comparator: str,
    reason: str,
    gold: Any = None,
    extracted: Any = None,
    gold_pointer: str | None = None,
    extracted_pointer: str | None = None,
    weight: float = 1.0,
) -> FieldResult:
    """A FieldResult whose location the caller already knows (keyword-only, so nothing is swapped)."""
    return FieldResult(
        path=path,
        field=field,
        status=status,
        score=score,
        comparator=comparator,
        reason=reason,
        gold=gold,
        extracted=extracted,
        gold_pointer=gold_pointer,
        extracted_pointer=extracted_pointer,
        weight=weight,
    )


def field_at(
    parts: Parts,
    score: float,
    *,
    comparator: str,
    reason: str,
    gold: Any = None,
    extracted: Any = None,
    gold_present: bool = True,
    extracted_present: bool = True,
    weight: float = 1.0,
    status: Status | None = None,
    extracted_parts: Parts | None = None,
) -> FieldResult:
    """A FieldResult located by ``parts`` (and ``extracted_parts`` when the output differs)."""
    pointer = to_pointer(parts)
    out_pointer = pointer if extracted_parts is None else to_pointer(extracted_parts)
    return make_field(
        to_path(parts),
        to_field(parts),
        score,
        status=status or status_for(score, gold_present, extracted_present),
        comparator=comparator,
        reason=reason,
        gold=gold,
        extracted=extracted,
        gold_pointer=pointer if gold_present else None,
        extracted_pointer=out_pointer if extracted_present else None,
        weight=weight,
    )


def ignored_at(parts: Parts, *, side: str, value: Any, system: str, reason: str) -> FieldResult:
    """A value the peer never looks at: listed as SKIPPED with weight 0 so it cannot count."""
    in_gold = side == "gold"
    return field_at(
        parts,
        0.0,
        comparator=f"{system}.ignored",
        reason=reason,
        gold=value if in_gold else None,
        extracted=None if in_gold else value,
        gold_present=in_gold,
        extracted_present=not in_gold,
        weight=0.0,
        status=Status.SKIPPED,
    )


# -- values ------------------------------------------------------------------


def levenshtein_similarity(a: str, b: str) -> float:
    """``1 - distance / max(len)`` over code points; two empty strings are identical.

    Past ``EVALSCHEMA_COMPARE_MAX_CHARS`` characters (10,000) the distance is the bounded
    one of ``levenshtein`` (a lower bound of the similarity), so a huge value cannot
    stall a run; shorter values score exactly as the original packages do."""
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    cap = int(limits.value("compare_max_chars"))
    if longest > cap:
        return 1.0 if a == b else capped_similarity(a, b, cap)
    return 1.0 - Levenshtein.distance(a, b) / longest


def short(value: Any, limit: int = 40) -> str:
    """A value for a reason string, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- parsing -----------------------------------------------------------------


def loads_strict(text: str, *, what: str, original: str) -> Any:
    """``json.loads`` with no rescue, as every peer but Galtea parses."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CompatInputError(f"{what} is not valid JSON ({exc})", original=original) from exc
    except RecursionError as exc:
        raise CompatInputError(f"{what} is nested too deeply", original="RecursionError") from exc


def parse_object_leniently(text: str, *, what: str) -> tuple[dict[str, Any], str]:
    """A JSON object dug out of LLM text (fences, prose) and how it was found, or CompatInputError."""
    try:
        found = parse_lenient(text, want_object=True)
    except (LenientParseError, RecursionError) as exc:
        raise CompatInputError(f"{what} holds no readable JSON object: {exc}") from exc
    if not isinstance(found.value, dict):
        raise CompatInputError(f"{what} is not a JSON object (got {type(found.value).__name__})")
    return found.value, found.method


P = ParamSpec("P")
R = TypeVar("R")


def guard_recursion(system: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator form of ``no_recursion_error`` for a whole public function."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            with no_recursion_error(system):
                return fn(*args, **kwargs)

        return guarded

    return wrap


@contextmanager
def no_recursion_error(system: str) -> Iterator[None]:
    """Turn Python's recursion limit on absurdly deep input into CompatInputError."""
    try:
        yield
    except RecursionError as exc:
        raise CompatInputError(
            f"input is nested too deeply for {system}'s recursive comparison",
            original="RecursionError",
        ) from exc


def metric_options(name: str, options: dict[str, Any], allowed: frozenset[str]) -> bool:
    """Check a METRICS call's options; return (and remove) ``explain``, default True."""
    unknown = options.keys() - allowed - {"explain"}
    if unknown:
        raise CompatInputError(
            f"{name} takes no option(s) {sorted(unknown)}; it takes {sorted(allowed | {'explain'})}"
        )
    return bool(options.pop("explain", True))
