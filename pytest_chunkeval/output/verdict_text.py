"""The verdict in words: each reason's title, its lines and what settles it when the change is intended, and the notes.

:func:`pytest_chunkeval.judges.verdict.judge` decides the verdict as data (which reasons, made of which failed items
and compared numbers); :func:`worded` says it, once, into the :class:`~pytest_chunkeval.judges.judged_run.Verdict`
the run keeps on its summary, which every renderer (terminal, Markdown, JSON report) shows as it is.
"""
from __future__ import annotations

from collections.abc import Sequence

from pytest_chunkeval.core.vocabulary import NDCG, label
from pytest_chunkeval.judges.judged_run import Reason, Verdict
from pytest_chunkeval.judges.verdict import (
    Decision,
    Entry,
    FailedAt,
    Finding,
    Grew,
    LostQueries,
    MovedNote,
    NewWarnings,
    Note,
    Regressed,
    SweepNote,
    Uncompared,
)

#: The command that records misses, when the run does not say its own.
ACCEPT = "pytest --chunkeval --chunkeval-accept-misses"

TITLES = {
    "regression": "regressions against the base",
    "size": "indexes grew past the allowed increase",
    "warnings": "chunker warnings new on head (parse problems the base did not have)",
    "miss": "queries missed that the accepted-misses record does not list",
    "fixed": "queries found that the record lists as missed (the record is stale)",
    "build": "strategies that failed to build",
    "fallback": "strategies whose own chunking fell back to fixed windows",
    "parse": "strategies whose grammar could not parse a share of the files",
    "quality": "strategies that break their own declarations",
    "gate": "adoption gates failed",
    "other": "other failures",
}
#: What settles each reason when the change is intended; ``{accept}`` is the command that records misses.
SETTLE = {
    "regression": "intended? nothing to record: the base moves when this merges (say so in review)",
    "size": "intended? raise ini chunkeval_regression_size_increase",
    "warnings": "fix the grammar or config; intended? ini chunkeval_regression_new_warnings = report",
    "miss": "intended? record it: `{accept}`, and commit the suite's accepted_misses.yaml",
    "fixed": "refresh the record: `{accept}`, and commit accepted_misses.yaml",
    "build": "fix the strategy (its file, grammar or config); the message names the place",
    "fallback": "fix the strategy, or allow a share of fallbacks: `--chunkeval-max-fallback=SHARE`",
    "parse": "fix the grammar, or the files it cannot parse, or allow a share: `--chunkeval-max-parse-errors=SHARE`",
    "quality": "fix the strategy, or its declarations (max_chunk_size, lossless, fits_window)",
    "gate": "an adoption gate: the candidate is not (yet) worth switching to; thresholds are ini chunkeval_gate_*",
    "other": "see the failure above",
}
#: How each correction of the p-values is named in a regression's line.
METHODS = {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "unadjusted"}
#: New warnings a line names (the rest are counted).
WARNINGS_SHOWN = 3


def worded(decision: Decision, accept: str = ACCEPT, notes: Sequence[str] = ()) -> Verdict:
    """``decision`` in words; ``accept`` is the command that records misses, ``notes`` the run's own (a drifted
    record, already worded), said after the decision's."""
    reasons = [_reason(f, accept) for f in decision.findings]
    return Verdict(passed=decision.passed, reasons=reasons, notes=[*map(note_text, decision.notes), *notes])


def _reason(finding: Finding, accept: str) -> Reason:
    return Reason(TITLES[finding.kind], tuple(map(entry_text, finding.entries)),
                  SETTLE[finding.kind].format(accept=accept))


def _adjusted(p: float | None, correction: str, family_size: int) -> str:
    if p is None:
        return ""
    return f", adjusted p={p:.3f} ({METHODS.get(correction, correction)}, family of {family_size})"


def entry_text(entry: Entry) -> str:
    """One line of a reason."""
    if isinstance(entry, FailedAt):
        return f"{entry.nodeid}: {entry.first_line}"
    if isinstance(entry, Uncompared):
        return entry.where
    where = f"{entry.key}::{entry.label}"
    if isinstance(entry, Regressed):
        d = entry.delta
        adj = _adjusted(d.p_adjusted, entry.correction, entry.family_size)
        return f"{where}: {d.metric} ({d.mode}) {d.base:.3f} → {d.head:.3f} ({d.delta:+.3f}, p={d.p_value:.3f}{adj})"
    if isinstance(entry, LostQueries):
        h = entry.hits
        adj = _adjusted(h.p_adjusted, entry.correction, entry.family_size)
        return (f"{where}: {h.lost} queries lost, {h.gained} gained of {h.paired} "
                f"(net {-h.net:+.1%}, exact McNemar p={h.p_value:.3f}{adj})")
    if isinstance(entry, Grew):
        return f"{where}: index {entry.base_size:.0f} → {entry.head_size:.0f} ({entry.change:+.0%})"
    return _warnings_text(where, entry)


def _warnings_text(where: str, entry: NewWarnings) -> str:
    new = entry.warnings
    shown = "; ".join(new[:WARNINGS_SHOWN]) + (f"; … {len(new) - WARNINGS_SHOWN} more"
                                               if len(new) > WARNINGS_SHOWN else "")
    return f"{where}: {len(new)} new: {shown}"


def note_text(note: Note) -> str:
    """A note of the verdict: what a sweep found, or queries that moved against the base."""
    if isinstance(note, MovedNote):
        return f"{note.key}::{note.label}: {note.lost} queries lost, {note.gained} gained against the base"
    return _sweep_text(note)


def _sweep_text(note: SweepNote) -> str:
    where = f"{note.suite} ({note.mode})" if note.mode is not None else note.suite
    best = f"; best {label(NDCG, note.k)} lines: {note.best[0]} {note.best[1]:.3f}" if note.best else ""
    return (f"sweep on {where}: {note.points} grid points measured{best}; {note.missed} misses at grid points "
            "reported, not failed (--chunkeval-gate-grid holds them against the record; "
            "--chunkeval-frontier weighs quality against cost)")
