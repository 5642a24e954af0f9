"""struct_extract_eval parity: the cases, their recording and the one comparison.

FAIRmat-NFDI/extract-eval @ 6a51aa28 (package struct_extract_eval 0.1.0) is not on PyPI,
so CI cannot run it. scripts/record_struct_extract_eval_parity.py runs every case here
through the real package and writes what it reports to tests/data/parity/
struct_extract_eval.json; tests/engine/compat/test_compat_parity_packages.py scores the
same cases with ``evalschema.compat.struct_extract_eval`` and compares with that
recording, through ``compare`` below, which the script's ``--check`` uses too (the real
package re-run against the recording).

What is compared, per case: per record the id, P/R/F1 and the (path, status, score) of
every field result in order; per run the macro means, the totals and ``per_field`` (mean
score and status counts per instance path); or, where the package raises, the error.
"""

from __future__ import annotations

import copy
import importlib
import json
import logging
import math
import random
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from seeded_json import RandomJson

PACKAGE = "struct_extract_eval 0.1.0 (FAIRmat-NFDI/extract-eval @ 6a51aa28)"
RECORDING = Path(__file__).resolve().parents[1] / "data" / "parity" / "struct_extract_eval.json"
TOL = 1e-9
#: Generated runs per seed, and the seeds.
GENERATED = 300
SEEDS = (1, 2)
#: Runs whose records are any JSON value (what a hypothesis test drew before: recorded now).
ODD_RUNS = 200

SX_S = {"type": "string", "x-eval-compare": "exact"}
SX_N = {"type": "number", "x-eval-compare": "numeric"}
SX_ID = {"type": "string", "x-eval-skip": True}


def sx_obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def sx_arr(items: Any, **align: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": items}
    if align:
        out["x-eval-align"] = align
    return out


#: Schemas with every container kind the edge cases need: nested objects, arrays of
#: objects and of scalars (each alignment), a skipped id, property names with dots
#: (with and without the last segment as a sibling), a container judged by a comparator
#: and a transform.
SX_SCHEMAS: list[dict[str, Any]] = [
    sx_obj(
        id=SX_ID,
        name=SX_S,
        total=SX_N,
        vendor=sx_obj(city=SX_S, geo=sx_obj(lat=SX_N)),
        tags=sx_arr(SX_S),
        items=sx_arr(sx_obj(sku=SX_S, qty=SX_N)),
    ),
    sx_obj(**{"a.b": SX_S, "b": SX_S, "c.d": sx_obj(e=SX_S), "x.y": sx_arr(SX_N)}),
    {
        # evalschema's own keys, which that package only logs as unknown
        **sx_obj(**{
            "id": SX_ID,
            "v.w": {**SX_S, "x-eval-null": "absent"},
            "meta": sx_obj(**{"k.l": {**SX_N, "x-eval-threshold": 0.0}, "n": SX_S}),
        }),
        "x-eval-id": "id",
    },
    sx_obj(
        id=SX_ID,
        lines=sx_arr(sx_obj(id=SX_ID, k=SX_S, v=SX_N), match_by="key_field", key="k"),
        pts=sx_arr(sx_obj(x=SX_N, y=SX_N), match_by="hungarian"),
        nums=sx_arr(SX_N, match_by="hungarian"),
    ),
    sx_obj(
        any={"type": "object", "x-eval-compare": "exact",
             "properties": {"z": SX_S, "w": sx_arr(SX_N), "o": sx_obj(p=SX_S)}},
        raw={"type": "array", "x-eval-compare": "exact", "items": sx_obj(q=SX_S)},
        bare={"type": "object", "x-eval-compare": "exact"},
        multi={"type": ["object", "array", "null"], "x-eval-compare": "exact",
               "properties": {"m": {"type": "string"}}},
        low={"type": "string", "x-eval-compare": "exact", "x-eval-transform": ["lowercase"]},
        inner=sx_obj(s=SX_S, arr=sx_arr(sx_arr(SX_N))),
    ),
    # records that are arrays, or one value, by the schema
    sx_arr(sx_obj(**{"a": SX_S, "b.c": SX_N}), match_by="hungarian"),
    SX_S,
]

#: What an LLM puts where a container or a record belongs.
SX_ODD: list[Any] = [None, "text", "", 0, 1, 1.0, True, [], {}, [1], ["x"], {"z": "x"}, [{}]]


class SxCases:
    """Records conforming to a schema, then broken the ways the compat bullets list."""

    def __init__(self, gen: Any) -> None:
        self.gen = gen
        self.r = gen.rng

    def conform(self, schema: dict[str, Any], depth: int = 0) -> Any:
        r = self.r
        t = schema["type"]
        if t == "object" and "properties" in schema and "x-eval-compare" not in schema:
            out: dict[str, Any] = {}
            for name, sub in schema["properties"].items():
                if r.random() < 0.85:
                    # a dotted name is read from its last segment: write either or both
                    keys = [name, name.rsplit(".", 1)[-1]]
                    for key in r.sample(keys, r.randint(1, 2)) if "." in name else [name]:
                        out[key] = self.conform(sub, depth + 1)
            if r.random() < 0.15:  # the last dot segment of a dotted name, or an unknown key
                out[r.choice(["b", "d", "y", "w", "l", "zz", "a.b"])] = r.choice(["x", 1])
            return out
        if t == "array" and "x-eval-compare" not in schema:
            return [self.conform(schema["items"], depth + 1) for _ in range(r.randint(0, 3))]
        if t == "object" or t == "array":
            return self.gen.value(2)
        if t == "number":
            return r.choice([0, 1, 2.5, 10, -3, "4"])
        if schema.get("x-eval-skip"):
            return r.choice(["r1", "r2", "r3", 7])
        return r.choice(["apple", "Apple", "x", "", "a b"])

    def near(self, schema: dict[str, Any], value: Any) -> Any:
        """A near-copy of ``value`` with containers retyped, emptied or dropped."""
        r = self.r
        roll = r.random()
        if roll < 0.12:
            return copy.deepcopy(r.choice(SX_ODD))
        if roll < 0.18:
            return self.conform(schema)
        t = schema["type"]
        if isinstance(value, dict) and t == "object" and "properties" in schema:
            props = schema["properties"]
            out = {
                k: self.near(props[k], v) if k in props and r.random() < 0.6 else v
                for k, v in value.items()
            }
            if out and r.random() < 0.2:
                out.pop(r.choice(list(out)))
            if r.random() < 0.1:
                out[r.choice(["b", "a.b", "zz", "id"])] = copy.deepcopy(r.choice(SX_ODD))
            return out
        if isinstance(value, list) and t == "array" and "items" in schema:
            out_list = [self.near(schema["items"], v) if r.random() < 0.5 else v for v in value]
            if r.random() < 0.3:
                r.shuffle(out_list)
            if out_list and r.random() < 0.2:
                out_list.pop()
            if r.random() < 0.2:
                out_list.append(self.conform(schema["items"]))
            return out_list
        return self.gen.mutate(value, 2)

    def record(self, schema: dict[str, Any]) -> Any:
        r = self.r
        return copy.deepcopy(r.choice(SX_ODD)) if r.random() < 0.08 else self.conform(schema)

    def run(self, schema: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        r = self.r
        gold = [self.record(schema) for _ in range(r.randint(1, 4))]
        extracted = [
            self.near(schema, g) if r.random() < 0.85 else self.record(schema) for g in gold
        ]
        return gold, extracted


#: Edge cases written out: each names the bullet it covers.
SX_ADVERSARIAL: list[tuple[int, list[Any], list[Any]]] = [
    # non-object records
    (0, ["text"], ["text"]),
    (0, ["text"], [{"name": "x"}]),
    (0, [{"name": "x"}], ["text"]),
    (0, [["a"]], [["a"]]),
    (0, [None], [None]),
    (0, [None], [{"name": "x", "vendor": {"city": "y"}}]),
    (0, [{"name": "x", "tags": ["a", "b"]}], [None]),
    (0, [1], [True]),
    (0, [{}], [None]),
    (0, [{}], [[]]),
    # containers of the wrong type
    (0, [{"vendor": {"city": "x"}}], [{"vendor": ["x"]}]),
    (0, [{"vendor": {"city": "x"}}], [{"vendor": "x"}]),
    (0, [{"tags": ["a"]}], [{"tags": {"0": "a"}}]),
    (0, [{"tags": ["a"]}], [{"tags": "a"}]),
    (0, [{"vendor": "x"}], [{"vendor": {"city": "x"}}]),
    (0, [{"tags": "a"}], [{"tags": ["a"]}]),
    (0, [{"vendor": 1}], [{"vendor": True}]),
    (0, [{"vendor": 1}], [{"vendor": 1.0}]),
    (0, [{"vendor": "x"}], [{}]),
    (0, [{}], [{"vendor": "x"}]),
    (0, [{"tags": "a"}], [{}]),
    (0, [{"items": ["x", {"sku": "1"}]}], [{"items": [{"sku": "1"}, "x"]}]),
    (0, [{"items": [None]}], [{"items": [{"sku": "1"}]}]),
    # empty objects against missing ones
    (0, [{"vendor": {}}], [{}]),
    (0, [{}], [{"vendor": {}}]),
    (0, [{"vendor": {}}], [{"vendor": None}]),
    (0, [{"vendor": None}], [{"vendor": {}}]),
    (0, [{"vendor": {"geo": {}}}], [{"vendor": {}}]),
    (0, [{"vendor": {"geo": None}}], [{}]),
    (0, [{"tags": []}], [{}]),
    (0, [{}], [{}]),
    (0, [{"vendor": {}}], [{"vendor": {}}]),
    # property names containing dots
    (1, [{"a.b": "x", "b": "y"}], [{"a.b": "x", "b": "y"}]),
    (1, [{"a.b": "x"}], [{"a.b": "x"}]),
    (1, [{"b": "y"}], [{"b": "y", "d": "z"}]),
    (1, [{"c.d": {"e": "1"}, "d": {"e": "1"}}], [{"d": {"e": "2"}}]),
    (1, [{"x.y": [1, 2], "y": [1]}], [{"y": [1, 3]}]),
    (2, [{"meta": {"k.l": 1, "l": 2}}], [{"meta": {"l": 2, "k.l": 1}}]),
    (2, [{"meta": {"l": 1}, "w": None, "v.w": "x"}], [{"meta": {"l": 2}, "w": None}]),
    (2, [{"meta": {"l": 1}, "w": "x"}], [{"meta": {"l": 0.5}, "w": None}]),
    # skipped id fields under positional pairing
    (3, [{"id": "r1", "lines": [{"id": 1, "k": "a", "v": 1}]}],
     [{"id": "r2", "lines": [{"id": 2, "k": "a", "v": 1}]}]),
    (3, [{"id": "r1"}, {"id": "r2"}], [{"id": "r2"}, {"id": "r1"}]),
    (3, [{"lines": [{"k": "a"}, "x"]}], [{"lines": {"k": "a"}}]),
    (3, [{"pts": [{"x": 1}, "p"]}], [{"pts": ["p", {"x": 1}]}]),
    (3, [{"pts": [{"x": 1}], "nums": [1, "2"]}], [{"pts": [{}], "nums": {"0": 1}}]),
    # containers judged by a comparator
    (4, [{"any": [1], "raw": {"a": 1}}], [{"any": [1], "raw": {"a": 1}}]),
    (4, [{"inner": {"arr": [[1], 2]}}], [{"inner": {"arr": [3, [1]]}}]),
    (4, [{"any": {"z": "x", "w": [1, 2], "o": {"p": "y"}}, "raw": [{"q": "1"}, 2]}], [{}]),
    (4, [{"any": None, "raw": None}], [{"any": {"z": "x", "o": {}}, "raw": []}]),
    (4, [{"bare": {"a": 1}, "multi": {"m": "x"}}], [{"bare": None}]),
    # a Hungarian matrix above 256 pairs (computed a whole matrix at a time natively)
    (3, [{"pts": [{"x": i, "y": i % 3} if i % 4 else "p" for i in range(17)]}],
     [{"pts": [{"x": 16 - i, "y": i % 2} if i % 5 else [i] for i in range(17)]}]),
    (5, [[{"a": "x", "c": 1}, "y", {}]], [[{}, {"a": "x", "b.c": 1}, {"c": 1}]]),
    (5, [{"a": "x"}], [[{"a": "x"}]]),
    (6, ["x", None, {}], ["x", "y", None]),
]

#: Schemas that package refuses (SchemaError), each the first record of a run.
SX_BAD_SCHEMAS: list[Any] = [
    sx_obj(any={"type": "object", "x-eval-compare": "exact", "properties": {"z": {"type": "string"}}}),
    sx_obj(raw={"type": "array", "x-eval-compare": "exact",
                "items": {"type": "string", "x-eval-compare": "nope"}}),
    sx_obj(a={"type": "string"}),
    sx_obj(a={**SX_S, "x-eval-skip": "yes"}),
    sx_obj(a=sx_arr(SX_S, match_by="key_field", key="k")),
    [],
]


#: A valid schema whose properties that package never reads (multi-type, judged by a
#: comparator), scored next to the refused ones.
SX_MULTI_TYPE_CASE: tuple[int, list[Any], list[Any]] = (4, [{"multi": {"m": 1}}], [{}])


# -- post-processors: by name, built from either package's postprocess module ---------------

NULL_CONFIGS: dict[str, tuple[list[Any], bool]] = {
    "nulls [None] skip=True": ([None], True),
    "nulls [None, '', [], {}] skip=False": ([None, "", [], {}], False),
}
POST_PROCESSORS = ["none", "user's own", *NULL_CONFIGS]


def drop_root_and_omissions(frs: list[Any]) -> list[Any]:
    """A user's own post-processor: the same code over either package's results."""
    return [f for f in frs if f.path != "" and f.status != "omission"]


def post_processor(name: str, module: Any) -> Any:
    """The post-processor ``name`` built from ``module``'s NullHandling/reclassify_nulls
    (``struct_extract_eval.postprocess`` or ``evalschema.compat.struct_extract_eval``)."""
    if name == "none":
        return None
    if name == "user's own":
        return drop_root_and_omissions
    absent, skip = NULL_CONFIGS[name]
    config = module.NullHandling(absent_values=copy.deepcopy(absent), both_absent_skip=skip)
    return lambda frs: module.reclassify_nulls(frs, config)


# -- the cases ------------------------------------------------------------------------------

SCHEMAS: list[Any] = [*SX_SCHEMAS, *SX_BAD_SCHEMAS]


def _case(group: str, n: int, schema: int, gold: list[Any], extracted: list[Any],
          id_field: str | None, pp: str) -> dict[str, Any]:
    # Through JSON so a case is exactly what the recording holds (copies, no shared parts).
    case: dict[str, Any] = json.loads(json.dumps({
        "id": f"{group}/{n:04d}", "schema": schema, "gold": gold, "extracted": extracted,
        "id_field": id_field, "post_process": pp,
    }))
    return case


def _generated(seed: int) -> Iterator[dict[str, Any]]:
    """Seeded runs conforming to each schema, then broken: (schema, records, id field, pp)."""
    gen = SxCases(RandomJson(seed))
    for i in range(GENERATED):
        schema = i % len(SX_SCHEMAS)
        gold, extracted = gen.run(SX_SCHEMAS[schema])
        if gen.r.random() < 0.1:  # a record dropped: the lengths differ
            extracted = extracted[:-1]
        id_field = "id" if i % 3 == 0 else None
        if id_field and gen.r.random() < 0.7:
            for k, g in enumerate(gold):
                if isinstance(g, dict):
                    g["id"] = f"r{k}"
        pp = POST_PROCESSORS[i % len(POST_PROCESSORS)]
        yield _case(f"generated-{seed}", i, schema, gold, extracted, id_field, pp)


def _odd_value(r: random.Random, leaves: list[int]) -> Any:
    """Any small JSON value: one of SX_ODD, or nested lists/objects of a few scalars."""
    if r.random() < 0.35:
        return copy.deepcopy(r.choice(SX_ODD))
    kind = r.random()
    if leaves[0] <= 0 or kind < 0.5:
        leaves[0] -= 1
        return r.choice([None, True, False, -3, -1, 0, 1, 2, 3, "", "x", "a b"])
    size = r.randint(0, 3)
    if kind < 0.75:
        return [_odd_value(r, leaves) for _ in range(size)]
    keys = ["name", "a.b", "b", "city", "z", "k", "x"]
    return {r.choice(keys): _odd_value(r, leaves) for _ in range(size)}


def _odd() -> Iterator[dict[str, Any]]:
    """Any JSON value in place of a record or of a container, against each schema."""
    r = random.Random(13)
    for i in range(ODD_RUNS):
        schema = r.randrange(len(SX_SCHEMAS))
        gold = [_odd_value(r, [6]) for _ in range(r.randint(1, 3))]
        extracted = [_odd_value(r, [6]) for _ in range(r.randint(1, 3))]
        extracted = (extracted * 3)[: len(gold)]
        yield _case("odd", i, schema, gold, extracted, r.choice([None, "id"]),
                    r.choice(POST_PROCESSORS))


def cases() -> list[dict[str, Any]]:
    """Every parity case, sorted by id: the edge cases written out (under each
    post-processor, with and without an id field), the refused schemas, the seeded
    generated runs and the runs of odd records."""
    out: list[dict[str, Any]] = []
    n = 0
    for pp in POST_PROCESSORS:
        for schema, gold, extracted in SX_ADVERSARIAL:
            for id_field in (None, "id"):
                out.append(_case("edge", n, schema, gold, extracted, id_field, pp))
                n += 1
    for n, _ in enumerate(SX_BAD_SCHEMAS):
        out.append(_case("schema-error", n, len(SX_SCHEMAS) + n, [{"a": "x"}], [{"a": "x"}],
                         None, "none"))
    schema, gold, extracted = SX_MULTI_TYPE_CASE
    out.append(_case("schema-error", len(SX_BAD_SCHEMAS), schema, gold, extracted, None, "none"))
    for seed in SEEDS:
        out.extend(_generated(seed))
    out.extend(_odd())
    return sorted(out, key=lambda c: c["id"])


# -- running a case, and what it reports ----------------------------------------------------

def _records(run: Any) -> list[dict[str, Any]]:
    return [
        {"id": rec.record_id, "precision": rec.precision, "recall": rec.recall, "f1": rec.f1,
         "fields": [[f.path, str(f.status), f.score] for f in rec.field_results]}
        for rec in run.records
    ]


def _summary(run: Any, per_field: dict[str, list[Any]]) -> dict[str, Any]:
    return {
        "records": _records(run),
        "means": [run.mean_precision, run.mean_recall, run.mean_f1],
        "totals": [run.total_records, run.total_fields, run.total_omissions,
                   run.total_hallucinations, run.total_batch_errors],
        "per_field": dict(sorted(per_field.items())),
    }


def _inputs(case: dict[str, Any]) -> tuple[Any, list[Any], list[Any], str | None]:
    return (copy.deepcopy(SCHEMAS[case["schema"]]), copy.deepcopy(case["gold"]),
            copy.deepcopy(case["extracted"]), case["id_field"])


def outcome_real(package: ModuleType, case: dict[str, Any]) -> dict[str, Any]:
    """What the real package reports for ``case`` (JSON-shaped), or the error it raises."""
    schema, gold, extracted, id_field = _inputs(case)
    pp = post_processor(case["post_process"],
                        importlib.import_module(f"{package.__name__}.postprocess"))
    logging.disable(logging.WARNING)  # it logs every wrong type it meets
    try:
        run = package.evaluate(gold, extracted, schema, id_field=id_field, post_process=pp)
    except Exception as exc:
        return {"raises": {"class": type(exc).__name__, "message": str(exc)}}
    finally:
        logging.disable(logging.NOTSET)
    return _summary(run, {
        path: [agg.mean_score, agg.matches, agg.mismatches, agg.omissions, agg.hallucinations]
        for path, agg in run.per_field.items()
    })


def outcome_ours(case: dict[str, Any]) -> dict[str, Any]:
    """What ``evalschema.compat.struct_extract_eval`` reports for ``case``, in the same
    shape; an error also names the original exception compat says it stands for."""
    from evalschema.compat import CompatInputError
    from evalschema.compat import struct_extract_eval as ours

    schema, gold, extracted, id_field = _inputs(case)
    pp = post_processor(case["post_process"], ours)
    try:
        run = ours.evaluate(gold, extracted, schema, id_field=id_field, post_process=pp)
    except Exception as exc:
        original = exc.original if isinstance(exc, CompatInputError) else None
        return {"raises": {"class": type(exc).__name__, "original": original,
                           "message": str(exc)}}
    # Ours lists skipped-only paths too; the package lists paths with a scored result.
    return _summary(run, {
        path: [agg.mean_score, agg.counts.matches, agg.counts.mismatches,
               agg.counts.omissions, agg.counts.hallucinations]
        for path, agg in run.per_field.items()
        if agg.counts.scored
    })


# -- the one comparison ---------------------------------------------------------------------

#: The package's exceptions and the class of error compat raises for each.
SX_RAISES = {"ValueError": "CompatInputError", "TypeError": "CompatInputError",
             "KeyError": "CompatInputError", "SchemaError": "SchemaError"}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, int | float) and isinstance(b, int | float)
                and ((math.isnan(a) and math.isnan(b))
                     or math.isclose(a, b, rel_tol=0, abs_tol=TOL)))
    return bool(a == b) and type(a) is type(b)


def _diff(got: Any, want: Any, where: str, out: list[str]) -> None:
    """Equal, floats within TOL (NaN equal to NaN), containers element-wise and in order."""
    if isinstance(got, list) and isinstance(want, list):
        if len(got) != len(want):
            out.append(f"{where}: {len(got)} items, recorded {len(want)}: {got!r} vs {want!r}")
            return
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _diff(g, w, f"{where}[{i}]", out)
    elif isinstance(got, dict) and isinstance(want, dict):
        if got.keys() != want.keys():
            out.append(f"{where}: keys {sorted(got)} vs recorded {sorted(want)}")
            return
        for k in want:
            _diff(got[k], want[k], f"{where}.{k}", out)
    elif not _same(got, want):
        out.append(f"{where}: {got!r}, recorded {want!r}")


def compare(got: dict[str, Any], want: dict[str, Any], *, exact_errors: bool) -> list[str]:
    """Where ``got`` differs from the recorded outcome ``want`` (empty: the same).

    ``exact_errors``: the real package re-run, whose error must be the recorded class and
    message; otherwise compat's, whose error must be the one SX_RAISES lists for the
    recorded class (a CompatInputError naming it as ``original``), in its own words.
    """
    if "raises" not in got and "raises" not in want:
        out: list[str] = []
        _diff(got, want, "", out)
        return out
    if "raises" not in got or "raises" not in want:
        return [f"raises: {got.get('raises')!r}, recorded {want.get('raises')!r}"]
    g, w = got["raises"], want["raises"]
    if exact_errors:
        same = (g["class"], g["message"]) == (w["class"], w["message"])
    else:
        expected = SX_RAISES.get(w["class"])
        same = g["class"] == expected and (
            expected != "CompatInputError" or g["original"] == w["class"])
    return [] if same else [f"raises: {g!r}, recorded {w!r}"]


# -- the recording --------------------------------------------------------------------------

def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def render(recorded: list[dict[str, Any]]) -> str:
    """The recording's text: one schema and one case per line, cases sorted by id, keys
    in the order they were written (property order is part of a case), so re-recording
    gives the same bytes and a change shows as changed lines."""
    ordered = sorted(recorded, key=lambda c: c["id"])
    return "".join([
        "{\n",
        f' "package": {_line(PACKAGE)},\n',
        ' "recorded_by": "scripts/record_struct_extract_eval_parity.py",\n',
        ' "schemas": [\n', ",\n".join(f"  {_line(s)}" for s in SCHEMAS), "\n ],\n",
        ' "cases": [\n', ",\n".join(f"  {_line(c)}" for c in ordered), "\n ]\n",
        "}\n",
    ])


def record(package: ModuleType) -> list[dict[str, Any]]:
    """Every case with the real package's outcome as ``expected``."""
    return [{**case, "expected": outcome_real(package, case)} for case in cases()]


def load(path: Path = RECORDING) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data

