"""A stored report as the base of a comparison (``--chunkeval-compare REPORT``, e.g. the one from the main branch).

The comparison itself is :mod:`comparison`'s, the same as against a git ref; this only reads the file, with an error
that names it.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def load_previous(path: Path) -> dict[str, Any]:
    try:
        report = json.loads(path.read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the previous report: {exc}") from exc
    if not isinstance(report, dict) or not isinstance(report.get("suites"), dict):
        raise ValueError(f"{path}: not a pytest-chunkeval report (no 'suites' mapping)")
    return report
