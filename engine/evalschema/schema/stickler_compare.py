"""Stickler's comparators as evalschema's: each name and configuration read as Stickler
reads it (``awslabs/stickler``, ``src/stickler/comparators/``), mapped to the
``x-eval-*`` keys that judge alike, and every difference said.

A comparator maps *exactly* when evalschema gives the same score on every pair of values
the field can hold; otherwise it maps to the closest one, with a warning saying how they
differ, or to nothing (the field keeps evalschema's default for its type) when nothing
here is close: an embedding model, or Stickler's own LLM prompt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalschema.errors import Problem, Severity

#: Stickler's registry (``comparator_registry.py``). ``BertComparator`` is not in it: the
#: registry imports a class name its module does not define, so Stickler refuses it too.
NAMES = ("LevenshteinComparator", "ExactComparator", "NumericComparator", "FuzzyComparator",
         "SemanticComparator", "StructuredModelComparator", "LLMComparator")
#: The keyword arguments each constructor takes: with any other key Stickler's registry
#: retries the constructor without the configuration, so all of it is dropped.
PARAMS = {
    "LevenshteinComparator": ("normalize", "threshold"),
    "ExactComparator": ("threshold", "case_sensitive"),
    "NumericComparator": ("threshold", "relative_tolerance", "absolute_tolerance",
                          "tolerance"),
    "FuzzyComparator": ("method", "normalize", "threshold"),
    "SemanticComparator": ("model_id", "sim_function", "embedding_function", "threshold"),
    "StructuredModelComparator": ("threshold", "strict_types"),
    "LLMComparator": ("model", "eval_guidelines"),
}
#: Stickler's default comparator per JSON type (``json_schema_field_converter.py``).
DEFAULTS = {"string": "LevenshteinComparator", "number": "NumericComparator",
            "integer": "NumericComparator", "boolean": "ExactComparator"}

_AS_TEXT = {"type_convert": {"to": "str"}}
#: Stickler's Levenshtein normalisation: ``" ".join(s.strip().lower().split())``.
_NORMALIZE = ["lowercase", "normalize_whitespace"]


@dataclass(frozen=True)
class Mapped:
    """The keys a comparator becomes (none: the type's default) and what to report.
    ``continuous``: its scores lie between 0 and 1, so the threshold and clipping matter."""

    keys: dict[str, Any]
    continuous: bool = False
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True)
class Where:
    """Pointers of the comparator's name and of its configuration (the node's when not
    written), and the item type of list elements (their values are normalised first)."""

    name: str
    config: str
    list_items: bool = False


def _warn(code: str, message: str, pointer: str, suggestion: str,
          severity: Severity = Severity.WARNING) -> Problem:
    return Problem(code, message, pointer, suggestion, severity)


def _approx(message: str, pointer: str, suggestion: str) -> Problem:
    return _warn("approximate-comparator", message, pointer, suggestion)


def map_comparator(name: Any, config: Any, json_type: str | None, at: Where) -> Mapped:
    """``name`` with ``config`` on a field of ``json_type`` (None: untyped list items)."""
    if not isinstance(name, str) or name not in NAMES:
        return _unknown(name, at)
    problems: list[Problem] = []
    params: dict[str, Any] = {}
    if config is not None and config != {}:
        allowed = PARAMS[name]
        bad = [k for k in config] if isinstance(config, dict) else []
        bad = [k for k in bad if k not in allowed]
        if not isinstance(config, dict) or bad:
            what = f"{', '.join(map(repr, bad))} is not a parameter of {name}" if bad \
                else "it is not an object"
            problems.append(_warn(
                "comparator-config-ignored", f"Stickler drops this whole configuration: "
                f"{what} (its registry then builds {name} with its defaults)", at.config,
                f"{name} takes {', '.join(allowed)}; the defaults were converted"))
        else:
            params = config
            if "threshold" in params:
                problems.append(_warn(
                    "no-scoring-effect", "a comparator's own threshold is not read when "
                    "Stickler classifies a field: the field's threshold is", at.config,
                    "set the field's x-aws-stickler-threshold (threshold in a model "
                    "configuration) instead", Severity.INFO))
    mapped = _MAPPERS[name](params, json_type, at)
    if at.list_items and mapped.keys.get("x-eval-compare") not in (None, "numeric") \
            and name != "NumericComparator":
        mapped = _list_items(mapped, json_type)
    return Mapped(mapped.keys, mapped.continuous, problems + mapped.problems)


def _unknown(name: Any, at: Where) -> Mapped:
    if name == "BertComparator":
        why = ("Stickler cannot build it either: its registry imports BertComparator from "
               "stickler.comparators.bert, which defines BERTComparator, so the name is "
               "never registered")
    else:
        why = f"{name!r} is not one of Stickler's comparators"
    return Mapped({}, problems=[_warn(
        "unknown-comparator", f"{why}; the field keeps evalschema's default comparator for "
        "its type", at.name, f"Stickler's comparators: {', '.join(NAMES)}; a comparator "
        "you registered with Stickler needs its evalschema equivalent (register_comparator)",
        Severity.ERROR)])


def _text_first(json_type: str | None) -> list[Any]:
    """Stickler's string comparators compare ``str(value)``."""
    return [] if json_type == "string" else [_AS_TEXT]


def _not_text(json_type: str | None, name: str, at: Where) -> list[Problem]:
    if json_type in ("string", "integer", None):
        return []
    return [_approx(f"{name} compares str() of the values Stickler's model holds: a number "
                    "field holds floats (1 is \"1.0\") and a boolean \"True\"; evalschema "
                    "converts the JSON values as written (1 is \"1\", true is \"true\")",
                    at.name, "use NumericComparator for numbers, ExactComparator for "
                    "booleans")]


def _levenshtein(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
    transforms = _text_first(json_type) + (_NORMALIZE if params.get("normalize", True) else [])
    keys: dict[str, Any] = {"x-eval-compare": "levenshtein"}
    if transforms:
        keys["x-eval-transform"] = transforms
    return Mapped(keys, True, _not_text(json_type, "LevenshteinComparator", at))


def _exact(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
    if json_type == "boolean":
        return Mapped({"x-eval-compare": "exact"})
    if json_type in ("integer", "number"):
        return Mapped({"x-eval-compare": "numeric"}, problems=[_approx(
            "ExactComparator compares str() of the numbers with punctuation removed, so "
            "-5 equals 5 and 1.5 equals 15 where the digits agree; mapped to numeric "
            "(the same number)", at.name, "nothing to do unless signs or decimal points may "
            "differ between gold and extracted")])
    transforms = _text_first(json_type)
    if not params.get("case_sensitive", False):
        transforms = [*transforms, "lowercase"]
    keys: dict[str, Any] = {"x-eval-compare": "exact"}
    if transforms:
        keys["x-eval-transform"] = transforms
    return Mapped(keys, problems=[_approx(
        "ExactComparator also removes ASCII punctuation and whitespace before comparing "
        "(\"INV-001\" equals \"inv 001\"); evalschema has no such transform, so this field "
        "is stricter here", at.name, "if punctuation and spacing must not count, register a "
        "comparator that removes them (register_comparator); `normalized` ignores case, "
        "accents and runs of whitespace")])


def _numeric(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
    problems: list[Problem] = []
    rel = params.get("relative_tolerance", 0.0)
    absolute = params.get("absolute_tolerance", 0.0)
    alias = params.get("tolerance")
    for value in (rel, absolute, alias):
        if value is not None and (not isinstance(value, int | float) or isinstance(value, bool)):
            return Mapped({}, problems=[_warn(
                "invalid-value", f"a tolerance must be a number, not {value!r}: Stickler "
                "fails on the first comparison", at.config, "write a number >= 0",
                Severity.ERROR)])
    if alias is not None:
        if absolute != 0.0:
            return Mapped({}, problems=[_warn(
                "invalid-value", "NumericComparator refuses both tolerance and "
                "absolute_tolerance (tolerance is absolute_tolerance's alias)", at.config,
                "keep absolute_tolerance", Severity.ERROR)])
        absolute = alias
    tolerance: dict[str, Any] = {}
    if rel > 0:
        tolerance["rel"] = rel
    if absolute > 0:
        tolerance["abs"] = absolute
    keys: dict[str, Any] = {"x-eval-compare": {"numeric": {"tolerance": tolerance}}
                            if tolerance else "numeric"}
    if len(tolerance) == 2:
        problems.append(_approx(
            "Stickler accepts a value within either tolerance; evalschema's numeric requires "
            "both, so this field is stricter here", at.config,
            "keep the tolerance that matters (evalschema has no either-or tolerance)"))
    if json_type in ("string", None):
        problems.append(_approx(
            "NumericComparator reads a number out of any text (\"$1,234.50\" is 1234.50, "
            "\"(12)\" is -12); evalschema's numeric reads numeric strings only (\"1234.50\")",
            at.name, "type the field as a number in the gold and extracted records, or "
            "clean the text before scoring"))
    return Mapped(keys, problems=problems)


_FUZZY = {
    "ratio": "rapidfuzz's fuzz.ratio is the Indel similarity (a substitution costs two "
             "edits); evalschema's levenshtein counts it as one, so it scores a typo higher",
    "token_sort_ratio": "rapidfuzz's fuzz.token_sort_ratio is the Indel similarity of the "
                        "sorted words; mapped to levenshtein of the sorted words, which "
                        "counts a substitution as one edit, not two",
    "partial_ratio": "rapidfuzz's fuzz.partial_ratio scores the best-matching substring; "
                     "evalschema compares the whole strings (levenshtein)",
    "token_set_ratio": "rapidfuzz's fuzz.token_set_ratio compares the sets of words "
                       "(shared words count fully); evalschema compares the whole strings "
                       "(levenshtein of the sorted words)",
}


def _fuzzy(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
    method = params.get("method", "ratio")
    method = method if method in _FUZZY else "ratio"  # Stickler falls back to ratio
    transforms = _text_first(json_type)
    if params.get("normalize", True):
        transforms += ["strip", "lowercase"]
    if method in ("token_sort_ratio", "token_set_ratio"):
        transforms.append("sort_tokens")
    return Mapped({"x-eval-compare": "levenshtein", "x-eval-transform": transforms}, True,
                  [_approx(f"FuzzyComparator ({method}): {_FUZZY[method]}", at.name,
                           "check the threshold against a few of your values: the scores "
                           "differ")])


def _no_equivalent(why: str, suggestion: str) -> Callable[[dict[str, Any], str | None, Where],
                                                           Mapped]:
    def mapper(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
        return Mapped({}, problems=[_warn(
            "no-equivalent-comparator", why + "; the field keeps evalschema's default "
            "comparator for its type (exact for strings)", at.name, suggestion)])
    return mapper


def _structured(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
    """On a value that is not a model, Stickler falls back to Python's ``==``."""
    if json_type == "number":
        return Mapped({"x-eval-compare": "numeric"})  # the model holds floats: 1 == 1.0
    if json_type is None:
        return Mapped({"x-eval-compare": "exact"}, problems=[_approx(
            "StructuredModelComparator falls back to Python's == on values (1 equals 1.0 and "
            "true); evalschema's exact is type-strict", at.name, "type the list's items")])
    return Mapped({"x-eval-compare": "exact"})


_MAPPERS: dict[str, Callable[[dict[str, Any], str | None, Where], Mapped]] = {
    "LevenshteinComparator": _levenshtein,
    "ExactComparator": _exact,
    "NumericComparator": _numeric,
    "FuzzyComparator": _fuzzy,
    "SemanticComparator": _no_equivalent(
        "SemanticComparator scores the cosine similarity of two embeddings (Amazon Bedrock); "
        "evalschema has no embedding comparator",
        "\"x-eval-compare\": \"semantic\" asks an LLM judge you configure instead "
        "(docs/reference.md#semantic); or register a comparator around your embedding "
        "model (register_comparator)"),
    "LLMComparator": _no_equivalent(
        "LLMComparator asks a Bedrock model, with Stickler's own prompt and eval_guidelines, "
        "whether the values are equivalent; evalschema's semantic judge uses your endpoint, "
        "model and prompt, so it is not chosen for you",
        "add \"x-eval-compare\": {\"semantic\": {\"prompt\": ...}} with your guidelines "
        "to judge with your LLM (docs/reference.md#semantic)"),
    "StructuredModelComparator": _structured,
}


def _list_items(mapped: Mapped, json_type: str | None) -> Mapped:
    """Stickler's Hungarian matcher turns list items into lower-cased, whitespace-collapsed
    text before any comparator sees them (``HungarianMatcher._normalize_value``)."""
    rest = [t for t in mapped.keys.get("x-eval-transform", []) if t != _AS_TEXT]
    head = _text_first(json_type) + [t for t in _NORMALIZE if t not in rest]
    return Mapped({**mapped.keys, "x-eval-transform": head + rest}, mapped.continuous,
                  mapped.problems)
