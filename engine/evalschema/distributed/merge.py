"""Merging partition states on the driver into a run, whatever the partitioning.

States are folded in the order of their smallest id (partitions without an id last),
never in the order they arrived, so a run's counts are exact and its sums do not depend
on which worker finished first (for the same partitioning they are bit-identical; a
different partitioning adds the same numbers in another order, equal within 1e-12).
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from evalschema.distributed.scorer import PartitionState
from evalschema.errors import GoldValidationError, Problem
from evalschema.results import RunResult
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.bootstrap import BootstrapSpec
from evalschema.run.pairing import NO_EXTRACTED_WITH_ID, missing_problem
from evalschema.run.parallel import PROBLEMS, WORST, Digest, EvalOutcome


@dataclass(frozen=True)
class DistributedRun:
    """A run on a distributed engine: the outcome a local run returns (the ``RunResult``
    and its report digest) and, when asked for, the engine's field-results Dataset or
    DataFrame (lazy: computed when written or read)."""

    outcome: EvalOutcome
    field_results: Any = None

    @property
    def run(self) -> RunResult:
        return self.outcome.run


@dataclass(frozen=True)
class Merged:
    """A distributed run after the merge: per extracted run its accumulator and digest."""

    accumulators: tuple[RunAccumulator, ...]
    digests: tuple[Digest, ...]
    records: int

    def outcomes(self, seconds: float, workers: int) -> list[EvalOutcome]:
        """One ``EvalOutcome`` per extracted run, as a local run returns (reports take it)."""
        return [EvalOutcome(acc.result(), digest, seconds, workers)
                for acc, digest in zip(self.accumulators, self.digests, strict=True)]


def load_state(blob: bytes | PartitionState) -> PartitionState:
    """A partition's state as collected (the pickled ``state`` column), or as it is."""
    return blob if isinstance(blob, PartitionState) else pickle.loads(blob)


def order(state: PartitionState) -> tuple[bool, str]:
    return (state.first_id is None, state.first_id or "")


def merge_states(states: Iterable[bytes | PartitionState], runs: int, *,
                 keep_records: bool = False, worst: int = WORST,
                 keep_problems: int = PROBLEMS,
                 replicates: BootstrapSpec | None = None) -> Merged:
    """Fold the states (pickled or not) in id order. Gold records a partition refused
    are raised together, as a local run raises them (``GoldValidationError``).
    ``replicates`` must be the partitions' (their replicate sums merge only into it)."""
    loaded = sorted((load_state(s) for s in states), key=order)
    problems: list[Problem] = [p for s in loaded for p in s.gold_problems]
    if problems:
        raise GoldValidationError(problems, "the gold records are unusable")
    accs = tuple(RunAccumulator(keep_records=keep_records, replicates=replicates)
                 for _ in range(runs))
    digests = tuple(Digest(worst, keep_problems) for _ in range(runs))
    for s in loaded:
        for acc, part in zip(accs, s.accumulators, strict=True):
            acc.update(part)
        for digest, dpart in zip(digests, s.digests, strict=True):
            digest.update(dpart)
    for run, (acc, digest) in enumerate(zip(accs, digests, strict=True)):
        _word_missing(acc, digest, sum(s.unreadable[run] for s in loaded))
    return Merged(accs, digests, sum(s.records for s in loaded))


def _word_missing(acc: RunAccumulator, digest: Digest, unread: int) -> None:
    """Say how many extracted records were unreadable where a gold record found none, as
    a local run does: the count is known only once every partition is in."""
    problem = missing_problem(unread)
    if problem == NO_EXTRACTED_WITH_ID:
        return
    acc.records = [r._replace(problem=problem) if r.problem == NO_EXTRACTED_WITH_ID else r
                   for r in acc.records]
    digest.problems = [dataclasses.replace(p, problem=problem)
                       if p.problem == NO_EXTRACTED_WITH_ID else p for p in digest.problems]
