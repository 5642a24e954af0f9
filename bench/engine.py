"""Engine benchmarks: evalschema against a pure-Python floor, and large Hungarian alignment.

Part 1 scores N seeded invoice-like record pairs (~20 leaves each: 11 scalar and
nested leaves plus 2-4 line items of 3 fields) twice with the full engine
(``evalschema.evaluate``: statuses, reasons, pointers, per-record and per-field
metrics) -- line items aligned in order, then with Hungarian alignment -- and
once with a minimal recursive comparator, the *floor* (landscape.md section 5d:
rapidfuzz Levenshtein for strings, 1% numeric tolerance, ordered lists,
leaf-weighted mean; no statuses, no paths). Target: engine <= 2.5x the floor.

Part 2 evaluates one record holding 1,000 x 1,000 line items with
``{"match_by": "hungarian"}`` (target < 1.5 s), times the pair-F1 matrix and
``linear_sum_assignment`` on their own, and checks that the alignment found
pairs items with their true partners.

Part 3 evaluates one record holding 10,000 x 10,000 line items with Hungarian
alignment, in a fresh process (so its peak RSS is its own): time, peak RSS and the
tracemalloc peak of ``evaluate``, and what became of the array (aligned, or the one
``error`` result of ``limits.hungarian_max_pairs``). Target: aligned in under 10 s and
2 GB, or bounded (an error with its reason, in bounded time and memory).

Benchmarks report, they do not gate: the exit code is always 0.

    python bench/engine.py [--records N] [--repeat K] [--items M] [--big-items B] [--quick]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import random
import resource
import statistics
import string
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from rapidfuzz.distance import Levenshtein
from scipy.optimize import linear_sum_assignment

import evalschema
from evalschema.results import RunResult, Status
from evalschema.scoring.pair_f1 import pair_f1_matrix
from evalschema.scoring.walk import RecordScorer

SEED = 20240611
ORDERED_RATIO_TARGET = 1.5
HUNGARIAN_RATIO_TARGET = 2.5
HUNGARIAN_TARGET_S = 1.5
ALIGN_ACCURACY_TARGET = 0.95
BIG_TARGET_S = 10.0
BIG_TARGET_BYTES = 2 * 1024 ** 3

Record = dict[str, Any]

# -- schemas -------------------------------------------------------------------

_MONEY = {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}}
_FUZZY = {"type": "string", "x-eval-compare": {"levenshtein": {"threshold": 0.9}}}


def item_schema() -> dict[str, Any]:
    """One line item: description (Levenshtein), quantity and price (numeric)."""
    return {
        "type": "object",
        "properties": {
            "description": _FUZZY,
            "quantity": {"type": "number", "x-eval-compare": "numeric"},
            "price": _MONEY,
        },
    }


def record_schema(align: dict[str, Any]) -> dict[str, Any]:
    """The invoice schema of part 1; ``align`` is the line items' ``x-eval-align``."""
    return {
        "type": "object",
        "properties": {
            "invoice_number": {"type": "string", "x-eval-compare": "exact"},
            "invoice_date": {"type": "string", "x-eval-compare": "date"},
            "currency": {"type": "string", "x-eval-transform": ["strip", "lowercase"],
                         "x-eval-compare": "exact"},
            "total": _MONEY,
            "tax": _MONEY,
            "paid": {"type": "boolean"},
            "notes": {"type": "string", "x-eval-compare": "levenshtein"},
            "vendor": {
                "type": "object",
                "properties": {
                    "name": _FUZZY,
                    "vat_id": {"type": "string", "x-eval-compare": "exact"},
                    "address": {
                        "type": "object",
                        "properties": {
                            "street": {"type": "string", "x-eval-compare": "levenshtein"},
                            "city": {"type": "string", "x-eval-compare": "normalized"},
                        },
                    },
                },
            },
            "line_items": {"type": "array", "x-eval-align": align, "items": item_schema()},
        },
    }


ORDERED = {"ordered": True}
HUNGARIAN = {"match_by": "hungarian"}

# -- seeded data -----------------------------------------------------------------

_ADJECTIVES = ("steel", "brass", "oak", "pine", "copper", "nylon", "rubber", "glass",
               "ceramic", "carbon", "matte", "polished", "heavy", "compact", "flexible")
_NOUNS = ("bolt", "hinge", "bracket", "washer", "valve", "gasket", "pipe", "clamp", "spring",
          "bearing", "nozzle", "flange", "rivet", "coupling", "fitting", "panel")
_COMPANIES = ("Acme Industrial Supplies GmbH", "Nordwind Logistik AG", "Blue Harbor Trading Ltd",
              "Société Générale d'Outillage", "Kowalski & Sons Hardware", "Müller Bau KG",
              "Pacific Rim Components Inc.", "Oficina Técnica del Norte SL")
_STREETS = ("Hauptstraße", "Industrieweg", "Harbour Road", "Rue de la Gare", "Calle Mayor",
            "Elm Street", "Am Bahnhof", "Königsallee")
_CITIES = ("München", "Hamburg", "Zürich", "Lyon", "Kraków", "Bilbao", "Rotterdam", "Genève")
_NOTES = ("Payment due within 30 days of invoice date.",
          "Goods remain our property until paid in full.",
          "Please quote the invoice number with your payment.",
          "Delivery free of charge above 500 EUR.")


def make_item(rng: random.Random, description: str | None = None) -> Record:
    desc = description or (f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)} "
                           f"{rng.randrange(4, 200)}mm")
    return {"description": desc, "quantity": rng.randrange(1, 50),
            "price": round(rng.uniform(0.5, 500.0), 2)}


def make_gold(rng: random.Random, i: int) -> Record:
    """One gold invoice: 11 scalar/nested leaves plus 2-4 line items of 3 leaves."""
    issued = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randrange(730))
    items = [make_item(rng) for _ in range(rng.randrange(2, 5))]
    total = round(sum(it["quantity"] * it["price"] for it in items), 2)
    return {
        "invoice_number": f"INV-{i:07d}",
        "invoice_date": issued.isoformat(),
        "currency": rng.choice(("EUR", "USD", "GBP", "CHF")),
        "total": total,
        "tax": round(total * 0.19, 2),
        "paid": rng.random() < 0.5,
        "notes": rng.choice(_NOTES),
        "vendor": {
            "name": rng.choice(_COMPANIES),
            "vat_id": f"DE{rng.randrange(10**8, 10**9)}",
            "address": {"street": f"{rng.choice(_STREETS)} {rng.randrange(1, 200)}",
                        "city": rng.choice(_CITIES)},
        },
        "line_items": items,
    }


def typo(rng: random.Random, text: str) -> str:
    """One substituted, inserted or deleted character."""
    if not text:
        return rng.choice(string.ascii_lowercase)
    k = rng.randrange(len(text))
    op = rng.randrange(3)
    if op == 0:
        return text[:k] + rng.choice(string.ascii_lowercase) + text[k + 1:]
    if op == 1:
        return text[:k] + rng.choice(string.ascii_lowercase) + text[k:]
    return text[:k] + text[k + 1:]


def perturb_string(rng: random.Random, value: str) -> str:
    roll = rng.random()
    if roll < 0.08:
        return typo(rng, value)
    if roll < 0.11:
        return value.upper()
    if roll < 0.13:
        return f" {value} "
    return value


def perturb_number(rng: random.Random, value: float) -> float:
    roll = rng.random()
    if roll < 0.05:
        return round(value * rng.uniform(1.001, 1.009), 2)  # within 1%
    if roll < 0.10:
        return round(value * rng.choice((0.9, 1.02, 1.1, 10.0)), 2)  # a slip
    return value


def perturb_date(rng: random.Random, iso: str) -> str:
    roll = rng.random()
    day = dt.date.fromisoformat(iso)
    if roll < 0.05:
        return day.strftime("%d/%m/%Y")  # same date, another format
    if roll < 0.08:
        return (day + dt.timedelta(days=1)).isoformat()
    return iso


def perturb_leaf(rng: random.Random, value: Any) -> Any:
    if isinstance(value, bool):
        return (not value) if rng.random() < 0.05 else value
    if isinstance(value, int | float):
        return perturb_number(rng, value)
    if isinstance(value, str):
        return perturb_string(rng, value)
    return value


def perturb_object(rng: random.Random, obj: Record, drop: float = 0.03) -> Record:
    """Each leaf perturbed, ~3% of keys dropped; nested objects recurse."""
    out: Record = {}
    for key, value in obj.items():
        if rng.random() < drop:
            continue
        if isinstance(value, dict):
            out[key] = perturb_object(rng, value, drop)
        elif key == "invoice_date":
            out[key] = perturb_date(rng, value)
        else:
            out[key] = perturb_leaf(rng, value)
    return out


def perturb_items(rng: random.Random, items: list[Record]) -> list[Record]:
    """Perturbed copies; sometimes shuffled, one popped, or one added."""
    out = [perturb_object(rng, it, drop=0.02) for it in items]
    roll = rng.random()
    if roll < 0.10 and len(out) > 1:
        out.pop(rng.randrange(len(out)))
    elif roll < 0.20:
        out.insert(rng.randrange(len(out) + 1), make_item(rng))
    if rng.random() < 0.25:
        rng.shuffle(out)
    return out


def make_extracted(rng: random.Random, gold: Record) -> Record:
    """A realistic extraction of ``gold``: typos, number slips, missing/extra keys, reordering."""
    head = {k: v for k, v in gold.items() if k != "line_items"}
    out = perturb_object(rng, head)
    if rng.random() > 0.02:
        out["line_items"] = perturb_items(rng, gold["line_items"])
    if rng.random() < 0.05:
        out["confidence"] = round(rng.random(), 2)  # a key the schema does not know
    return out


def make_pairs(n: int, seed: int = SEED) -> tuple[list[Record], list[Record]]:
    rng = random.Random(seed)
    golds = [make_gold(rng, i) for i in range(n)]
    return golds, [make_extracted(rng, g) for g in golds]


def count_leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(count_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_leaves(v) for v in value)
    return 1


# -- the floor: a minimal recursive comparator ----------------------------------

_similarity = Levenshtein.normalized_similarity


def floor_compare(g: Any, e: Any) -> tuple[float, int]:
    """(score sum, leaf count): strings by Levenshtein, numbers within 1%, lists in order."""
    tg = type(g)
    if tg is dict:
        if type(e) is not dict:
            return 0.0, count_leaves(g)
        return _floor_dict(g, e)
    if tg is list:
        if type(e) is not list:
            return 0.0, count_leaves(g)
        return _floor_list(g, e)
    if tg is str:
        return (_similarity(g, e) if type(e) is str else 0.0), 1
    if (tg is int or tg is float) and (type(e) is int or type(e) is float):
        return (1.0 if abs(g - e) <= 0.01 * (abs(g) or 1.0) else 0.0), 1
    return (1.0 if g == e else 0.0), 1


def _floor_dict(g: Record, e: Record) -> tuple[float, int]:
    total, n = 0.0, 0
    for key, gv in g.items():
        if key in e:
            s, k = floor_compare(gv, e[key])
            total += s
            n += k
        else:
            n += count_leaves(gv)
    for key, ev in e.items():
        if key not in g:
            n += count_leaves(ev)
    return total, n


def _floor_list(g: list[Any], e: list[Any]) -> tuple[float, int]:
    total, n = 0.0, 0
    for gv, ev in zip(g, e, strict=False):
        s, k = floor_compare(gv, ev)
        total += s
        n += k
    for rest in (g[len(e):], e[len(g):]):
        n += sum(count_leaves(v) for v in rest)
    return total, n


def floor_run(golds: Sequence[Record], extracted: Sequence[Record]) -> float:
    """Mean record score over the run (each record: leaf-weighted mean)."""
    total = 0.0
    for g, e in zip(golds, extracted, strict=True):
        s, n = floor_compare(g, e)
        total += s / n if n else 1.0
    return total / len(golds) if golds else 1.0


# -- timing ------------------------------------------------------------------------


@dataclass
class Timing:
    """Wall-clock (perf_counter) and CPU (process_time) seconds of each repetition."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def best(self) -> float:
        return min(self.wall)

    @property
    def median(self) -> float:
        return statistics.median(self.wall)

    @property
    def best_cpu(self) -> float:
        return min(self.cpu)


def timed(fn: Callable[[], Any], timing: Timing) -> Any:
    """Run ``fn`` once from a collected heap (GC stays enabled), recording its times."""
    gc.collect()
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    t1, c1 = time.perf_counter(), time.process_time()
    timing.wall.append(t1 - t0)
    timing.cpu.append(c1 - c0)
    return out


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


# -- part 1: record pairs ---------------------------------------------------------


@dataclass
class RecordsBench:
    n: int
    leaves: float
    floor: Timing
    ordered: Timing
    hungarian: Timing
    floor_score: float = 0.0
    ordered_score: float = 0.0
    hungarian_score: float = 0.0
    fields_judged: int = 0

    @property
    def ratio_ordered(self) -> float:
        return self.ordered.best / self.floor.best

    @property
    def ratio_hungarian(self) -> float:
        return self.hungarian.best / self.floor.best


def bench_records(n: int, repeat: int) -> RecordsBench:
    """Floor, engine (ordered) and engine (Hungarian), interleaved so load hits all alike."""
    golds, extracted = make_pairs(n)
    leaves = statistics.fmean(count_leaves(g) for g in golds)
    out = RecordsBench(n, leaves, Timing(), Timing(), Timing())
    ordered, hungarian = record_schema(ORDERED), record_schema(HUNGARIAN)
    for _ in range(repeat):
        out.floor_score = timed(lambda: floor_run(golds, extracted), out.floor)
        run = timed(lambda: evalschema.evaluate(golds, extracted, ordered), out.ordered)
        out.ordered_score = run.mean_weighted_score
        out.fields_judged = run.total_fields
        del run  # free the results before the next run is timed
        run = timed(lambda: evalschema.evaluate(golds, extracted, hungarian), out.hungarian)
        out.hungarian_score = run.mean_weighted_score
        del run
    return out


def print_records(b: RecordsBench) -> None:
    print(f"\n== Part 1: {b.n:,} record pairs, {b.leaves:.1f} gold leaves/record "
          f"(best of {len(b.floor.wall)}; wall = perf_counter, cpu = process_time)")
    print(f"{'':28}{'best s':>9}{'median s':>10}{'cpu s':>8}{'µs/rec':>9}{'rec/s':>10}"
          f"{'x floor':>9}{'mean score':>12}")
    rows = (("floor (pure-Python)", b.floor, b.floor_score),
            ("engine, ordered items", b.ordered, b.ordered_score),
            ("engine, hungarian items", b.hungarian, b.hungarian_score))
    for label, t, score in rows:
        print(f"{label:28}{t.best:9.3f}{t.median:10.3f}{t.best_cpu:8.3f}"
              f"{t.best / b.n * 1e6:9.1f}{b.n / t.best:10,.0f}{t.best / b.floor.best:9.2f}"
              f"{score:12.4f}")
    print(f"engine judged {b.fields_judged:,} fields "
          f"({b.fields_judged / b.n:.1f}/record, with statuses, reasons and pointers)")


# -- part 2: one record with a large Hungarian-aligned array ------------------------


def make_big_items(n: int, seed: int = SEED) -> tuple[list[Record], list[Record], list[int]]:
    """Gold items, a shuffled perturbed copy, and each gold item's true extracted index."""
    rng = random.Random(seed + n)
    names = [f"{a} {b} {s}mm" for a in _ADJECTIVES for b in _NOUNS for s in range(4, 200)]
    gold = [make_item(rng, d) for d in rng.sample(names, n)]
    order = list(range(n))
    rng.shuffle(order)  # extracted[j] is a copy of gold[order[j]]
    extracted = [perturb_object(rng, gold[i], drop=0.02) for i in order]
    partner = [0] * n
    for j, i in enumerate(order):
        partner[i] = j
    return gold, extracted, partner


def alignment_from(run: RunResult) -> dict[int, int]:
    """Gold item index -> extracted item index, read back from the result pointers."""
    pairs: dict[int, int] = {}
    for rec in run.records:
        for r in rec.field_results:
            if r.status not in (Status.MATCH, Status.MISMATCH):
                continue
            if r.gold_pointer and r.extracted_pointer:
                pairs[int(r.gold_pointer.split("/")[2])] = int(r.extracted_pointer.split("/")[2])
    return pairs


@dataclass
class HungarianBench:
    n: int
    evaluate: Timing
    matrix: Timing
    lsa: Timing
    correct: int = 0
    paired: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.n


def bench_hungarian(n: int, repeat: int) -> HungarianBench:
    gold, extracted, partner = make_big_items(n)
    schema = {"type": "object", "properties": {
        "line_items": {"type": "array", "x-eval-align": HUNGARIAN, "items": item_schema()}}}
    items_node = evalschema.parse_eval_schema(schema).find("line_items[]")
    assert items_node is not None
    scorer = RecordScorer(items_node)
    out = HungarianBench(n, Timing(), Timing(), Timing())
    run: RunResult | None = None
    for _ in range(repeat):
        run = timed(lambda: evalschema.evaluate([{"line_items": gold}],
                                                [{"line_items": extracted}], schema), out.evaluate)
        f1 = timed(lambda: pair_f1_matrix(scorer, items_node, gold, extracted), out.matrix)
        timed(partial(linear_sum_assignment, f1, maximize=True), out.lsa)
    assert run is not None
    found = alignment_from(run)
    out.paired = len(found)
    out.correct = sum(1 for i, j in found.items() if partner[i] == j)
    return out


def print_hungarian(b: HungarianBench) -> None:
    print(f"\n== Part 2: one record, {b.n:,} x {b.n:,} line items, match_by hungarian "
          f"(best of {len(b.evaluate.wall)})")
    for label, t in (("evaluate (whole record)", b.evaluate),
                     ("pair_f1_matrix alone", b.matrix),
                     ("linear_sum_assignment alone", b.lsa)):
        print(f"{label:30}best {t.best * 1e3:8.1f} ms   median {t.median * 1e3:8.1f} ms   "
              f"cpu {t.best_cpu * 1e3:8.1f} ms")
    print(f"alignment: {b.paired:,} pairs, {b.correct:,}/{b.n:,} gold items with their true "
          f"partner ({b.accuracy:.1%})")


# -- part 3: a 10,000 x 10,000 Hungarian array, in a fresh process ------------------


def _rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB


def measure_big(n: int) -> dict[str, Any]:
    """One record of ``n`` x ``n`` Hungarian line items: ``evaluate``'s wall time and this
    process's peak RSS (before and after it), then its tracemalloc peak in a second,
    untimed call, and what the array's results say."""
    gold, extracted, partner = make_big_items(n)
    schema = {"type": "object", "properties": {
        "line_items": {"type": "array", "x-eval-align": HUNGARIAN, "items": item_schema()}}}
    args = ([{"line_items": gold}], [{"line_items": extracted}], schema)
    gc.collect()
    rss0 = _rss_bytes()
    t0 = time.perf_counter()
    run = evalschema.evaluate(*args)
    wall = time.perf_counter() - t0
    rss1 = _rss_bytes()
    errors = [r for r in run.records[0].field_results if r.status is Status.ERROR]
    found = alignment_from(run)
    del run
    gc.collect()
    tracemalloc.start()
    evalschema.evaluate(*args)
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"n": n, "wall": wall, "rss_before": rss0, "rss_peak": rss1, "traced_peak": traced,
            "error": errors[0].reason if errors else None, "paired": len(found),
            "correct": sum(1 for i, j in found.items() if partner[i] == j)}


def bench_big(n: int) -> dict[str, Any]:
    """``measure_big`` in a fresh interpreter, so parts 1 and 2 do not set its peak."""
    path = os.pathsep.join(p for p in sys.path if p)
    out = subprocess.run([sys.executable, __file__, "--measure-big", str(n)], check=True,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": path})
    big: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return big


def big_verdict(big: dict[str, Any]) -> tuple[bool, str]:
    """(target met, what happened): aligned, or bounded, within the time and memory."""
    mib = big["rss_peak"] / 1024 ** 2
    ok = big["wall"] < BIG_TARGET_S and big["rss_peak"] < BIG_TARGET_BYTES
    done = "aligned" if big["error"] is None else "bounded (one error result)"
    return ok, f"{done} in {big['wall']:.3f} s, peak RSS {mib:,.0f} MiB"


def print_big(big: dict[str, Any]) -> None:
    n = big["n"]
    print(f"\n== Part 3: one record, {n:,} x {n:,} line items, match_by hungarian "
          "(fresh process, one run)")
    print(f"evaluate: {big['wall']:.3f} s; peak RSS {big['rss_peak'] / 1024 ** 2:,.0f} MiB "
          f"(data alone {big['rss_before'] / 1024 ** 2:,.0f} MiB); tracemalloc peak "
          f"{big['traced_peak'] / 1024 ** 2:,.1f} MiB")
    if big["error"] is None:
        print(f"aligned: {big['paired']:,} pairs, {big['correct']:,}/{n:,} with their true "
              "partner")
    else:
        print(f"not aligned, one error result: {big['error']}")


# -- summary and CLI --------------------------------------------------------------


def summary(records: RecordsBench, hung: HungarianBench, big: dict[str, Any]) -> list[str]:
    r_ord, r_hun = records.ratio_ordered, records.ratio_hungarian
    t = hung.evaluate.best
    big_ok, big_text = big_verdict(big)
    return [
        f"TARGET engine/floor <= {ORDERED_RATIO_TARGET}x: measured {r_ord:.2f}x "
        f"{verdict(r_ord <= ORDERED_RATIO_TARGET)}",
        f"TARGET engine(hungarian)/floor <= {HUNGARIAN_RATIO_TARGET}x: measured {r_hun:.2f}x "
        f"{verdict(r_hun <= HUNGARIAN_RATIO_TARGET)}",
        f"TARGET hungarian {hung.n}x{hung.n} evaluate < {HUNGARIAN_TARGET_S} s: "
        f"measured {t:.3f} s {verdict(t < HUNGARIAN_TARGET_S)}",
        f"TARGET hungarian {hung.n}x{hung.n} true partners >= {ALIGN_ACCURACY_TARGET:.0%}: "
        f"measured {hung.accuracy:.1%} {verdict(hung.accuracy >= ALIGN_ACCURACY_TARGET)}",
        f"TARGET hungarian {big['n']}x{big['n']} aligned or bounded < {BIG_TARGET_S:g} s "
        f"and < 2 GB: {big_text} {verdict(big_ok)}",
    ]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--records", type=int, default=None, help="record pairs (default 10,000)")
    p.add_argument("--repeat", type=int, default=None, help="repetitions (default 5; quick 3)")
    p.add_argument("--items", type=int, default=None,
                   help="line items per side in part 2 (default 1,000)")
    p.add_argument("--big-items", type=int, default=None,
                   help="line items per side in part 3 (default 10,000; quick 2,500)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 1,000 records, 200 x 200 items, 2,500 x 2,500 in part 3, "
                   "3 repetitions")
    p.add_argument("--measure-big", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.records = args.records or (1_000 if args.quick else 10_000)
    args.items = args.items or (200 if args.quick else 1_000)
    args.big_items = args.big_items or (2_500 if args.quick else 10_000)
    args.repeat = max(1, args.repeat or (3 if args.quick else 5))
    return args


def print_environment() -> None:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"evalschema {evalschema.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"gc {'on' if gc.isenabled() else 'off'}, {dt.datetime.now():%Y-%m-%d %H:%M}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.measure_big is not None:  # part 3's own process (bench_big)
        print(json.dumps(measure_big(args.measure_big)))
        return 0
    print_environment()
    records = bench_records(args.records, args.repeat)
    print_records(records)
    hung = bench_hungarian(args.items, args.repeat)
    print_hungarian(hung)
    big = bench_big(args.big_items)
    print_big(big)
    print()
    for line in summary(records, hung, big):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
