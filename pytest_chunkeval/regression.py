"""Regression against a stored report (e.g. the one from the main branch): did this change make a strategy worse?

Compares the aggregate metrics of one (suite, strategy) in the current run with the same pair in a previous JSON
report, with an absolute tolerance, and names the queries that lost most. Per-query losses are caught exactly by
accepted misses; this catches the slow slide of a mean that no single query shows.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .stats import PerQuery, compare_paired


@dataclass(frozen=True)
class Drop:
    mode: str
    metric: str
    before: float
    after: float
    p_value: float

    @property
    def delta(self) -> float:
        return self.after - self.before


def load_previous(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the previous report: {exc}") from exc


def previous_entry(previous: dict[str, Any], suite_key: str, strategy: str) -> dict[str, Any] | None:
    entry = (previous.get("suites", {}).get(suite_key, {}).get("strategies", {}) or {}).get(strategy)
    return None if entry is None or entry.get("skipped") else entry


def entry_query_metrics(entry: dict[str, Any]) -> PerQuery:
    """Query id -> mode -> metric, from a report entry."""
    return {qid: q["metrics"] for qid, q in entry["queries"].items()}


def compare(before: PerQuery, after: PerQuery, tolerance: float) -> list[Drop]:
    """Every (mode, metric) whose mean fell by more than ``tolerance``, over the queries both runs scored."""
    return [
        Drop(mode, metric, mean_before, mean_after, p)
        for mode, metric, mean_after, mean_before, p in compare_paired(after, before)
        if mean_before - mean_after > tolerance + 1e-12
    ]


def worst_queries(before: PerQuery, after: PerQuery, mode: str, metric: str, n: int = 5) -> list[tuple[str, float, float]]:
    deltas = [(q, before[q][mode][metric], after[q][mode][metric]) for q in after if q in before]
    return sorted((d for d in deltas if d[2] < d[1]), key=lambda d: d[2] - d[1])[:n]
