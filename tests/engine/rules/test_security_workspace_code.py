"""No code from the workspace unless the user trusts it (issue 11): the command line.

Each test plants Python files that write a marker file when imported, in the folder a run
starts from (beside evalschema.toml), and checks the marker stays absent unless the user
opted in: ``--trust-workspace`` for modules a configuration names, ``--comparator-module``
for a module the user names. Runs go through the installed ``evalschema`` console script in
a fresh process, as a user runs it (an in-process run would find ``html``/``xml`` imported).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evalschema.errors import InputError
from evalschema.rules.custom_modules import is_path_entry, load_module, private_name, resolve_entry
from evalschema.run.parallel import EvalSpec, evaluate_files

CLI = str(Path(sys.executable).with_name("evalschema"))
SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"},
    "name": {"type": "string", "x-eval-compare": "casefree_sec"}}}
PLAIN_SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"}, "name": {"type": "string"}}}
CMP_MODULE = """\
from pathlib import Path
Path({marker!r}).write_text("imported")
from evalschema import register_comparator
register_comparator("casefree_sec", lambda g, e, p: float(str(g).lower() == str(e).lower()),
                    overwrite=True, doc="Equal ignoring case.", types=["string"])
"""


def marker_code(marker: Path) -> str:
    return f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n"


def write_suite(folder: Path, *, schema: dict[str, object] = PLAIN_SCHEMA,
                modules: list[str] | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "s.eval.json").write_text(json.dumps(schema), encoding="utf-8")
    gold = [{"id": f"r{i}", "name": f"Name {i}"} for i in range(3)]
    (folder / "s.gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gold))
    ext = [{"id": f"r{i}", "name": f"name {i}"} for i in range(3)]
    (folder / "s.run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ext))
    lines = ['[[suite]]', 'name = "s"', 'schema = "s.eval.json"', 'gold = "s.gold.jsonl"',
             'extracted = "s.run.jsonl"']
    if modules is not None:
        lines.append("comparator_modules = " + json.dumps(modules))
    (folder / "evalschema.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], cwd=folder, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize(("fmt", "planted"), [("html", "html.py"), ("junit", "xml/__init__.py"),
                                              ("markdown", "html.py")])
def test_stdlib_names_beside_the_config_are_not_imported(tmp_path: Path, fmt: str,
                                                         planted: str) -> None:
    ws = tmp_path / "ws"
    write_suite(ws)
    marker = tmp_path / "pwned"
    (ws / planted).parent.mkdir(parents=True, exist_ok=True)
    (ws / planted).write_text(marker_code(marker), encoding="utf-8")
    proc = cli(ws, "eval", "--format", fmt, "-o", str(tmp_path / f"report.{fmt}"))
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), f"{planted} beside evalschema.toml ran on --format {fmt}"
    assert (tmp_path / f"report.{fmt}").stat().st_size > 100


def test_config_modules_need_trust_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    marker = tmp_path / "imported"
    write_suite(ws, schema=SCHEMA, modules=["my_cmp.py"])
    (ws / "my_cmp.py").write_text(CMP_MODULE.format(marker=str(marker)), encoding="utf-8")
    proc = cli(ws, "eval", "--format", "json", "--no-records")
    assert not marker.exists()
    assert proc.returncode == 2  # the schema's comparator is then unknown: located, exit 2
    assert ("evalschema.toml:6:1#/suite/0/comparator_modules: warning "
            "comparator-modules-untrusted: comparator modules not imported (my_cmp.py)"
            in proc.stderr), proc.stderr
    assert "--trust-workspace" in proc.stderr
    assert "unknown comparator 'casefree_sec'" in proc.stderr
    assert "Traceback" not in proc.stderr

    proc = cli(ws, "eval", "--format", "json", "--no-records", "--trust-workspace")
    assert proc.returncode == 0, proc.stderr
    assert marker.read_text() == "imported"
    assert json.loads(proc.stdout)["runs"][0]["per_field"]["name"]["matches"] == 3
    assert "comparator-modules-untrusted" not in proc.stderr


def test_untrusted_modules_only_warn_when_the_schema_does_not_need_them(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    marker = tmp_path / "imported"
    write_suite(ws, modules=["my_cmp.py"])
    (ws / "my_cmp.py").write_text(marker_code(marker), encoding="utf-8")
    proc = cli(ws, "eval", "--format", "json", "--no-records")
    assert proc.returncode == 0, proc.stderr
    assert "comparator-modules-untrusted" in proc.stderr
    assert not marker.exists()
    assert json.loads(proc.stdout)["runs"][0]["per_field"]["name"]["mismatches"] == 3


def test_trusted_modules_do_not_put_their_folder_on_sys_path(tmp_path: Path) -> None:
    """Trusting the module the configuration names trusts that file, not every name in its
    folder: an ``html.py`` beside it still does not replace the standard library's."""
    ws = tmp_path / "ws"
    marker = tmp_path / "imported"
    pwned = tmp_path / "pwned"
    write_suite(ws, schema=SCHEMA, modules=["cmp/my_cmp.py"])
    (ws / "cmp").mkdir()
    (ws / "cmp" / "my_cmp.py").write_text(CMP_MODULE.format(marker=str(marker)),
                                          encoding="utf-8")
    (ws / "cmp" / "html.py").write_text(marker_code(pwned), encoding="utf-8")
    proc = cli(ws, "eval", "--trust-workspace", "--format", "html", "-o",
               str(tmp_path / "report.html"))
    assert proc.returncode == 0, proc.stderr
    assert marker.read_text() == "imported"
    assert not pwned.exists(), "html.py beside a trusted comparator module ran"
    assert (tmp_path / "report.html").stat().st_size > 100


def test_a_dotted_name_never_imports_from_the_config_folder(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    marker = tmp_path / "imported"
    write_suite(ws, modules=["my_cmp"])
    (ws / "my_cmp.py").write_text(marker_code(marker), encoding="utf-8")
    proc = cli(ws, "eval", "--trust-workspace")
    assert proc.returncode == 2
    assert not marker.exists()
    assert ("evalschema.toml:6:1#/suite/0/comparator_modules/0: error module-import-failed: "
            "cannot import 'my_cmp': ModuleNotFoundError" in proc.stderr), proc.stderr
    assert "name it by its path: 'my_cmp.py'" in proc.stderr


def test_comparator_module_flag_is_the_users_opt_in(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    marker = tmp_path / "imported"
    write_suite(ws, schema=SCHEMA)
    (ws / "my_cmp.py").write_text(CMP_MODULE.format(marker=str(marker)), encoding="utf-8")
    # A dotted name is looked up in the installed environment, not the current folder.
    proc = cli(ws, "eval", "--comparator-module", "my_cmp")
    assert proc.returncode == 2 and not marker.exists()
    assert "--comparator-module: error module-import-failed" in proc.stderr, proc.stderr
    assert "'my_cmp.py'" in proc.stderr
    # A path is the user naming that file: imported.
    proc = cli(ws, "eval", "--comparator-module", "./my_cmp.py", "--format", "json",
               "--no-records", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    assert marker.exists()
    assert json.loads(proc.stdout)["runs"][0]["per_field"]["name"]["matches"] == 3


def test_list_with_config_needs_trust_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    marker = tmp_path / "imported"
    write_suite(ws, modules=["my_cmp.py"])
    (ws / "my_cmp.py").write_text(CMP_MODULE.format(marker=str(marker)), encoding="utf-8")
    proc = cli(ws, "list", "--config", "evalschema.toml", "--kind", "comparators")
    assert proc.returncode == 0 and not marker.exists()
    assert "comparator-modules-untrusted" in proc.stderr
    assert "casefree_sec" not in proc.stdout
    proc = cli(ws, "list", "--config", "evalschema.toml", "--kind", "comparators",
               "--trust-workspace")
    assert proc.returncode == 0 and marker.exists()
    assert "  casefree_sec  [custom]" in proc.stdout.splitlines()


def test_spawned_workers_do_not_import_from_the_current_folder(tmp_path: Path) -> None:
    """``python -c`` (how spawned workers start) puts the current folder first on sys.path
    before importing ``multiprocessing``."""
    ws = tmp_path / "ws"
    write_suite(ws)
    marker = tmp_path / "pwned"
    (ws / "multiprocessing").mkdir()
    (ws / "multiprocessing" / "__init__.py").write_text(marker_code(marker), encoding="utf-8")
    script = tmp_path / "drive.py"
    script.write_text(textwrap.dedent("""\
        import json, sys
        from evalschema.run.parallel import EvalSpec, evaluate_files
        if __name__ == "__main__":
            spec = EvalSpec(json.load(open("s.eval.json")))
            out = evaluate_files(spec, "s.gold.jsonl", "s.run.jsonl", workers=2,
                                 chunk_size=1, start="spawn")
            print(out.run.per_field["name"].counts.mismatches)
        """), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], cwd=ws, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "3"
    assert not marker.exists(), "a spawned worker imported multiprocessing/ from the run's folder"


def test_entries_and_loading_by_path(tmp_path: Path) -> None:
    assert not is_path_entry("pkg.comparators")
    assert is_path_entry("my_cmp.py") and is_path_entry("./pkg") and is_path_entry("a\\b")
    assert resolve_entry("pkg.mod", tmp_path) == "pkg.mod"
    assert resolve_entry("sub/m.py", tmp_path) == str(tmp_path / "sub" / "m.py")
    # A file named like a standard module is loaded under a private name: no shadowing.
    (tmp_path / "json.py").write_text("VALUE = 7\n", encoding="utf-8")
    path_before = list(sys.path)
    mod = load_module(str(tmp_path / "json.py"))
    assert mod.VALUE == 7 and mod.__name__ == private_name(tmp_path / "json.py")
    assert sys.modules["json"] is json and load_module(str(tmp_path / "json.py")) is mod
    # A package folder, with a relative import inside it.
    pkg = tmp_path / "cmp_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .helpers import TWICE\n", encoding="utf-8")
    (pkg / "helpers.py").write_text("TWICE = 2\n", encoding="utf-8")
    assert load_module(str(pkg)).TWICE == 2
    assert sys.path == path_before  # no folder was put on it
    with pytest.raises(ModuleNotFoundError):
        load_module(str(tmp_path / "missing.py"))
    with pytest.raises(InputError) as info:
        evaluate_files(EvalSpec({"type": "object"}, modules=(str(tmp_path / "missing.py"),)),
                       [], [])
    assert info.value.problems[0].code == "module-import-failed"
