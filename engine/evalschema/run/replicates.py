"""The Poisson bootstrap's replicate weights, and the mergeable per-run replicate sums
they make (``run.bootstrap`` says what is resampled).

The generator is ours (a counter-based splitmix64 over a blake2b hash of the unit's
key, inverse CDF against integer thresholds), not numpy's, whose streams may change
between versions: the weights are the same on every platform.

A run's state is a ``ReplicateTally``: the observed sums and the (resamples x columns)
replicate sums of per-field counts [S, DP, DR, N] and of per-record [defined, value] of
precision, recall and F1. ``compare`` turns tallies into percentile intervals.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from typing import Any

import numpy as np
import numpy.typing as npt

from evalschema.errors import InputError, Problem
from evalschema.results import RecordResult, Status
from evalschema.run.bootstrap import (
    BATCH,
    DP,
    DR,
    FIELD_WIDTH,
    MACRO,
    BootstrapSpec,
    N,
    S,
    unit_hash,
    unit_key,
)

Array = npt.NDArray[np.float64]
U64 = npt.NDArray[np.uint64]

_MASK = (1 << 64) - 1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)


def _poisson_thresholds() -> U64:
    """P(X <= k) of Poisson(1), times 2**53, floored, for k = 0, 1, ... while below
    2**53 - 1 (past that no 53-bit uniform tells them apart): computed in decimal
    arithmetic, the same digits on every platform (unlike libm's exp)."""
    out = []
    top = (1 << 53) - 1
    with localcontext() as ctx:
        ctx.prec = 50
        term = Decimal(-1).exp()  # P(X = 0)
        cdf = term
        k = 0
        while (t := int(cdf * (1 << 53))) < top:
            out.append(t)
            k += 1
            term /= k
            cdf += term
    return np.array(out, dtype=np.uint64)


#: A uniform u in [0, 2**53) has weight k when THRESHOLDS[k-1] <= u < THRESHOLDS[k].
THRESHOLDS = _poisson_thresholds()


def _mix(z: U64) -> U64:
    """splitmix64's finaliser, in place on a uint64 array (wrapping arithmetic)."""
    z ^= z >> np.uint64(30)
    z *= _MUL1
    z ^= z >> np.uint64(27)
    z *= _MUL2
    z ^= z >> np.uint64(31)
    return z


def hash_weights(hashes: U64, spec: BootstrapSpec) -> Array:
    """``poisson_weights`` from the units' ``unit_hash`` values."""
    seed = _mix(np.array([spec.seed & _MASK], dtype=np.uint64))[0]
    base = _mix(hashes + seed)
    steps = np.arange(1, spec.resamples + 1, dtype=np.uint64) * _GOLDEN
    z = _mix(steps[:, None] + base[None, :]) >> np.uint64(11)
    return np.searchsorted(THRESHOLDS, z, side="right").astype(np.float64)


def poisson_weights(keys: Sequence[Any], spec: BootstrapSpec) -> Array:
    """Each unit's Poisson(1) weight in each replicate, (resamples, len(keys)): column j
    depends only on ``spec`` and ``keys[j]`` (never on its position or on the others)."""
    with np.errstate(over="ignore"):
        return hash_weights(np.array([unit_hash(k) for k in keys], dtype=np.uint64), spec)


def _defined(value: float | None) -> tuple[float, float]:
    """(present, value) columns of a record's figure: (0, 0) when it is undefined."""
    return (0.0, 0.0) if value is None else (1.0, value)


@dataclass(eq=False)
class ReplicateTally:
    """A run's mergeable bootstrap state: observed and replicate sums of the columns
    (``MACRO`` per-record columns, then ``FIELD_WIDTH`` per field; fields keyed by name,
    so tallies of different field sets merge).

    Each unit must be added once per run: a gold unit added twice (the same record in
    two parts) is refused when tallies merge or are compared (``check``)."""

    spec: BootstrapSpec = field(default_factory=BootstrapSpec)
    fields: dict[str, int] = field(default_factory=dict)
    observed: Array = field(default_factory=lambda: np.zeros(MACRO))
    #: (resamples, columns); empty: zeros of that shape.
    replicates: Array = field(default_factory=lambda: np.zeros((0, 0)))
    #: Units added that a gold record paired, and extracted records no gold record did.
    gold_units: int = 0
    extra_units: int = 0
    #: The gold units' key hashes, in batches (``check`` refuses duplicates; the sorted
    #: whole says which gold records the run covers).
    hashes: list[U64] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.replicates.shape == (0, 0):
            self.replicates = np.zeros((self.spec.resamples, len(self.observed)))

    @property
    def units(self) -> int:
        return self.gold_units + self.extra_units

    def _field(self, name: str) -> int:
        """The field's slot, adding its columns (zeros) when it is new."""
        slot = self.fields.get(name)
        if slot is None:
            slot = self.fields[name] = len(self.fields)
            self.observed = np.concatenate([self.observed, np.zeros(FIELD_WIDTH)])
            self.replicates = np.concatenate(
                [self.replicates, np.zeros((self.spec.resamples, FIELD_WIDTH))], axis=1)
        return slot

    def rows(self, records: Sequence[RecordResult]) -> Array:
        """One row of columns per record (new fields get their columns first)."""
        for rec in records:
            for r in rec.field_results:
                if r.field not in self.fields:
                    self._field(r.field)
        width = len(self.observed)
        fields = self.fields
        # Flat (index, value) pairs summed by one bincount: numpy element access per
        # field result would cost ten times as much.
        idx: list[int] = []
        val: list[float] = []
        for i, rec in enumerate(records):
            prec, recall, f1, _ = rec.counts.metrics()
            row = i * width
            idx.extend(range(row, row + MACRO))
            val.extend((*_defined(prec), *_defined(recall), *_defined(f1)))
            for r in rec.field_results:
                st = r.status
                c = row + MACRO + FIELD_WIDTH * fields[r.field]
                if st is Status.MATCH or st is Status.MISMATCH:
                    idx.extend((c + S, c + DP, c + DR, c + N))
                    val.extend((r.score, 1.0, 1.0, 1.0))
                elif st is Status.OMISSION:
                    idx.extend((c + DR, c + N))
                    val.extend((1.0, 1.0))
                elif st is Status.HALLUCINATION:
                    idx.extend((c + DP, c + N))
                    val.extend((1.0, 1.0))
        x = np.bincount(np.array(idx, dtype=np.intp), np.array(val, dtype=np.float64),
                        minlength=len(records) * width)
        return x.astype(np.float64, copy=False).reshape(len(records), width)

    def add(self, records: Sequence[RecordResult], keys: Sequence[Any]) -> None:
        """Fold a batch of records, ``keys`` their units (``unit_key``): one matrix
        product of their weights and rows."""
        if not records:
            return
        with np.errstate(over="ignore"):
            hashes = np.array([unit_hash(k) for k in keys], dtype=np.uint64)
            self.add_hashed(records, hashes)

    def add_hashed(self, records: Sequence[RecordResult], hashes: U64,
                   weights: Array | None = None) -> None:
        """``add`` with the keys already hashed (and, optionally, their weights made)."""
        x = self.rows(records)
        w = hash_weights(hashes, self.spec) if weights is None else weights
        self.observed += x.sum(axis=0)
        self.replicates += w @ x
        gold = np.array([r.gold_index is not None for r in records], dtype=bool)
        self.gold_units += int(gold.sum())
        self.extra_units += len(records) - int(gold.sum())
        if gold.any():
            self.hashes.append(hashes[gold])

    def _columns(self, other: ReplicateTally) -> npt.NDArray[np.intp] | None:
        """Where ``other``'s columns go in this tally's (adding its new fields); None
        when they are the same columns in the same order."""
        for name in other.fields:
            self._field(name)
        if list(other.fields) == list(self.fields)[:len(other.fields)]:
            return None
        cols = list(range(MACRO))
        for name in other.fields:
            c = MACRO + FIELD_WIDTH * self.fields[name]
            cols.extend(range(c, c + FIELD_WIDTH))
        return np.array(cols, dtype=np.intp)

    def update(self, other: ReplicateTally) -> None:
        """Add ``other``'s sums to this tally's (the same spec only)."""
        if other.spec != self.spec:
            raise InputError([Problem("bootstrap-mismatch", f"cannot merge bootstrap tallies "
                                      f"of different settings ({self.spec} and {other.spec})")])
        cols = self._columns(other)
        if cols is None:
            width = len(other.observed)
            self.observed[:width] += other.observed
            self.replicates[:, :width] += other.replicates
        else:
            self.observed[cols] += other.observed
            self.replicates[:, cols] += other.replicates
        self.gold_units += other.gold_units
        self.extra_units += other.extra_units
        self.hashes.extend(other.hashes)

    def copy(self) -> ReplicateTally:
        return ReplicateTally(self.spec, dict(self.fields), self.observed.copy(),
                              self.replicates.copy(), self.gold_units, self.extra_units,
                              list(self.hashes))

    def gold_keys(self) -> U64:
        """The sorted hashes of the gold units; a unit added twice is an ``InputError``."""
        keys = np.sort(np.concatenate(self.hashes)) if self.hashes else \
            np.zeros(0, dtype=np.uint64)
        if len(keys) > 1 and bool((keys[1:] == keys[:-1]).any()):
            raise InputError([Problem("duplicate-unit", "a gold record was added to the run's "
                                      "bootstrap tally twice (a record scored in two parts?)",
                                      suggestion="score each record of a run once")])
        return keys

    def columns(self, fields: Iterable[str]) -> tuple[Array, Array]:
        """(observed, replicates) laid out for ``fields`` (zeros for a field not here)."""
        names = list(fields)
        obs = np.zeros(MACRO + FIELD_WIDTH * len(names))
        rep = np.zeros((self.spec.resamples, len(obs)))
        obs[:MACRO] = self.observed[:MACRO]
        rep[:, :MACRO] = self.replicates[:, :MACRO]
        for i, name in enumerate(names):
            slot = self.fields.get(name)
            if slot is None:
                continue
            src = slice(MACRO + FIELD_WIDTH * slot, MACRO + FIELD_WIDTH * (slot + 1))
            dst = slice(MACRO + FIELD_WIDTH * i, MACRO + FIELD_WIDTH * (i + 1))
            obs[dst] = self.observed[src]
            rep[:, dst] = self.replicates[:, src]
        return obs, rep


def tally_records(records: Iterable[RecordResult], spec: BootstrapSpec,
                  batch: int = BATCH) -> tuple[ReplicateTally, list[Any]]:
    """A tally of ``records`` (all counted) and their unit keys, in batches."""
    tally = ReplicateTally(spec)
    seen: dict[Any, int] = {}
    keys: list[Any] = []
    chunk: list[RecordResult] = []
    for rec in records:
        chunk.append(rec)
        keys.append(unit_key(rec, seen))
        if len(chunk) >= batch:
            tally.add(chunk, keys[-len(chunk):])
            chunk = []
    if chunk:
        tally.add(chunk, keys[-len(chunk):])
    return tally, keys
