"""How much of the gold the schema judges: gold values under keys no schema node covers.

A gold document can hold its content under a key the schema does not know (extract-bench's
swimming gold puts its results under ``events``, the schema expects ``age_groups``); the
scorer never looks there, so a run scores F1 1.0 on what little it judged. ``off_schema``
binds a walker to the schema once: it visits a gold record's objects and arrays (never its
leaves), and for each key outside the schema adds the number of values below it to a tally
keyed by pointer pattern (``/events``, ``/results/*/split_time``: array indices as ``*``).

The walker is on the per-record path of every run, so it does as little as it can: an
object whose keys are all known costs one C-level subset check, and nothing is built
unless a key is off the schema. ``count_judged=True`` also counts the gold values under
scored nodes (for ``check --gold``, where no scoring gives that count).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from evalschema.errors import Problem, Severity
from evalschema.pointer import escape
from evalschema.results import Coverage
from evalschema.schema.node import SchemaNode

#: (gold value, off-schema tally by pattern) -> gold values judged (0 unless counted).
Walker = Callable[[Any, dict[str, int]], int]


def values_below(value: Any) -> int:
    """The values a subtree holds: its scalars, an empty object or array counting as one."""
    if type(value) is dict:
        return sum(values_below(v) for v in value.values()) or 1
    if type(value) is list:
        return sum(values_below(v) for v in value) or 1
    return 1


def _none(value: Any, tally: dict[str, int]) -> int:
    return 0


def _one(value: Any, tally: dict[str, int]) -> int:
    return 0 if value is None else 1


def off_schema(node: SchemaNode, count_judged: bool = False, pattern: str = "") -> Walker:
    """A walker for gold values of ``node`` (see the module docstring)."""
    if node.skip:
        return _none
    if node.kind == "array" and node.items is not None:
        return _array(node.items, count_judged, pattern + "/*")
    if node.kind == "object" and node.closed:
        return _object(node, count_judged, pattern)
    # A leaf judges its whole value; anything else is not descended.
    return _one if count_judged and node.kind == "leaf" else _none


def _array(items: SchemaNode, count_judged: bool, pattern: str) -> Walker:
    each = off_schema(items, count_judged, pattern)
    if each is _none:
        return _none

    def walk(value: Any, tally: dict[str, int]) -> int:
        if type(value) is not list:
            return 0
        return sum(each(v, tally) for v in value)

    return walk


def _object(node: SchemaNode, count_judged: bool, pattern: str) -> Walker:
    known = frozenset(node.child_map)
    subs = tuple((c.name, w) for c in node.children
                 if (w := off_schema(c, count_judged, pattern + "/" + escape(c.name or "")))
                 is not _none)

    def walk(value: Any, tally: dict[str, int]) -> int:
        if type(value) is not dict:
            return 0
        if not value.keys() <= known:
            for k, v in value.items():
                if k not in known:
                    key = pattern + "/" + escape(k)
                    tally[key] = tally.get(key, 0) + values_below(v)
        n = 0
        for name, w in subs:
            v = value.get(name)
            if v is not None:
                n += w(v, tally)
        return n

    return walk


def gold_coverage(root: SchemaNode, records: Iterable[Any]) -> Coverage:
    """The coverage of gold ``records`` by the schema, without scoring them: ``judged``
    counts the non-null gold values under scored leaves (``check --gold``)."""
    walk = off_schema(root, count_judged=True)
    tally: dict[str, int] = {}
    judged = sum(walk(r, tally) for r in records)
    return Coverage.of(judged, tally)


def coverage_problems(coverage: Coverage, source: str | None = None) -> list[Problem]:
    """One warning per gold key no schema node covers, most values first."""
    return [Problem("gold-not-covered", f"{n:,} gold value{'s' if n != 1 else ''} under "
                    f"{pattern}, which no schema node covers: never scored", pattern,
                    "add the key to the schema, or mark it x-eval-skip on purpose",
                    Severity.WARNING, "key", source, data={"values": n})
            for pattern, n in coverage.keys]
