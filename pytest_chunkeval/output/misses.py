"""What a run says about its misses: on a new suite listed, counted, with the one command that records them; on a
recorded suite which xfailed items are known misses, which misses the record does not list and which of its misses
hit now.

Two kinds of miss, one word each, because the run says different things of them: an *unrecorded* miss is under
settings no record holds yet (:func:`unrecorded_lines` lists it with the command that records it); an *unlisted* miss
is one a record holding the settings does not list (:class:`Drift`, :func:`drift_lines`: the record is out of date).

No miss fails on its own by default: with a base the comparison's hit test weighs lost against gained queries, and
without one the record's drift is reported (``chunkeval_misses = fail`` fails each, as a strict record would).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_chunkeval.output.escape import log_text
from pytest_chunkeval.results.typed import suite_key

SHOWN = 8  # query ids listed per strategy; the rest are counted


@dataclass(frozen=True)
class Drift:
    """One strategy's outcomes on one suite against the record that holds them: what the summary says of misses."""

    suite: Path
    label: str  # the row label (strategy, and mode when several)
    recorded: int  # misses the record lists that missed again (accepted, xfailed)
    unlisted: tuple[str, ...]  # missed, and the record does not list them
    found: tuple[str, ...]  # the record lists them as its own misses, and they hit now


def unrecorded_lines(unrecorded: dict[Path, dict[str, list[str]]], root: Path, command: str) -> list[str]:
    """The unrecorded misses, per suite and row. ``command``: this run's own command line plus
    ``--chunkeval-accept-misses``, so the record is made for the same suites, strategies and settings."""
    lines: list[str] = []
    total = 0
    for suite, by_strategy in unrecorded.items():
        count = sum(len(ids) for ids in by_strategy.values())
        total += count
        lines.append(f"{log_text(suite_key(suite, root))}: no accepted-misses record yet; {count} misses (xfailed):")
        for label, ids in by_strategy.items():
            lines.append(f"  {log_text(label)}: {_ids(ids)}")
    if total:
        lines.append(f"{total} misses on suites with no accepted-misses record yet; to hold today's state, record "
                     f"it with: {command}")
    return lines


def _ids(ids: Sequence[str]) -> str:
    more = f" … and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return ", ".join(log_text(str(i)) for i in ids[:SHOWN]) + more


def drift_lines(drift: Sequence[Drift], root: Path, command: str, strict: bool) -> list[str]:
    """What the xfailed items of a run against its records are, and what changed since each record was made.

    Why: pytest's "253 xfailed" says nothing of whether those are known misses; a reviewer needs "240 recorded, 13
    lost since", the queries, and the command that refreshes the record."""
    recorded = sum(d.recorded for d in drift)
    unlisted = [d for d in drift if d.unlisted]
    found = [d for d in drift if d.found]
    lines: list[str] = []
    if recorded:
        lines.append(f"{recorded} xfailed query items are misses recorded in accepted_misses.yaml (known misses, "
                     "not failures)")
    verb = "failed" if strict else "xfailed: reported, not failed (chunkeval_misses = report)"
    for d in unlisted:
        where = f"{log_text(suite_key(d.suite, root))}::{log_text(d.label)}"
        lines.append(f"{where}: {len(d.unlisted)} missed and not in the record ({verb}): "
                     f"{_ids(d.unlisted)}")
    for d in found:
        where = f"{log_text(suite_key(d.suite, root))}::{log_text(d.label)}"
        lines.append(f"{where}: {len(d.found)} recorded misses now found "
                     f"({'failed as FIXED' if strict else 'passed'}): {_ids(d.found)}")
    if unlisted or found:
        lines.append(f"the record is out of date; if the change is intended, refresh it: {command}")
    return lines


def drift_note(drift: Sequence[Drift], command: str, strict: bool) -> str | None:
    """The verdict's note on a drifted record (None when nothing drifted); with ``strict`` the failures say it."""
    unlisted = sum(len(d.unlisted) for d in drift)
    found = sum(len(d.found) for d in drift)
    if strict or not (unlisted or found):
        return None
    return (f"{unlisted} queries missed that the accepted-misses record does not list, {found} recorded misses now "
            f"found (reported, not failed); intended? refresh the record: `{command}`; whether a change made retrieval "
            "worse is decided against a base: `--chunkeval-base=REF`")
