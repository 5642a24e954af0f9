"""extract-bench gold stored as people store it: one pretty-printed file per document,
outputs likewise, with one output missing, one fenced in prose (a ``.md`` file) and one
truncated inside a string. Every record must get exactly the planted statuses, through
the API and through ``evalschema eval``; the reference statuses come from in-memory
runs of each record pair, which involve no file reading at all."""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from evalschema import annotate_xeval, evaluate, resolve_schema_references
from evalschema.cli.main import main
from evalschema.errors import ProblemWarning

BENCH = Path(__file__).resolve().parents[2] / "data" / "extract-bench" / "academic" / "research"
MISSING = "li25_vlm_survey"
FENCED = "shah24--flashattention-3"
TRUNCATED = "fan24_rag_survey"
_CUT = "\u0000cut\u0000"
_DROP = object()


def _schema() -> dict[str, Any]:
    path = BENCH / "research-schema.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    resolved = resolve_schema_references(raw.get("schema_definition", raw), base_uri=str(path))
    schema: dict[str, Any] = annotate_xeval(copy.deepcopy(resolved))
    assert "x-eval-id" not in schema  # the documents carry no id: they pair by file name
    return schema


def _golds() -> dict[str, Any]:
    return {p.name.removesuffix(".gold.json"): json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((BENCH / "gold").glob("*.gold.json"))}


def _kept(value: Any, path: tuple[Any, ...]) -> Any:
    """What a truncation inside the string at ``path`` leaves: every member before it,
    the containers on the way closed, the cut member dropped."""
    if not path:
        return _DROP
    head, rest = path[0], path[1:]
    inner = _kept(value[head], rest)
    if isinstance(value, dict):
        out = {k: value[k] for k in list(value)[:list(value).index(head)]}
        if inner is not _DROP:
            out[head] = inner
        return out
    items = list(value[:head])
    if inner is not _DROP:
        items.append(inner)
    return items


def _cut_inside(doc: dict[str, Any], path: tuple[Any, ...]) -> str:
    """``doc`` pretty-printed and cut in the middle of the string at ``path`` (what a
    ``max_tokens`` limit does)."""
    marked = copy.deepcopy(doc)
    target = marked
    for key in path[:-1]:
        target = target[key]
    value = target[path[-1]]
    assert isinstance(value, str) and len(value) > 8
    target[path[-1]] = _CUT + value
    text = json.dumps(marked, indent=2, ensure_ascii=False)
    at = text.index(json.dumps(_CUT)[1:-1])
    text = text.replace(json.dumps(_CUT)[1:-1], "")
    return text[:at + len(json.dumps(value[: len(value) // 2])) - 1]


def _statuses(run: Any) -> list[tuple[str, str]]:
    [rec] = run.records
    return [(f.path, str(f.status)) for f in rec.field_results]


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The files, and per document the statuses its planted output must get (the
    schema's notes are asserted by the test that reads the files, not here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProblemWarning)
        return _bench(tmp_path_factory)


def _bench(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("bench")
    schema, golds = _schema(), _golds()
    (root / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    (root / "gold").mkdir()
    (root / "out").mkdir()
    # the cut: inside the second author's name, so authors[0] stays, authors[1] is
    # closed without its name, and the later fields (abstract, …) are omitted
    gold_t = golds[TRUNCATED]
    cut_path = ("authors", 1, "name")
    assert next(iter(gold_t["authors"][1])) == "name"
    want: dict[str, Any] = {}
    for name, gold in golds.items():
        pretty = json.dumps(gold, indent=2, ensure_ascii=False)
        (root / "gold" / f"{name}.json").write_text(pretty, encoding="utf-8")
        if name == MISSING:
            want[name] = _statuses(evaluate([gold], [], schema))
            assert want[name] and {st for _, st in want[name]} == {"omission"}
            continue
        if name == FENCED:
            (root / "out" / f"{name}.md").write_text(
                f"Here is the extracted metadata.\n\n```json\n{pretty}\n```\n", encoding="utf-8")
        elif name == TRUNCATED:
            (root / "out" / f"{name}.json").write_text(_cut_inside(gold, cut_path),
                                                       encoding="utf-8")
            want[name] = _statuses(evaluate([gold], [_kept(gold, cut_path)], schema))
            continue
        else:
            (root / "out" / f"{name}.json").write_text(pretty, encoding="utf-8")
        want[name] = _statuses(evaluate([gold], [gold], schema))
    return {"root": root, "schema": schema, "want": want}


def test_the_planted_statuses_are_exact(bench: dict[str, Any]) -> None:
    root, want = bench["root"], bench["want"]
    # The untranslated evaluation_config values are said, once per run, not swallowed.
    with pytest.warns(ProblemWarning, match="evaluation-config-untranslated"):
        run = evaluate(root / "gold", root / "out", bench["schema"])
    got = {r.label: [(f.path, str(f.status)) for f in r.field_results] for r in run.records}
    assert got == want
    flags = {r.label: (r.repaired, r.problem) for r in run.records}
    assert flags[MISSING] == (False, "no extracted file with this name")
    assert flags[FENCED] == (True, None)
    assert flags[TRUNCATED] == ("truncated", None)
    assert all(flags[n] == (False, None) for n in want if n not in (MISSING, FENCED, TRUNCATED))
    # the planted faults are really there: the truncated record lost fields, kept others
    cut = dict(want[TRUNCATED])
    assert cut["authors[0].name"] == "match" and cut["authors[1].name"] == "omission"
    assert cut["abstract"] == "omission"


def test_the_planted_statuses_through_the_cli(bench: dict[str, Any],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    root, want = bench["root"], bench["want"]
    code = main(["eval", str(root / "schema.json"), "--gold", str(root / "gold"),
                 "--extracted", str(root / "out"), "--format", "json"])
    out = capsys.readouterr().out
    [doc] = json.loads(out)["runs"]
    got = {r["label"]: [(f["path"], f["status"]) for f in r["field_results"]]
           for r in doc["records"]}
    assert code == 0 and got == want
    reasons = {r["label"]: r["repaired_reason"] for r in doc["records"]}
    assert reasons[TRUNCATED] == "truncated"
