"""The evaluation save path in headless Neovim: a wrong value typed into an extracted run and
saved gets its mismatch diagnostic, on exactly that value."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).parent
NVIM = shutil.which("nvim")

pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (CI installs it: "
                                "apt-get install neovim)")


def _eval_workspace() -> ModuleType:
    """tests/server/eval_workspace.py, the suite writer (not importable from here by name)."""
    path = HERE.parent / "server" / "eval_workspace.py"
    spec = importlib.util.spec_from_file_location("_e2e_eval_workspace", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_nvim(script: str, tmp_path: Path, folder: Path, env: dict[str, str]) -> str:
    """Runs ``nvim/<script>`` in headless Neovim in ``folder`` (its state under
    ``tmp_path``); its output, once it succeeded and printed no FAIL line."""
    assert NVIM is not None
    proc = subprocess.run(
        [NVIM, "--headless", "-n", "-i", "NONE", "--noplugin", "-u", str(HERE / "nvim" / script)],
        env={**os.environ, "EVALSCHEMA_PYTHON": sys.executable, **env,
             "XDG_STATE_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path),
             "XDG_CONFIG_HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)},
        capture_output=True, text=True, encoding="utf-8", errors="replace",
        timeout=120, stdin=subprocess.DEVNULL, cwd=folder)
    out = proc.stdout + proc.stderr
    print(out)
    assert proc.returncode == 0, out
    assert "FAIL" not in out, out
    return out


def test_saved_wrong_value_gets_a_mismatch_on_the_value(tmp_path: Path) -> None:
    ws = _eval_workspace()
    folder = tmp_path / "suite"
    files = ws.write_suite(folder)
    extracted: Path = files["extracted"]
    wrong = ws.EXTRACTED_LINES[0]
    assert wrong.count("13.9") == 1 and "12.5" not in wrong
    # Start with the first record right; the test makes it wrong in the editor and saves.
    lines = [wrong.replace("13.9", "12.5"), *ws.EXTRACTED_LINES[1:]]
    extracted.write_text("\n".join(lines) + "\n", encoding="utf-8")

    # Neovim reports byte columns (converted from the server's UTF-16 positions): the accents
    # and the emoji before the price make them differ from the character and UTF-16 columns.
    start = len(wrong[:wrong.index("13.9")].encode("utf-8"))
    end = start + len(b"13.9")
    assert start != wrong.index("13.9")
    out = run_nvim("evaluation.lua", tmp_path, folder, {
        "EVALSCHEMA_FILE": str(extracted), "EVALSCHEMA_EXPECT_COL": str(start),
        "EVALSCHEMA_EXPECT_END_COL": str(end)})

    before = [ln for ln in out.splitlines() if ln.startswith("OK before ")]
    assert before and not any(ln.startswith("OK before 0:") for ln in before
                              if " mismatch " in ln), out
    line0 = next(ln for ln in out.splitlines() if ln.startswith("OK line0 "))
    assert line0.startswith(f"OK line0 0:{start}-0:{end} mismatch a · price: 13.9 "), line0
    assert "gold 12.5" in line0, line0
    # The save went to disk, so the file now holds the wrong price.
    assert extracted.read_text(encoding="utf-8").splitlines()[0] == wrong


def test_accept_extracted_value_as_gold_edits_the_gold_value(tmp_path: Path) -> None:
    ws = _eval_workspace()
    folder = tmp_path / "suite"
    files = ws.write_suite(folder)
    gold: Path = files["gold"]
    before = gold.read_text(encoding="utf-8").splitlines()
    assert before[0].count("12.5") == 1
    out = run_nvim("goldfix.lua", tmp_path, folder, {
        "EVALSCHEMA_FILE": str(files["extracted"]), "EVALSCHEMA_GOLD": str(gold)})
    line0 = ws.EXTRACTED_LINES[0]
    col = len(line0[:line0.index("13.9")].encode("utf-16-le")) // 2
    assert f"OK utf16 {col}-{col + 4}\n" in out, out
    expected = [before[0].replace('"price": 12.5', '"price": 13.9'), *before[1:]]
    # The buffer changed exactly at the value (Neovim applied the UTF-16 range after the
    # accents and the emoji), and the saved file is that buffer.
    assert f"OK gold0 {expected[0]}\n" in out, out
    assert f"OK gold lines {len(before)}\n" in out, out
    assert "OK mismatch gone" in out, out
    assert gold.read_text(encoding="utf-8").splitlines() == expected
