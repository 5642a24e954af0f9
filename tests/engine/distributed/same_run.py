"""What "the same run" means for a distributed engine against a local one: counts equal
exactly, floats within 1e-12 (sums are added in another order), timings left out."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pyarrow as pa

from evalschema.distributed.rows import SideKeyer, run_columns, tag_column

TOLERANCE = 1e-12


def assert_same(got: Any, want: Any, where: str = "") -> None:
    """``got`` equals ``want``: the same keys, lists and ints; floats within 1e-12,
    relative (a sum of 10^5 scores added in another order differs in its last bits)."""
    if isinstance(want, float) and isinstance(got, float):
        assert math.isclose(got, want, rel_tol=TOLERANCE, abs_tol=TOLERANCE) or got == want, \
            f"{where}: {got!r} != {want!r}"
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{where}: keys differ"
        for k in want:
            assert_same(got[k], want[k], f"{where}/{k}")
    elif isinstance(want, list | tuple):
        assert isinstance(got, list | tuple) and len(got) == len(want), f"{where}: length"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{where}/{i}")
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != {want!r}"


def run_dict(result: Any) -> dict[str, Any]:
    """A ``RunResult.to_dict()`` without timings (none are kept today; kept out anyway)."""
    return {k: v for k, v in result.to_dict().items() if k not in ("seconds", "timings")}


def unindexed(value: Any) -> Any:
    """``value`` without record numbers (``index``, ``record_index``, ``gold_index``...)
    and the ``#N`` labels made from them: a distributed run has no global record order."""
    if isinstance(value, dict):
        return {k: unindexed(v) for k, v in value.items() if "index" not in k
                and not (k in ("label", "record") and str(v).startswith("#"))}
    if isinstance(value, list | tuple):
        return [unindexed(v) for v in value]
    return value


def lines(path: Path) -> list[str]:
    return [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]


def joined(gold: list[str], runs: list[list[str]], id_field: str) -> pa.Table:
    """The joined rows an engine builds (``distributed.rows``), made with Arrow's own
    full outer join: gold texts and each run's texts keyed, joined on ``id``."""
    table = SideKeyer(id_field, "gold")(pa.table({"text": gold}))
    for column, texts in zip(run_columns(len(runs)), runs, strict=True):
        side = SideKeyer(id_field, column)(pa.table({"text": pa.array(texts, pa.string())}))
        table = table.join(side, "id", join_type="full outer", coalesce_keys=True)
    sides = ["gold", *run_columns(len(runs))]
    return table.select(["id", *sides, *(tag_column(c) for c in sides)])


def sorted_field_rows(table: pa.Table) -> list[dict[str, Any]]:
    """Field-result rows without ``record_index`` (a distributed run has no global
    record order) and ``run``, sorted by record id, path and status."""
    rows = [{k: v for k, v in r.items() if k not in ("record_index", "run")}
            for r in table.to_pylist()]
    return sorted(rows, key=lambda r: (r["record_id"] or "", r["path"], r["status"],
                                       r["gold"] or "", r["extracted"] or ""))


def field_rows_in_order(table: pa.Table) -> pa.Table:
    """Field-result rows without ``record_index`` and ``run``, sorted by record id and
    path (then status and values, for the rows of one path): a large table's
    ``sorted_field_rows``, compared with ``Table.equals``."""
    keep = [n for n in table.column_names if n not in ("record_index", "run")]
    order = [(n, "ascending") for n in ("record_id", "path", "status", "gold", "extracted")]
    return table.select(keep).sort_by(order)


#: The bundled example every distributed test runs on.
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SCHEMA = EXAMPLES / "invoices.eval.json"
GOLD = EXAMPLES / "invoices.gold.jsonl"
RUN_A = EXAMPLES / "invoices.model-a.extracted.jsonl"
RUN_B = EXAMPLES / "invoices.model-b.extracted.jsonl"
#: The example's suite on the command line, without its extracted runs.
CLI_SUITE = ["--schema", str(SCHEMA), "--gold", str(GOLD), "--no-progress"]
