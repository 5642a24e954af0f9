"""How much of the gold the schema judges: gold values under keys no schema node covers.

A gold document can hold its content under a key the schema does not know (extract-bench's
swimming gold puts its results under ``events``, the schema expects ``age_groups``); the
scorer never looks there, so a run scores F1 1.0 on what little it judged. ``off_schema``
binds a walker to the schema once: it visits a gold record's objects and arrays (never its
leaves), and for each key outside the schema adds the number of values below it to a tally
keyed by pointer pattern (``/events``, ``/results/*/split_time``: array indices as ``*``).

The walker is on the per-record path of every run, so it does as little as it can: an
object whose keys are all known costs one C-level subset check, and nothing is built
unless a key is off the schema (``_compile``: about 0.9 µs per record of bench/engine.py,
under 3% of scoring it). ``count_judged=True`` also counts the gold values under scored
nodes (for ``check --gold``, where no scoring gives that count).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
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


def off_schema(node: SchemaNode, count_judged: bool = False) -> Walker:
    """A walker for gold values of ``node`` (see the module docstring): compiled into one
    function without calls when it only tallies (the per-record path of every run)."""
    if count_judged:
        return _walker(node, True, "")
    return _compile(node) if _descends(node) else _none


def _descends(node: SchemaNode) -> bool:
    """The walker has something to check below ``node``: an object (its keys), or an array
    whose items have."""
    if node.skip:
        return False
    if node.branches or node.values:
        return True
    if node.kind == "object":
        return node.closed
    return node.kind == "array" and node.items is not None and _descends(node.items)


#: Nested blocks a compiled walker may open (Python allows 20); deeper is called.
_MAX_BLOCKS = 16


def _compile(root: SchemaNode) -> Walker:
    """``_walker(root)``, unrolled into the source of one function (objects and arrays as
    nested ``if``/``for`` blocks), compiled once per schema. Names, key sets and patterns
    reach it as constants of its namespace, never as source text."""
    ns: dict[str, Any] = {"_extras": _extras}
    lines = ["def walk(value, tally):"]

    def const(value: Any) -> str:
        name = f"c{len(ns)}"
        ns[name] = value
        return name

    def emit(node: SchemaNode, var: str, pattern: str, pad: str, blocks: int) -> None:
        if blocks + 2 > _MAX_BLOCKS or node.branches or node.values:
            # maps and unions judged by branch are walked by their closures
            lines.append(f"{pad}{const(_walker(node, False, pattern))}({var}, tally)")
            return
        if node.kind == "object":
            keys = frozenset(node.child_map)
            known = const(keys)
            lines.append(f"{pad}if type({var}) is dict:")
            # frozenset.issuperset(dict), bound once: the fastest subset test of a dict's
            # keys in CPython (about 40% faster than ``d.keys() <= known``).
            lines.append(f"{pad}    if not {const(keys.issuperset)}({var}):")
            lines.append(f"{pad}        _extras({var}, {known}, {const(pattern)}, tally)")
            for c in node.children:
                if _descends(c):
                    sub = f"v{len(lines)}"
                    lines.append(f"{pad}    {sub} = {var}.get({const(c.name)})")
                    emit(c, sub, pattern + "/" + escape(c.name or ""), pad + "    ", blocks + 1)
            return
        assert node.items is not None
        item = f"v{len(lines)}"
        lines.append(f"{pad}if type({var}) is list:")
        lines.append(f"{pad}    for {item} in {var}:")
        emit(node.items, item, pattern + "/*", pad + "        ", blocks + 2)

    emit(root, "value", "", "    ", 1)
    lines.append("    return 0")
    exec(compile("\n".join(lines), "<evalschema.schema.coverage>", "exec"), ns)
    walk: Walker = ns["walk"]
    return walk


def _walker(node: SchemaNode, count_judged: bool, pattern: str) -> Walker:
    """A walker for gold values of ``node``, of closures (one call per container)."""
    if node.skip:
        return _none
    if node.branches:
        return _branches(node, count_judged, pattern)
    if node.kind == "array" and node.items is not None:
        return _array(node.items, count_judged, pattern + "/*")
    if node.kind == "object" and node.closed:
        return _object(node, count_judged, pattern)
    # A leaf judges its whole value; anything else is not descended.
    return _one if count_judged and node.kind == "leaf" else _none


def _extras(value: dict[str, Any], known: frozenset[str], pattern: str,
            tally: dict[str, int]) -> None:
    """Tally the keys of ``value`` outside ``known`` (off the hot path: only when some are)."""
    for k, v in value.items():
        if k not in known:
            key = pattern + "/" + escape(k)
            tally[key] = tally.get(key, 0) + values_below(v)


def _flat(node: SchemaNode) -> bool:
    """An object of leaves only: checked inline by its parent, without a call."""
    return node.kind == "object" and node.closed and not node.skip and not node.values and all(
        (c.kind == "leaf" and not c.branches) or c.skip for c in node.children)


def _array(items: SchemaNode, count_judged: bool, pattern: str) -> Walker:
    if not count_judged and _flat(items):
        known = frozenset(items.child_map)

        def flat_items(value: Any, tally: dict[str, int]) -> int:
            if type(value) is list:
                for v in value:
                    if type(v) is dict and not v.keys() <= known:
                        _extras(v, known, pattern, tally)
            return 0

        return flat_items
    each = _walker(items, count_judged, pattern)
    if each is _none:
        return _none

    def walk(value: Any, tally: dict[str, int]) -> int:
        n = 0
        if type(value) is list:
            for v in value:
                n += each(v, tally)
        return n

    return walk


def _object(node: SchemaNode, count_judged: bool, pattern: str) -> Walker:
    if node.values:  # a map: the keys no property names are data, judged by value schemas
        return _map(node, count_judged, pattern)
    known = frozenset(node.child_map)
    flat: list[tuple[str, frozenset[str], str]] = []
    subs: list[tuple[str, Walker]] = []
    for c in node.children:
        cpattern = pattern + "/" + escape(c.name or "")
        if not count_judged and _flat(c):
            flat.append((c.name or "", frozenset(c.child_map), cpattern))
        elif (w := _walker(c, count_judged, cpattern)) is not _none:
            subs.append((c.name or "", w))
    flats, walkers = tuple(flat), tuple(subs)

    def walk(value: Any, tally: dict[str, int]) -> int:
        if type(value) is not dict:
            return 0
        if not value.keys() <= known:
            _extras(value, known, pattern, tally)
        for name, sub_known, sub_pattern in flats:
            v = value.get(name)
            if type(v) is dict and not v.keys() <= sub_known:
                _extras(v, sub_known, sub_pattern, tally)
        n = 0
        for name, w in walkers:
            v = value.get(name)
            if v is not None:
                n += w(v, tally)
        return n

    return walk


def _map(node: SchemaNode, count_judged: bool, pattern: str) -> Walker:
    """A map's walker: each key no property names is walked by the value schema that takes
    it (``SchemaNode.value_node``; its off-schema keys as ``/map/*/key``); a key none takes
    is off the schema."""
    known = frozenset(node.child_map)
    each = {id(v): _walker(v, count_judged, pattern + "/*") for _, v in node.values}
    props = _object(replace(node, values=()), count_judged, pattern)

    def walk(value: Any, tally: dict[str, int]) -> int:
        if type(value) is not dict:
            return 0
        n = props({k: v for k, v in value.items() if k in known}, tally)
        for k, v in value.items():
            if k in known:
                continue
            vnode = node.value_node(k)
            if vnode is None:
                key = pattern + "/" + escape(k)
                tally[key] = tally.get(key, 0) + values_below(v)
            elif v is not None:
                n += each[id(vnode)](v, tally)
        return n

    return walk


def _branches(node: SchemaNode, count_judged: bool, pattern: str) -> Walker:
    """A union judged branch by branch: the gold value is walked by the branch the scorer
    picks for it (``SchemaNode.pick_branch``); a value no branch takes is one leaf."""
    each = {id(b): _walker(b, count_judged, pattern) for _, _, b in node.branches}

    def walk(value: Any, tally: dict[str, int]) -> int:
        picked = node.pick_branch(value)
        if picked is None:
            return _one(value, tally) if count_judged else 0
        return each[id(picked[1])](value, tally)

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
