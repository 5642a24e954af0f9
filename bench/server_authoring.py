"""Language server authoring latency on a 20,000-line eval schema, through a real LSP client.

Targets (issue: language server part 1):
- completion answers within 50 ms at the 95th percentile, right after an edit;
- diagnostics are republished within 200 ms of an edit (the default 40 ms debounce
  included: the time a user waits).

Runs the server as a subprocess over stdio (``python -m evalschema_server``), drives it
with pygls's client, and measures wall time per request. Prints figures, PASS/FAIL per
target; always exits 0 (benchmarks report, they do not gate).

    python bench/server_authoring.py [--lines 20000] [--requests 60] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

URI = "file:///tmp/bench/big.eval.json"


def big_schema(lines: int) -> str:
    """A realistic schema: many objects of annotated leaves, pretty-printed to ``lines``."""
    props: dict[str, Any] = {}
    i = 0
    kinds = [
        {"type": "string", "x-eval-compare": {"levenshtein": {"threshold": 0.9}}},
        {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
        {"type": "string", "x-eval-compare": "date"},
        {"type": "string", "x-eval-transform": ["strip", "casefold"]},
        {"type": "boolean"},
    ]
    while True:
        group = {f"field_{i}_{k}": kinds[k % len(kinds)] for k in range(8)}
        props[f"section_{i}"] = {"type": "object", "description": f"Section {i}.",
                                 "properties": group}
        i += 1
        text = json.dumps({"type": "object", "properties": props}, indent=2)
        if text.count("\n") >= lines:
            return text


async def run(lines: int, requests: int) -> dict[str, float]:
    text = big_schema(lines)
    client = LanguageClient("bench", "1")
    diagnostics: asyncio.Queue[float] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        diagnostics.put_nowait(time.perf_counter())

    await client.start_io(sys.executable, "-P", "-m", "evalschema_server")
    caps = types.ClientCapabilities(text_document=types.TextDocumentClientCapabilities(
        completion=types.CompletionClientCapabilities(
            completion_item=types.ClientCompletionItemOptions(snippet_support=True))))
    await client.initialize_async(types.InitializeParams(capabilities=caps))
    client.initialized(types.InitializedParams())
    t0 = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(URI, "json", 1, text)))
    opened = await diagnostics.get()
    first = (opened - t0) * 1000

    src_lines = text.split("\n")
    targets = [n for n, ln in enumerate(src_lines) if '"x-eval-compare": "date"' in ln]
    step = max(1, len(targets) // requests)
    targets = targets[::step][:requests]
    complete_ms: list[float] = []
    diag_ms: list[float] = []
    version = 1
    for n in targets:
        line = src_lines[n]
        col = line.index('"date"') + 1
        # An edit: retype the comparator name, then ask for completion at once.
        version += 1
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=URI, version=version),
            [types.TextDocumentContentChangePartial(
                types.Range(types.Position(n, col), types.Position(n, col + 4)), "dat")]))
        t = time.perf_counter()
        await client.text_document_completion_async(types.CompletionParams(
            types.TextDocumentIdentifier(URI), types.Position(n, col + 3)))
        complete_ms.append((time.perf_counter() - t) * 1000)
        published = await diagnostics.get()
        diag_ms.append((published - sent) * 1000)
        version += 1
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=URI, version=version),
            [types.TextDocumentContentChangePartial(
                types.Range(types.Position(n, col), types.Position(n, col + 3)), "date")]))
        await diagnostics.get()
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "lines": text.count("\n") + 1, "bytes": len(text.encode()), "open_ms": first,
        "complete_p50": statistics.median(complete_ms),
        "complete_p95": statistics.quantiles(complete_ms, n=20)[18],
        "diag_p50": statistics.median(diag_ms),
        "diag_p95": statistics.quantiles(diag_ms, n=20)[18],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--requests", type=int, default=60)
    ap.add_argument("--quick", action="store_true", help="2,000 lines, 10 requests")
    args = ap.parse_args(argv)
    if args.quick:
        args.lines, args.requests = 2_000, 10
    r = asyncio.run(run(args.lines, args.requests))
    print(f"schema: {r['lines']:,.0f} lines, {r['bytes'] / 1e6:.2f} MB; first diagnostics "
          f"{r['open_ms']:.0f} ms after open")
    print(f"completion right after an edit: p50 {r['complete_p50']:.1f} ms, "
          f"p95 {r['complete_p95']:.1f} ms")
    print(f"diagnostics after an edit:      p50 {r['diag_p50']:.1f} ms, "
          f"p95 {r['diag_p95']:.1f} ms")
    for name, value, target in (("completion p95", r["complete_p95"], 50.0),
                                ("re-diagnose p95", r["diag_p95"], 200.0)):
        verdict = "PASS" if value <= target else "FAIL"
        print(f"TARGET {name} <= {target:.0f} ms: measured {value:.1f} ms {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
