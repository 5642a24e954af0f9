"""Output people can read (issue 13), through the CLI on files in a temporary folder:
the terminal table fits the width (--failing, --top, --all), compare takes eval's form,
one JSON shape ``{"runs": [...]}``, did-you-mean for mistyped options."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from evalschema.cli.main import main
from evalschema.report.layout import fit_line, shorten

#: Long dotted paths whose siblings differ only at the end, and names of CJK characters
#: (two cells each): what a middle cut must keep apart.
GROUPS = 60
LEAVES = ("segment_name", "segment_type", "segment_code", "segment_note", "長い名前の項目")


def _write_suite(folder: Path) -> list[str]:
    """A schema with 300 fields (5 per group), gold and an extraction that gets some wrong.
    Returns the field paths."""
    groups = {
        f"itinerary_section_{g:02d}": {"type": "object", "properties": {
            "flight_segments_detail": {"type": "object", "properties": {
                leaf: {"type": "string"} for leaf in LEAVES}}}}
        for g in range(GROUPS)}
    schema = {"type": "object", "x-eval-id": "id",
              "properties": {"id": {"type": "string"}, **groups}}
    (folder / "s.eval.json").write_text(json.dumps(schema), encoding="utf-8")
    gold, ext = [], []
    for r in range(4):
        g: dict[str, Any] = {"id": f"r{r}"}
        x: dict[str, Any] = {"id": f"r{r}"}
        for k, name in enumerate(groups):
            g[name] = {"flight_segments_detail": {leaf: f"v{r}{k}{leaf}" for leaf in LEAVES}}
            # group k gets (k % 5) records wrong on one leaf: F1 from 1.0 down
            wrong = {LEAVES[k % 5]} if r < k % 5 else set()
            x[name] = {"flight_segments_detail": {
                leaf: ("WRONG" if leaf in wrong else f"v{r}{k}{leaf}") for leaf in LEAVES}}
        gold.append(g)
        ext.append(x)
    for path, rows in (("g.jsonl", gold), ("e.jsonl", ext)):
        (folder / path).write_text("".join(json.dumps(v, ensure_ascii=False) + "\n"
                                           for v in rows), encoding="utf-8")
    return ["id", *(f"{n}.flight_segments_detail.{leaf}" for n in groups for leaf in LEAVES)]


@pytest.fixture
def wide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.chdir(tmp_path)
    return _write_suite(tmp_path)


EVAL = ("eval", "s.eval.json", "--gold", "g.jsonl", "--extracted", "e.jsonl")


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def table_rows(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("field "))
    rows = []
    for ln in lines[start + 2:]:
        if not ln.strip() or ln.startswith("…"):
            break
        rows.append(ln)
    return rows


def names_of(rows: list[str]) -> list[str]:
    return [r.split("  ")[0].rstrip() for r in rows]


def matches_path(shown: str, paths: list[str]) -> list[str]:
    """The paths a (possibly shortened) name can stand for: every part between the
    ``…`` kept, in order, the first at the start and the last at the end."""
    pattern = ".*".join(re.escape(part) for part in shown.split("…"))
    return [p for p in paths if re.fullmatch(pattern, p)]


# -- the terminal table ---------------------------------------------------------------------


@pytest.mark.parametrize("width", [60, 100, 200])
def test_every_line_fits_the_terminal_width(wide: list[str], capsys: Any, width: int,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    for extra in ((), ("--all",), ("--failing",), ("--top", "3"), ("--sort", "f1")):
        code, out, err = run(capsys, *EVAL, *extra)
        assert (code, err) == (0, "")
        too_long = [ln for ln in out.splitlines() if cell_len(ln) > width]
        assert not too_long, (extra, too_long)
        rows = table_rows(out)
        # every row is one line of its own field (nothing wrapped), each shortened name
        # standing for exactly one path: the distinguishing end is kept
        for name in names_of(rows):
            assert len(matches_path(name, wide)) == 1, (width, name)
        if extra == ():  # the hidden line, on one line or several, says how to see all
            assert "see them with --all (or --top 0)" in " ".join(out.split())
        if width < 90:
            assert any("…" in n for n in names_of(rows))  # it had to shorten
        if width == 200:
            assert all("…" not in n for n in names_of(rows))  # and only when it must


def test_without_a_terminal_nothing_is_cut(wide: list[str], capsys: Any) -> None:
    """Standard output to a pipe or a file (no COLUMNS): full paths, as before."""
    code, out, _ = run(capsys, *EVAL, "--all")
    assert code == 0
    assert names_of(table_rows(out)) == wide


def test_the_default_shows_the_worst_40_and_says_how_many_are_hidden(
        wide: list[str], capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    code, out, _ = run(capsys, *EVAL)
    assert code == 0
    rows = table_rows(out)
    assert len(rows) == 40
    f1s = [float(r.split()[1]) for r in rows]
    assert f1s == sorted(f1s) and f1s[0] < 1.0  # worst first when cut
    hidden = out.splitlines()[-1]
    assert hidden == ("… 261 of 301 fields hidden: 261 beyond the 40 worst (--top 40); see "
                      "them with --all (or --top 0)")
    code, everything, _ = run(capsys, *EVAL, "--top", "0")
    assert len(table_rows(everything)) == 301 and "hidden" not in everything
    assert table_rows(everything) == table_rows(run(capsys, *EVAL, "--all")[1])


def test_failing_and_top(wide: list[str], capsys: Any) -> None:
    code, out, _ = run(capsys, *EVAL, "--failing", "--all")
    assert code == 0
    rows = table_rows(out)
    # groups 1..59 with k % 5 != 0 have one leaf below 1.0: 48 fields
    assert len(rows) == 48 and all(float(r.split()[1]) < 1.0 for r in rows)
    assert out.splitlines()[-1] == ("… 253 of 301 fields hidden: 253 at F1 1.000 (--failing); "
                                    "see them without --failing")
    code, out, _ = run(capsys, *EVAL, "--top", "5")
    rows = table_rows(out)
    assert len(rows) == 5
    # the five worst: a leaf wrong in all 4 records (k % 5 == 4): F1 0
    assert all(r.split()[1] == "0.000" for r in rows)
    assert {n.rsplit(".", 1)[1] for n in names_of(rows)} == {LEAVES[4]}
    assert "296 beyond the 5 worst (--top 5)" in out
    # --failing, --top and --all are table options: the JSON keeps every field
    code, out, _ = run(capsys, *EVAL, "--top", "5", "--format", "json", "--no-records")
    assert len(json.loads(out)["runs"][0]["per_field"]) == 301


def test_a_peer_metrics_table_takes_the_same_options(wide: list[str], capsys: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, *EVAL, "--metric", "agenta.json_diff", "--failing", "--top", "3")
    assert code == 0
    rows = table_rows(out)
    assert len(rows) == 3 and all(r.split()[1] == "0.000" for r in rows)
    assert all(len(matches_path(n, wide)) == 1 for n in names_of(rows))
    assert max(cell_len(ln) for ln in out.splitlines()) <= 80
    assert "298 of 301 fields hidden" in out


@pytest.mark.parametrize("fmt", ["markdown", "junit", "html"])
def test_a_peer_metric_refuses_a_report_format_it_cannot_write(wide: list[str], capsys: Any,
                                                              fmt: str) -> None:
    """It wrote its text table instead, so `-o report.html` held no HTML."""
    with pytest.raises(SystemExit) as info:
        run(capsys, *EVAL, "--metric", "agenta.json_diff", "--format", fmt)
    err = capsys.readouterr().err
    assert info.value.code == 2 and "--metric writes --format table or json" in err


def test_bad_top_is_a_usage_error(wide: list[str], capsys: Any) -> None:
    for argv in ((*EVAL, "--top", "-1"), (*EVAL, "--top", "3", "--all")):
        with pytest.raises(SystemExit) as info:
            main(list(argv))
        assert info.value.code == 2
        assert "--top" in capsys.readouterr().err


def test_shorten_keeps_the_start_and_the_distinguishing_end() -> None:
    a = "itinerary.flight_segments[].departure.segment_name"
    b = "itinerary.flight_segments[].departure.segment_type"
    sa, sb = shorten(a, 30), shorten(b, 30)
    assert sa != sb and sa.endswith(".segment_name") and sb.endswith(".segment_type")
    assert sa.startswith("itin") and "…" in sa and cell_len(sa) <= 30
    assert shorten(a, 100) == a
    cjk = "項目" * 20 + ".名前"
    assert cell_len(shorten(cjk, 21)) <= 21 and shorten(cjk, 21).endswith("名前")
    assert all(cell_len(shorten(a, n)) <= n for n in range(0, 60))


def test_fit_line_repacks_at_gaps_and_cuts_what_cannot_fit() -> None:
    line = "  F1 0.8059 (macro)  0.8128 (micro)   precision 0.8253  recall 0.8026"
    assert fit_line(line, 200) == [line]
    got = fit_line(line, 40)
    assert got == ["  F1 0.8059 (macro)  0.8128 (micro)", "  precision 0.8253  recall 0.8026"]
    assert all(cell_len(x) <= 12 for x in fit_line(line, 12))


@pytest.mark.parametrize("width", [70, 120])
def test_the_compare_table_fits_too(wide: list[str], capsys: Any, tmp_path: Path, width: int,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "e2.jsonl").write_text((tmp_path / "g.jsonl").read_text(encoding="utf-8"),
                                       encoding="utf-8")
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = run(capsys, "compare", "s.eval.json", "--gold", "g.jsonl", "--extracted",
                       "e.jsonl", "--extracted", "e2.jsonl", "--resamples", "20")
    assert code == 0
    assert max(cell_len(ln) for ln in out.splitlines()) <= width
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("F1 per field"))
    names = [ln.split("  ")[0] for ln in lines[start + 2:start + 2 + len(wide)]]
    assert all(len(matches_path(n, wide)) == 1 for n in names), names
    monkeypatch.delenv("COLUMNS")
    plain = run(capsys, "compare", "s.eval.json", "--gold", "g.jsonl", "--extracted",
                "e.jsonl", "--extracted", "e2.jsonl", "--resamples", "20")[1]
    assert wide[-1] in plain  # not a terminal: full paths


# -- one JSON shape -------------------------------------------------------------------------


def test_eval_json_is_runs_whatever_the_number_of_runs(wide: list[str], capsys: Any,
                                                       tmp_path: Path) -> None:
    (tmp_path / "e2.jsonl").write_text((tmp_path / "g.jsonl").read_text(encoding="utf-8"),
                                       encoding="utf-8")
    one = json.loads(run(capsys, *EVAL, "--format", "json", "--no-records")[1])
    two = json.loads(run(capsys, *EVAL, "--extracted", "e2.jsonl", "--format", "json",
                         "--no-records")[1])
    assert list(one) == list(two) == ["runs"]
    assert [r["extracted"] for r in one["runs"]] == ["e.jsonl"]
    assert [r["extracted"] for r in two["runs"]] == ["e.jsonl", "e2.jsonl"]
    assert two["runs"][1]["mean_f1"] == 1.0 and two["runs"][0] == one["runs"][0]
    # a peer metric's JSON has the same shape
    metric = json.loads(run(capsys, *EVAL, "--metric", "agenta.json_diff", "--format",
                            "json")[1])
    assert list(metric) == ["runs"] and metric["runs"][0]["extracted"] == "e.jsonl"


def test_jq_reads_the_same_path_for_one_run_and_for_two(wide: list[str], tmp_path: Path
                                                        ) -> None:
    """The script the docs show, run as users run it (a process, its output piped)."""
    import shutil

    if shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    for extra in ((), ("--extracted", "g.jsonl")):
        out = subprocess.run([sys.executable, "-m", "evalschema", *EVAL, *extra, "--format",
                              "json", "--no-records"], capture_output=True, text=True,
                             cwd=tmp_path, timeout=120, check=True).stdout
        got = subprocess.run(["jq", "-r", ".runs[] | \"\\(.extracted) \\(.mean_f1)\""],
                             input=out, capture_output=True, text=True, check=True).stdout
        assert got.splitlines()[0].startswith("e.jsonl 0.9")
        assert len(got.splitlines()) == 1 + len(extra) // 2


# -- compare takes eval's form --------------------------------------------------------------


def test_compare_takes_the_same_form_as_eval(wide: list[str], capsys: Any,
                                             tmp_path: Path) -> None:
    (tmp_path / "e2.jsonl").write_text((tmp_path / "g.jsonl").read_text(encoding="utf-8"),
                                       encoding="utf-8")
    common = ("--format", "json", "--resamples", "50")
    code, out, err = run(capsys, "compare", "s.eval.json", "--gold", "g.jsonl",
                         "--extracted", "e.jsonl", "--extracted", "e2.jsonl", *common)
    assert (code, err) == (0, "")
    new = json.loads(out)
    code, out, _ = run(capsys, "compare", "--schema", "s.eval.json", "--gold", "g.jsonl",
                       "e.jsonl", "e2.jsonl", *common)
    assert code == 0
    assert json.loads(out) == new  # today's form: the same comparison
    assert [r["extracted"] for r in new["runs"]] == ["e.jsonl", "e2.jsonl"]
    assert [r["label"] for r in new["runs"]] == new["labels"]
    assert new["runs"][1]["macro_f1"] == 1.0
    assert new["runs"][0]["macro_f1"] == new["overall"]["macro_f1"]["values"][0]
    # --schema with --extracted works too; RUN files and --extracted together do not
    code, out, _ = run(capsys, "compare", "--schema", "s.eval.json", "--gold", "g.jsonl",
                       "--extracted", "e.jsonl", "--extracted", "e2.jsonl", *common)
    assert code == 0 and json.loads(out) == new
    with pytest.raises(SystemExit) as info:
        main(["compare", "s.eval.json", "e.jsonl", "--gold", "g.jsonl", "--extracted",
              "e2.jsonl"])
    assert info.value.code == 2
    assert "not both" in capsys.readouterr().err


# -- did you mean ---------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "hint"), [
    (["eval", "s.eval.json", "--gold", "g.jsonl", "--extracted", "e.jsonl", "--formt", "json"],
     "did you mean --format?"),
    (["eval", "--failng"], "did you mean --failing?"),
    (["compare", "--resampels", "10"], "did you mean --resamples?"),
    (["check", "--formt=json", "s.eval.json"], "did you mean --format?"),
    (["infer", "g.jsonl", "--id-feild", "id"], "did you mean --id-field?"),
    (["annotate", "s.eval.json", "--in-palce"], "did you mean --in-place?"),
    (["list", "--knd", "comparators"], "did you mean --kind?"),
    (["eval", "--format", "jsn"], "did you mean 'json'?"),
    (["evl"], "did you mean 'eval'?"),
])
def test_a_mistyped_option_gets_did_you_mean(wide: list[str], capsys: Any, argv: list[str],
                                             hint: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert hint in err and "Traceback" not in err
    assert err.startswith("usage: evalschema")


def test_did_you_mean_in_a_process_and_for_serve(wide: list[str], tmp_path: Path) -> None:
    for argv, hint in ((["eval", "--formt", "json"], "did you mean --format?"),
                       (["serve", "--log-fle", "x.log"], "did you mean --log-file?")):
        proc = subprocess.run([sys.executable, "-m", "evalschema", *argv], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert proc.returncode == 2, proc.stderr
        assert hint in proc.stderr and "Traceback" not in proc.stderr
