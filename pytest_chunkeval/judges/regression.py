"""A stored report as the base of a comparison (``--chunkeval-compare REPORT``, e.g. the one from the main branch).

The comparison itself is :mod:`comparison`'s, the same as against a git ref; this only reads the file, with an error
that names it.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def load_previous(path: Path) -> dict[str, Any]:
    """The report at ``path``, or a ``ValueError`` that names the file and what is wrong with it: unreadable, not
    strict JSON (NaN, Infinity or a number no float holds, which no report holds and no comparison survives: named
    with where it is), nested past what the parser takes, not shaped like a report, or holding a value out of its
    field's range (a per-query NDCG of 12345 would pass any comparison: ``schemas/report.schema.json``)."""
    from pytest_chunkeval.results.report_file import parse, shape_problem

    try:
        report, odd = parse(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise ValueError(f"{path}: cannot read the previous report: {why}") from None
    if odd is not None:
        raise ValueError(f"{path}: cannot read the previous report: it holds {odd[0]} at {odd[1]}, and a "
                         "pytest-chunkeval report is strict JSON (an undefined value is null)")
    if not isinstance(report, dict) or not isinstance(report.get("suites"), dict):
        raise ValueError(f"{path}: not a pytest-chunkeval report (no 'suites' mapping)")
    _check_shape(path, report)
    problem = shape_problem(report)
    if problem is not None:
        raise ValueError(f"{path}: not a pytest-chunkeval report: {problem}")
    return report


def _check_shape(path: Path, report: dict[str, Any]) -> None:
    """Read the report the way the comparison will, once, here: a wrong shape (a list where a mapping belongs, a
    string for a number) is then one message naming the file, not an AttributeError deep in collection."""
    from pytest_chunkeval.results.comparable import of_report
    from pytest_chunkeval.results.typed import suites_from_report

    try:
        of_report(report)
        suites_from_report(report)
    except (AttributeError, TypeError, KeyError, ValueError, IndexError) as exc:
        raise ValueError(f"{path}: not a pytest-chunkeval report this version can read "
                         f"({type(exc).__name__}: {exc})") from None
