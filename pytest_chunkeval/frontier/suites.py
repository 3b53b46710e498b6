"""Which suites of several reports are the same suite: by content, never by path alone.

``chunkeval init`` names every repository's suites ``golden/docs/queries.yaml`` and ``golden/history/queries.yaml``,
so the reports of two repositories share keys that name different suites. Read by key, their points would replace
each other and pool as one suite: "pooled over 2 suites" for 4, 65- and 24-query rows in one table, and tests over 0
paired queries. A report records each suite's ``content_digest`` (its corpus and queries,
``comparable.suite_digest``; computed from ``corpus_hash`` and ``query_set`` for a report from before), and a key
that holds different digests becomes one suite per digest, named ``KEY@<first 8 digits>`` and said so in a note.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_chunkeval.results.comparable import recorded_digest

SHOWN_DIGITS = 8


class SuiteConflict(ValueError):
    """Reports whose suites cannot be told apart: a key naming different suites, one of them without a digest."""


def _files(names: Sequence[str], which: Sequence[int]) -> str:
    return ", ".join(names[i] for i in dict.fromkeys(which))


def suite_names(reports: Sequence[Mapping[str, Any]], names: Sequence[str]) -> tuple[dict[tuple[int, str], str],
                                                                                       list[str]]:
    """(report index, suite key) -> the suite's name in the frontier, and notes on what was kept apart or could not
    be checked. :class:`SuiteConflict`, naming the reports, when a key names different suites and a report does not
    say which of them it holds."""
    seen: dict[str, list[tuple[int, str]]] = {}
    for i, report in enumerate(reports):
        for key, entry in (report.get("suites") or {}).items():
            seen.setdefault(key, []).append((i, recorded_digest(entry)))
    out: dict[tuple[int, str], str] = {}
    notes: list[str] = []
    for key, found in seen.items():
        digests = list(dict.fromkeys(d for _, d in found if d))
        unknown = [i for i, d in found if not d]
        if len(digests) <= 1:
            out.update({(i, key): key for i, _ in found})
            if unknown and len(found) > 1:
                notes.append(f"{key} in {_files(names, [i for i, _ in found])}: read as one suite by its path alone "
                             f"(not checked: {_files(names, unknown)} does not record the suite's content, a report "
                             "from before corpus hashes were recorded)")
            continue
        if unknown:
            raise SuiteConflict(
                f"{key} is a different suite in {_files(names, [i for i, d in found if d])} (another corpus or other "
                f"queries), and {_files(names, unknown)} does not record which one it holds (a report from before "
                "corpus hashes were recorded): cannot tell which points belong together; evaluate it again or leave "
                "it out")
        out.update({(i, key): f"{key}@{d[:SHOWN_DIGITS]}" for i, d in found})
        kept = "; ".join(f"{key}@{d[:SHOWN_DIGITS]} in {_files(names, [i for i, e in found if e == d])}"
                         for d in digests)
        notes.append(f"{key} names {len(digests)} different suites (another corpus or other queries), kept apart: "
                     f"{kept}")
    return out, notes
