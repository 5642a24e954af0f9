"""Scoring policy: the few rules on which evalschema deliberately parts from
struct_extract_eval, gathered in one object so the compat layer can switch them back.

Each field says what the native engine does and why; ``STRUCT_EXTRACT_EVAL`` is
that package's behaviour, quirks included (docs/compat.md lists them for users).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScoringPolicy:
    #: Label extra extracted array elements by their real index (``items[3]``) so an
    #: editor can find them; struct_extract_eval writes ``items[-1]``, ``items[-2]``.
    negative_extra_indices: bool = False
    #: Identical values match even when the comparator cannot judge their type
    #: ("n/a" vs "n/a" under numeric), so a record scored against itself is perfect.
    identical_values_match: bool = True
    #: Above this many (gold x extracted) pairs, Hungarian alignment falls back to
    #: positional pairing. None: never (cost matrices are built whole; only the memory
    #: limit ``evalschema.limits`` sets, which makes a larger array an ``error``, applies).
    hungarian_max_pairs: int | None = None
    #: key_field alignment pairs repeated keys in order of appearance; otherwise only
    #: the first element with a key is paired and the rest become omissions/hallucinations.
    key_field_repeats_in_order: bool = True
    #: key_field alignment pairs elements that lack the key (or hold an unusable one)
    #: with each other in order; otherwise they are all omissions/hallucinations.
    key_field_keyless_in_order: bool = True
    #: A key the schema does not know but gold and extracted both hold is skipped
    #: (the extractor was right); otherwise the extracted copy is a hallucination.
    shared_unknown_keys_skipped: bool = True
    #: A transform failing is scored (gold: error, extracted: mismatch); otherwise the
    #: TypeError propagates out of evaluate().
    transform_errors_scored: bool = True


NATIVE = ScoringPolicy()

STRUCT_EXTRACT_EVAL = ScoringPolicy(
    negative_extra_indices=True,
    identical_values_match=False,
    hungarian_max_pairs=2500,
    key_field_repeats_in_order=False,
    key_field_keyless_in_order=False,
    shared_unknown_keys_skipped=False,
    transform_errors_scored=False,
)
