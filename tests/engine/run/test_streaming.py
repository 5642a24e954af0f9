"""Streaming records (``iter_records``, ``evaluate(keep_records=False)``): the same
results as loading everything, located errors, and memory that does not grow with the
files."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from evalschema import GoldValidationError, InputError, evaluate
from evalschema.io.extracted import NO_RECORD
from evalschema.io.records import is_streamable, iter_records, load_records, read_record_at
from evalschema.run.pairing import iter_pairs

SCHEMA = {"type": "object", "x-eval-id": "id", "properties": {
    "id": {"type": "string"}, "name": {"type": "string", "x-eval-compare": "normalized"},
    "total": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}, "x-eval-align": {"match_by": "set"}}}}
POSITIONAL = {k: v for k, v in SCHEMA.items() if k != "x-eval-id"}


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
                    encoding="utf-8")
    return path


GOLD = [{"id": f"r{i}", "name": f"Name {i}", "total": i, "tags": ["a", str(i)]} for i in range(8)]
# Out of order, one missing (r3), one duplicate, one without id, one unreadable, one
# fenced text record, one extra id.
EXTRACTED: list[Any] = [
    {"id": "r2", "name": "name 2", "total": 2, "tags": ["a"]},
    {"id": "r0", "name": "Name 0", "total": 1, "tags": ["a", "0"]},
    '```json\n{"id": "r1", "name": "Name 1", "total": 1, "tags": []}\n```',
    {"id": "r2", "name": "dup", "total": 0},
    {"name": "no id"},
    "{not json at all",
    {"id": "r9", "name": "extra"},
    {"id": "r4", "name": "Name 4", "total": 4.0, "tags": ["4", "a"]},
    {"id": "r5", "name": "Name 5", "total": 5, "tags": ["a", "5", "x"]},
    {"id": "r6", "name": "Nam 6", "total": 6, "tags": ["a", "6"]},
    {"id": "r7", "name": "Name 7", "total": 70, "tags": ["a", "7"]},
]


def _jsonl_extracted(path: Path) -> Path:
    lines = []
    for x in EXTRACTED:
        lines.append(json.dumps(x) if isinstance(x, str) and x.startswith("```") else x)
    return write(path, lines)


@pytest.mark.parametrize("schema", [SCHEMA, POSITIONAL], ids=["by-id", "by-position"])
@pytest.mark.parametrize("cut", [None, 5, 12], ids=["all", "fewer-extracted", "more-extracted"])
def test_streamed_run_equals_the_loaded_run(tmp_path: Path, schema: dict[str, Any],
                                            cut: int | None) -> None:
    gold = write(tmp_path / "g.jsonl", GOLD)
    ext = _jsonl_extracted(tmp_path / "e.jsonl")
    if cut is not None:
        lines = ext.read_text().splitlines()
        lines = lines[:cut] if cut < len(lines) else lines + lines[: cut - len(lines)]
        ext.write_text("\n".join(lines) + "\n")
    loaded = evaluate(gold, ext, schema, keep_records=True, stream=False)
    streamed = evaluate(gold, ext, schema, keep_records=True, stream=True)
    assert streamed.to_dict() == loaded.to_dict()
    lean = evaluate(gold, ext, schema, keep_records=False)
    assert lean.records == ()
    assert lean.to_dict(include_records=False) == loaded.to_dict(include_records=False)
    assert loaded.total_records >= len(GOLD)


def test_id_pairing_reads_extracted_records_back_by_offset(tmp_path: Path) -> None:
    gold = write(tmp_path / "g.jsonl", GOLD)
    ext = _jsonl_extracted(tmp_path / "e.jsonl")
    pairs = [p.resolve() for p in iter_pairs(gold, ext, "id", stream=True)]
    by_id = {p.record_id: p for p in pairs if p.gold is not NO_RECORD}
    assert by_id["r1"].extracted["name"] == "Name 1" and by_id["r1"].repaired
    assert by_id["r3"].extracted is NO_RECORD
    assert by_id["r3"].problem == ("no extracted record with this id (1 extracted record(s) "
                                   "unreadable)")
    extras = [(p.extracted_index, p.problem) for p in pairs if p.gold is NO_RECORD]
    assert extras == [(3, "duplicate id 'r2' (first at extracted record #1)"),
                      (4, "extracted record has no 'id'"),
                      (5, extras[2][1]),
                      (6, "no gold record with this id")]
    assert extras[2][1].startswith("unreadable extracted record")


def test_iter_records_streams_jsonl_with_lines_and_offsets(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\n  {"a": "\xc3\xa9"}\r\n{broken\n')
    recs = list(iter_records(path, strict=False))
    assert [(r.value, r.line, r.unparsed) for r in recs] == [
        ({"a": 1}, 1, False), ({"a": "é"}, 3, False), ("{broken", 4, True)]
    assert recs == load_records(path, strict=False) or [r.value for r in recs] == [
        r.value for r in load_records(path, strict=False)]
    for r in recs:
        assert r.offset is not None
        assert read_record_at(path, r.offset, lineno=r.line).value == r.value


def test_gold_errors_are_located_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"id": "a"}\n   {"id": "b",,}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(iter_records(path))
    p = info.value.problems[0]
    assert (p.code, p.line, p.column) == ("invalid-json", 2, 15)  # 3 spaces + column 12


def test_streamed_gold_problems_are_all_collected(tmp_path: Path) -> None:
    gold = write(tmp_path / "g.jsonl", [GOLD[0], [1, 2], GOLD[1], {"name": "no id"}, GOLD[0]])
    ext = write(tmp_path / "e.jsonl", GOLD[:2])
    with pytest.raises(GoldValidationError) as info:
        evaluate(gold, ext, SCHEMA, keep_records=False)
    assert [(p.code, p.line) for p in info.value.problems] == [
        ("gold-not-object", 2), ("gold-missing-id", 4), ("duplicate-id", 5)]
    with pytest.raises(GoldValidationError) as loaded:
        evaluate(gold, ext, SCHEMA, keep_records=True)
    assert [p.code for p in loaded.value.problems] == [p.code for p in info.value.problems]


def test_which_files_stream(tmp_path: Path) -> None:
    jsonl_named_json = write(tmp_path / "a.json", [{"a": 1}, {"a": 2}])
    array = tmp_path / "b.json"
    array.write_text(json.dumps([{"a": 1}, {"a": 2}]))
    pretty = tmp_path / "c.json"
    pretty.write_text(json.dumps({"a": 1}, indent=2))
    one_line_array = write(tmp_path / "d.jsonl", [[{"a": 1}, {"a": 2}]])
    assert is_streamable(jsonl_named_json)
    assert not is_streamable(array) and not is_streamable(pretty)
    for path in (jsonl_named_json, array, pretty, one_line_array):
        assert [r.value for r in iter_records(path)] == [r.value for r in load_records(path)]


def test_folders_stream_file_by_file(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    write(folder / "1.jsonl", GOLD[:3])
    (folder / "2.json").write_text(json.dumps(GOLD[3]))
    write(folder / "3.jsonl", GOLD[4:])
    assert [r.value for r in iter_records(folder)] == GOLD
    run = evaluate(folder, folder, SCHEMA, keep_records=False)
    assert run.micro_f1 == 1.0 and run.total_records == len(GOLD)


def test_a_streamed_run_does_not_hold_the_files(tmp_path: Path) -> None:
    """By position, memory stays flat: 20x the records, about the same peak. By id, the
    run holds an index of the extracted ids (tens of bytes a record), far below the
    records themselves."""
    def pair(n: int) -> tuple[Path, Path]:
        recs = [{"id": f"r{i}", "name": "Acme GmbH " * 20, "total": i,
                 "tags": [f"t{k}" for k in range(10)]} for i in range(n)]
        return (write(tmp_path / f"g{n}.jsonl", recs),
                write(tmp_path / f"e{n}.jsonl", list(reversed(recs))))

    def peak(n: int, schema: dict[str, Any], keep: bool) -> int:
        gold, ext = pair(n)
        tracemalloc.start()
        try:
            evaluate(gold, ext, schema, keep_records=keep, stream=not keep)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, big = peak(200, POSITIONAL, False), peak(3000, POSITIONAL, False)
    assert big < 2 * small, (small, big)
    by_id, loaded = peak(3000, SCHEMA, False), peak(3000, SCHEMA, True)
    assert by_id < 300 * 3000, by_id
    assert by_id * 10 < loaded, (by_id, loaded)


def test_index_from_scanned_ranges_equals_one_scan(tmp_path: Path) -> None:
    """Indexing an extracted file in byte ranges (as worker processes do) gives the
    index one scan gives: offsets, lengths, line numbers, ids, duplicates, problems."""
    from evalschema.io.extracted_index import ExtractedIndex, scan_range, split_ranges

    lines = []
    for i in range(60):
        lines.append(json.dumps({"id": f"r{i % 45}", "v": "é" * (i % 7)}))  # dups across ranges
        if i % 9 == 0:
            lines.append("")
        if i % 13 == 0:
            lines.append("   {broken json")
        if i % 17 == 0:
            lines.append(json.dumps({"no": "id"}))
        if i % 19 == 0:
            lines.append(json.dumps('```json\n{"id": "fenced' + str(i) + '"}\n```'))
    path = tmp_path / "e.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + ("\n".join(lines) + "\n").encode())

    def scanner(src: str, ranges: list[tuple[int, int]], id_field: str) -> list[Any]:
        return [scan_range(src, a, b, id_field) for a, b in ranges]

    one = ExtractedIndex(path, "id")
    for parts in (2, 3, 7):
        assert len(split_ranges(path, parts)) == parts
        many = ExtractedIndex(path, "id", scanner, parts)
        for attr in ("offsets", "lengths", "lines", "by_id", "leftovers", "unread"):
            assert getattr(many, attr) == getattr(one, attr), (parts, attr)
        assert [many.get(j) for j in range(len(many.offsets))] == [
            one.get(j) for j in range(len(one.offsets))]
    assert one.unread == 5 and any("duplicate id 'r0'" in p for _, p in one.leftovers)
