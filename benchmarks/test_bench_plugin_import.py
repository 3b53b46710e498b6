"""What the installed plugin costs a project's plain ``pytest`` run (no ``--chunkeval``): every run imports
``pytest_chunkeval.plugin`` through its entry point, so it must stay light (tests/test_light_import.py checks that
it loads no evaluation library; this measures the time).

Two rows, each round a child process in a trivial project (one passing test), with the other installed plugins'
autoloading off (``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``: hypothesis, langsmith and the like cost seconds of their own
on this project's environment, which would bury the difference):

    python -m pytest -q -p no:cacheprovider -p pytest_chunkeval.plugin    # plugin: loaded as its entry point would
    python -m pytest -q -p no:cacheprovider                               # no plugin

The difference of the two rows is the plugin's cost (its import, its options, its hooks on a run that evaluates
nothing). Besides the wall time of each round, ``extra_info`` and the summary keep the child's CPU seconds (user +
system, median of the rounds), which a loaded machine disturbs far less. Nothing asserts a time: compare the rows.
"""
from __future__ import annotations

import resource
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bench_support import heavy_rounds, note, round_times
from test_bench_eval import child_env

SECTION = "plain pytest run, plugin installed"
ROWS = {"plugin": ["-p", "pytest_chunkeval.plugin"], "no plugin": []}


@pytest.fixture(scope="module")
def trivial_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("trivial")
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    return folder


def plain_run(folder: Path, extra: list[str]) -> float:
    """One plain run; the CPU seconds (user + system) of its child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]
    env = {**child_env(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or "1 passed" not in proc.stdout:
        pytest.fail(f"the plain run exited with {proc.returncode}:\n{(proc.stdout + proc.stderr)[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


@pytest.mark.parametrize("row", list(ROWS))
def test_plain_pytest_run(benchmark: Any, request: pytest.FixtureRequest, trivial_project: Path, row: str) -> None:
    benchmark.group = SECTION
    plain_run(trivial_project, ROWS[row])  # warm the file system cache and the bytecode of both rows alike
    cpu: list[float] = []
    benchmark.pedantic(lambda: cpu.append(plain_run(trivial_project, ROWS[row])),
                       rounds=heavy_rounds(request.config, 10), warmup_rounds=0)
    if cpu:
        benchmark.extra_info["cpu s (median)"] = statistics.median(cpu)
        note(request.config, SECTION, row, "cpu s", statistics.median(cpu))
    times = round_times(benchmark)
    if times:
        note(request.config, SECTION, row, "s", min(times))
        note(request.config, SECTION, row, "median s", sorted(times)[len(times) // 2])
