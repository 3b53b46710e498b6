"""The files a strategy's grammar could not parse, with their lines: one short list per strategy for the terminal
summary and the Markdown report (the JSON report holds every one, in ``strategy_stats.parse_error_lines``).

A counter (``parse_errors=5``) tells a reviewer something is wrong but not where; this names the file and the
lines to open. Its own module so both renderers say it the same way, each with its own escaping.
"""
from __future__ import annotations

from dataclasses import dataclass

from pytest_chunkeval.results.typed import SuiteResult
from pytest_chunkeval.scoring.quality import regions_text

SHOWN_FILES = 10  # files listed per strategy; the rest are counted


@dataclass(frozen=True)
class Unparsed:
    """One strategy's parse errors on one suite, as text: a headline and a line per file shown."""

    strategy: str
    headline: str
    files: tuple[str, ...]


def unparsed(suite: SuiteResult, shown: int = SHOWN_FILES) -> list[Unparsed]:
    """Every strategy of ``suite`` (once, whatever its retrieval modes) whose grammar failed on a file."""
    seen: set[str] = set()
    out: list[Unparsed] = []
    for s in suite.strategies.values():
        if s.name in seen or not s.evaluated:
            continue
        seen.add(s.name)
        pe = s.parse_errors
        if not pe.count:
            continue
        listed = list(pe.regions.items())
        lines = [f"{path}: {regions_text(regions)}" for path, regions in listed[:shown]]
        if len(listed) > shown:
            lines.append(f"… and {len(listed) - shown} more files (the JSON report lists every one)")
        if pe.count > len(listed):
            lines.append(f"{pe.count - len(listed)} more counted but not named by the strategy")
        headline = f"{s.name}: its grammar could not parse {pe.count} of {pe.files} files ({pe.share:.0%})"
        out.append(Unparsed(s.name, headline, tuple(lines)))
    return out
