"""Collecting a parameter grid: ``fixed_size`` as 1 point and as 30 points, on golden/avap (134 queries).

What a grid adds before anything is evaluated is collection: every point is its own strategy node with an item per
query and per quality check (30 points: 4,278 items against 276). Each round is a child process, started from the
project root, that only collects, evaluation items alone (``-m chunkeval`` skips the project's test modules):

    python -m pytest --chunkeval -m chunkeval --collect-only -q --chunkeval-golden=golden/avap/queries.yaml
        --chunkeval-strategies=fixed_size --chunkeval-grid=fixed_size.size=... --chunkeval-grid=fixed_size.overlap=...

The round's time is the whole child (start-up, imports, collection); ``extra_info`` adds the collection seconds
pytest itself reports (``collected N items in S s``), the part a grid can grow, and the items collected. Nothing here
asserts a time: compare the two rows (``collect s`` in the summary).
"""
from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest
from bench_support import ROOT, heavy_rounds, note, round_times
from test_bench_eval import child_env

SUITE = "golden/avap/queries.yaml"
GRIDS = {
    "1-point": ["fixed_size.size=1000", "fixed_size.overlap=100"],
    "30-points": ["fixed_size.size=200,400,600,800,1000,1500", "fixed_size.overlap=0,25,50,75,100"],
}
COLLECTED = re.compile(r"(\d+) tests? collected in ([0-9.]+)s")


def collect(lines: list[str]) -> dict[str, Any]:
    """One collect-only child; its items and the collection seconds it reports."""
    command = [sys.executable, "-m", "pytest", "--chunkeval", "-m", "chunkeval", "--collect-only", "-q",
               f"--chunkeval-golden={SUITE}", "--chunkeval-strategies=fixed_size", "-p", "no:cacheprovider",
               *(f"--chunkeval-grid={line}" for line in lines)]
    proc = subprocess.run(command, cwd=ROOT, env=child_env(), capture_output=True, text=True, check=False)
    found = COLLECTED.search(proc.stdout)
    if proc.returncode != 0 or found is None:
        pytest.fail(f"collection exited with {proc.returncode}:\n{(proc.stdout + proc.stderr)[-2000:]}")
    return {"items": int(found[1]), "collect s": float(found[2])}


@pytest.mark.parametrize("points", list(GRIDS))
def test_collect_grid(benchmark: Any, request: pytest.FixtureRequest, points: str) -> None:
    benchmark.group = f"collecting a grid: {SUITE.rsplit('/', 1)[0]}, fixed_size"
    seen: list[dict[str, Any]] = []
    benchmark.pedantic(lambda: seen.append(collect(GRIDS[points])), rounds=heavy_rounds(request.config, 5),
                       warmup_rounds=0)
    if not seen:  # --benchmark-disable
        return
    fastest = min(s["collect s"] for s in seen)
    benchmark.extra_info.update({"items": seen[-1]["items"], "collect s (fastest)": fastest,
                                 "collect s (each)": [s["collect s"] for s in seen]})
    times = round_times(benchmark)
    if times:
        note(request.config, "collecting a grid", points, "s", min(times))
    note(request.config, "collecting a grid", points, "collect s", fastest)
    note(request.config, "collecting a grid", points, "items", seen[-1]["items"])
