"""What one query's outcome means for its item, decided from the facts the run's parts own: the options, the base
(:mod:`.base_side`) and the accepted-misses records (:mod:`.ledger`).

The answer is a value, one case of :data:`QueryOutcome`, so the query item only maps it: a query counted passes,
each kind of miss that is evidence but not a failure xfails with its own reason, an unlisted miss and a fixed query
fail. The item words nothing and reads no record; every fact its message names travels on the value.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_chunkeval.chunking.contract import Registration
    from pytest_chunkeval.core.golden import GoldenSuite
    from pytest_chunkeval.run.accepted import AcceptedMisses
    from pytest_chunkeval.run.parts.base_side import BaseSide
    from pytest_chunkeval.run.parts.ledger import MissLedger


@dataclass(frozen=True)
class Counted:
    """The query passes: found, or missed in a run that records its misses (``--chunkeval-accept-misses``)."""


@dataclass(frozen=True)
class MissedAgainstBase:
    """Missed in a run with a base: one query is evidence, the comparison item's hit test decides. ``found``: where
    the base is and its rank of the query (:meth:`~.base_side.BaseSide.ranked`), None when not paired."""

    found: tuple[str, int | None] | None


@dataclass(frozen=True)
class MissedAtGridPoint:
    """Missed at a grid point of a sweep, which measures its points and gates none (without --chunkeval-gate-grid)."""


@dataclass(frozen=True)
class MissedNoRecordYet:
    """Missed under ``settings`` that ``record`` holds nothing for yet (a new suite): listed at the end."""

    record: Path
    settings: str


@dataclass(frozen=True)
class MissedAccepted:
    """Missed as ``record`` says it is, for this strategy or (``family``) for the strategy of its grid point."""

    record: Path
    family: str | None


@dataclass(frozen=True)
class MissedUnlisted:
    """Missed where ``record`` lists no miss, reported and not failed (``chunkeval_misses = report``)."""

    record: Path


@dataclass(frozen=True)
class Missed:
    """Missed where the record lists no miss, and misses fail (``chunkeval_misses = fail``)."""


@dataclass(frozen=True)
class Fixed:
    """Found, where this strategy's own record lists a miss, and misses fail: the record is stale."""


QueryOutcome = (Counted | MissedAgainstBase | MissedAtGridPoint | MissedNoRecordYet | MissedAccepted | MissedUnlisted
                | Missed | Fixed)


def query_outcome(ledger: MissLedger, base: BaseSide, suite: GoldenSuite, reg: Registration, mode: str,
                  query_id: str, hit: bool) -> QueryOutcome:
    """What ``hit`` for ``query_id`` (strategy ``reg`` on ``suite``, searched with ``mode``) means in this run. The
    base decides before the records (with one, a miss is paired, never held against a record), and so does a sweep's
    grid point (measured, not gated)."""
    options = ledger.options
    if options.accept_misses:
        return Counted()
    if base.comparing:
        return Counted() if hit else MissedAgainstBase(base.ranked(suite, reg.name, query_id, mode))
    if reg.point and not options.gate_grid:
        return Counted() if hit else MissedAtGridPoint()
    return against_record(ledger.record_of(suite), ledger.section_for(mode), reg, query_id, hit,
                          strict=options.misses == "fail")


def against_record(record: AcceptedMisses, settings: str, reg: Registration, query_id: str, hit: bool, *,
                   strict: bool) -> QueryOutcome:
    """``hit`` against ``record``'s section ``settings``; ``strict``: an unlisted miss and a fixed query fail."""
    if not record.holds(settings):
        return Counted() if hit else MissedNoRecordYet(record.path, settings)
    ids, own = record.accepted(settings, reg.name, reg.family)
    accepted = query_id in ids
    if not hit:
        if accepted:
            return MissedAccepted(record.path, None if own else reg.family)
        return Missed() if strict else MissedUnlisted(record.path)
    return Fixed() if accepted and own and strict else Counted()
