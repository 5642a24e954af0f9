"""The LLM judge at scale: a chunk of judged records against a judge with a fixed latency.

A local fake chat-completions server answers every request after ``--latency`` seconds.
One chunk of ``--records`` records with one ``semantic`` field is scored three ways:

- one record at a time (``Evaluator.score``, each record's request waiting for the last:
  how every run judged before judge windows), at concurrency 4;
- as a run scores a chunk (``score_chunk``: the chunk's requests in flight together) at
  concurrency 1, 4 and 16;
- the same chunk again with the verdict cache filled by the run before (no request).

It prints the load average, each wall time and its ratio to one-at-a-time, and the ideal
records x latency / concurrency beside it. Measure ratios within one run: the machine is
shared. Benchmarks report, they do not gate.

    python bench/judge.py [--records 256] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

from evalschema.judge.settings import (  # noqa: E402
    CacheSettings,
    JudgeLimits,
    JudgeProfile,
    JudgeSettings,
)
from evalschema.run.accumulator import RunAccumulator  # noqa: E402
from evalschema.run.pairing import iter_pairs  # noqa: E402
from evalschema.run.parallel import EvalSpec, score_chunk  # noqa: E402

SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"},
    "purpose": {"type": "string", "x-eval-compare": "semantic"}}}


def serve(latency: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            n = len(body["messages"][1]["content"].splitlines())
            time.sleep(latency)
            text = json.dumps({"scores": [1.0] * n})
            data = json.dumps({"choices": [{"message": {"content": text}}]}).encode()
            head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(data)}\r\n\r\n").encode()
            self.wfile.write(head + data)  # one write: no wait for a delayed ACK

        def log_message(self, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=256)
    ap.add_argument("--latency", type=float, default=0.05)
    args = ap.parse_args()
    server = serve(args.latency)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    gold = [{"id": str(i), "purpose": f"working capital {i}"} for i in range(args.records)]
    pairs = list(iter_pairs(gold, gold, "id"))
    print(f"load average {os.getloadavg()[0]:.2f}; {args.records} records, "
          f"latency {args.latency * 1000:.0f} ms")

    def judges(concurrency: int, cache: CacheSettings) -> JudgeSettings:
        return JudgeSettings((JudgeProfile("default", url, "m", "k"),),
                             JudgeLimits(concurrency=concurrency), cache)

    off = CacheSettings(enabled=False)
    evaluator = EvalSpec(SCHEMA, judges=judges(4, off)).evaluator()
    acc = RunAccumulator()
    t = time.perf_counter()
    for pair in pairs:
        evaluator.score(pair, acc)
    base = time.perf_counter() - t
    print(f"{'one record at a time, concurrency 4':44s} {base:7.2f} s  1.00x  "
          f"(ideal {args.records * args.latency:.2f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        for concurrency, cache in [(1, off), (4, off), (16, off),
                                   (16, CacheSettings(str(Path(tmp) / "v.sqlite3"))),
                                   (16, CacheSettings(str(Path(tmp) / "v.sqlite3")))]:
            evaluator = EvalSpec(SCHEMA, judges=judges(concurrency, cache)).evaluator()
            t = time.perf_counter()
            score_chunk(evaluator, pairs, False, 0)
            took = time.perf_counter() - t
            label = f"chunk, concurrency {concurrency}" + (
                "" if not cache.enabled else ", cache")
            print(f"{label:44s} {took:7.2f} s  {took / base:.2f}x  "
                  f"(ideal {args.records * args.latency / concurrency:.2f} s)")
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
