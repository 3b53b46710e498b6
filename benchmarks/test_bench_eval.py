"""A whole ``pytest --chunkeval`` run, cold and warm: what a user waits for, start-up and report included.

The run: golden/avap (46 files, 134 queries) with two strategies, ``file_level`` and ``fixed_size`` (about 300
texts to embed cold), in a child process started from the project root, as ``make eval`` would run it:

    python -m pytest --chunkeval -m chunkeval --chunkeval-golden=golden/avap/queries.yaml -k "file_level or fixed_size"

with the embedding cache, LanceDB tables and JSON report in a temporary folder of the benchmark's own, so the
project's warm cache (.chunkeval) is neither read nor touched.

- ``test_eval_run[cold]``: every round gets a fresh, empty cache folder: load the model, embed, build both tables,
  search every query.
- ``test_eval_run[warm]``: every round reuses the last cold round's folder: nothing to embed, tables reused,
  rankings cached. What remains is start-up (imports, collecting the project) and scoring.

Two rounds each: a cold round costs about a minute of CPU on two cores, and these two rows alone are a third of
``make bench``.

A round whose child process exits with 0 (all items passed) or 1 (some query missed) counts: a miss is a finding
about retrieval, not about cost. Any other exit code, or no report written, fails the row with the child's output.
``extra_info``: ``embedded`` / ``cached`` texts of the last round and its exit code.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bench_support import ROOT, heavy_rounds, note, round_times

SUITE = "golden/avap/queries.yaml"
STRATEGIES = ("file_level", "fixed_size")


def command(folder: Path) -> list[str]:
    return [
        sys.executable, "-m", "pytest", "--chunkeval", "-m", "chunkeval", f"--chunkeval-golden={SUITE}",
        "-k", " or ".join(STRATEGIES), f"--chunkeval-db={folder / 'lancedb'}", "-o", f"chunkeval_cache_dir={folder}",
        f"--chunkeval-report={folder / 'report.json'}", "--chunkeval-no-progress", "-p", "no:cacheprovider", "-q",
    ]


def child_env() -> dict[str, str]:
    """The caller's environment without what would make the child behave as part of this run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE_"))}
    env.setdefault("LANCEDB_LOG", "error")
    return env


def run_eval(folder: Path) -> dict[str, Any]:
    """One whole run into ``folder``; returns the report's embedding counts and the exit code."""
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / "report.json"
    report.unlink(missing_ok=True)
    proc = subprocess.run(command(folder), cwd=ROOT, env=child_env(), capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1) or not report.is_file():
        out = proc.stdout + proc.stderr
        first = out.find("= FAILURES =")  # the first failure's traceback says why; the tail only lists the items
        head = out[first : first + 2500] if first >= 0 else ""
        pytest.fail(f"pytest --chunkeval exited with {proc.returncode} (report written: {report.is_file()}):\n"
                    f"{head}\n...\n{out[-1500:]}")
    counts = json.loads(report.read_text("utf-8")).get("embedding", {})
    return {"exit code": proc.returncode, "embedded": counts.get("embedded"), "cached": counts.get("cached")}


@pytest.fixture(scope="module")
def primed_folders() -> dict[str, Path]:
    """The cache folder of the last cold round, kept for the warm rows: a warm run starts from a cold run's
    leftovers, and reusing them saves a whole cold run per ``make bench``."""
    return {}


@pytest.mark.parametrize("state", ["cold", "warm"])
def test_eval_run(benchmark: Any, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                  primed_folders: dict[str, Path], state: str) -> None:
    benchmark.group = f"pytest --chunkeval: {SUITE.rsplit('/', 1)[0]}, {' + '.join(STRATEGIES)}"
    last: dict[str, Any] = {}
    if state == "cold":

        def fresh_folder() -> tuple[tuple[Any, ...], dict[str, Any]]:
            folder = tmp_path_factory.mktemp("eval-cold")
            primed_folders["warm"] = folder
            return (folder,), {}

        def cold_run(folder: Path) -> None:
            last.update(run_eval(folder))

        benchmark.pedantic(cold_run, setup=fresh_folder, rounds=heavy_rounds(request.config, 2), warmup_rounds=0)
    else:
        folder = primed_folders.get("warm")
        if folder is None:  # the cold row did not run (-k warm): prime a folder first, untimed
            folder = primed_folders["warm"] = tmp_path_factory.mktemp("eval-warm")
            run_eval(folder)
        benchmark.pedantic(lambda: last.update(run_eval(folder)), rounds=heavy_rounds(request.config, 2),
                           warmup_rounds=0)

    benchmark.extra_info.update(last)
    times = round_times(benchmark)
    if times:
        note(request.config, "whole run", state, "s", min(times))
        note(request.config, "whole run", state, "embedded", last.get("embedded"))
