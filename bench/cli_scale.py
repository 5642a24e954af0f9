"""CLI at scale: streaming memory on a ~1 GB pair of JSONL files, and worker speed-up.

Part 1 writes a gold and an extracted JSONL file of realistic invoices (together ~1 GB
by default) into a temporary folder, by cycling through the bundled example suite
(240 gold invoices and their model-b extractions, with their real errors) under new
ids, the extracted file in a different order than the gold one, so records pair by id
through the extracted file's offset index. It then runs

    evalschema eval SCHEMA --gold G --extracted E --format json --no-records

as a child process and reads the child's peak resident memory (``ru_maxrss`` from
``os.wait4``). Target: < 500 MB.

Part 2 scores a 100,000-record pair with ``--workers 1`` and ``--workers 2``, each
``--repeat`` times (best run counts: other processes on the machine only ever slow a
run down), and compares wall times. Target: workers 2 <= 0.65 x workers 1 (on a
2-core machine), and both print the same JSON.

    python bench/cli_scale.py [--gb 1.0] [--records 100000] [--quick] [--keep DIR]

Benchmarks report, they do not gate: the exit code is 0 unless a run fails.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCHEMA = EXAMPLES / "invoices.eval.json"
GOLD = EXAMPLES / "invoices.gold.jsonl"
EXTRACTED = EXAMPLES / "invoices.model-b.extracted.jsonl"
ID = "invoice_id"
PLACEHOLDER = "\u0000ID\u0000"

RSS_TARGET_MB = 500.0
RATIO_TARGET = 0.65
BLOCK = 1000


def _templates() -> tuple[list[str], dict[str, str]]:
    """Gold records and extracted records (by gold id) as JSON text with a placeholder
    where the id goes, so writing a record is one string replace."""
    gold = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    gold_t = []
    for g in gold:
        g = dict(g)
        g[ID] = PLACEHOLDER
        gold_t.append(json.dumps(g, ensure_ascii=False))
    ext_t: dict[str, str] = {}
    for line in EXTRACTED.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            e = json.loads(line)
        except ValueError:
            continue  # an unreadable line: it pairs with nothing
        if isinstance(e, dict) and isinstance(e.get(ID), str):
            rid = e[ID]
            e[ID] = PLACEHOLDER
            ext_t.setdefault(rid, json.dumps(e, ensure_ascii=False))
    ids = [g[ID] for g in gold]
    return gold_t, {str(i): ext_t[rid] for i, rid in enumerate(ids) if rid in ext_t}


def _quoted(text: str, rid: str) -> str:
    return text.replace(json.dumps(PLACEHOLDER), json.dumps(rid))


def write_pair(folder: Path, *, records: int | None = None, target_bytes: int | None = None
               ) -> tuple[Path, Path, int, float]:
    """Write gold.jsonl and extracted.jsonl; stop at ``records`` or when the pair
    reaches ``target_bytes``. The extracted file holds each block of 1,000 records in
    reverse order (and misses the records model-b missed)."""
    gold_t, ext_t = _templates()
    n_pool = len(gold_t)
    gold_path, ext_path = folder / "gold.jsonl", folder / "extracted.jsonl"
    started = time.perf_counter()
    size = n = 0
    with gold_path.open("w", encoding="utf-8") as gf, ext_path.open("w", encoding="utf-8") as ef:
        while (records is None or n < records) and (target_bytes is None or size < target_bytes):
            stop = n + BLOCK if records is None else min(n + BLOCK, records)
            g_lines, e_lines = [], []
            for i in range(n, stop):
                rid = f"INV-{i:09d}"
                g_lines.append(_quoted(gold_t[i % n_pool], rid))
                e = ext_t.get(str(i % n_pool))
                if e is not None:
                    e_lines.append(_quoted(e, rid))
            g_text = "\n".join(g_lines) + "\n"
            e_text = "\n".join(reversed(e_lines)) + "\n"
            gf.write(g_text)
            ef.write(e_text)
            size += len(g_text.encode()) + len(e_text.encode())
            n = stop
    return gold_path, ext_path, n, time.perf_counter() - started


def run_eval(gold: Path, extracted: Path, *, workers: int) -> tuple[float, float, dict[str, Any]]:
    """(wall seconds, peak RSS in MB of the process tree's largest process, JSON)."""
    cmd = [sys.executable, "-m", "evalschema", "eval", str(SCHEMA), "--gold", str(gold),
           "--extracted", str(extracted), "--format", "json", "--no-records",
           "--workers", str(workers)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"evalschema failed ({proc.returncode}): "
                             f"{err.read().decode(errors='replace')[-2000:]}")
        (doc,) = json.loads(out.read())["runs"]
    return wall, usage.ru_maxrss / 1024.0, doc


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gb", type=float, default=1.0, help="size of the pair in GB (part 1)")
    ap.add_argument("--records", type=int, default=100_000, help="records in part 2")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes (a smoke test: ~4 MB, 2,000 records)")
    ap.add_argument("--keep", metavar="DIR", help="write the data here and keep it")
    ap.add_argument("--skip-memory", action="store_true", help="skip part 1")
    ap.add_argument("--skip-workers", action="store_true", help="skip part 2")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per worker count in part 2; the best counts (default 3)")
    args = ap.parse_args(argv)
    gb = 0.004 if args.quick else args.gb
    n_records = 2000 if args.quick else args.records
    print(f"evalschema CLI scale benchmark · Python {platform.python_version()} · "
          f"{os.cpu_count()} CPUs · {platform.machine()}")
    results: dict[str, bool] = {}
    with tempfile.TemporaryDirectory(prefix="evalschema-scale-") as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if not args.skip_memory:
            part = folder / "memory"
            part.mkdir(exist_ok=True)
            gold, ext, n, gen = write_pair(part, target_bytes=int(gb * 1e9))
            size = gold.stat().st_size + ext.stat().st_size
            print(f"\n1. memory: {n:,} gold records, pair {size / 1e9:.2f} GB "
                  f"(gold {gold.stat().st_size / 1e6:,.0f} MB + extracted "
                  f"{ext.stat().st_size / 1e6:,.0f} MB), written in {gen:.1f} s")
            wall, rss, doc = run_eval(gold, ext, workers=1)
            ok = rss < RSS_TARGET_MB
            results["memory"] = ok
            print(f"   eval --format json --no-records: {wall:.1f} s "
                  f"({doc['total_records'] / wall:,.0f} records/s), macro F1 "
                  f"{doc['mean_f1']:.4f}")
            print(f"   peak RSS {rss:,.0f} MB (target < {RSS_TARGET_MB:.0f} MB): "
                  f"{_verdict(ok)}")
            for f in (gold, ext):
                f.unlink()
        if not args.skip_workers:
            part = folder / "workers"
            part.mkdir(exist_ok=True)
            gold, ext, n, gen = write_pair(part, records=n_records)
            print(f"\n2. workers: {n:,} records ({(gold.stat().st_size + ext.stat().st_size) / 1e6:,.0f}"
                  f" MB pair)")
            repeat = 1 if args.quick else max(1, args.repeat)
            print(f"   load average before: {os.getloadavg()[0]:.2f} (other processes on the "
                  f"machine slow runs down; the best of {repeat} counts)")
            times: dict[int, list[float]] = {1: [], 2: []}
            docs: dict[int, dict[str, Any]] = {}
            rss: dict[int, float] = {}
            for _ in range(repeat):
                for w in (1, 2):
                    wall, peak, doc = run_eval(gold, ext, workers=w)
                    times[w].append(wall)
                    docs[w] = doc
                    rss[w] = max(rss.get(w, 0.0), peak)
            w1, w2 = min(times[1]), min(times[2])
            ratio = w2 / w1
            same = docs[1] == docs[2]
            ok = ratio <= RATIO_TARGET and same
            if not args.quick:
                results["workers"] = ok
            for w, best in ((1, w1), (2, w2)):
                runs = ", ".join(f"{t:.2f}" for t in times[w])
                print(f"   --workers {w}: best {best:.2f} s ({n / best:,.0f} records/s; runs "
                      f"{runs} s; peak RSS {rss[w]:,.0f} MB{' per process' if w > 1 else ''})")
            print(f"   identical JSON: {same}")
            print(f"   ratio {ratio:.3f} (target <= {RATIO_TARGET}): {_verdict(ok)}"
                  + (" (quick mode: too small to judge)" if args.quick else ""))
    print("\nsummary: " + ", ".join(f"{k} {_verdict(v)}" for k, v in results.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
