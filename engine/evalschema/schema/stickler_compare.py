"""Stickler's comparators as evalschema's: each name and configuration read as
stickler-eval 1.0 reads it (``stickler/comparators/``, ``comparator_registry.py``), mapped
to the ``x-eval-*`` keys that judge alike, and every difference said.

A comparator maps *exactly* when evalschema gives the same score on every pair of values
the field can hold; otherwise it maps to the closest one with a warning saying how they
differ, or to nothing (the field keeps evalschema's default for its type) when nothing
here is close: an embedding model, a phone-number parser, Stickler's own LLM prompt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalschema.errors import Problem, Severity
from evalschema.jsontypes import is_number

#: The keyword arguments of each comparator Stickler registers (its ``_BUILTINS``).
#: A configuration key outside them is dropped, alone, with a warning.
PARAMS = {
    "LevenshteinComparator": ("normalize", "threshold"),
    "ExactComparator": ("threshold", "case_sensitive"),
    "NormalizedComparator": ("threshold", "case_sensitive", "ignore_whitespace",
                             "ignore_punctuation"),
    "PhoneComparator": ("threshold", "region"),
    "NumericComparator": ("threshold", "relative_tolerance", "absolute_tolerance",
                          "tolerance"),
    "DateComparator": ("threshold", "tolerance", "dayfirst", "allow_partial_year",
                       "range_mode", "precision_mode"),
    "FuzzyComparator": ("method", "normalize", "threshold"),
    "StructuredModelComparator": ("threshold", "strict_types"),
    "ANLSStarComparator": ("threshold", "leaf_threshold"),
    "BBoxIoUComparator": ("threshold",),
    "SemanticComparator": ("model_id", "sim_function", "embedding_function", "threshold"),
    "BERTComparator": ("threshold",),
    "LLMComparator": ("model", "eval_guidelines"),
}
NAMES = tuple(PARAMS)
#: ``"comparator": "auto"``: Stickler infers the comparator from the field's type and name.
AUTO = "auto"

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
    """Pointers of the comparator's name and of its configuration (the node's when they
    are not written)."""

    name: str
    config: str


def _problem(code: str, message: str, pointer: str, suggestion: str,
             severity: Severity = Severity.WARNING) -> Problem:
    return Problem(code, message, pointer, suggestion, severity)


def _approx(message: str, pointer: str, suggestion: str) -> Problem:
    return _problem("approximate-comparator", message, pointer, suggestion)


def map_comparator(name: Any, config: Any, json_type: str | None, at: Where) -> Mapped:
    """``name`` with ``config`` on a field of ``json_type`` (``string``, ``number``,
    ``integer``, ``boolean``; ``date`` for a string with ``format: date``/``date-time``;
    None when untyped)."""
    if name == AUTO:
        return Mapped({}, problems=[_problem(
            "no-equivalent-comparator", "\"auto\": Stickler infers the comparator from the "
            "field's type and name; evalschema does not guess, so the field keeps "
            "evalschema's default comparator for its type", at.name,
            "name the comparator you want")])
    if not isinstance(name, str) or name not in PARAMS:
        return Mapped({}, problems=[_problem(
            "unknown-comparator", f"Stickler refuses {name!r}: not one of its comparators; "
            "the field keeps evalschema's default comparator for its type", at.name,
            f"Stickler's comparators: {', '.join(NAMES)}; a comparator you registered with "
            "Stickler needs its evalschema equivalent (register_comparator)", Severity.ERROR)])
    problems: list[Problem] = []
    params: dict[str, Any] = {}
    if config is not None:
        if not isinstance(config, dict):
            return Mapped({}, problems=[_problem(
                "invalid-value", "Stickler refuses a comparator configuration that is not "
                "an object of parameters", at.config, "write {\"parameter\": value}",
                Severity.ERROR)])
        unknown = [k for k in config if k not in PARAMS[name]]
        if unknown:
            problems.append(_problem(
                "comparator-config-ignored", f"Stickler drops {', '.join(map(repr, unknown))}"
                f": not a parameter of {name}", at.config,
                f"{name} takes {', '.join(PARAMS[name])}; remove the others"))
        params = {k: v for k, v in config.items() if k not in unknown}
        if "threshold" in params:
            problems.append(_problem(
                "no-scoring-effect", "a comparator's own threshold does not decide a field's "
                "match: the field's threshold does (its default when not written)",
                at.config, "set the field's threshold instead", Severity.INFO))
    mapped = _MAPPERS[name](params, json_type, at)
    return Mapped(mapped.keys, mapped.continuous, problems + mapped.problems)


def _text_first(json_type: str | None) -> list[Any]:
    """Stickler's string comparators compare ``str(value)``."""
    return [] if json_type in ("string", "date") else [_AS_TEXT]


def _not_text(json_type: str | None, name: str, at: Where) -> list[Problem]:
    if json_type not in ("number", "boolean"):
        return []
    return [_approx(f"{name} compares str() of the values Stickler's model holds: a number "
                    "field holds floats (1 is \"1.0\"), a boolean is \"True\"; evalschema "
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
    """``str(a) == str(b)``, casefolded unless ``case_sensitive`` (true by default)."""
    if json_type == "boolean":
        return Mapped({"x-eval-compare": "exact"})
    if json_type in ("integer", "number"):
        # the model holds ints or floats: str() equality is numeric equality
        return Mapped({"x-eval-compare": "numeric"})
    transforms = _text_first(json_type)
    if params.get("case_sensitive", True) is False:
        transforms = [*transforms, "casefold"]
    keys: dict[str, Any] = {"x-eval-compare": "exact"}
    if transforms:
        keys["x-eval-transform"] = transforms
    return Mapped(keys)


def _normalized(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
    """NFC, casefold, and whitespace and Unicode punctuation removed."""
    transforms = [*_text_first(json_type), {"normalize_unicode": {"form": "NFC"}}]
    if not params.get("case_sensitive", False):
        transforms.append("casefold")
    dropped = [what for what, key in (("whitespace", "ignore_whitespace"),
                                      ("punctuation", "ignore_punctuation"))
               if params.get(key, True)]
    problems = [] if not dropped else [_approx(
        f"NormalizedComparator removes all {' and '.join(dropped)} before comparing "
        "(\"INV-001\" equals \"INV 001\"); evalschema has no transform that removes them, so "
        "this field is stricter here", at.name, "if they must not count, register a "
        "comparator that removes them (register_comparator)")]
    return Mapped({"x-eval-compare": "exact", "x-eval-transform": transforms},
                  problems=problems)


def _numeric(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
    rel = params.get("relative_tolerance", 0.0)
    absolute = params.get("absolute_tolerance", 0.0)
    alias = params.get("tolerance")
    for value in (rel, absolute, alias):
        if value is not None and not is_number(value):
            return Mapped({}, problems=[_problem(
                "invalid-value", f"a tolerance must be a number, not {value!r}: Stickler "
                "fails on the first comparison", at.config, "write a number >= 0",
                Severity.ERROR)])
    if alias is not None:
        if absolute != 0.0:
            return Mapped({}, problems=[_problem(
                "invalid-value", "Stickler refuses both tolerance and absolute_tolerance "
                "(tolerance is absolute_tolerance's other name)", at.config,
                "keep absolute_tolerance", Severity.ERROR)])
        absolute = alias
    tolerance: dict[str, Any] = {}
    if rel > 0:
        tolerance["rel"] = rel
    if absolute > 0:
        tolerance["abs"] = absolute
    keys: dict[str, Any] = {"x-eval-compare": {"numeric": {"tolerance": tolerance}}
                            if tolerance else "numeric"}
    problems: list[Problem] = []
    if len(tolerance) == 2:
        problems.append(_approx(
            "Stickler accepts a value within either tolerance; evalschema's numeric requires "
            "both, so this field is stricter here", at.config,
            "keep the tolerance that matters (evalschema has no either-or tolerance)"))
    if json_type not in ("integer", "number"):
        problems.append(_approx(
            "NumericComparator reads a number out of any text (\"$1,234.50\" is 1234.50, "
            "\"(12)\" is -12); evalschema's numeric reads numeric strings only (\"1234.50\")",
            at.name, "type the field as a number, or clean the text before scoring"))
    return Mapped(keys, problems=problems)


def _date(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
    args: dict[str, Any] = {}
    if isinstance(params.get("dayfirst"), bool):
        args["dayfirst"] = params["dayfirst"]
    days = params.get("tolerance")
    if isinstance(days, int) and not isinstance(days, bool) and days > 0:
        args["tolerance_days"] = days
    keys: dict[str, Any] = {"x-eval-compare": {"date": args} if args else "date"}
    order = ("tries both day and month first and keeps the better score" if "dayfirst"
             not in args else f"reads {'day' if args['dayfirst'] else 'month'} first")
    return Mapped(keys, True, [_approx(
        f"DateComparator {order}, scores date ranges and years left out (0.7) with partial "
        "credit and takes tolerances in fractions of days; evalschema's date reads one date "
        "per value, day first unless told, at the precision written", at.name,
        "set \"dayfirst\" in the comparator if your dates are all one order; check a few "
        "values")])


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


def _structured(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
    """On a value that is not a model, Stickler falls back to Python's ``==``."""
    if json_type in ("integer", "number"):
        return Mapped({"x-eval-compare": "numeric"})  # 1 == 1.0
    if json_type is None:
        return Mapped({"x-eval-compare": "exact"}, problems=[_approx(
            "StructuredModelComparator falls back to Python's == on values (1 equals 1.0 and "
            "true); evalschema's exact is type-strict", at.name, "type the field")])
    return Mapped({"x-eval-compare": "exact"})


def _none(why: str, suggestion: str) -> Callable[[dict[str, Any], str | None, Where], Mapped]:
    def mapper(params: dict[str, Any], json_type: str | None, at: Where) -> Mapped:
        return Mapped({}, problems=[_problem(
            "no-equivalent-comparator", why + "; the field keeps evalschema's default "
            "comparator for its type", at.name, suggestion)])
    return mapper


_JUDGE = ("\"x-eval-compare\": \"semantic\" asks an LLM judge you configure instead "
          "(docs/reference.md#semantic)")
_REGISTER = "register a comparator that does it (register_comparator)"

_MAPPERS: dict[str, Callable[[dict[str, Any], str | None, Where], Mapped]] = {
    "LevenshteinComparator": _levenshtein,
    "ExactComparator": _exact,
    "NormalizedComparator": _normalized,
    "NumericComparator": _numeric,
    "DateComparator": _date,
    "FuzzyComparator": _fuzzy,
    "StructuredModelComparator": _structured,
    "PhoneComparator": _none("PhoneComparator parses phone numbers (libphonenumber) and "
                             "compares them in E.164 form; evalschema has no such parser",
                             _REGISTER),
    "ANLSStarComparator": _none("ANLSStarComparator scores nested values with ANLS* (partial "
                                "credit through dicts and lists); evalschema has no ANLS",
                                "give the value a schema so its fields are judged one by one, "
                                "or " + _REGISTER),
    "BBoxIoUComparator": _none("BBoxIoUComparator scores the overlap of two bounding boxes; "
                               "evalschema has no geometry comparator", _REGISTER),
    "SemanticComparator": _none("SemanticComparator scores the cosine similarity of two "
                                "embeddings (Amazon Bedrock); evalschema has no embedding "
                                "comparator", _JUDGE + "; or " + _REGISTER),
    "BERTComparator": _none("BERTComparator scores BERTScore F1 with a local model; "
                            "evalschema has no BERTScore", _JUDGE + "; or " + _REGISTER),
    "LLMComparator": _none("LLMComparator asks a Bedrock model, with Stickler's own prompt "
                           "and eval_guidelines, whether the values are equivalent; "
                           "evalschema's semantic judge uses your endpoint, model and prompt, "
                           "so it is not chosen for you",
                           "add \"x-eval-compare\": {\"semantic\": {\"prompt\": ...}} with "
                           "your guidelines (docs/reference.md#semantic)"),
}
