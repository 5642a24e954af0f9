"""A run's field results as an Arrow table, and from it a pandas or polars DataFrame
(``RunResult.field_results_table``, ``to_pandas``, ``to_polars``).

pyarrow is an optional extra (``pip install 'evalschema[frames]'``); pandas and polars
are used when installed. The columns are fixed and typed, so a table of no rows has
them too and two runs' tables concatenate: values (gold, extracted, a record id that is
not a string) are JSON text, as the reports show them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from evalschema.safetext import json_text

if TYPE_CHECKING:
    from evalschema.results import RecordResult

#: The columns, in order, with their Arrow types: ``FieldResult.to_dict``'s, plus the
#: record's label (``record``: its id, file name or ``#N``).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("record_index", "int64"), ("record_id", "string"), ("record", "string"),
    ("path", "string"), ("field", "string"), ("status", "string"), ("score", "float64"),
    ("comparator", "string"), ("reason", "string"), ("gold", "string"),
    ("extracted", "string"), ("gold_pointer", "string"), ("extracted_pointer", "string"),
    ("schema_pointer", "string"), ("weight", "float64"),
)

#: The extra that installs an optional package, where one does.
EXTRAS = {"pyarrow": "frames", "mlflow": "mlflow"}


def need(module: str, what: str) -> Any:
    """Import the optional ``module`` for ``what``, or an ImportError that says what to
    install (``pip install 'evalschema[frames]'``)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = f"evalschema[{EXTRAS[module]}]" if module in EXTRAS else module
        raise ImportError(f"{what} needs {module}: pip install '{package}'") from exc


def json_value(value: Any) -> str:
    """A value as JSON text (non-finite numbers as strings, as the JSON output has them)."""
    return json_text(value, indent=None)


def _id_text(record_id: Any) -> str | None:
    if record_id is None or type(record_id) is str:
        return record_id
    return json.dumps(record_id, ensure_ascii=False, default=str)


def field_results_table(records: Iterable[RecordResult]) -> Any:
    """One row per field result of ``records`` (a ``pyarrow.Table``, columns ``COLUMNS``).

    ``gold``/``extracted`` are null where that side has no value (an omission's
    extracted, a hallucination's gold), else the value as compared, as JSON text."""
    pa = need("pyarrow", "field_results_table()")
    cols: dict[str, list[Any]] = {name: [] for name, _ in COLUMNS}
    for rec in records:
        rid, label = _id_text(rec.record_id), rec.label
        for r in rec.field_results:
            cols["record_index"].append(rec.index)
            cols["record_id"].append(rid)
            cols["record"].append(label)
            cols["path"].append(r.path)
            cols["field"].append(r.field)
            cols["status"].append(str(r.status))
            cols["score"].append(r.score)
            cols["comparator"].append(None if r.comparator is None else str(r.comparator))
            cols["reason"].append(r.explanation)
            cols["gold"].append(None if r.status == "hallucination"
                                else json_value(r.gold))
            cols["extracted"].append(None if r.status == "omission"
                                     else json_value(r.extracted))
            cols["gold_pointer"].append(r.gold_pointer)
            cols["extracted_pointer"].append(r.extracted_pointer)
            cols["schema_pointer"].append(r.schema_pointer)
            cols["weight"].append(r.weight)
    schema = pa.schema([(name, getattr(pa, kind)()) for name, kind in COLUMNS])
    return pa.table(cols, schema=schema)


def to_pandas(table: Any) -> Any:
    """The table as a pandas DataFrame (nullable strings stay null: ``None``/``NaN``)."""
    need("pandas", "to_pandas()")
    return table.to_pandas()


def to_polars(table: Any) -> Any:
    pl = need("polars", "to_polars()")
    return pl.from_arrow(table)
