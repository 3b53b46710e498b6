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

from .stats import paired_test


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


def compare(before: dict[str, Any], after: dict[str, Any], tolerance: float) -> list[Drop]:
    """Every (mode, metric) whose mean fell by more than ``tolerance``, over the queries both runs scored."""
    drops: list[Drop] = []
    shared = [q for q in after["queries"] if q in before["queries"]]
    if not shared:
        return drops
    for mode, metrics in after["queries"][shared[0]]["metrics"].items():
        for metric in metrics:
            a = [before["queries"][q]["metrics"][mode][metric] for q in shared]
            b = [after["queries"][q]["metrics"][mode][metric] for q in shared]
            mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
            if mean_a - mean_b > tolerance + 1e-12:
                drops.append(Drop(mode, metric, mean_a, mean_b, paired_test(b, a)))
    return drops


def worst_queries(before: dict[str, Any], after: dict[str, Any], mode: str, metric: str, n: int = 5) -> list[tuple[str, float, float]]:
    shared = [q for q in after["queries"] if q in before["queries"]]
    deltas = [(q, before["queries"][q]["metrics"][mode][metric], after["queries"][q]["metrics"][mode][metric]) for q in shared]
    return sorted((d for d in deltas if d[2] < d[1]), key=lambda d: d[2] - d[1])[:n]
