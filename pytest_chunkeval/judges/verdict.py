"""The run's verdict, judged once: PASS or FAIL, and every reason grouped, as data (a :class:`Decision`).

A reviewer reads the first lines of a report, so a red check must say its cause (a miss the record does not list, a
record gone stale, a new parser warning) at the top, not in a failure far below. Here every failed item is sorted into
a reason and the comparison's own numbers are attached where it failed; the wording of each reason, and what settles
it, is :mod:`pytest_chunkeval.output.verdict_text`'s, and the renderers (terminal, Markdown, job summary, PR comment)
print the verdict first and the tables after.

The failures are the items' own outcomes, so the verdict can never disagree with pytest's exit status: a failed item
of a kind not named here becomes an "other failures" reason rather than disappearing.

Each item states the kind of its failure as data (``items.EvalItem.failure_kind``, carried on its report through
pytest-xdist), so an item's id or message can change without moving its failures to another reason.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from pytest_chunkeval.judges.comparison import HitTest, MetricDelta
    from pytest_chunkeval.judges.judged_run import Summary

#: What a failed item's failure is: "comparison" is told through the comparison's own numbers, every other kind is a
#: reason of its own.
FailureKind = Literal["comparison", "build", "miss", "fixed", "fallback", "parse", "quality", "gate", "other"]
FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)


@dataclass(frozen=True)
class Failure:
    """A failed evaluation item: its id, the kind its item gave the failure and the first line of its report."""

    nodeid: str
    kind: FailureKind
    first_line: str

    def __post_init__(self) -> None:
        if self.kind not in FAILURE_KINDS:
            raise ValueError(f"{self.nodeid}: unknown failure kind {self.kind!r} (known: {', '.join(FAILURE_KINDS)})")

    @property
    def where(self) -> str:
        """``suite::strategy`` of the item (its id without the item's own name)."""
        return self.nodeid.rsplit("::", 1)[0]


#: Why a run fails: a failure kind of the items, or what a failed comparison found.
ReasonKind = Literal["regression", "size", "warnings", "build", "miss", "fixed", "fallback", "parse", "quality", "gate",
                     "other"]
#: The order the reasons are said in.
ORDER: tuple[ReasonKind, ...] = get_args(ReasonKind)


@dataclass(frozen=True)
class FailedAt:
    """A failed item of a reason: its id and its message's first line."""

    nodeid: str
    first_line: str


@dataclass(frozen=True)
class Uncompared:
    """A strategy (``suite::label``) whose comparison item failed with no comparison to show for it."""

    where: str


@dataclass(frozen=True)
class Regressed:
    """A gating metric of a compared strategy that fell (``correction`` across a family of ``family_size``)."""

    key: str
    label: str
    delta: MetricDelta
    correction: str
    family_size: int


@dataclass(frozen=True)
class LostQueries:
    """A compared strategy that lost more queries than it gained, past the tolerance."""

    key: str
    label: str
    hits: HitTest
    correction: str
    family_size: int


@dataclass(frozen=True)
class Grew:
    """A compared strategy's index that grew past the allowed increase."""

    key: str
    label: str
    base_size: float
    head_size: float
    change: float | None  # relative (None: no base size, never with a growth that failed)


@dataclass(frozen=True)
class NewWarnings:
    """Chunker warnings new on head (parse problems the base did not have)."""

    key: str
    label: str
    warnings: tuple[str, ...]


Entry = FailedAt | Uncompared | Regressed | LostQueries | Grew | NewWarnings


@dataclass(frozen=True)
class Finding:
    """One reason the run fails, with what makes it up."""

    kind: ReasonKind
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class SweepNote:
    """What a sweep found on a suite (searched with ``mode``; None with one mode): its points, the best row by
    line-projected NDCG@``k`` (label, value), and the misses at its points (measured, not failed)."""

    suite: str
    mode: str | None
    points: int
    best: tuple[str, float] | None
    missed: int
    k: int


@dataclass(frozen=True)
class MovedNote:
    """A compared strategy whose queries moved against the base without failing it."""

    key: str
    label: str
    lost: int
    gained: int


Note = SweepNote | MovedNote


@dataclass
class Decision:
    """The run's verdict as decided: passed or not, the reasons in the order they are said, and the notes (worth a
    reviewer's eye, failing nothing)."""

    passed: bool
    findings: list[Finding] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)


# -- judging ------------------------------------------------------------------------------------------------------


def judge(summary: Summary | None, failures: list[Failure], node_part: Callable[[str], str] = str) -> Decision:
    """The verdict of a run: ``failures`` are its failed evaluation items; ``summary`` gives the comparison's and
    the results' details (None when nothing was evaluated). ``node_part`` is how a suite key or a strategy label
    reads in an item's id (the plugin escapes a name holding a newline or ``::`` there): a comparison item's failure
    is matched to its comparison by it."""
    grouped: dict[ReasonKind, list[Entry]] = {}
    for f in failures:
        if f.kind == "comparison":
            continue  # said through the comparison's own numbers below
        grouped.setdefault(f.kind, []).append(FailedAt(f.nodeid, f.first_line))
    found: dict[ReasonKind, tuple[Entry, ...]] = {}
    compared = {f.where for f in failures if f.kind == "comparison"}
    if summary is not None:
        found.update(_comparison_findings(summary, compared, node_part))
    found.update({kind: tuple(entries) for kind, entries in grouped.items()})
    if compared and not any(k in found for k in ("regression", "size", "warnings")):
        # A comparison item failed for another reason (its base could not be evaluated): say it, never hide it.
        found["other"] = tuple(Uncompared(where) for where in sorted(compared))
    decision = Decision(passed=not failures, findings=[Finding(k, found[k]) for k in ORDER if k in found])
    if failures and not decision.findings:  # pragma: no cover - every kind maps to a reason
        decision.findings.append(Finding("other", tuple(Uncompared(f.nodeid) for f in failures)))
    if summary is not None:
        decision.notes = _notes(summary)
    return decision


def _comparison_findings(summary: Summary, failed_at: set[str],
                         node_part: Callable[[str], str]) -> dict[ReasonKind, tuple[Entry, ...]]:
    regressions: list[Entry] = []
    growth: list[Entry] = []
    warnings: list[Entry] = []
    correction, size = summary.correction, summary.family_size
    for key, suite in summary.comparisons.items():
        for label, c in suite.strategies.items():
            if f"{node_part(key)}::{node_part(label)}" not in failed_at:
                continue
            regressions += [Regressed(key, label, d, correction, size) for d in c.deltas if d.regressed]
            if c.hits is not None and c.hits.regressed:
                regressions.append(LostQueries(key, label, c.hits, correction, size))
            if c.size_regressed:
                growth.append(Grew(key, label, c.base_size, c.head_size, c.size_change))
            if c.fail_on_new_warnings and c.new_warnings:
                warnings.append(NewWarnings(key, label, tuple(c.new_warnings)))
    found: tuple[tuple[ReasonKind, list[Entry]], ...] = (("regression", regressions), ("size", growth),
                                                          ("warnings", warnings))
    return {kind: tuple(entries) for kind, entries in found if entries}


def _sweep_notes(summary: Summary) -> list[Note]:
    """What a sweep found, per suite and retrieval mode: how many points, the best by line-projected NDCG against
    the best of the strategies' own defaults, and how many misses its points had (measured, not failed)."""
    from pytest_chunkeval.core.vocabulary import LINES, NDCG, metric_key

    key = metric_key(NDCG, summary.k)
    notes: list[Note] = []
    for suite_key, suite in summary.suites.items():
        for mode in summary.modes or ("",):
            rows = [r for r in suite.strategies.values() if r.evaluated and r.mode in (mode, "")]
            points = [r for r in rows if r.family]
            if not points:
                continue
            scored = [(r.means.get(LINES, {}).get(key), r) for r in rows]
            ranked = sorted(((v, r.label) for v, r in scored if v is not None), key=lambda t: (-t[0], t[1]))
            best = (ranked[0][1], ranked[0][0]) if ranked else None
            notes.append(SweepNote(suite_key, mode if len(summary.modes) > 1 else None, len(points), best,
                                   sum(r.misses for r in points), summary.k))
    return notes


def _notes(summary: Summary) -> list[Note]:
    """What passed but is worth a reviewer's eye: queries that moved against the base, blind spots of small suites."""
    notes = _sweep_notes(summary)
    for key, suite in summary.comparisons.items():
        notes += [MovedNote(key, label, len(c.lost), len(c.gained)) for label, c in suite.strategies.items()
                  if c.lost or c.gained]
    return notes
