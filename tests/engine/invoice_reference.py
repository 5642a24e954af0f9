"""A small reference scorer for the bundled invoice example (examples/), written from the
documented rules (docs/metrics.md, docs/reference.md) in plain Python, sharing no code with
the engine: it reads the raw JSON, pairs records by ``invoice_id`` and line items by
``sku``, applies the schema's comparators and transforms for the fields the example uses,
and computes per-field statuses and the macro F1. The CLI tests pin the engine's figures
for the example; this is the independent check beside those pins, so a wrong pin cannot
hide a wrong engine.

It knows only what the example needs: a comparator, transform, alignment, extracted text
form or date format it has not been taught raises ``Unsupported`` rather than guessing.
"""

from __future__ import annotations

import importlib.util
import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

MISSING: Any = object()


class Unsupported(Exception):
    """Something in the example this reference was not written for."""


@dataclass(frozen=True)
class Outcome:
    """One judged field: its JSON Pointers into the gold and the extracted record (None on
    the side without it), its status and score."""

    gold: str | None
    extracted: str | None
    status: str  # match, mismatch, omission, hallucination
    score: float


# -- comparators (docs/reference.md) ------------------------------------------------------------


def _example_generator() -> ModuleType:
    """examples/generate.py, whose rough scorer has the textbook Levenshtein DP (stdlib only,
    no engine code: the engine's similarity is rapidfuzz's)."""
    spec = importlib.util.spec_from_file_location("examples_generate", EXAMPLES / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_GENERATOR = _example_generator()


def similarity(a: str, b: str) -> float:
    """1 - edits / longer length; two empty strings are identical."""
    result: float = _GENERATOR._levenshtein(a, b)
    return result


def normalized_text(s: str) -> str:
    """NFKD with the accents dropped, case folded, whitespace collapsed."""
    no_accents = "".join(c for c in unicodedata.normalize("NFKD", s)
                         if not unicodedata.combining(c))
    return " ".join(no_accents.casefold().split())


_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], 1)}
_DATE_FORMS: tuple[tuple[re.Pattern[str], tuple[str, str, str]], ...] = (
    (re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:T00:00:00)?"), ("y", "m", "d")),
    (re.compile(r"(\d{1,2})[./](\d{1,2})[./](\d{4})"), ("d", "m", "y")),  # day first
    (re.compile(r"([A-Za-z]+) (\d{1,2}), (\d{4})"), ("mon", "d", "y")),
    (re.compile(r"(\d{1,2}) ([A-Za-z]{3}) (\d{4})"), ("d", "mon", "y")),
)


def as_date(text: str) -> date:
    """The calendar date of the forms the example's runs write."""
    for pattern, parts in _DATE_FORMS:
        m = pattern.fullmatch(text)
        if m is None:
            continue
        got = dict(zip(parts, m.groups(), strict=True))
        if "mon" in got:
            name = got["mon"].lower()
            month = _MONTHS.get(name) or {k[:3]: v for k, v in _MONTHS.items()}.get(name)
            if month is None:
                raise Unsupported(f"month name {got['mon']!r}")
        else:
            month = int(got["m"])
        return date(int(got["y"]), month, int(got["d"]))
    raise Unsupported(f"date form {text!r}")


def as_number(value: Any) -> Decimal | None:
    """A number, a boolean or a plain numeric string ("42", "83.30") as the decimal it is
    written as (so one cent is 0.01, not 0.010000000000047748); None for anything else
    ("1.234,50" and "19%" are not numbers)."""
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, int | float):
        return Decimal(repr(value))
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*",
                                               value):
        return Decimal(value.strip())
    return None


def judge(spec: dict[str, Any], gold: Any, extracted: Any) -> tuple[bool, float]:
    """(matched, score) of one leaf present on both sides, by its schema node ``spec``."""
    for t in spec.get("x-eval-transform", []):
        if t not in ("strip", "lowercase"):
            raise Unsupported(f"transform {t!r}")
        for side in (gold, extracted):
            if side is not None and not isinstance(side, str):
                return False, 0.0  # the transform fails on a non-string: a mismatch
        gold = gold if gold is None else (gold.strip() if t == "strip" else gold.lower())
        extracted = extracted if extracted is None else (
            extracted.strip() if t == "strip" else extracted.lower())
    compare = spec["x-eval-compare"]
    name, params = (compare, {}) if isinstance(compare, str) else next(iter(compare.items()))
    if name == "exact":
        ok = type(gold) is type(extracted) and gold == extracted
        return ok, float(ok)
    if gold is None or extracted is None:  # null against a value, or null against null
        ok = gold is None and extracted is None
        return ok, float(ok)
    if name == "levenshtein":
        if not isinstance(gold, str) or not isinstance(extracted, str):
            return False, 0.0
        score = similarity(gold, extracted)
        threshold = params.get("threshold", spec.get("x-eval-threshold", 1.0))
        return score >= threshold, score
    if name == "normalized":
        ok = isinstance(extracted, str) and normalized_text(gold) == normalized_text(extracted)
        return ok, float(ok)
    if name == "date":
        if not isinstance(extracted, str):
            return False, 0.0
        try:
            ok = as_date(extracted) == as_date(gold)
        except Unsupported:
            if re.search(r"\d{4}", extracted):
                raise
            ok = False
        return ok, float(ok)
    if name == "numeric":
        g, e = as_number(gold), as_number(extracted)
        if g is None:
            raise Unsupported(f"gold number {gold!r}")
        if e is None:
            return False, 0.0
        tolerance = params.get("tolerance") or {}
        if set(tolerance) - {"abs", "rel"}:
            raise Unsupported(f"tolerance {tolerance!r}")
        diff = abs(g - e)
        ok = diff == 0 or (bool(tolerance) and all((
            "abs" not in tolerance or diff <= Decimal(repr(tolerance["abs"])),
            "rel" not in tolerance or diff <= Decimal(repr(tolerance["rel"])) * (abs(g) or 1))))
        return ok, float(ok)
    raise Unsupported(f"comparator {name!r}")


# -- the walk -----------------------------------------------------------------------------------


def _leaves(spec: dict[str, Any], value: Any, path: str) -> Iterator[str]:
    """The judged leaves a value holds under ``spec`` (for a side with no counterpart)."""
    props = spec.get("properties")
    if props and isinstance(value, dict):
        for key, sub in props.items():
            if key in value:
                yield from _leaves(sub, value[key], f"{path}/{key}")
        yield from (f"{path}/{key}" for key in value if key not in props)
    elif "items" in spec and isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(spec["items"], item, f"{path}/{i}")
    else:
        yield path


def _omitted(spec: dict[str, Any], value: Any, path: str) -> list[Outcome]:
    return [Outcome(p, None, "omission", 0.0) for p in _leaves(spec, value, path)]


def _invented(spec: dict[str, Any], value: Any, path: str) -> list[Outcome]:
    return [Outcome(None, p, "hallucination", 0.0) for p in _leaves(spec, value, path)]


def walk(spec: dict[str, Any], gold: Any, extracted: Any, gpath: str = "",
         epath: str = "") -> list[Outcome]:
    """Every judged field of one value, gold (at ``gpath``) against extracted (at
    ``epath``); ``MISSING`` for a side without it."""
    if gold is MISSING and extracted is MISSING:
        return []
    if extracted is MISSING:
        return _omitted(spec, gold, gpath)
    if gold is MISSING:
        return _invented(spec, extracted, epath)
    props = spec.get("properties")
    if props and "x-eval-compare" not in spec:
        if not isinstance(gold, dict) or not isinstance(extracted, dict):
            raise Unsupported(f"{gpath}: an object against a {type(extracted).__name__}")
        out = []
        for key, sub in props.items():
            out += walk(sub, gold.get(key, MISSING), extracted.get(key, MISSING),
                        f"{gpath}/{key}", f"{epath}/{key}")
        if set(gold) - set(props):
            raise Unsupported(f"{gpath}: gold keys outside the schema")
        out += [Outcome(None, f"{epath}/{k}", "hallucination", 0.0) for k in extracted
                if k not in props]
        return out
    if "items" in spec and "x-eval-compare" not in spec:
        return _align_by_key(spec, gold, extracted, gpath, epath)
    matched, score = judge(spec, gold, extracted)
    return [Outcome(gpath, epath, "match" if matched else "mismatch", score)]


def _align_by_key(spec: dict[str, Any], gold: Any, extracted: Any, gpath: str,
                  epath: str) -> list[Outcome]:
    align = spec.get("x-eval-align")
    if align is None or align.get("match_by") != "key_field":
        raise Unsupported(f"{gpath}: alignment {align!r}")
    if not isinstance(gold, list) or not isinstance(extracted, list):
        raise Unsupported(f"{gpath}: an array against a {type(extracted).__name__}")
    key = align["key"]

    def by_key(items: list[Any]) -> dict[Any, int]:
        """Each key held by exactly one element (the others stay unpaired)."""
        seen: dict[Any, list[int]] = {}
        for i, item in enumerate(items):
            if isinstance(item, dict) and isinstance(item.get(key), str):
                seen.setdefault(item[key], []).append(i)
        return {k: v[0] for k, v in seen.items() if len(v) == 1}

    e_keys = by_key(extracted)
    out: list[Outcome] = []
    paired = set()
    for i, k in sorted((i, k) for k, i in by_key(gold).items()):
        j = e_keys.get(k)
        if j is not None:
            paired |= {i, -1 - j}
            out += walk(spec["items"], gold[i], extracted[j], f"{gpath}/{i}", f"{epath}/{j}")
    for i, item in enumerate(gold):
        if i not in paired:
            out += _omitted(spec["items"], item, f"{gpath}/{i}")
    for j, item in enumerate(extracted):
        if -1 - j not in paired:
            out += _invented(spec["items"], item, f"{epath}/{j}")
    return out


# -- records and the run ------------------------------------------------------------------------


def read_extracted(line: str) -> Any:
    """One extracted line: an object, or a JSON string holding one inside a fence or prose
    (the JSON between its first ``{`` and last ``}``, trailing commas dropped); None when
    there is no object."""
    value = json.loads(line)
    if isinstance(value, dict):
        return value
    if not isinstance(value, str):
        raise Unsupported(f"extracted line {line[:40]!r}")
    start, end = value.find("{"), value.rfind("}")
    if start < 0 or end < start:
        return None
    body = re.sub(r",(\s*[}\]])", r"\1", value[start:end + 1])
    parsed = json.loads(body)
    if not isinstance(parsed, dict):
        raise Unsupported(f"extracted text {value[:40]!r}")
    return parsed


def record_f1(outcomes: list[Outcome]) -> float | None:
    """F1 of one record (docs/metrics.md): None when nothing was judged; 0 when only one
    of precision and recall is defined."""
    count = {s: sum(o.status == s for o in outcomes)
             for s in ("match", "mismatch", "omission", "hallucination")}
    s = sum(o.score for o in outcomes if o.status in ("match", "mismatch"))
    p_den = count["match"] + count["mismatch"] + count["hallucination"]
    r_den = count["match"] + count["mismatch"] + count["omission"]
    if p_den == 0 and r_den == 0:
        return None
    if p_den == 0 or r_den == 0:
        return 0.0
    p, r = s / p_den, s / r_den
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


@dataclass(frozen=True)
class RunScore:
    #: Per gold invoice_id, then per unpaired extracted record (``+N``): its outcomes.
    records: dict[str, list[Outcome]]
    macro_f1: float


def score_run(schema_path: Path, gold_path: Path, extracted_path: Path) -> RunScore:
    """Pair by the schema's ``x-eval-id`` and score every record."""
    spec = json.loads(schema_path.read_text(encoding="utf-8"))
    id_field = spec["x-eval-id"]
    gold = [json.loads(ln) for ln in gold_path.read_text(encoding="utf-8").splitlines()]
    extracted = [read_extracted(ln)
                 for ln in extracted_path.read_text(encoding="utf-8").splitlines()]
    first: dict[str, int] = {}
    for j, e in enumerate(extracted):
        if e is not None and isinstance(e.get(id_field), str):
            first.setdefault(e[id_field], j)
    records: dict[str, list[Outcome]] = {}
    paired = set()
    for g in gold:
        j = first.get(g[id_field])
        paired.add(j)
        records[g[id_field]] = walk(spec, g, extracted[j] if j is not None else MISSING)
    for j, e in enumerate(extracted):  # no gold record: unreadable, no id, a duplicate id
        if j not in paired:
            records[f"+{j}"] = [] if e is None else walk(spec, MISSING, e)
    f1s = [f for f in map(record_f1, records.values()) if f is not None]
    return RunScore(records, sum(f1s) / len(f1s))
