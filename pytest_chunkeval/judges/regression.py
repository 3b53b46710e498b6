"""A stored report as the base of a comparison (``--chunkeval-compare REPORT``, e.g. the one from the main branch).

The comparison itself is :mod:`comparison`'s, the same as against a git ref; this only reads the file, with an error
that names it.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any


def load_previous(path: Path) -> dict[str, Any]:
    """The report at ``path``, or a ``ValueError`` that names the file and what is wrong with it: unreadable, not
    strict JSON (NaN, Infinity or a number out of range, which no report holds and no comparison survives), nested
    past what the parser takes, or not shaped like a report."""
    try:
        report = json.loads(path.read_text("utf-8"), parse_constant=_refuse_constant, parse_float=_finite)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise ValueError(f"{path}: cannot read the previous report: {why}") from None
    except _NotFinite as exc:
        raise ValueError(f"{path}: cannot read the previous report: it holds {exc}, and a pytest-chunkeval report is "
                         "strict JSON (an undefined value is null)") from None
    if not isinstance(report, dict) or not isinstance(report.get("suites"), dict):
        raise ValueError(f"{path}: not a pytest-chunkeval report (no 'suites' mapping)")
    _check_shape(path, report)
    return report


class _NotFinite(ValueError):
    """A number a report never holds (its text is the message)."""


def _refuse_constant(name: str) -> Any:
    raise _NotFinite(name)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"{text} (out of range)")
    return value


def _check_shape(path: Path, report: dict[str, Any]) -> None:
    """Read the report the way the comparison will, once, here: a wrong shape (a list where a mapping belongs, a
    string for a number) is then one message naming the file, not an AttributeError deep in collection."""
    from pytest_chunkeval.comparable import of_report
    from pytest_chunkeval.results import suites_from_report

    try:
        of_report(report)
        suites_from_report(report)
    except (AttributeError, TypeError, KeyError, ValueError, IndexError) as exc:
        raise ValueError(f"{path}: not a pytest-chunkeval report this version can read "
                         f"({type(exc).__name__}: {exc})") from None
