"""The pytest plugin inside real pytest runs (``pytester``): what it collects and when, how
items pass and fail, what a failure says, error items, and the JUnit properties.

Each run loads the plugin by ``-p`` with entry-point plugins off, so it does not depend on
how evalschema is installed (``test_the_entry_point_names_the_plugin`` checks the entry
point). The project is ``project/``: good.jsonl matches gold, bad.jsonl misses fail_under
0.8 (macro F1 0.7) and the threshold 0.9 on ``total`` (F1 0.5); the figures by hand are in
``failure_text.py``.
"""

from __future__ import annotations

import shutil
import tomllib
import xml.etree.ElementTree as ET
from importlib import import_module
from pathlib import Path

import pytest
from failure_text import B_DIFF, RUN_STORY

HERE = Path(__file__).parent
PROJECT = HERE / "project"
ROOT = HERE.parents[2]

BAD_RUN = """\
inv · bad.jsonl: 2 of 2 threshold(s) not met
  FAIL  overall macro F1 0.7000 < 0.8000
  FAIL  total: F1 0.5000 < 0.9000

""" + RUN_STORY


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytest project holding the suite, run with only this plugin loaded."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    shutil.copytree(PROJECT, pytester.path, dirs_exist_ok=True)
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    return pytester


def run(p: pytest.Pytester, *args: str) -> pytest.RunResult:
    return p.runpytest("-p", "evalschema.testing.plugin", "-p", "no:cacheprovider", *args)


def collected(p: pytest.Pytester, *args: str) -> list[str]:
    result = run(p, "--collect-only", "-q", *args)
    return [line for line in result.outlines if "::" in line]


def failure(result: pytest.RunResult, title: str) -> str:
    """The text pytest shows under a failure's ``___ title ___`` header."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines)
                 if line.strip("_ ") == title and line.startswith("_"))
    end = next(i for i in range(start + 1, len(lines))
               if lines[i].startswith(("_", "=")))
    return "\n".join(lines[start + 1:end])


def test_without_the_flag_a_configured_project_collects_only_its_tests(
        project: pytest.Pytester) -> None:
    assert collected(project) == ["test_plain.py::test_plain"]
    run(project).assert_outcomes(passed=1)


def test_items_run_beside_every_plugin_installed_here(project: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """As users run it: the entry points on, so the plugin runs beside every other
    installed one (here pytest-lsp, whose ``pytest_runtest_call`` wrapper never yields
    for an item without ``funcargs``: the run died with "did not yield")."""
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    result = project.runpytest_subprocess("--evalschema", "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=2, failed=1)
    assert "did not yield" not in result.stdout.str()
    result.stdout.fnmatch_lines(["evalschema.toml::inv::bad.jsonl FAILED*"])


def test_each_suite_and_run_is_an_item_that_fails_on_the_thresholds(
        project: pytest.Pytester) -> None:
    result = run(project, "--evalschema", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "evalschema.toml::inv::good.jsonl PASSED*",
        "evalschema.toml::inv::bad.jsonl FAILED*",
        "test_plain.py::test_plain PASSED*",
    ])
    assert failure(result, "inv · bad.jsonl") == BAD_RUN
    assert "Traceback" not in result.stdout.str()


def test_the_failure_diff_is_pytests_own(project: pytest.Pytester) -> None:
    """The same values in a plain ``assert extracted == gold``: pytest's explanation is
    the lines of ours after the header."""
    project.makepyfile(test_dicts="""
        def test_dicts():
            assert {'total': 25.0} == {'total': 20.0, 'vendor': 'Bolt'}
    """)
    result = run(project, "-vv", "test_dicts.py")
    explained = [line.removeprefix("E         ") for line in result.outlines
                 if line.startswith("E         ")]
    ours = B_DIFF.splitlines()
    assert explained[1:] == ours[ours.index("Differing items:"):]


def test_records_become_items_with_the_records_flag(project: pytest.Pytester) -> None:
    result = run(project, "--evalschema-records", "-v", "evalschema.toml")
    result.assert_outcomes(passed=4, failed=2)
    result.stdout.fnmatch_lines([
        "evalschema.toml::inv::good.jsonl::thresholds PASSED*",
        "evalschema.toml::inv::good.jsonl::A PASSED*",
        "evalschema.toml::inv::good.jsonl::B PASSED*",
        "evalschema.toml::inv::bad.jsonl::thresholds FAILED*",
        "evalschema.toml::inv::bad.jsonl::A PASSED*",
        "evalschema.toml::inv::bad.jsonl::B FAILED*",
    ])
    assert failure(result, "inv · bad.jsonl · B") == B_DIFF
    assert failure(result, "inv · bad.jsonl · thresholds") == BAD_RUN


def test_k_selects_a_run(project: pytest.Pytester) -> None:
    run(project, "--evalschema", "-k", "good").assert_outcomes(passed=1, deselected=2)


def test_the_ini_option_turns_collection_on(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nevalschema = true\n")
    assert collected(project) == ["evalschema.toml::inv::good.jsonl",
                                  "evalschema.toml::inv::bad.jsonl",
                                  "test_plain.py::test_plain"]
    project.makeini("[pytest]\nevalschema = true\nevalschema_records = true\n")
    assert len(collected(project)) == 7


def test_naming_the_configuration_collects_it_without_the_flag(
        project: pytest.Pytester) -> None:
    assert collected(project, "evalschema.toml") == ["evalschema.toml::inv::good.jsonl",
                                                     "evalschema.toml::inv::bad.jsonl"]


def test_the_rootdir_configuration_is_collected_beside_testpaths(
        project: pytest.Pytester) -> None:
    """``testpaths = tests`` does not reach the configuration at the root: with the flag it
    is collected all the same, unless paths are named on the command line."""
    project.mkdir("tests")
    (project.path / "test_plain.py").rename(project.path / "tests" / "test_plain.py")
    project.makeini("[pytest]\ntestpaths = tests\n")
    assert collected(project) == ["tests/test_plain.py::test_plain"]
    assert collected(project, "--evalschema") == ["tests/test_plain.py::test_plain",
                                                  "evalschema.toml::inv::good.jsonl",
                                                  "evalschema.toml::inv::bad.jsonl"]
    assert collected(project, "--evalschema", "tests") == ["tests/test_plain.py::test_plain"]


def test_pyproject_table_is_a_configuration_only_with_the_table(
        project: pytest.Pytester) -> None:
    config = (project.path / "evalschema.toml").read_text(encoding="utf-8")
    (project.path / "evalschema.toml").unlink()
    project.makepyprojecttoml("[tool.pytest.ini_options]\nevalschema = true\n")
    assert collected(project) == ["test_plain.py::test_plain"]
    tables = config.replace("[[suite]]", "[[tool.evalschema.suite]]").replace(
        "[suite.thresholds]", "[tool.evalschema.suite.thresholds]")
    project.makepyprojecttoml("[tool.pytest.ini_options]\nevalschema = true\n\n" + tables)
    assert collected(project) == ["pyproject.toml::inv::good.jsonl",
                                  "pyproject.toml::inv::bad.jsonl",
                                  "test_plain.py::test_plain"]


def test_a_configuration_that_is_not_toml_is_one_located_failing_item(
        project: pytest.Pytester) -> None:
    (project.path / "evalschema.toml").write_text("[[suite]\nname = 1\n", encoding="utf-8")
    result = run(project, "--evalschema")
    result.assert_outcomes(passed=1, failed=1)
    path = project.path / "evalschema.toml"
    assert failure(result, "configuration") == (
        "evalschema.toml: the configuration is invalid\n"
        f"{path}:1:8: error invalid-toml: not valid TOML: Expected ']]' at the end of an "
        "array declaration")
    assert "Traceback" not in result.stdout.str()


def test_a_broken_suite_is_a_located_item_and_the_others_run(
        project: pytest.Pytester) -> None:
    config = project.path / "evalschema.toml"
    config.write_text(config.read_text(encoding="utf-8") + (
        '\n[[suite]]\nname = "lost"\nschema = "inv.eval.json"\ngold = "nowhere.jsonl"\n'
        'extracted = "good.jsonl"\n'), encoding="utf-8")
    result = run(project, "--evalschema", "-v")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["evalschema.toml::lost FAILED*"])
    assert failure(result, "lost") == (
        "suite 'lost' cannot run\n"
        f"{config}:17:1#/suite/1/gold: error file-not-found: gold 'nowhere.jsonl' not found (looked for "
        f"{project.path / 'nowhere.jsonl'}) (paths are relative to the configuration file)")


def test_a_schema_that_is_not_json_fails_its_runs_with_the_place(
        project: pytest.Pytester) -> None:
    schema = project.path / "inv.eval.json"
    schema.write_text('{"type": "object",\n  "properties": {]\n}\n', encoding="utf-8")
    result = run(project, "--evalschema")
    result.assert_outcomes(passed=1, failed=2)
    text = failure(result, "inv · good.jsonl")
    assert text.splitlines()[0] == "inv · good.jsonl cannot be scored: 1 problem(s)"
    assert text.splitlines()[1:] == [f"{schema}:2:18: error invalid-json: schema is not valid "
                                     "JSON: Expecting property name enclosed in double quotes"]
    assert "Traceback" not in result.stdout.str()


def test_a_schema_error_names_the_schema_and_pointer(project: pytest.Pytester) -> None:
    schema = project.path / "inv.eval.json"
    schema.write_text(schema.read_text(encoding="utf-8").replace(
        '"total": {"type": "number"}', '"total": {"type": "number", "x-eval-compare": '
        '"numerc"}'), encoding="utf-8")
    result = run(project, "--evalschema", "-k", "good")
    result.assert_outcomes(failed=1, deselected=2)
    assert failure(result, "inv · good.jsonl") == (
        "inv · good.jsonl cannot be scored: the eval schema is invalid\n"
        f"{schema}#/properties/total/x-eval-compare: error unknown-comparator: unknown "
        "comparator 'numerc' (did you mean 'numeric'?)")


def test_unusable_gold_with_records_is_a_located_item_per_run(
        project: pytest.Pytester) -> None:
    """With --evalschema-records a run is scored while collecting: a gold problem then
    becomes the run's one failing item, not a collection error."""
    gold = project.path / "gold.jsonl"
    gold.write_text(gold.read_text(encoding="utf-8").replace('"B"', '"A"'), encoding="utf-8")
    result = run(project, "--evalschema-records", "-v", "evalschema.toml")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["evalschema.toml::inv::good.jsonl::run FAILED*",
                                 "evalschema.toml::inv::bad.jsonl::run FAILED*"])
    assert failure(result, "inv · bad.jsonl · run") == (
        "inv · bad.jsonl cannot be scored: the gold records are unusable\n"
        f'{gold}:2: error duplicate-id: gold id "A" appears again (first in record 1) (ids '
        "must be unique within the gold file)")


def test_a_threshold_on_an_unknown_field_is_located_in_the_configuration(
        project: pytest.Pytester) -> None:
    config = project.path / "evalschema.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("total = 0.9", "totl = 0.9"),
                      encoding="utf-8")
    result = run(project, "--evalschema", "-k", "good")
    assert failure(result, "inv · good.jsonl") == (
        "inv · good.jsonl cannot be scored: a threshold names an unknown field\n"
        f"{config}:12:1#/suite/0/thresholds/totl: error unknown-field: threshold for 'totl': the schema has no such "
        "field (did you mean 'total'?)")


def test_junit_xml_carries_the_per_field_story(project: pytest.Pytester) -> None:
    run(project, "--evalschema", "--junitxml=out.xml")
    cases = {c.get("name"): c for c in ET.parse(project.path / "out.xml").iter("testcase")}
    bad = cases["bad.jsonl"]
    assert bad.get("classname") == "evalschema.toml.inv"
    props = {p.get("name"): p.get("value") for p in bad.iter("property")}
    assert props == {
        "records": "2", "f1": "0.7000", "f1_micro": "0.7273", "f1/id": "1.0000",
        "f1/total": "0.5000", "f1/vendor": "0.6667",
        "threshold/overall macro F1": "FAIL overall macro F1 0.7000 < 0.8000",
        "threshold/total": "FAIL total: F1 0.5000 < 0.9000",
    }
    fail = bad.find("failure")
    assert fail is not None
    assert fail.text == BAD_RUN
    good = {p.get("name"): p.get("value") for p in cases["good.jsonl"].iter("property")}
    assert good["threshold/total"] == "ok total: F1 1.0000 >= 0.9000"
    assert cases["good.jsonl"].find("failure") is None


def test_the_assert_extraction_fixture_records_properties(project: pytest.Pytester) -> None:
    """The fixture: each call's figures become the test's JUnit properties, then it raises
    as ``assert_extraction`` does (the first call passes: only ``id`` is gated)."""
    project.makepyfile(test_hand="""
        def test_one(assert_extraction):
            gold, extracted = {"id": "B", "total": 20.0, "vendor": "Bolt"}, {"id": "B", "total": 25.0}
            assert_extraction(gold, extracted, "inv.eval.json", min_f1=None, fields={"id": 1.0})
            assert_extraction(gold, extracted, "inv.eval.json")
    """)
    result = run(project, "test_hand.py", "--junitxml=out.xml")
    result.assert_outcomes(failed=1)
    case = next(ET.parse(project.path / "out.xml").iter("testcase"))
    figures = [("records", "1"), ("f1", "0.4000"), ("f1_micro", "0.4000"), ("f1/id", "1.0000"),
               ("f1/total", "0.0000"), ("f1/vendor", "0.0000")]
    assert [(p.get("name"), p.get("value")) for p in case.iter("property")] == [
        *figures, ("threshold/id", "ok id: F1 1.0000 >= 1.0000"),
        *figures, ("threshold/overall macro F1", "FAIL overall macro F1 0.4000 < 1.0000")]
    fail = case.find("failure")
    assert fail is not None and fail.text is not None
    explained = [line.removeprefix("E           ") for line in fail.text.splitlines()
                 if line.startswith("E ")]
    assert explained[:2] == ["AssertionError: extraction: 1 of 1 threshold(s) not met",
                             "  FAIL  overall macro F1 0.4000 < 1.0000"]
    assert "\n".join(explained).endswith("\nworst " + B_DIFF)


def test_the_entry_point_names_the_plugin() -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        points = tomllib.load(f)["project"]["entry-points"]["pytest11"]
    assert points == {"evalschema": "evalschema.testing.plugin"}
    plugin = import_module(points["evalschema"])
    assert callable(plugin.pytest_collect_file) and callable(plugin.pytest_addoption)
