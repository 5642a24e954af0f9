"""A run's field results as an Arrow table and pandas/polars DataFrames (frames.py).

pyarrow, pandas and polars come with the ``frames`` extra and ``dev`` (CI installs both);
a test needing one that is absent skips with the reason."""

from __future__ import annotations

import sys

import pytest

from evalschema import InputError, RunResult, evaluate
from evalschema.frames import COLUMNS

SCHEMA = {"type": "object", "properties": {
    "total": {"type": "number"}, "name": {"type": "string"},
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}}}}}}
GOLD = [{"id": 7, "total": 10, "name": "a", "items": [{"sku": "x"}]},
        {"id": "b-8", "total": 5, "name": "b\u00e9", "items": []}]
EXT = [{"id": 7, "total": 11, "items": [{"sku": "x"}]},
       {"id": "b-8", "total": 5, "name": "b\u00e9", "items": [{"sku": "y"}]}]


@pytest.fixture(scope="module")
def run() -> RunResult:
    return evaluate(GOLD, EXT, SCHEMA, id_field="id")


ROWS = [
    (0, "7", "7", "total", "total", "mismatch", 0.0, "numeric", "11 ≠ gold 10 (numeric)",
     "10", "11", "/total", "/total", "/properties/total", 1.0),
    (0, "7", "7", "name", "name", "omission", 0.0, "exact", "missing from extracted",
     '"a"', None, "/name", None, "/properties/name", 1.0),
    (0, "7", "7", "items[0].sku", "items[].sku", "match", 1.0, "exact", None, '"x"', '"x"',
     "/items/0/sku", "/items/0/sku", "/properties/items/items/properties/sku", 1.0),
    (0, "7", "7", "id", "id", "skipped", 0.0, None,
     "in gold and extracted but not in the schema", "7", "7", "/id", "/id", "", 1.0),
    (1, "b-8", "b-8", "total", "total", "match", 1.0, "numeric", None, "5", "5", "/total",
     "/total", "/properties/total", 1.0),
    (1, "b-8", "b-8", "name", "name", "match", 1.0, "exact", None, '"bé"', '"bé"', "/name",
     "/name", "/properties/name", 1.0),
    (1, "b-8", "b-8", "items[0].sku", "items[].sku", "hallucination", 0.0, "exact",
     "not in gold", None, '"y"', None, "/items/0/sku",
     "/properties/items/items/properties/sku", 1.0),
    (1, "b-8", "b-8", "id", "id", "skipped", 0.0, None,
     "in gold and extracted but not in the schema", '"b-8"', '"b-8"', "/id", "/id", "", 1.0),
]
NAMES = [name for name, _ in COLUMNS]


def test_one_row_per_field_result_with_typed_columns(run: RunResult) -> None:
    pa = pytest.importorskip("pyarrow", reason="the frames extra (pyarrow) is not installed")
    table = run.field_results_table()
    assert table.schema == pa.schema([
        ("record_index", pa.int64()), ("record_id", pa.string()), ("record", pa.string()),
        ("path", pa.string()), ("field", pa.string()), ("status", pa.string()),
        ("score", pa.float64()), ("comparator", pa.string()), ("reason", pa.string()),
        ("gold", pa.string()), ("extracted", pa.string()), ("gold_pointer", pa.string()),
        ("extracted_pointer", pa.string()), ("schema_pointer", pa.string()),
        ("weight", pa.float64())])
    # values are JSON text; an omission has no extracted value, a hallucination no gold
    assert [tuple(r.values()) for r in table.to_pylist()] == ROWS


def test_the_columns_are_those_of_field_result_to_dict(run: RunResult) -> None:
    record_columns = {"record_id", "record_index", "record"}
    assert set(NAMES) - record_columns == set(run.records[0].field_results[0].to_dict()) \
        - record_columns


def test_a_run_of_no_records_has_the_columns_and_no_rows() -> None:
    pytest.importorskip("pyarrow", reason="the frames extra (pyarrow) is not installed")
    table = evaluate([], [], SCHEMA).field_results_table()
    assert (table.num_rows, table.column_names) == (0, NAMES)


def test_a_run_that_kept_no_records_says_how_to_keep_them() -> None:
    streamed = evaluate(GOLD, EXT, SCHEMA, id_field="id", keep_records=False)
    with pytest.raises(InputError) as info:
        streamed.field_results_table()
    (problem,) = info.value.problems
    assert problem.code == "no-records"
    assert problem.message == ("this run of 2 records kept no per-record results, so it has "
                               "no field results to tabulate")
    assert problem.suggestion == "evaluate it with keep_records=True (the default of evaluate())"


@pytest.mark.parametrize("module, call, extra", [
    ("pyarrow", "field_results_table", "evalschema[frames]"),
    ("pandas", "to_pandas", "pandas"),
    ("polars", "to_polars", "polars"),
])
def test_a_missing_package_is_an_import_error_naming_what_to_install(
        run: RunResult, monkeypatch: pytest.MonkeyPatch, module: str, call: str,
        extra: str) -> None:
    pytest.importorskip("pyarrow", reason="the frames extra (pyarrow) is not installed")
    # pyarrow looks for pandas once, on its first table, and trips over a None module
    # (an AttributeError, not the ImportError of a real absence): let it look first.
    run.field_results_table()
    monkeypatch.setitem(sys.modules, module, None)  # import module -> ImportError
    with pytest.raises(ImportError) as info:
        getattr(run, call)()
    assert str(info.value) == f"{call}() needs {module}: pip install '{extra}'"


def test_to_pandas(run: RunResult) -> None:
    pytest.importorskip("pyarrow", reason="the frames extra (pyarrow) is not installed")
    pytest.importorskip("pandas", reason="pandas is not installed")
    df = run.to_pandas()
    assert list(df.columns) == NAMES
    assert df.shape == (8, 15)
    wrong = df[df["status"].isin(["mismatch", "omission", "hallucination"])]
    assert wrong[["record", "field", "status"]].values.tolist() == [
        ["7", "total", "mismatch"], ["7", "name", "omission"],
        ["b-8", "items[].sku", "hallucination"]]
    assert df.groupby("field")["score"].sum().to_dict() == {
        "id": 0.0, "items[].sku": 1.0, "name": 1.0, "total": 1.0}


def test_to_polars(run: RunResult) -> None:
    pytest.importorskip("pyarrow", reason="the frames extra (pyarrow) is not installed")
    pl = pytest.importorskip("polars", reason="polars is not installed")
    df = run.to_polars()
    assert df.columns == NAMES
    assert df.schema["record_index"] == pl.Int64 and df.schema["score"] == pl.Float64
    assert [tuple(r) for r in df.rows()] == ROWS
