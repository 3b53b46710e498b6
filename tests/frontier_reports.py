"""Hand-made report entries and reports for the frontier: tests/test_frontier.py, tests/test_frontier_suites.py and
tests/test_report_file.py read them (no evaluation; the numbers are chosen so each Pareto set is worked out by hand).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_chunkeval.core.vocabulary import LINES, NDCG, metric_key

KEY = metric_key(NDCG, 10)


def entry(values: list[float], size: int, *, strategy: str, chunks: int = 10, tokens: int | None = 1000,
          family: str = "", params: dict[str, Any] | None = None, defaults: dict[str, Any] | None = None,
          mode: str = "hybrid") -> dict[str, Any]:
    """A report entry (``tokens`` None: a report from before ``embed_tokens`` was recorded)."""
    out: dict[str, Any] = {
        "skipped": None, "strategy": strategy, "retrieval": mode,
        "index": {"bytes": size, "chunk_count": chunks, "cost": {"embed_seconds": 1.0},
                  **({"embed_tokens": tokens} if tokens is not None else {})},
        "queries": {f"q{i}": {"metrics": {LINES: {KEY: v}, "file": {KEY: 1.0}}} for i, v in enumerate(values)},
    }
    if family:
        out |= {"family": family, "params": params or {}, "defaults": defaults or {}}
    return out


def report(suites: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    return {"k": 10, "retrieval": "hybrid", "retrieval_modes": ["hybrid"],
            "suites": {key: {"strategies": s} for key, s in suites.items()}}


def hand_made_report(tmp_path: Path) -> Path:
    """``tmp_path/r.json``: one suite, a three-point grid of fixed_size (its default, size=1000, in the middle) and
    file_level, four queries each."""
    grid = {f"fixed_size[size={s}]": entry(vs, s * 10, strategy=f"fixed_size[size={s}]", family="fixed_size",
                                          params={"size": s}, defaults={"size": 1000})
            for s, vs in ((500, [0.9, 0.8, 0.7, 0.9]), (1000, [0.5, 0.4, 0.6, 0.5]), (2000, [0.3, 0.2, 0.3, 0.1]))}
    suites = {"golden/a/queries.yaml": {**grid, "file_level": entry([0.6, 0.5, 0.4, 0.5], 3000, strategy="file_level")}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report(suites)))
    return path
