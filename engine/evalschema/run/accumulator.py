"""A run's mergeable sums: per-field tallies, record metrics, and the records kept.

Mergeable, so a run can be split into chunks scored in worker processes and folded back
in order (``parallel``), or resumed from a copy after its unchanged first records (the
language server); the figures are bit-identical either way.

With ``replicates`` (a ``BootstrapSpec``), it also keeps the run's ``ReplicateTally``
(``bootstrap``), so a distributed ``compare`` is one pass: each part scores its records,
the parts merge, and the merged runs are compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evalschema.calibration import ConfidenceTally
from evalschema.results import (
    Counts,
    Coverage,
    FieldAggregation,
    FieldResult,
    RecordResult,
    RunResult,
    Undefined,
)
from evalschema.run.bootstrap import BATCH, BootstrapSpec, unit_key
from evalschema.scoring.tally import fold, make_counts

if TYPE_CHECKING:
    from evalschema.run.replicates import ReplicateTally

#: Records buffered before they are folded into the replicate tally (one matrix product).
REPLICATE_BATCH = BATCH


@dataclass
class RunAccumulator:
    """Mergeable run-level state: per-field tallies, totals, sums of record metrics."""

    per_field: dict[str, list[float]] = field(default_factory=dict)
    records: list[RecordResult] = field(default_factory=list)
    keep_records: bool = True
    n: int = 0
    sum_p: float = 0.0
    sum_r: float = 0.0
    sum_f1: float = 0.0
    sum_w: float = 0.0
    #: Records whose precision, recall, F1, weighted score was defined (each mean's n).
    n_p: int = 0
    n_r: int = 0
    n_f1: int = 0
    n_w: int = 0
    #: Gold values under keys no schema node covers, by pointer pattern (``schema.coverage``).
    off_schema: dict[str, int] = field(default_factory=dict)
    #: Per field, its confidences against correctness (``x-eval-confidence``): integer
    #: counts on a fixed grid, so merging is exact (``calibration``).
    confidence: dict[str, ConfidenceTally] = field(default_factory=dict)
    #: The bootstrap to keep replicate sums for (``compare``); None: none kept.
    replicates: BootstrapSpec | None = None
    #: The replicate sums (with ``replicates``), and the records not yet folded in.
    bootstrap: ReplicateTally | None = None
    pending: list[tuple[RecordResult, Any]] = field(default_factory=list)
    #: Unpaired extracted records per name, for their unit keys (``bootstrap.unit_key``).
    extra_seen: dict[Any, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.replicates is not None and self.bootstrap is None:
            from evalschema.run.replicates import ReplicateTally  # numpy: only with replicates

            self.bootstrap = ReplicateTally(self.replicates)

    def flush(self) -> None:
        """Fold the buffered records into the replicate tally."""
        if self.pending and self.bootstrap is not None:
            self.bootstrap.add([r for r, _ in self.pending], [k for _, k in self.pending])
        self.pending = []

    def tally(self, results: Sequence[FieldResult]) -> Counts:
        """Fold one record's results into the per-field tallies; return the record's counts."""
        counts = [0] * 8
        return make_counts(counts, *fold(results, 0, self.per_field, counts, 0.0, 0.0, 0.0))

    def add(self, record: RecordResult, *, counted: bool = True) -> None:
        if self.keep_records:
            self.records.append(record)
        if not counted:
            return
        if self.bootstrap is not None:
            self.pending.append((record, unit_key(record, self.extra_seen)))
            if len(self.pending) >= REPLICATE_BATCH:
                self.flush()
        self.n += 1
        p, r, f1, w = record.counts.metrics()  # once, not four property calls
        # An undefined figure (None) is left out of its mean, and counted as left out.
        if p is not None:
            self.sum_p += p
            self.n_p += 1
        if r is not None:
            self.sum_r += r
            self.n_r += 1
        if f1 is not None:
            self.sum_f1 += f1
            self.n_f1 += 1
        if w is not None:
            self.sum_w += w
            self.n_w += 1

    def update(self, other: RunAccumulator) -> None:
        """Fold ``other`` into this accumulator in place (the same sums as ``merge``).
        Replicate sums merge when both keep them under the same spec; one side without
        them leaves the merged run without them (they would miss its records)."""
        self.flush()
        other.flush()
        if self.bootstrap is not None:
            if other.bootstrap is None:
                self.bootstrap = None
                self.replicates = None
            else:
                self.bootstrap.update(other.bootstrap)
                for name, count in other.extra_seen.items():
                    self.extra_seen[name] = self.extra_seen.get(name, 0) + count
        for k, t in other.per_field.items():
            mine = self.per_field.get(k)
            if mine is None:
                self.per_field[k] = list(t)
                continue
            for i, v in enumerate(t):
                mine[i] += v
        if self.keep_records:
            self.records.extend(other.records)
        self.n += other.n
        self.sum_p += other.sum_p
        self.sum_r += other.sum_r
        self.sum_f1 += other.sum_f1
        self.sum_w += other.sum_w
        self.n_p += other.n_p
        self.n_r += other.n_r
        self.n_f1 += other.n_f1
        self.n_w += other.n_w
        for k, v in other.off_schema.items():
            self.off_schema[k] = self.off_schema.get(k, 0) + v
        for k, c in other.confidence.items():
            mine_c = self.confidence.get(k)
            if mine_c is None:
                self.confidence[k] = c.copy()
            else:
                mine_c.update(c)

    def copy(self, *, records: bool = True) -> RunAccumulator:
        """An independent copy of the sums, to resume from later (the language server
        keeps one every few hundred records, so a run whose first records did not
        change resumes there instead of re-adding them; sums stay in record order,
        hence bit-identical). ``records=False`` leaves the record list empty. Records
        buffered for the replicate tally stay buffered in both (batches stay aligned)."""
        return RunAccumulator({k: list(t) for k, t in self.per_field.items()},
                              list(self.records) if records else [], self.keep_records,
                              self.n, self.sum_p, self.sum_r, self.sum_f1, self.sum_w,
                              self.n_p, self.n_r, self.n_f1, self.n_w, dict(self.off_schema),
                              {k: c.copy() for k, c in self.confidence.items()},
                              self.replicates,
                              None if self.bootstrap is None else self.bootstrap.copy(),
                              list(self.pending), dict(self.extra_seen))

    def merge(self, other: RunAccumulator) -> RunAccumulator:
        """A new accumulator holding both (``other`` after this one): ``copy`` then
        ``update``, so the sums are those of ``update``. It keeps records only when both
        do (a mix would hold the records of one side only)."""
        keep = self.keep_records and other.keep_records
        out = self.copy(records=keep)
        out.keep_records = keep
        out.update(other)
        return out

    def result(self) -> RunResult:
        self.flush()
        # A tally holds its 8 status counts as floats (see ``tally``).
        per_field = {k: FieldAggregation(k, make_counts([int(v) for v in t[:8]], t[8], t[9],
                                                        t[10]))
                     for k, t in self.per_field.items()}
        totals = Counts()
        for agg in per_field.values():
            totals = totals.merge(agg.counts)
        n = self.n
        return RunResult(
            records=tuple(self.records), per_field=per_field, totals=totals,
            mean_precision=self.sum_p / self.n_p if self.n_p else None,
            mean_recall=self.sum_r / self.n_r if self.n_r else None,
            mean_f1=self.sum_f1 / self.n_f1 if self.n_f1 else None,
            mean_weighted_score=self.sum_w / self.n_w if self.n_w else None,
            total_records=n,
            undefined=Undefined(n - self.n_p, n - self.n_r, n - self.n_f1, n - self.n_w),
            coverage=Coverage.of(totals.matches + totals.mismatches + totals.omissions,
                                 self.off_schema),
            confidence={k: c.copy() for k, c in self.confidence.items()},
            replicates=None if self.bootstrap is None else self.bootstrap.copy(),
        )

