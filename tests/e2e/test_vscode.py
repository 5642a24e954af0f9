"""The extension in real VS Code: code-server with the built .vsix, driven by Playwright in
Chromium (vscode-extension/e2e/run.mjs). Checks the squiggle and quick fix on a misspelt
comparator, the mismatch diagnostics of an extracted file in the Problems panel, and
"Evaluate suite" from the command palette: the status-bar F1 (against the engine's own figure
for that run, naming the run and its pass/fail) and the results view (the runs side by side,
with Δ and pass/fail badges). model-b's Problems stay under VS Code's 1,000 per file and end
with the server's summary of the findings not shown. Then, trusted: records as tests in the Test
Explorer (a failed record and its expected/actual diff), "Accept extracted value as gold" on each
finding of one record until its test passes, and suspect gold in the gold file. Screenshots go to vscode-extension/e2e/artifacts/.

All of it in a hostile, untrusted workspace (issue 11): it plants ``evalschema_server/`` and
``lsprotocol.py``, workspace settings naming its own interpreter, server arguments and a
comparator module, and a schema whose semantic comparator names a local listener's URL while
OPENAI_API_KEY is set, and another schema that would spend the user's own judge endpoint (a second
listener, EVALSCHEMA_JUDGE_BASE_URL). No planted code runs and neither listener gets a request;
once the folder is trusted, the server restarts, imports the comparator module (and still
nothing else) and asks the user's own endpoint, with the key; the schema's listener never.
Then records as tests (VS Code runs tests in trusted folders only): the Test Explorer lists the
suite, Run All Tests marks a record of model-b failed, and the test peek shows its message with the
expected/actual diff.

Needs the toolchain of vscode-extension/scripts/install-e2e.sh (code-server and its Node) and
Chromium (apt-get install chromium); CI installs both, so this only skips where they are absent.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "vscode-extension"
ARTIFACTS = EXT / "e2e" / "artifacts"
CHROMIUM = os.environ.get("EVALSCHEMA_CHROMIUM", "/usr/bin/chromium")


def _toolchain() -> tuple[dict[str, str], str | None]:
    """The e2e environment, or the reason it cannot run here."""
    env = {k: os.environ[k] for k in ("EVALSCHEMA_CODE_SERVER", "EVALSCHEMA_CODE_SERVER_NODE")
           if os.environ.get(k)}
    if len(env) < 2:
        out = subprocess.run(["bash", str(EXT / "scripts" / "install-e2e.sh"), "--print-env"],
                             capture_output=True, text=True, check=False).stdout
        for name, value in re.findall(r"^export (\w+)=(.*)$", out, re.M):
            env.setdefault(name, value)
    missing = [f"{k}={env.get(k)}" for k in ("EVALSCHEMA_CODE_SERVER",
                                             "EVALSCHEMA_CODE_SERVER_NODE")
               if not env.get(k) or not Path(env[k]).exists()]
    if missing:
        return env, ("code-server is not installed (" + ", ".join(missing) + "); run "
                     "vscode-extension/scripts/install-e2e.sh (CI does)")
    if not Path(CHROMIUM).exists():
        return env, f"Chromium is not installed at {CHROMIUM} (apt-get install chromium; CI does)"
    return env, None


def _ensure_built() -> Path:
    """The .vsix and playwright-core; ./scripts/test builds them first, this covers a lone run."""
    vsix = EXT / "dist" / "evalschema.vsix"
    npm = shutil.which("npm")
    if not (EXT / "node_modules" / "playwright-core").is_dir() or not vsix.exists():
        if npm is None:
            pytest.fail("the extension is not built and npm is not on PATH to build it")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=EXT, check=True)
        env = {**os.environ, "EVALSCHEMA_PYTHON": sys.executable}
        subprocess.run([npm, "run", "package"], cwd=EXT, check=True, env=env)
    return vsix


def _engine_f1(run: str) -> str:
    """The engine's macro F1 of one run of the bundled suite, as the status bar rounds it."""
    from evalschema import evaluate

    ex = ROOT / "examples"
    result = evaluate(str(ex / "invoices.gold.jsonl"), str(ex / f"invoices.{run}.extracted.jsonl"),
                      str(ex / "invoices.eval.json"))
    return f"{result.mean_f1:.3f}"


def _record_to_fix() -> dict[str, str]:
    """The first record of model-b (in its file's order) with one or two findings, each a value
    wrong, missing or invented: accepting each as gold makes it pass. Its id, and each finding's
    path and place (1-based line and UTF-16 column, one character inside the diagnostic the
    server publishes there), for run.mjs."""
    from evalschema import evaluate
    from evalschema.results import FINDINGS, Status
    from evalschema_server.evaluation.findings import extracted_span
    from evalschema_server.evaluation.locate import RecordLocator

    ex = ROOT / "examples"
    run = ex / "invoices.model-b.extracted.jsonl"
    result = evaluate(str(ex / "invoices.gold.jsonl"), str(run), str(ex / "invoices.eval.json"))
    lines = run.read_text(encoding="utf-8").splitlines()
    fixable = {Status.MISMATCH, Status.OMISSION, Status.HALLUCINATION}
    for rec in sorted((r for r in result.records if r.extracted_index is not None
                       and r.gold_index is not None), key=lambda r: r.extracted_index or 0):
        found = [f for f in rec.field_results if f.status in FINDINGS]
        if not (0 < len(found) <= 2 and all(f.status in fixable for f in found)):
            continue
        line = (rec.extracted_index or 0) + 1
        text = lines[line - 1]
        assert f'"{rec.record_id}"' in text, (line, rec.record_id)
        places = []
        for f in found:
            start, _ = extracted_span(f, text, RecordLocator())
            column = len(text[:start].encode("utf-16-le")) // 2 + 2
            places.append(f"{line}:{column}:{f.path}")
        return {"EVALSCHEMA_E2E_FIX_RECORD": str(rec.record_id),
                "EVALSCHEMA_E2E_FIX_PLACES": ";".join(places)}
    raise AssertionError("model-b has no record with one or two findings to accept")


def test_vscode_end_to_end(tmp_path: Path) -> None:
    env, reason = _toolchain()
    if reason:
        print(f"SKIP: {reason}")
        pytest.skip(reason)
    vsix = _ensure_built()
    node = shutil.which("node")
    assert node is not None, "node is not on PATH"
    run_env = {**os.environ, **env, "EVALSCHEMA_VSIX": str(vsix),
               "EVALSCHEMA_PYTHON": sys.executable, "EVALSCHEMA_CHROMIUM": CHROMIUM,
               "EVALSCHEMA_E2E_ARTIFACTS": str(ARTIFACTS), "EVALSCHEMA_E2E_TMP": str(tmp_path),
               **_record_to_fix()}
    started = time.monotonic()
    proc = subprocess.run([node, str(EXT / "e2e" / "run.mjs")], cwd=EXT, env=run_env,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    out = proc.stdout + proc.stderr
    print(out)
    print(f"e2e took {time.monotonic() - started:.1f}s")
    assert proc.returncode == 0, out
    lines = out.splitlines()

    def ok(prefix: str) -> str:
        found = [ln for ln in lines if ln.startswith("OK " + prefix)]
        assert found, f"no 'OK {prefix}' line in:\n{out}"
        return found[0]

    # 1. The misspelt comparator: message with the suggestion, quick fix offered and applied.
    assert "unknown comparator 'numerc' (did you mean 'numeric'?)" in ok("squiggle and message")
    assert "Change to 'numeric'" in ok("quick fix offered")
    ok("quick fix applied, squiggle gone")
    # 2. The extracted file's findings in the Problems panel, from the server (source evalschema).
    problems = [ln for ln in lines if ln.startswith("OK problem: ")]
    assert any(" evalschema mismatch " in p for p in problems), problems
    assert re.search(r"≠ gold", "\n".join(problems)), problems
    ok("hover in invoices.model-b.extracted.jsonl")
    # Under VS Code's limit, with the server's summary and never VS Code's own note.
    summary = ok("summary of findings not shown")
    assert re.search(r"\(\d+ problems\): .*more findings in [\d,]+ records \(INV-", summary), summary
    ok("no 'Not showing' row from VS Code")
    # 3. Evaluate suite: the status bar shows model-b's F1 (the active file's run), as computed
    # by the engine itself, and the results view agrees and lists both runs.
    expected = _engine_f1("model-b")
    assert ok("status bar F1").split()[4] == expected, (ok("status bar F1"), expected)
    assert f"(invoices · model-b F1 {expected} ✗ < 0.85)" in ok("status bar F1")
    side = ok("side by side")
    assert "Field | model-a | model-b | Δ model-b" in side, side
    assert f"model-a {_engine_f1('model-a')} ✓; model-b {expected} ✗ < 0.85" in side, side
    assert f"F1 {expected} macro" in ok("results view invoices.model-b.extracted.jsonl")
    # model-a and model-b, and the planted suites' runs: "spend", and "leak", whose schema names a
    # judge endpoint (refused: that field is an error, the rest of the schema is scored)
    runs = ok("results view: 4 run(s)")
    assert "model-a" in runs and "model-b" in runs
    ok("sorting by F1 toggles to best first")
    assert re.search(r"listed its findings: INV-\d{4}-\d{5} · ", ok("clicking")), ok("clicking")
    assert re.search(r"records? · \d+ (mismatch|omission|hallucination)", ok("findings view: "))
    assert re.search(r"compare view: \d+ fields, first \S+ −", ok("compare view")), ok("compare view")
    # 4-5. Workspace trust: nothing planted ran untrusted; trusted, only the named module.
    ok("untrusted workspace: no planted code ran")
    ok("untrusted workspace: the user's own judge endpoint was not asked")
    ok("trusted workspace: the server restarted and imported workspace_cmp.py, and nothing else")
    ok("trusted workspace: the judge asked the user's own endpoint, with the key")
    ok("judge listener named by a schema got no request")
    # 6. Records as tests: the suite listed, Run All Tests, a failed record of model-b and the
    # expected/actual diff of its first message in the test peek.
    ok("test explorer lists the suite invoices")
    assert re.search(r"failed record of model-b: INV-\d{4}-\d{5}$", ok("test explorer: failed")), \
        ok("test explorer: failed")
    assert re.search(r"(≠ gold|missing|invented)", ok("test peek with the expected/actual diff"))
    # 7. Accept extracted value as gold on each finding of one record, save: its test passes.
    fix = _record_to_fix()
    record, places = fix["EVALSCHEMA_E2E_FIX_RECORD"], fix["EVALSCHEMA_E2E_FIX_PLACES"].split(";")
    accepted = [ln for ln in lines if ln.startswith(f"OK quick fix on {record} ")]
    assert len(accepted) == len(places), accepted
    assert all(": Accept extracted value as gold: " in ln for ln in accepted), accepted
    ok(f"record {record} of model-b passes once its gold is accepted and saved")
    # 8. Suspect gold in the gold file, where both runs agree against it.
    assert re.search(r"2 of 2 runs say .+; gold (says|has no value)", ok("suspect gold in the gold file"))
    # 9. A comparator typo typed and saved: the schema's error; the data file keeps its other
    # findings, and the field with the typo is an error there.
    assert ("unknown comparator 'normalzed' (did you mean 'normalized'?) evalschema "
            "unknown-comparator") in ok("typo in the schema")
    assert re.search(r"INV-\d{4}-\d{5} · vendor\.vat_id: schema error: unknown comparator "
                     r"'normalzed' \(did you mean 'normalized'\?\) evalschema error",
                     ok("the field with the typo is an error")), ok("the field with the typo")
    assert re.search(r"INV-\d{4}-\d{5} · \S+: .+ ≠ gold .+ evalschema mismatch",
                     ok("other findings of invoices.model-b.extracted.jsonl stay"))
    for name in ("1-diagnostic.png", "1-quick-fix.png", "2-extracted-problems.png",
                 "2-problems-summary.png",
                 "2-extracted-hover.png", "3-results.png", "3-field-findings.png",
                 "3-worst-example.png", "3-findings-view.png", "3-compare.png",
                 "5-trusted.png", "6-test-explorer.png", "7-accept-as-gold.png",
                 "7-record-passes.png", "8-suspect-gold.png", "9-schema-typo.png",
                 "9-other-findings.png"):
        shot = ARTIFACTS / name
        assert shot.exists() and shot.stat().st_size > 10_000, shot
