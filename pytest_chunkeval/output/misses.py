"""What a first run on a new suite says about its misses: listed, counted, and the one command that records them.

Without a record there is nothing to hold a miss against, so misses do not fail (their items are xfailed); the
run ends with their count and ``--chunkeval-accept-misses``, after which a new miss fails and a fixed one says so.
"""
from __future__ import annotations

from pathlib import Path

from pytest_chunkeval.results import suite_key

SHOWN = 8  # query ids listed per strategy; the rest are counted


def unheld_lines(unheld: dict[Path, dict[str, list[str]]], root: Path, command: str) -> list[str]:
    """``command``: this run's own command line plus ``--chunkeval-accept-misses``, so the record is made for the
    same suites, strategies and settings."""
    lines: list[str] = []
    total = 0
    for suite, by_strategy in unheld.items():
        count = sum(len(ids) for ids in by_strategy.values())
        total += count
        lines.append(f"{suite_key(suite, root)}: no accepted-misses record yet; {count} misses (xfailed):")
        for label, ids in by_strategy.items():
            more = f" … and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
            lines.append(f"  {label}: {', '.join(ids[:SHOWN])}{more}")
    if total:
        lines.append(f"{total} misses on suites with no accepted-misses record yet; to hold today's state, record "
                     f"it with: {command}")
    return lines
