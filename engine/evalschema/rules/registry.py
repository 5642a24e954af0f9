"""The one registry of comparators, transforms and alignment strategies.

Everything that lists names (schema validation, defaults, the CLI's ``list``, the
language server's completions and hovers, the VS Code meta-schema, the docs) reads
a ``Registry``. Each entry is declared once, next to its code, with its parameter
JSON Schema, the JSON types it applies to and a doc paragraph, and holds the function
that runs: a factory that binds the parameters at schema-parse time. The registry is the
one dispatch table; the scorer looks nothing up by name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import index
from typing import Any, Protocol

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError as SchemaValidationError

from evalschema.policy import ScoringPolicy

#: A bound comparator: (gold, extracted) -> score in [0, 1].
Compare = Callable[[Any, Any], float]
#: A bound transform: value -> value.
Transform = Callable[[Any], Any]
#: A bound batch comparator: [(gold, extracted), ...] -> [score or None, ...].
BatchCompare = Callable[[Sequence[tuple[Any, Any]]], Sequence[float | None]]

#: A bound whole-matrix comparator (see ComparatorDef.matrix_factory).
MatrixCompare = Callable[[Sequence[Any], Sequence[Any]], Any]

#: What aligning two arrays gives: the (gold index, extracted index) pairs to judge
#: against each other, the unpaired gold indices and the unpaired extracted ones.
Alignment = tuple[list[tuple[int, int]], list[int], list[int]]
#: The F1 of one (gold element, extracted element) pair, as the reported scores give it.
PairF1 = Callable[[Any, Any], float]


class ItemsNode(Protocol):
    """The items node of an array being aligned, as a strategy sees it (it is a
    ``schema.tree.SchemaNode``; rules/ sits below schema/ and does not import it)."""

    @property
    def transform_fns(self) -> tuple[Transform, ...]: ...


class AlignContext(Protocol):
    """What an alignment strategy may ask of the scorer running it
    (``scoring.walk.RecordScorer`` is one)."""

    @property
    def policy(self) -> ScoringPolicy: ...

    def pair_f1(self, items: Any) -> PairF1:
        """The pair F1 of elements of ``items`` (an ``ItemsNode``)."""

    def pair_f1_matrix(self, items: Any, g: Sequence[Any], e: Sequence[Any]) -> Any:
        """The pair F1 of every (gold, extracted) element pair: an n x m numpy array."""


#: A bound alignment strategy: (scorer, items node, gold array, extracted array).
Align = Callable[[AlignContext, ItemsNode, list[Any], list[Any]], Alignment]

ALL_TYPES: frozenset[str] = frozenset(
    {"string", "number", "integer", "boolean", "null", "object", "array"}
)
SCALAR_TYPES: frozenset[str] = frozenset({"string", "number", "integer", "boolean", "null"})


class CompareTypeError(TypeError):
    """A value has a type the comparator or transform cannot judge.

    Raised by built-ins; the engine turns it into a scored outcome (a mismatch with
    the message as its reason, or a match when both values are identical), never a
    crash. A *transform* failing on a gold value is an ``error`` status instead.
    """


@dataclass(frozen=True)
class ParamIssue:
    """A parameter a comparator refuses for a reason of its own (``ComparatorDef.vet``),
    reported with its own code at the parameter's key."""

    code: str
    message: str
    #: The parameter's name (the problem points at it).
    key: str
    suggestion: str | None = None
    #: "key" (the parameter's name is wrong) or "value" (its value is).
    target: str = "key"


class CompareVerdict(Exception):
    """A comparator's verdict with a reason the values alone do not show.

    ``score`` is the score judged (the result keeps the usual match/mismatch status and
    ``reason`` says why: a date less precise than gold's), or None when the field cannot
    be judged (the result is an ``error`` with ``reason``: a gold value that is not a
    date). Raised rather than returned so the hot path pays nothing for ordinary values.
    """

    def __init__(self, reason: str, score: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.score = score


class CompareLimitError(CompareVerdict):
    """Judging a value hit a work limit (``evalschema.limits``): a regex over its time
    budget, a string past the characters compared exactly; ``score`` and ``reason`` as
    for every ``CompareVerdict`` (the score judged within the limit, or None).
    """


class AlignmentError(Exception):
    """An array that cannot be aligned (too large, or a custom strategy that failed): the
    scorer reports the array as one ``error`` result with this message."""


def _no_params_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}, "additionalProperties": False}


@dataclass(frozen=True)
class Entry:
    """What every registry entry declares."""

    name: str
    doc: str
    params: dict[str, Any] = field(default_factory=_no_params_schema)
    types: frozenset[str] = ALL_TYPES
    builtin: bool = False
    #: Parameters a snippet should fill in; derived from the params schema.
    @property
    def required_params(self) -> tuple[str, ...]:
        return tuple(self.params.get("required", ()))

    @property
    def summary(self) -> str:
        return self.doc.strip().split("\n\n", 1)[0].replace("\n", " ")

    def param_validator(self) -> Draft202012Validator:
        return self._validator

    def param_spec(self, path: Sequence[str]) -> dict[str, Any] | None:
        """The JSON Schema of the parameter at ``path`` (``("tolerance", "rel")``), through
        nested objects; the whole parameter object for ``()``; None when there is none."""
        spec: Any = self.params
        for key in path:
            props = spec.get("properties") if isinstance(spec, dict) else None
            spec = props.get(key) if isinstance(props, dict) else None
            if spec is None:
                return None
        return spec if isinstance(spec, dict) else None

    def params_valid(self, params: Mapping[str, Any]) -> bool:
        """Whether ``params`` pass the parameter schema, memoised: large schemas repeat the
        same few configurations, and jsonschema costs tens of microseconds per check."""
        try:
            key = json.dumps(params, sort_keys=True)
        except (TypeError, ValueError):
            return self._validator.is_valid(params)
        memo = self._valid_params
        found = memo.get(key)
        if found is None:
            if len(memo) > _MEMO_SIZE:
                memo.clear()
            found = memo[key] = self._validator.is_valid(params)
        return found

    # What is known about the parameters is kept on the entry itself, so an entry that
    # replaces another (``overwrite=True``) never sees its predecessor's answers.

    @cached_property
    def _validator(self) -> Draft202012Validator:
        return Draft202012Validator(self.params)

    @cached_property
    def _valid_params(self) -> dict[str, bool]:
        return {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "doc": self.doc,
            "params": self.params,
            "types": sorted(self.types),
            "builtin": self.builtin,
        }


#: Parameter configurations remembered per entry (``Entry.params_valid``).
_MEMO_SIZE = 4096


@dataclass(frozen=True)
class ComparatorDef(Entry):
    #: Binds parameters once at schema-parse time; the result runs per field.
    factory: Callable[[Mapping[str, Any]], Compare] | None = None
    #: For batch comparators (LLM judges): binds parameters to a batch function.
    batch_factory: Callable[[Mapping[str, Any]], BatchCompare] | None = None
    #: Short label of the bound configuration for messages ("numeric, rel 1%").
    describe: Callable[[Mapping[str, Any]], str] | None = None
    #: A parameter that sets the node's match threshold (score >= it is a match).
    threshold_param: str | None = None
    #: Optional whole-matrix version for alignment: (golds, extracteds) -> n x m scores,
    #: or None when these values need the per-pair path. Must agree with ``factory``.
    matrix_factory: Callable[[Mapping[str, Any]], MatrixCompare] | None = None
    #: Checks beyond the parameter schema, run first (``semantic`` refuses endpoints):
    #: any issue is reported and the comparator is not bound.
    vet: Callable[[Mapping[str, Any]], Sequence[ParamIssue]] | None = None

    @property
    def is_batch(self) -> bool:
        return self.batch_factory is not None

    def label(self, params: Mapping[str, Any]) -> str:
        if self.describe is not None:
            return self.describe(params)
        if not params:
            return self.name
        inner = ", ".join(f"{k} {v}" for k, v in params.items())
        return f"{self.name}, {inner}"


@dataclass(frozen=True)
class TransformDef(Entry):
    factory: Callable[[Mapping[str, Any]], Transform] | None = None


@dataclass(frozen=True)
class StrategyDef(Entry):
    """An array alignment strategy (built-ins: ``rules.alignment``)."""

    #: Binds parameters once at schema-parse time; the result aligns each array. Required:
    #: ``Registry.add_strategy`` refuses an entry without one (nothing falls back to
    #: ``ordered``), and a schema naming such an entry is reported (strategy-no-function).
    factory: Callable[[Mapping[str, Any]], Align] | None = None


class RegistryError(ValueError):
    """Registering a name that exists (without ``overwrite``), a built-in, or a strategy
    without its function."""


@dataclass
class Registry:
    """Comparators, transforms and strategies; ``default_registry`` is the shared one."""

    comparators: dict[str, ComparatorDef] = field(default_factory=dict)
    transforms: dict[str, TransformDef] = field(default_factory=dict)
    strategies: dict[str, StrategyDef] = field(default_factory=dict)

    def add_comparator(self, d: ComparatorDef, *, overwrite: bool = False) -> ComparatorDef:
        _check_free(self.comparators, d.name, "comparator", overwrite)
        _check_params_schema(d, "comparator")
        self.comparators[d.name] = d
        return d

    def add_transform(self, d: TransformDef, *, overwrite: bool = False) -> TransformDef:
        _check_free(self.transforms, d.name, "transform", overwrite)
        _check_params_schema(d, "transform")
        self.transforms[d.name] = d
        return d

    def add_strategy(self, d: StrategyDef, *, overwrite: bool = False) -> StrategyDef:
        _check_free(self.strategies, d.name, "alignment strategy", overwrite)
        if d.factory is None:
            raise RegistryError(f"alignment strategy {d.name!r} has no function (factory): "
                                "it would run as nothing; use register_strategy(name, fn)")
        _check_params_schema(d, "alignment strategy")
        self.strategies[d.name] = d
        return d

    def copy(self) -> Registry:
        """An independent registry with the same entries (for tests and sandboxes)."""
        return Registry(dict(self.comparators), dict(self.transforms), dict(self.strategies))

    def to_dict(self) -> dict[str, Any]:
        return {
            "comparators": [d.to_dict() for d in self.comparators.values()],
            "transforms": [d.to_dict() for d in self.transforms.values()],
            "strategies": [d.to_dict() for d in self.strategies.values()],
        }


def _check_params_schema(d: Entry, kind: str) -> None:
    """A parameter schema that is not a valid JSON Schema would reject (or accept) every
    configuration for reasons nobody wrote: refused when the entry is registered."""
    try:
        Draft202012Validator.check_schema(d.params)
    except SchemaValidationError as exc:
        where = "/".join(map(str, exc.absolute_path)) or "its root"
        raise RegistryError(f"{kind} {d.name!r}: its parameter schema is not a valid JSON "
                            f"Schema (at {where}: {exc.message})") from None


def _check_free(table: Mapping[str, Entry], name: str, kind: str, overwrite: bool) -> None:
    existing = table.get(name)
    if existing is None:
        return
    if existing.builtin:
        raise RegistryError(f"{kind} {name!r} is built in and cannot be replaced")
    if not overwrite:
        raise RegistryError(f"{kind} {name!r} is already registered; pass overwrite=True")


default_registry = Registry()


def _coerce_score(value: Any) -> float:
    """Accept what user comparators return: a number, a bool, or an object with .score."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    score = getattr(value, "score", None)
    if isinstance(score, int | float):
        return float(score)
    if isinstance(value, tuple) and value and isinstance(value[0], int | float):
        return float(value[0])
    raise TypeError(f"comparator returned {type(value).__name__}, expected a score")


def register_comparator(
    name: str,
    fn: Callable[..., Any],
    *,
    doc: str = "",
    params: dict[str, Any] | None = None,
    types: Sequence[str] | None = None,
    batch: bool = False,
    overwrite: bool = False,
    registry: Registry | None = None,
) -> ComparatorDef:
    """Register a custom comparator.

    ``fn(gold, extracted, params)`` returns a score in [0, 1] (or a bool, or an
    object with ``.score``). With ``batch=True``, ``fn(pairs, params)`` receives
    every pending ``(gold, extracted)`` pair of a record at once and returns a list
    of scores (``None`` for a pair it could not judge).
    """
    reg = registry or default_registry
    schema = params or {"type": "object"}
    if batch:

        def batch_factory(p: Mapping[str, Any]) -> BatchCompare:
            def run(pairs: Sequence[tuple[Any, Any]]) -> Sequence[float | None]:
                out = fn(list(pairs), dict(p))
                return [None if s is None else _coerce_score(s) for s in out]

            return run

        d = ComparatorDef(name, doc or (fn.__doc__ or name), schema,
                          frozenset(types or ALL_TYPES), batch_factory=batch_factory)
    else:

        def factory(p: Mapping[str, Any]) -> Compare:
            frozen = dict(p)
            return lambda g, e: _coerce_score(fn(g, e, frozen))

        d = ComparatorDef(name, doc or (fn.__doc__ or name), schema,
                          frozenset(types or ALL_TYPES), factory=factory)
    return reg.add_comparator(d, overwrite=overwrite)


def register_transform(
    name: str,
    fn: Callable[..., Any],
    *,
    doc: str = "",
    params: dict[str, Any] | None = None,
    types: Sequence[str] | None = None,
    overwrite: bool = False,
    registry: Registry | None = None,
) -> TransformDef:
    """Register a custom transform ``fn(value, params) -> value``."""
    reg = registry or default_registry

    def factory(p: Mapping[str, Any]) -> Transform:
        frozen = dict(p)
        return lambda v: fn(v, frozen)

    d = TransformDef(name, doc or (fn.__doc__ or name), params or {"type": "object"},
                     frozenset(types or ALL_TYPES), factory=factory)
    return reg.add_transform(d, overwrite=overwrite)


def register_strategy(
    name: str,
    fn: Callable[..., Any],
    *,
    doc: str = "",
    params: dict[str, Any] | None = None,
    overwrite: bool = False,
    registry: Registry | None = None,
) -> StrategyDef:
    """Register a custom array alignment strategy (``x-eval-align: {"match_by": name}``).

    ``fn(gold, extracted, params)`` receives the two arrays and returns the
    ``(gold index, extracted index)`` pairs to judge against each other, each index in
    at most one pair; the gold elements left out are omissions, the extracted ones
    hallucinations. A failing ``fn``, or pairs that break these rules, make the array
    one ``error`` result.
    """
    reg = registry or default_registry

    def factory(p: Mapping[str, Any]) -> Align:
        frozen = dict(p)

        def run(ctx: AlignContext, items: ItemsNode, g: list[Any], e: list[Any]) -> Alignment:
            try:
                pairs = sorted((index(i), index(j)) for i, j in fn(g, e, frozen))
            except Exception as exc:
                raise AlignmentError(f"alignment strategy {name} failed: "
                                     f"{type(exc).__name__}: {exc}") from None
            return _alignment(name, pairs, len(g), len(e))

        return run

    d = StrategyDef(name, doc or (fn.__doc__ or name), params or {"type": "object"},
                    frozenset({"array"}), factory=factory)
    return reg.add_strategy(d, overwrite=overwrite)


def _alignment(name: str, pairs: list[tuple[int, int]], n: int, m: int) -> Alignment:
    """The pairs a custom strategy returned, checked, and the elements left unpaired."""
    if len({i for i, _ in pairs}) < len(pairs) or len({j for _, j in pairs}) < len(pairs):
        raise AlignmentError(f"alignment strategy {name} paired an element twice")
    if any(not (0 <= i < n and 0 <= j < m) for i, j in pairs):
        raise AlignmentError(f"alignment strategy {name} returned an index outside the arrays "
                             f"({n} gold and {m} extracted elements)")
    return with_unpaired(pairs, n, m)


def with_unpaired(pairs: list[tuple[int, int]], n: int, m: int) -> Alignment:
    """``pairs`` of an ``n``-element gold and ``m``-element extracted array, with the
    elements they leave unpaired: the alignment every strategy returns."""
    used_g = {i for i, _ in pairs}
    used_e = {j for _, j in pairs}
    return (pairs, [i for i in range(n) if i not in used_g],
            [j for j in range(m) if j not in used_e])
