"""From a finding in an extracted file to its gold record: accept the extracted value as
gold, where the gold value is, and the record pair as two texts to compare.

What the editor sends back (a diagnostic's range, code and data) is never trusted: the
finding is found again in the server's own last outcome for the file, computed from
the very text the editor shows, and an edit is offered only while the gold text is the
one the run read. Plain functions over ``SuiteOutcome``s; the handlers speak LSP.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evalschema.pointer import escape, resolve, split
from evalschema.results import FieldResult, Status, show_value

from ..authoring.actions import TextEdit
from .findings import extracted_span, short_label
from .goldfix import REMOVE, GoldFixError, gold_edits
from .locate import RecordLocator, Span
from .runner import RunOutcome, ScoredRecord, SuiteOutcome
from .suspects import suspect_span

#: The diagnostic codes these actions answer, and the status each stands for.
KINDS = {"mismatch": Status.MISMATCH, "omission": Status.OMISSION,
         "hallucination": Status.HALLUCINATION}
ACCEPT = "Accept extracted value as gold"
#: Characters of a value a title shows.
TITLE_VALUE = 40


@dataclass(frozen=True, slots=True)
class Paired:
    """A record of an extracted file, scored against its gold record in one run."""

    outcome: SuiteOutcome
    run: RunOutcome
    scored: ScoredRecord


@dataclass(frozen=True, slots=True)
class Located:
    """A finding found again: its record pair and its field result."""

    pair: Paired
    result: FieldResult


@dataclass(frozen=True, slots=True)
class GoldChange:
    """Accepting a finding's extracted value: one edit of the gold file."""

    path: Path
    edit: TextEdit
    title: str


def records_at(outcomes: Iterable[SuiteOutcome], path: Path, text: str, offset: int
               ) -> Iterator[Paired]:
    """The scored record at ``offset`` of the extracted file ``path``, in each outcome
    computed from this very ``text`` (results of another text are at other offsets)."""
    for o in outcomes:
        if o.texts.get(path) != text:
            continue
        for run in o.runs:
            if run.path != path:
                continue
            rec = run.data.record_at(offset)
            index = run.by_extracted.get(rec.index) if rec is not None else None
            if index is not None:
                # Every result of the record: where an extracted value belongs in gold
                # follows the record's aligned pairs, matches included.
                s = run.scored[index]
                yield Paired(o, run, replace(s, record=o.full(s), pair=None))


def findings_at(outcomes: Iterable[SuiteOutcome], path: Path, text: str, start: int,
                end: int, code: str, locator: RecordLocator) -> list[Located]:
    """The findings of kind ``code`` shown exactly at ``[start, end)`` of ``path``: those
    of the server's outcomes, wherever the request says they come from."""
    status = KINDS.get(code)
    out: list[Located] = []
    if status is None:
        return out
    for pair in records_at(outcomes, path, text, start):
        s = pair.scored
        e = s.extracted
        if e is None or s.gold is None:
            continue
        for r in s.record.field_results:
            if r.status is status:
                a, b = extracted_span(r, e.text, locator)
                if (e.start + a, e.start + b) == (start, end):
                    out.append(Located(pair, r))
                    break
    return out


# -- accept the extracted value as gold ------------------------------------------------

def accept(found: Located, gold_text: str, locator: RecordLocator) -> GoldChange | None:
    """The edit of the gold file that makes the finding's gold what was extracted; None
    when results are not current (the schema changed, or ``gold_text``, the gold file's
    text now, is not what the run read) or the change cannot be written."""
    o, s, r = found.pair.outcome, found.pair.scored, found.result
    gold_path = o.suite.config.gold
    g, e = s.gold, s.extracted
    if o.stale is not None or o.texts.get(gold_path) != gold_text or g is None or e is None:
        return None
    try:
        if r.status is Status.OMISSION:
            if r.gold_pointer is None:
                return None
            [edit] = gold_edits(gold_text, g, removal_pointer(s, r.gold_pointer), REMOVE)
            return GoldChange(gold_path, edit, f"{ACCEPT}: remove {r.path} from gold")
        ep = r.extracted_pointer
        pointer = r.gold_pointer if r.status is Status.MISMATCH else gold_pointer(s, ep)
        if ep is None or pointer is None:
            return None
        value, text = extracted_value(s, ep, locator)

        def order(at: str) -> Sequence[str]:
            """The keys of the extracted object at gold's ``at`` (both pointers have one
            shape: the same keys, array indices paired)."""
            got = resolve(e.value, _prefix(split(ep)[:len(split(at))]), None)
            return list(got) if isinstance(got, dict) else ()

        [edit] = gold_edits(gold_text, g, pointer, value, value_text=text, key_order=order)
    except (GoldFixError, KeyError, ValueError):
        return None
    shown = show_value(value, TITLE_VALUE)
    verb = "" if r.status is Status.MISMATCH else "add "
    return GoldChange(gold_path, edit, f"{ACCEPT}: {verb}{r.path} = {shown}")


def accept_suspects(outcomes: Iterable[SuiteOutcome], path: Path, text: str, start: int,
                    end: int, locator: RecordLocator) -> list[GoldChange]:
    """The edits that put the agreed value into gold for each suspect gold value shown
    exactly at ``[start, end)`` of the gold file ``path``: found again in the server's own
    outcomes computed from this very ``text`` (never from what the editor sends back), and
    none while results are stale."""
    out: list[GoldChange] = []
    for o in outcomes:
        g = o.gold
        if o.suite.config.gold != path or o.texts.get(path) != text or o.stale is not None \
                or g is None:
            continue
        for s in o.suspects:
            rec = g.records[s.gold_index]
            a, b = suspect_span(s, rec.text, locator)
            if (rec.start + a, rec.start + b) != (start, end):
                continue
            try:
                [edit] = gold_edits(text, rec, s.gold_pointer, s.agreed)
            except GoldFixError:
                continue
            out.append(GoldChange(path, edit, f"{ACCEPT}: {s.path} = "
                                  f"{show_value(s.agreed, TITLE_VALUE)} ({s.agreeing} of "
                                  f"{s.scored} runs)"))
    return out


def _prefix(segs: list[str]) -> str:
    return "".join("/" + escape(seg) for seg in segs)


def _paired_pointers(s: ScoredRecord) -> list[tuple[list[str], list[str]]]:
    """(extracted, gold) segments of every result judged on both sides."""
    return [(split(r.extracted_pointer), split(r.gold_pointer)) for r in s.record.field_results
            if r.extracted_pointer is not None and r.gold_pointer is not None]


def gold_pointer(s: ScoredRecord, extracted_pointer: str | None) -> str | None:
    """Where an extracted value belongs in gold: the same keys, and for each array
    element the gold element the alignment paired it with (None: paired with none)."""
    if extracted_pointer is None or s.extracted is None:
        return None
    segs = split(extracted_pointer)
    pairs = _paired_pointers(s)
    node: Any = s.extracted.value
    gold: list[str] = []
    for i, seg in enumerate(segs):
        if isinstance(node, list):
            want = segs[:i + 1]
            found = next((gs[i] for es, gs in pairs
                          if es[:i + 1] == want and len(gs) > i and gs[:i] == gold), None)
            if found is None:
                return None
            gold.append(found)
            node = node[int(seg)] if seg.isdigit() and int(seg) < len(node) else None
        else:
            gold.append(seg)
            node = node.get(seg) if isinstance(node, dict) else None
    return _prefix(gold)


def removal_pointer(s: ScoredRecord, pointer: str) -> str:
    """What to remove from gold for an omission at ``pointer``: the value, or the object
    or element it is the last member of, when nothing was extracted there either (so no
    empty ``{}`` is left to be missed in its turn)."""
    assert s.gold is not None and s.extracted is not None
    paired = [gs for _, gs in _paired_pointers(s)]
    segs = split(pointer)
    while len(segs) > 1:
        parent = segs[:-1]
        at = _prefix(parent)
        container = resolve(s.gold.value, at, None)
        if not isinstance(container, dict | list) or len(container) != 1 \
                or any(gs[:len(parent)] == parent for gs in paired) \
                or resolve(s.extracted.value, at, None) is not None:
            break
        segs = parent
    return _prefix(segs)


def extracted_value(s: ScoredRecord, pointer: str, locator: RecordLocator
                    ) -> tuple[Any, str | None]:
    """The extracted value at ``pointer`` as read (before transforms), and for a scalar
    its own JSON text when the record was valid JSON (``1.50`` stays ``1.50``)."""
    e = s.extracted
    assert e is not None
    value = resolve(e.value, pointer)
    if e.repaired or isinstance(value, dict | list):
        return value, None
    span = locator.value(e.text, pointer)
    if span is None:
        return value, None
    text = e.text[span[0]:span[1]]
    try:
        same = json.loads(text)
    except ValueError:
        return value, None
    return value, text if type(same) is type(value) and same == value else None


# -- where the gold value is -----------------------------------------------------------

def gold_place(found: Located, locator: RecordLocator) -> Span | None:
    """The gold value's span in the gold file's text the run read; for a key gold does
    not have, its nearest parent's key (the record's first key at the top)."""
    s, r = found.pair.scored, found.result
    g = s.gold
    if g is None:
        return None
    pointer = r.gold_pointer if r.gold_pointer is not None \
        else gold_pointer(s, r.extracted_pointer)
    span = locator.value(g.text, pointer) if pointer is not None else None
    if span is None:
        near = locator.nearest(g.text, pointer or "/")
        span = near[0] if near is not None else (0, 0)
    return g.start + span[0], g.start + span[1]


# -- the record pair, side by side -----------------------------------------------------

@dataclass(frozen=True, slots=True)
class RecordPair:
    """Both records pretty-printed (2-space indent; the extracted keys in gold's order),
    each with a title."""

    gold_title: str
    gold_text: str
    extracted_title: str
    extracted_text: str


def record_pair(pair: Paired) -> RecordPair:
    s, run = pair.scored, pair.run
    gold_name = pair.outcome.suite.config.gold.name
    label = short_label(s.record.label)
    g = s.gold.value if s.gold is not None else None
    e = s.extracted.value if s.extracted is not None else None
    return RecordPair(
        f"{gold_name} · record {label} (gold)" if s.gold is not None
        else f"{gold_name} · no gold record {label}",
        _pretty(g) if s.gold is not None else "",
        f"{run.path.name} · record {label} ({run.label})",
        _pretty(_in_order_of(e, g)) if s.extracted is not None else "")


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _in_order_of(value: Any, like: Any) -> Any:
    """``value`` with its keys in ``like``'s order (its own keys after), at every level;
    array elements follow the keys of ``like``'s elements, in order of first use."""
    if isinstance(value, dict):
        model = like if isinstance(like, dict) else {}
        keys = [k for k in model if k in value] + [k for k in value if k not in model]
        return {k: _in_order_of(value[k], model.get(k)) for k in keys}
    if isinstance(value, list):
        merged: dict[str, Any] = {}
        for item in like if isinstance(like, list) else []:
            if isinstance(item, dict):
                for k, v in item.items():
                    merged.setdefault(k, v)
        return [_in_order_of(v, merged) for v in value]
    return value
