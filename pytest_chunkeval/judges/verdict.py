"""The run's verdict, judged once: PASS or FAIL, and every reason grouped, each with what settles it when intended.

A reviewer reads the first lines of a report. Before this, a red check could show a table of "ok" rows; the cause
(a miss the record does not list, a record gone stale, a new parser warning) sat in a failure far below. Here every
failed item is sorted into a reason, the comparison's own numbers are attached where it failed, and the renderers
(terminal, Markdown, job summary, PR comment) print the verdict first and the tables after.

The failures are the items' own outcomes, so the verdict can never disagree with pytest's exit status: a failed item
of a kind not named here becomes an "other failures" reason rather than disappearing.

Each item states the kind of its failure as data (``items.EvalItem.failure_kind``, carried on its report through
pytest-xdist), so an item's id or message can change without moving its failures to another reason.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from pytest_chunkeval.judges.judged_run import Reason, Verdict

if TYPE_CHECKING:
    from pytest_chunkeval.judges.judged_run import Summary

#: What a failed item's failure is: "comparison" is told through the comparison's own numbers, every other kind is a
#: reason of its own (``_TITLES``).
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


# -- judging ------------------------------------------------------------------------------------------------------

_SETTLE = {
    "miss": "intended? record it: `{accept}`, and commit the suite's accepted_misses.yaml",
    "fixed": "refresh the record: `{accept}`, and commit accepted_misses.yaml",
    "build": "fix the strategy (its file, grammar or config); the message names the place",
    "fallback": "fix the strategy, or allow a share of fallbacks: `--chunkeval-max-fallback=SHARE`",
    "parse": "fix the grammar, or the files it cannot parse, or allow a share: `--chunkeval-max-parse-errors=SHARE`",
    "quality": "fix the strategy, or its declarations (max_chunk_size, lossless, fits_window)",
    "gate": "an adoption gate: the candidate is not (yet) worth switching to; thresholds are ini chunkeval_gate_*",
    "other": "see the failure above",
}
_TITLES = {
    "miss": "queries missed that the accepted-misses record does not list",
    "fixed": "queries found that the record lists as missed (the record is stale)",
    "build": "strategies that failed to build",
    "fallback": "strategies whose own chunking fell back to fixed windows",
    "parse": "strategies whose grammar could not parse a share of the files",
    "quality": "strategies that break their own declarations",
    "gate": "adoption gates failed",
    "other": "other failures",
}
_ORDER = ("regression", "size", "warnings", "build", "miss", "fixed", "fallback", "parse", "quality", "gate",
          "other")


def judge(summary: Summary | None, failures: list[Failure], accept: str = "pytest --chunkeval "
          "--chunkeval-accept-misses", notes: Sequence[str] = (),
          node_part: Callable[[str], str] = str) -> Verdict:
    """The verdict of a run: ``failures`` are its failed evaluation items; ``summary`` gives the comparison's and
    the results' details (None when nothing was evaluated). ``accept`` is the command that records misses;
    ``notes`` are the run's own (a drifted record), said after the comparison's. ``node_part`` is how a suite key or
    a strategy label reads in an item's id (the plugin escapes a name holding a newline or ``::`` there): a
    comparison item's failure is matched to its comparison by it."""
    grouped: dict[FailureKind, list[str]] = {}
    for f in failures:
        if f.kind == "comparison":
            continue  # said through the comparison's own numbers below
        grouped.setdefault(f.kind, []).append(f"{f.nodeid}: {f.first_line}")
    reasons: dict[str, Reason] = {}
    if summary is not None:
        failed_at = {f.where for f in failures if f.kind == "comparison"}
        reasons.update(_comparison_reasons(summary, failed_at, node_part))
    for kind, lines in grouped.items():
        reasons[kind] = Reason(_TITLES[kind], tuple(lines), _SETTLE[kind].format(accept=accept))
    compared = {f.where for f in failures if f.kind == "comparison"}
    if compared and not any(k in reasons for k in ("regression", "size", "warnings")):
        # A comparison item failed for another reason (its base could not be evaluated): say it, never hide it.
        reasons["other"] = Reason(_TITLES["other"], tuple(sorted(compared)), _SETTLE["other"])
    verdict = Verdict(passed=not failures, reasons=[reasons[k] for k in _ORDER if k in reasons])
    if failures and not verdict.reasons:  # pragma: no cover - every kind maps to a reason
        verdict.reasons.append(Reason(_TITLES["other"], tuple(f.nodeid for f in failures), _SETTLE["other"]))
    if summary is not None:
        verdict.notes = _notes(summary)
    verdict.notes += list(notes)
    return verdict


def _comparison_reasons(summary: Summary, failed_at: set[str], node_part: Callable[[str], str]) -> dict[str, Reason]:
    regressions: list[str] = []
    growth: list[str] = []
    warnings: list[str] = []
    method = {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "unadjusted"}.get(summary.correction,
                                                                                   summary.correction)
    for key, suite in summary.comparisons.items():
        for label, c in suite.strategies.items():
            if f"{node_part(key)}::{node_part(label)}" not in failed_at:
                continue
            for d in c.deltas:
                if d.regressed:
                    adj = f", adjusted p={d.p_adjusted:.3f} ({method}, family of {summary.family_size})" \
                        if d.p_adjusted is not None else ""
                    regressions.append(f"{key}::{label}: {d.metric} ({d.mode}) {d.base:.3f} → {d.head:.3f} "
                                       f"({d.delta:+.3f}, p={d.p_value:.3f}{adj})")
            h = c.hits
            if h is not None and h.regressed:
                adj = f", adjusted p={h.p_adjusted:.3f} ({method}, family of {summary.family_size})" \
                    if h.p_adjusted is not None else ""
                regressions.append(f"{key}::{label}: {h.lost} queries lost, {h.gained} gained of {h.paired} "
                                   f"(net {-h.net:+.1%}, exact McNemar p={h.p_value:.3f}{adj})")
            if c.size_regressed:
                growth.append(f"{key}::{label}: index {c.base_size:.0f} → {c.head_size:.0f} ({c.size_change:+.0%})")
            if c.fail_on_new_warnings and c.new_warnings:
                shown = "; ".join(c.new_warnings[:3]) + (f"; … {len(c.new_warnings) - 3} more"
                                                         if len(c.new_warnings) > 3 else "")
                warnings.append(f"{key}::{label}: {len(c.new_warnings)} new: {shown}")
    out: dict[str, Reason] = {}
    if regressions:
        out["regression"] = Reason("regressions against the base", tuple(regressions),
                                   "intended? nothing to record: the base moves when this merges (say so in review)")
    if growth:
        out["size"] = Reason("indexes grew past the allowed increase", tuple(growth),
                             "intended? raise ini chunkeval_regression_size_increase")
    if warnings:
        out["warnings"] = Reason("chunker warnings new on head (parse problems the base did not have)",
                                 tuple(warnings),
                                 "fix the grammar or config; intended? ini chunkeval_regression_new_warnings = report")
    return out


def _sweep_notes(summary: Summary) -> list[str]:
    """What a sweep found, per suite and retrieval mode: how many points, the best by line-projected NDCG against
    the best of the strategies' own defaults, and how many misses its points had (measured, not failed)."""
    from pytest_chunkeval.core.vocabulary import LINES, NDCG, label, metric_key

    key = metric_key(NDCG, summary.k)
    notes: list[str] = []
    for suite_key, suite in summary.suites.items():
        for mode in summary.modes or ("",):
            rows = [r for r in suite.strategies.values() if r.evaluated and r.mode in (mode, "")]
            points = [r for r in rows if r.family]
            if not points:
                continue
            scored = [(r.means.get(LINES, {}).get(key), r) for r in rows]
            ranked = sorted(((v, r.label) for v, r in scored if v is not None), key=lambda t: (-t[0], t[1]))
            best = f"; best {label(NDCG, summary.k)} lines: {ranked[0][1]} {ranked[0][0]:.3f}" if ranked else ""
            missed = sum(r.misses for r in points)
            where = f"{suite_key} ({mode})" if len(summary.modes) > 1 else suite_key
            notes.append(f"sweep on {where}: {len(points)} grid points measured{best}; {missed} misses at grid points "
                         "reported, not failed (--chunkeval-gate-grid holds them against the record; "
                         "--chunkeval-frontier weighs quality against cost)")
    return notes


def _notes(summary: Summary) -> list[str]:
    """What passed but is worth a reviewer's eye: queries that moved against the base, blind spots of small suites."""
    notes: list[str] = _sweep_notes(summary)
    for key, suite in summary.comparisons.items():
        moved = [(label, c) for label, c in suite.strategies.items() if c.lost or c.gained]
        for label, c in moved:
            notes.append(f"{key}::{label}: {len(c.lost)} queries lost, {len(c.gained)} gained against the base")
    return notes
