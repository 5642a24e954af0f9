"""LLM-style errors planted in real extract-bench gold come back with exactly the planted
statuses, through the API and the CLI.

The research papers' gold (tests/data/extract-bench, MIT) is written one pretty-printed
file per document, as extraction pipelines store it. The extracted side is the same gold
with errors planted at known places: typos, rounding, reformatted and partial dates,
reordered and dropped items, an invented key, a null, one output fenced in prose, one
truncated mid-string and one missing. Every result that is not a match must be one that
was planted, with the planted status, and every planted one must be there.

The schema is extract-bench's own, read by ``annotate`` (its ``evaluation_config`` keys
translated, ``key_field`` on the authors' names chosen from gold), plus the keys a user
adds for what extract-bench leaves to an LLM judge (a date comparator, a tolerance).
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalschema import evaluate
from evalschema.cli.main import main
from evalschema.schema.infer import annotate

RESEARCH = Path(__file__).resolve().parents[1] / "data" / "extract-bench" / "academic" / "research"
GOLD = {p.name.removesuffix(".gold.json"): json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((RESEARCH / "gold").glob("*.gold.json"))}

Planted = set[tuple[str, str, str]]  # (document, extracted-or-gold pointer, status)


def schema() -> dict[str, Any]:
    raw = json.loads((RESEARCH / "research-schema.json").read_text(encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        annotate(raw, list(GOLD.values()))
    props = raw["properties"]
    assert props["authors"]["x-eval-align"] == {"match_by": "key_field", "key": "name"}
    raw["x-eval-null"] = "absent"
    props["title"]["x-eval-compare"] = {"levenshtein": {"threshold": 0.9}}
    props["publication_date"]["x-eval-compare"] = "date"
    props["number_of_pages"]["x-eval-compare"] = {"numeric": {"tolerance": {"abs": 1}}}
    props["keywords"]["x-eval-align"] = {"match_by": "set"}
    return raw


def leaves(value: Any, pointer: str) -> Iterator[str]:
    """Where an omission of ``value`` is reported: each leaf under it, an empty array or
    object as a whole (gold says "none", which is a value), nothing for a null (the
    schema treats null as absent)."""
    if value is None:
        return
    if value == [] or value == {}:
        yield pointer
    elif isinstance(value, dict):
        for k, v in value.items():
            if k != "array_index":  # extract-bench's own bookkeeping, outside the schema
                yield from leaves(v, f"{pointer}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{pointer}/{i}")
    else:
        yield pointer


def perturb() -> tuple[dict[str, str], Planted]:
    """Each document's extracted text and the statuses planted in it."""
    out: dict[str, str] = {}
    planted: Planted = set()
    docs = {k: copy.deepcopy(v) for k, v in GOLD.items()}

    # FlashAttention-3: a typo in the title, pages off by one (within the tolerance) and
    # the date reformatted: all still right. The authors reversed: key_field pairs them.
    d = docs["shah24--flashattention-3"]
    assert d["publication_date"] == "July 16, 2024" and d["number_of_pages"] == 22
    d["title"] = d["title"].replace("Asynchrony", "Asynchrny")
    d["number_of_pages"] = 23
    d["publication_date"] = "2024-07-16"
    d["authors"].reverse()
    # An invented key at the top, and the arXiv version off by one (string_exact: wrong).
    d["funding"] = "NSF"
    planted.add(("shah24--flashattention-3", "/funding", "hallucination"))
    assert d["ids"] == "arXiv:2407.08608v2"
    d["ids"] = "arXiv:2407.08608v3"
    planted.add(("shah24--flashattention-3", "/ids", "mismatch"))
    out["shah24--flashattention-3"] = json.dumps(d, indent=2, ensure_ascii=False)

    # The LLM survey: the date given at month precision (less precise than gold's day),
    # pages far off, a dropped author (every leaf of it omitted), the venue null.
    d = docs["zhao25_a_survey_of_LLMs"]
    assert d["publication_date"] == "11 March 2025"
    d["publication_date"] = "March 2025"
    planted.add(("zhao25_a_survey_of_LLMs", "/publication_date", "mismatch"))
    d["number_of_pages"] = 140
    planted.add(("zhao25_a_survey_of_LLMs", "/number_of_pages", "mismatch"))
    dropped = d["authors"].pop(5)
    planted |= {("zhao25_a_survey_of_LLMs", p, "omission") for p in leaves(dropped, "/authors/5")}
    assert d["venue"]
    d["venue"] = None
    planted.add(("zhao25_a_survey_of_LLMs", "/venue", "omission"))
    # Keywords in another order with one missing: a set pairs the rest.
    assert len(d["keywords"]) == 6
    gone = d["keywords"].pop(2)
    d["keywords"].reverse()
    planted.add(("zhao25_a_survey_of_LLMs", "/keywords/2", "omission"))
    out["zhao25_a_survey_of_LLMs"] = json.dumps(d, indent=2, ensure_ascii=False)
    assert gone not in d["keywords"]

    # The VLM survey answered in prose with a fence: read whole, all right.
    d = docs["li25_vlm_survey"]
    out["li25_vlm_survey"] = ("Here is the extraction you asked for:\n```json\n"
                              + json.dumps(d, indent=2, ensure_ascii=False) + "\n```\n")

    # The RAG survey cut off by max_tokens inside the abstract: what came before is kept,
    # the abstract and everything after it are omissions.
    d = docs["fan24_rag_survey"]
    text = json.dumps(d, indent=2, ensure_ascii=False)
    cut = text.index('"abstract"') + len('"abstract": "') + 40
    out["fan24_rag_survey"] = text[:cut]
    after = False
    for key, value in d.items():
        after = after or key == "abstract"
        if after:
            planted |= {("fan24_rag_survey", p, "omission") for p in leaves(value, f"/{key}")}

    # The digit-recognition paper: no output at all. Every gold leaf is an omission.
    # The dimensionality-reduction survey: a perfect copy.
    d = docs["NIPS-1989-handwritten-digit-recognition-with-a-back-propagation-network-Paper"]
    planted |= {("NIPS-1989-handwritten-digit-recognition-with-a-back-propagation-network-"
                 "Paper", p, "omission") for p in leaves(d, "")}
    out["survey_of_dimensionality_reduction_techniques"] = json.dumps(
        docs["survey_of_dimensionality_reduction_techniques"], indent=2)
    return out, planted


def folders(tmp: Path) -> tuple[Path, Path, Path, Planted]:
    (tmp / "gold").mkdir()
    (tmp / "out").mkdir()
    for name, doc in GOLD.items():
        (tmp / "gold" / f"{name}.json").write_text(json.dumps(doc, indent=2), "utf-8")
    texts, planted = perturb()
    for name, text in texts.items():
        suffix = ".md" if "```" in text else ".json"
        (tmp / "out" / f"{name}{suffix}").write_text(text, "utf-8")
    path = tmp / "research.eval.json"
    path.write_text(json.dumps(schema(), indent=2), "utf-8")
    return path, tmp / "gold", tmp / "out", planted


def found(records: list[dict[str, Any]]) -> Planted:
    """Every non-match result, keyed by its document and the pointer that locates it
    (the extracted one, or gold's for an omission)."""
    got: Planted = set()
    for rec in records:
        for r in rec["field_results"]:
            if r["status"] in ("match", "skipped"):
                continue
            pointer = r["gold_pointer"] if r["status"] == "omission" else r["extracted_pointer"]
            got.add((rec["label"], pointer, r["status"]))
    return got


def test_the_planted_statuses_come_back_through_the_api(tmp_path: Path) -> None:
    schema_path, gold, out, planted = folders(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = evaluate(gold, out, json.loads(schema_path.read_text("utf-8")))
    records = [r.to_dict() for r in run.records]
    assert found(records) == planted
    by_label = {r["label"]: r for r in records}
    assert set(by_label) == set(GOLD)
    assert by_label["fan24_rag_survey"]["repaired_reason"] == "truncated"
    assert by_label["li25_vlm_survey"]["repaired"] is True
    assert by_label["survey_of_dimensionality_reduction_techniques"]["f1"] == 1.0
    # The typo'd title kept partial credit as a match; the reformatted date matched.
    flash = {r["path"]: r for r in by_label["shah24--flashattention-3"]["field_results"]}
    assert flash["title"]["status"] == "match" and 0.9 <= flash["title"]["score"] < 1.0
    assert flash["publication_date"]["status"] == "match"
    zhao = {r["path"]: r for r in by_label["zhao25_a_survey_of_LLMs"]["field_results"]}
    assert "month" in zhao["publication_date"]["reason"]


def test_the_planted_statuses_come_back_through_the_cli(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema_path, gold, out, planted = folders(tmp_path)
    code = main(["eval", str(schema_path), "--gold", str(gold), "--extracted", str(out),
                 "--format", "json"])
    assert code == 0
    [run] = json.loads(capsys.readouterr().out)["runs"]
    assert found(run["records"]) == planted
