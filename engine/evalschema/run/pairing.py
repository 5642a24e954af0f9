"""Pairing gold and extracted records, before scoring: by id, else by file name (folders
of one document per file), else by position.

One gold checker (``GoldChecker``), one numbering of the pairs (``Pair.number``: gold
order, then the unpaired extracted records in file order) and one set of problem codes,
used in memory, streamed, and by the language server. The engine pairs nothing past
the first gold problem and raises ``GoldValidationError`` listing every one; the
language server goes on without the refused records (``pairs_by_position``/``pairs_by_id``
accept a refused gold record as ``NO_RECORD``).

Codes: ``gold-not-object``, ``gold-missing-id``, ``duplicate-id`` (gold, from
``io.gold.GoldChecker``, which ``validate_gold`` uses too); ``unreadable-record``,
``missing-id``, ``duplicate-id``, ``no-gold-record`` (extracted, from ``match_ids``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from evalschema.io.extracted import (
    NO_RECORD,
    Read,
    Repaired,
    duplicate_id_problem,
    no_id_problem,
    read_extracted,
    usable_id,
)
from evalschema.io.extracted_index import ExtractedIndex, Scanner
from evalschema.io.gold import GoldChecker
from evalschema.io.records import (
    RawLine,
    RawRecord,
    RecordsLike,
    folder_files,
    is_streamable,
    iter_raw_lines,
    iter_records,
    iter_records_text,
    load_records,
)

#: tuple.__new__ skips the NamedTuple's Python-level __new__ (one Pair per record).
_new = tuple.__new__

#: The problems of unpaired records (``RecordResult.problem``).
NO_EXTRACTED = "no extracted record"
NO_EXTRACTED_WITH_ID = "no extracted record with this id"
NO_GOLD_AT_POSITION = "no gold record at this position"
NO_GOLD_WITH_ID = "no gold record with this id"
NO_EXTRACTED_FILE = "no extracted file with this name"
NO_GOLD_FILE = "no gold file with this name"
#: A pair whose gold record the checks refused (the language server only: the engine
#: stops instead); neither side is scored.
GOLD_REFUSED = "its gold record cannot be read"


class Pair(NamedTuple):
    """A gold record and the extracted record it is paired with, before scoring.

    Either side may be ``NO_RECORD``, or an unparsed ``RawLine`` (parsed by
    ``resolve``, where the pair is scored). A NamedTuple: one is built per record and
    sent to a worker process, and a tuple builds and pickles several times faster
    than a frozen dataclass.
    """

    #: The record's place in the run (``RecordResult.index``).
    number: int
    record_id: Any
    gold: Any
    extracted: Any
    gold_index: int | None = None
    extracted_index: int | None = None
    repaired: Repaired = False
    problem: str | None = None
    #: When ``extracted`` is an unparsed ``RawLine``: whether the problem found reading
    #: it is the pair's problem (pairing by position) or ``problem`` stands (by id).
    read_problem: bool = False
    #: The file the record is the one document of, without extension (``RawRecord.name``).
    name: str | None = None

    def resolve(self) -> Pair:
        """This pair with unparsed lines parsed (extracted ones rescued leniently)."""
        gold, ext = self.gold, self.extracted
        if not isinstance(gold, RawLine) and not isinstance(ext, RawLine):
            return self
        repaired, problem = self.repaired, self.problem
        if isinstance(gold, RawLine):
            gold = gold.parse().value
        if isinstance(ext, RawLine):
            ext, repaired, read = read_extracted(ext.parse())
            if self.read_problem:
                problem = read or problem
        return Pair(self.number, self.record_id, gold, ext, self.gold_index,
                    self.extracted_index, repaired, problem, False, self.name)


# -- in memory ------------------------------------------------------------------------------

class IdMatch(NamedTuple):
    """Extracted records matched to gold ids (``match_ids``)."""

    #: Per gold id, in gold order: the extracted record holding it, or None.
    found: list[int | None]
    #: Extracted records left unpaired, in file order: (index, code, problem). Codes:
    #: ``unreadable-record``, ``missing-id``, ``duplicate-id``, ``no-gold-record``.
    extra: list[tuple[int, str, str]]
    #: Id -> the first extracted record holding it.
    first: dict[Any, int]


def match_ids(gold_ids: Sequence[Any], extracted: Sequence[tuple[Any, str | None]],
              id_field: str) -> IdMatch:
    """Pair in-memory records by id. ``extracted`` holds each record's (value, problem
    reading it), the value ``NO_RECORD`` when it could not be read. Shared by
    ``evaluate`` and the language server, which reports the codes where they are."""
    first: dict[Any, int] = {}
    extra: list[tuple[int, str, str]] = []
    for j, (value, problem) in enumerate(extracted):
        if value is NO_RECORD:
            extra.append((j, "unreadable-record", problem or "unreadable"))
            continue
        rid = value.get(id_field)
        if not usable_id(rid):
            extra.append((j, "missing-id", no_id_problem(id_field)))
        elif rid in first:
            extra.append((j, "duplicate-id", duplicate_id_problem(rid, first[rid])))
        else:
            first[rid] = j
    unpaired = dict(first)
    found = [unpaired.pop(rid, None) for rid in gold_ids]
    extra.extend((j, "no-gold-record", NO_GOLD_WITH_ID) for j in unpaired.values())
    extra.sort()
    return IdMatch(found, extra, first)


def pairs_by_position(gold: Sequence[Any], read: Sequence[Read]) -> Iterator[Pair]:
    """Pair records read in memory by position: ``gold`` values (``NO_RECORD`` for one
    the checks refused) and each extracted record as read (``read_extracted``)."""
    n_read = len(read)
    for i, gvalue in enumerate(gold):
        if gvalue is NO_RECORD:
            yield Pair(i, None, NO_RECORD, NO_RECORD, i, None, problem=GOLD_REFUSED)
        elif i < n_read:
            value, repaired, problem = read[i]
            yield _new(Pair, (i, None, gvalue, value, i, i, repaired, problem, False, None))
        else:
            yield Pair(i, None, gvalue, NO_RECORD, i, None, problem=NO_EXTRACTED)
    for j in range(len(gold), n_read):
        value, repaired, problem = read[j]
        yield Pair(j, None, NO_RECORD, value, None, j, repaired,
                   problem or NO_GOLD_AT_POSITION)


def pairs_by_id(gold: Sequence[Any], read: Sequence[Read], id_field: str,
                match: IdMatch | None = None,
                names: Sequence[str | None] = ()) -> Iterator[Pair]:
    """Pair records read in memory by id: gold order, then the extracted records no gold
    record pairs (in file order). A gold value ``NO_RECORD`` (refused by the checks) is
    left out. ``match`` is ``match_ids`` over the same records, when the caller has it;
    ``names`` the extracted records' file names (``RawRecord.name``), which name the
    records no id pairs."""
    if match is None:
        match = match_ids([g[id_field] for g in gold if g is not NO_RECORD],
                          [(v, p) for v, _, p in read], id_field)
    unread = sum(1 for _, code, _ in match.extra if code == "unreadable-record")
    found = iter(match.found)
    number = 0
    for i, gvalue in enumerate(gold):
        if gvalue is NO_RECORD:
            continue
        rid = gvalue[id_field]
        j = next(found)
        if j is None:
            yield Pair(number, rid, gvalue, NO_RECORD, i, None, problem=missing_problem(unread))
        else:
            value, repaired, _ = read[j]
            yield _new(Pair, (number, rid, gvalue, value, i, j, repaired, None, False, None))
        number += 1
    for j, _, problem in match.extra:
        value, repaired, _ = read[j]
        rid = value.get(id_field) if isinstance(value, dict) else None
        yield Pair(number, rid, NO_RECORD, value, None, j, repaired, problem,
                   name=names[j] if names else None)
        number += 1


def missing_problem(unread: int) -> str:
    if unread:
        return f"{NO_EXTRACTED_WITH_ID} ({unread} extracted record(s) unreadable)"
    return NO_EXTRACTED_WITH_ID


def _as_records(data: RecordsLike, *, strict: bool) -> list[RawRecord] | list[Any]:
    """Records read from a file (``RawRecord``s, which know where they came from), or
    in-memory records as they are: wrapping each costs more than scoring it cheaply."""
    if isinstance(data, str | Path):
        return load_records(data, strict=strict)
    return list(data)


def _pairs_in_memory(gold: RecordsLike, extracted: RecordsLike,
                     id_field: str | None) -> Iterator[Pair]:
    gold_raw = _as_records(gold, strict=True)
    ext_raw = _as_records(extracted, strict=False)
    check = GoldChecker(id_field)
    for i, rec in enumerate(gold_raw):
        check.ok(rec, i)
    check.finish()
    gold_values: list[Any] = [r.value if type(r) is RawRecord else r for r in gold_raw]
    # An in-memory object needs no reading: (record, repaired, problem) at once.
    read: list[Read] = [(r, False, None) if type(r) is dict else
                        read_extracted(r if type(r) is RawRecord else RawRecord(r))
                        for r in ext_raw]
    if id_field is not None:
        names = [r.name for r in ext_raw] if isinstance(extracted, str | Path) else ()
        yield from pairs_by_id(gold_values, read, id_field, names=names)
    elif (ext_names := pairing_names(gold_raw, extracted, ext_raw)) is not None:
        yield from pairs_by_name([r.name for r in gold_raw], gold_values, ext_names, read)
    else:
        yield from pairs_by_position(gold_values, read)


def by_name(gold: Sequence[Any], extracted: Sequence[Any]) -> bool:
    """Whether records without ids pair by file name: every record on both sides is the
    one document of a file in a folder (``RawRecord.name``)."""
    return bool(gold) and all(type(r) is RawRecord and r.name is not None
                              for seq in (gold, extracted) for r in seq)


def pairing_names(gold: Sequence[Any], extracted: RecordsLike, ext_raw: Sequence[Any]
                  ) -> list[Any] | None:
    """The names extracted records pair by, or ``None`` to pair by position. When gold is
    one document per file and extracted a folder, a record of an output file holding
    several (a model that wrote its answer twice) is named by its file too: the first
    pairs, the others are left over with why, and no later file shifts onto the wrong
    gold."""
    if by_name(gold, ext_raw):
        return [r.name for r in ext_raw]
    if not (by_name(gold, gold) and isinstance(extracted, str | Path)
            and Path(extracted).is_dir()
            and all(type(r) is RawRecord and r.source for r in ext_raw)):
        return None
    return [r.name if r.name is not None else Path(r.source).stem for r in ext_raw]


def pairs_by_name(gold_names: Sequence[Any], gold: Sequence[Any],
                  ext_names: Sequence[Any], read: Sequence[Read]) -> Iterator[Pair]:
    """Pair one-document files by their names: gold order, then the extracted files no
    gold file is named like (in file order), each named by its file. A gold file with no
    output is all omissions, an output with no gold all hallucinations; a second output
    of the same name (``a.json`` and ``a.txt``) is left unpaired, with why."""
    first: dict[Any, int] = {}
    extra: list[tuple[int, str]] = []
    for j, name in enumerate(ext_names):
        k = first.setdefault(name, j)
        if k != j:
            extra.append((j, f"another extracted file is named {name!r} too (extracted "
                             f"record {k})"))
    number = 0
    for i, (name, gvalue) in enumerate(zip(gold_names, gold, strict=True)):
        j = first.pop(name, -1)
        if gvalue is NO_RECORD:
            yield Pair(number, None, NO_RECORD, NO_RECORD, i, None, problem=GOLD_REFUSED,
                       name=name)
        elif j < 0:
            yield Pair(number, None, gvalue, NO_RECORD, i, None, problem=NO_EXTRACTED_FILE,
                       name=name)
        else:
            value, repaired, problem = read[j]
            yield Pair(number, None, gvalue, value, i, j, repaired, problem, name=name)
        number += 1
    extra.extend((j, NO_GOLD_FILE) for j in first.values())
    extra.sort()
    for j, why in extra:
        value, repaired, problem = read[j]
        yield Pair(number, None, NO_RECORD, value, None, j, repaired, problem or why,
                   name=ext_names[j])
        number += 1


# -- streamed -------------------------------------------------------------------------------

def _gold_stream(gold: RecordsLike) -> Iterator[tuple[RawRecord, RawLine | None]]:
    if isinstance(gold, str | Path):
        return iter_records_text(gold, strict=True)
    return ((RawRecord(v), None) for v in gold)


def _stream_by_position(gold: RecordsLike, extracted: RecordsLike) -> Iterator[Pair]:
    check = GoldChecker(None)
    lines = iter_raw_lines(extracted) if isinstance(extracted, str | Path) else None
    ext_it: Iterator[RawRecord | RawLine] = lines if lines is not None else (
        iter_records(extracted, strict=False) if isinstance(extracted, str | Path)
        else (RawRecord(v) for v in extracted))
    n_gold = 0
    for i, (graw, gline) in enumerate(_gold_stream(gold)):
        n_gold = i + 1
        eraw = next(ext_it, None)
        if not check.ok(graw, i) or check.problems:
            continue
        gvalue = gline if gline is not None else graw.value
        if eraw is None:
            yield Pair(i, None, gvalue, NO_RECORD, i, None, problem=NO_EXTRACTED)
        elif isinstance(eraw, RawLine):
            yield Pair(i, None, gvalue, eraw, i, i, read_problem=True)
        else:
            value, repaired, problem = read_extracted(eraw)
            yield Pair(i, None, gvalue, value, i, i, repaired, problem)
    check.finish()
    for j, eraw in enumerate(ext_it, start=n_gold):
        if isinstance(eraw, RawLine):
            yield Pair(j, None, NO_RECORD, eraw, None, j, problem=NO_GOLD_AT_POSITION,
                       read_problem=True)
            continue
        value, repaired, problem = read_extracted(eraw)
        yield Pair(j, None, NO_RECORD, value, None, j, repaired,
                   problem or NO_GOLD_AT_POSITION)


def _stream_by_id(gold: RecordsLike, extracted: RecordsLike, id_field: str,
                  scanner: Scanner | None = None, scan_parts: int = 1) -> Iterator[Pair]:
    ext = ExtractedIndex(extracted, id_field, scanner, scan_parts)
    try:
        check = GoldChecker(id_field)
        number = 0
        for i, (graw, gline) in enumerate(_gold_stream(gold)):
            if not check.ok(graw, i) or check.problems:
                continue
            rid = graw.value[id_field]
            gvalue = gline if gline is not None else graw.value
            found = ext.by_id.pop(rid, None)
            if found is None:
                yield Pair(number, rid, gvalue, NO_RECORD, i, None,
                           problem=missing_problem(ext.unread))
            else:
                got = ext.get_lazy(found)
                if isinstance(got, RawLine):
                    yield Pair(number, rid, gvalue, got, i, found)
                else:
                    yield Pair(number, rid, gvalue, got[0], i, found, got[1])
            number += 1
        check.finish()
        extra = sorted([*((j, NO_GOLD_WITH_ID) for j in ext.by_id.values()), *ext.leftovers])
        for j, problem in extra:
            value, repaired, _ = ext.get(j)
            rid = value.get(id_field) if isinstance(value, dict) else None
            yield Pair(number, rid, NO_RECORD, value, None, j, repaired, problem,
                       name=ext.name(j))
            number += 1
    finally:
        ext.close()


def _documents_folder(data: RecordsLike) -> bool:
    """A folder with no JSONL file in it: its files are documents (or arrays), read whole
    anyway, and may pair by name."""
    if not isinstance(data, str | Path) or not Path(data).is_dir():
        return False
    return not any(is_streamable(f) for f in folder_files(Path(data)))


def iter_pairs(gold: RecordsLike, extracted: RecordsLike, id_field: str | None, *,
               stream: bool = False, scanner: Scanner | None = None,
               scan_parts: int = 1) -> Iterator[Pair]:
    """Pair gold and extracted records: by ``id_field``, else by position.

    In memory (``stream=False``) every gold record is checked before the first pair.
    Streaming never holds all records: by position both files are read in lockstep;
    by id the extracted file is indexed (id -> byte offset) and each record read back
    when its gold record comes. Gold problems are then collected as the gold streams
    (no pair is yielded after the first) and raised together at the end.

    ``scanner`` indexes the extracted file's byte ranges elsewhere (``scan_parts`` of
    them, e.g. on worker processes); the index is the same.
    """
    if stream:
        if id_field is None:
            if _documents_folder(gold):  # pairs by name, or by position as in memory
                return _pairs_in_memory(gold, extracted, id_field)
            return _stream_by_position(gold, extracted)
        return _stream_by_id(gold, extracted, id_field, scanner, scan_parts)
    return _pairs_in_memory(gold, extracted, id_field)
