"""Language-server parser benchmark: ``evalschema_server.document.parse`` per keystroke.

The server re-parses the whole document on every change, so a large schema must
parse in well under 100 ms. Two inputs, both generated (seeded) so runs compare:

* a ~20,000-line eval schema (``json.dumps(indent=2)``, nested objects, arrays,
  enums, ``x-eval-*`` keys, some non-ASCII descriptions), ~600 KB;
* a 10,000-line JSONL file, each line a ~20-field record, parsed with ``parse_lines``.

Prints the median ms per parse over several runs, MB/s, and the ratio to
``json.loads`` of the same text (C code, no offsets, no recovery: the floor).
Benchmarks report, they do not gate: the exit code is always 0.

    python bench/server_parser.py [--repeat K] [--lines N]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from evalschema_server.document import JsonDocument, parse, parse_lines

WORDS = [
    "invoice",
    "vendor",
    "total",
    "amount",
    "date",
    "currency",
    "name",
    "city",
    "street",
    "postal",
    "code",
    "line",
    "item",
    "quantity",
    "price",
    "tax",
    "discount",
    "note",
    "reference",
    "contract",
    "party",
    "clause",
    "term",
    "rate",
    "fee",
    "période",
    "société",
    "naïve",
    "résumé",
]
COMPARATORS = ("exact", "levenshtein", "numeric", "date", "normalized", "set")


def _field(rng: random.Random, depth: int) -> dict[str, Any]:
    kind = rng.random()
    desc = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6)))
    if depth < 3 and kind < 0.12:
        return {"type": "object", "description": desc, "properties": _props(rng, depth + 1)}
    if depth < 3 and kind < 0.2:
        return {
            "type": "array",
            "description": desc,
            "x-eval-align": {"match_by": "key_field", "key": "id"},
            "items": {"type": "object", "properties": _props(rng, depth + 1)},
        }
    out: dict[str, Any] = {
        "type": rng.choice(["string", "number", "integer", "boolean"]),
        "description": desc,
        "x-eval-compare": rng.choice(COMPARATORS),
    }
    if kind < 0.35:
        out["enum"] = [rng.choice(WORDS) for _ in range(rng.randint(2, 5))]
    if kind > 0.8:
        out["x-eval-threshold"] = round(rng.random(), 2)
        out["x-eval-weight"] = rng.randint(1, 5)
        out["x-eval-skip"] = False
    return out


def _props(rng: random.Random, depth: int) -> dict[str, Any]:
    return {f"{rng.choice(WORDS)}_{i}": _field(rng, depth) for i in range(rng.randint(3, 8))}


def make_schema(target_lines: int, seed: int = 7) -> str:
    """An indented eval schema of at least ``target_lines`` lines."""
    rng = random.Random(seed)
    props: dict[str, Any] = {}
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "x-eval-id": "id",
        "properties": props,
    }
    i = 0
    text = ""
    while True:
        for _ in range(50):
            props[f"field_{i}"] = _field(rng, 0)
            i += 1
        text = json.dumps(schema, indent=2, ensure_ascii=False)
        if text.count("\n") + 1 >= target_lines:
            return text


def make_jsonl(n_lines: int, seed: int = 11) -> str:
    """``n_lines`` records of ~20 fields (strings, numbers, booleans, null, a nested list)."""
    rng = random.Random(seed)
    out = []
    for r in range(n_lines):
        rec: dict[str, Any] = {"id": f"rec-{r:06d}"}
        for j in range(15):
            pick = rng.random()
            if pick < 0.4:
                rec[f"f{j}"] = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
            elif pick < 0.7:
                rec[f"f{j}"] = round(rng.uniform(-1e4, 1e4), 2)
            elif pick < 0.85:
                rec[f"f{j}"] = rng.randint(0, 10**6)
            elif pick < 0.95:
                rec[f"f{j}"] = rng.random() < 0.5
            else:
                rec[f"f{j}"] = None
        rec["items"] = [
            {"sku": f"S{rng.randint(1, 999)}", "qty": rng.randint(1, 9)} for _ in range(2)
        ]
        out.append(json.dumps(rec, ensure_ascii=False))
    return "\n".join(out) + "\n"


def timeit(fn: Callable[[], object], repeat: int, use_gc: bool = True) -> float:
    """Median seconds of ``repeat`` calls after one warm-up (GC on, as in the server)."""
    fn()
    times = []
    for _ in range(repeat):
        gc.collect()
        if not use_gc:
            gc.disable()
        try:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        finally:
            gc.enable()
    return statistics.median(times)


def time_on_fresh(text: str, fn: Callable[[JsonDocument], object], repeat: int) -> float:
    """Median seconds of ``fn(doc)`` on a freshly parsed document (parse not timed)."""
    times = []
    for _ in range(repeat):
        doc = parse(text)
        gc.collect()
        t0 = time.perf_counter()
        fn(doc)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def report(
    name: str, text: str, ours: Callable[[], object], floor: Callable[[], object], repeat: int
) -> None:
    t = timeit(ours, repeat)
    t_nogc = timeit(ours, repeat, use_gc=False)
    f = timeit(floor, repeat)
    mb = len(text.encode("utf-8")) / 1e6
    print(f"{name}: {text.count(chr(10)):,} lines, {mb:.2f} MB")
    print(
        f"  parse      {t * 1e3:8.1f} ms   {mb / t:6.1f} MB/s   (GC paused: {t_nogc * 1e3:.1f} ms)"
    )
    print(f"  json.loads {f * 1e3:8.1f} ms   {mb / f:6.1f} MB/s   (ratio {t / f:.1f}x)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--lines", type=int, default=20_000, help="schema lines")
    ap.add_argument("--records", type=int, default=10_000, help="JSONL lines")
    args = ap.parse_args(argv)
    print(f"Python {sys.version.split()[0]}, median of {args.repeat} runs")

    schema = make_schema(args.lines)
    doc = parse(schema)
    assert not doc.issues and doc.value() == json.loads(schema)
    report("schema", schema, lambda: parse(schema), lambda: json.loads(schema), args.repeat)
    # Steady state, as in the server: re-parse on every edit keeping only the latest
    # document; the time includes the collections that free the previous trees.
    n = max(args.repeat * 3, 10)
    keep = parse(schema)
    t0 = time.perf_counter()
    for _ in range(n):
        keep = parse(schema)
    per_edit = (time.perf_counter() - t0) / n
    print(f"  per edit, GC included ({n} re-parses)   {per_edit * 1e3:6.1f} ms")
    # What the server does next with a fresh document (all lazy, so each on a new parse).
    extras: dict[str, Callable[[JsonDocument], object]] = {
        "line index + 1 position": lambda d: d.lines.position(len(schema) // 2),
        "pointer index (first node_at_pointer)": lambda d: d.node_at_pointer("/x"),
        "doc.value()": lambda d: d.value(),
    }
    for label, fn in extras.items():
        print(f"  + {label:38s} {time_on_fresh(schema, fn, args.repeat) * 1e3:6.1f} ms")
    del keep

    jsonl = make_jsonl(args.records)
    docs = parse_lines(jsonl)
    assert len(docs) == args.records and all(d is not None and not d.issues for _, d in docs)
    rows = jsonl.splitlines()
    report(
        "jsonl",
        jsonl,
        lambda: parse_lines(jsonl),
        lambda: [json.loads(r) for r in rows],
        args.repeat,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
