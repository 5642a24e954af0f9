"""The main authoring path in headless Neovim, a second real LSP client."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
NVIM = shutil.which("nvim")

pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (CI installs it: "
                                "apt-get install neovim)")

SCHEMA = """{
  "type": "object",
  "properties": {
    "name": {"type": "string", "x-eval-compare": "levenstein"}
  }
}
"""


def test_unknown_comparator_diagnostic_hover_and_completion(tmp_path: Path) -> None:
    schema = tmp_path / "invoice.eval.json"
    schema.write_text(SCHEMA)
    line = 3
    text = SCHEMA.splitlines()[line]
    start = text.index('"levenstein"')
    env = {**os.environ, "EVALSCHEMA_FILE": str(schema), "EVALSCHEMA_PYTHON": sys.executable,
           "EVALSCHEMA_HOVER_LINE": str(line),
           "EVALSCHEMA_HOVER_COL": str(text.index('"x-eval-compare"') + 3),
           "EVALSCHEMA_COMPLETE_LINE": str(line), "EVALSCHEMA_COMPLETE_COL": str(start + 4),
           "XDG_STATE_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path)}
    assert NVIM is not None
    proc = subprocess.run(
        [NVIM, "--headless", "-n", "-i", "NONE", "--noplugin", "-u",
         str(HERE / "nvim" / "authoring.lua")],
        env=env, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    end = start + len('"levenstein"')
    assert (f"OK diagnostic {line}:{start}-{line}:{end} unknown-comparator unknown comparator "
            "'levenstein'") in out, out
    hover = next(ln for ln in out.splitlines() if ln.startswith("OK hover"))
    assert "**x-eval-compare**" in hover
    completion = next(ln for ln in out.splitlines() if ln.startswith("OK completion"))
    assert "levenshtein" in completion.split(" ", 2)[2].split(",")
