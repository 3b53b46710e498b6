"""What the installed plugin costs a project's plain ``pytest`` run (no ``--chunkeval``): every run imports
``pytest_chunkeval.plugin`` through its entry point, so it must stay light (tests/test_light_import.py checks that
it loads no evaluation library; this measures the time).

Two rows, each round a child process in a trivial project (one passing test), as an installed plugin runs: pytest
loads the plugins of the installed packages by their entry points, the other plugins of this environment blocked
by name (``-p no:hypothesispytest`` ..., hypothesis, langsmith and the like cost seconds of their own here, which
would bury the difference), pytest's cache on (a project has it), byte-code caches on (an installed wheel has them;
with ``PYTHONDONTWRITEBYTECODE`` every run would compile this package's source and measure that):

    python -m pytest -q -p no:<every other plugin>                    # plugin: loaded by its entry point
    python -m pytest -q -p no:<every other plugin> -p no:chunkeval    # no plugin: its entry point blocked

Both rows read the same entry points (pytest looks for plugins in every installed package either way), so the
difference of the two is the plugin's cost: its import, its options, its fixtures, its hooks on a run that evaluates
nothing. Besides the wall time of each round, ``extra_info`` and the summary keep the child's CPU seconds (user +
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


def entry_point_names() -> tuple[str, list[str]]:
    """This plugin's entry-point name, and every other plugin's (pytest's ``-p no:NAME`` blocks a plugin by it)."""
    from importlib.metadata import entry_points

    ours, others = "", []
    for ep in entry_points(group="pytest11"):
        if ep.value == "pytest_chunkeval.plugin":
            ours = ep.name
        else:
            others.append(ep.name)
    if not ours:
        pytest.skip("pytest-chunkeval is not installed: there is no entry point to load or block")
    return ours, sorted(set(others))


def rows() -> dict[str, list[str]]:
    ours, others = entry_point_names()
    blocked = [arg for name in others for arg in ("-p", f"no:{name}")]
    return {"plugin": blocked, "no plugin": [*blocked, "-p", f"no:{ours}"]}


ROWS = ("plugin", "no plugin")


@pytest.fixture(scope="module")
def trivial_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("trivial")
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    return folder


def plain_run(folder: Path, extra: list[str]) -> float:
    """One plain run; the CPU seconds (user + system) of its child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "pytest", "-q", *extra]
    env = {k: v for k, v in child_env().items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or "1 passed" not in proc.stdout:
        pytest.fail(f"the plain run exited with {proc.returncode}:\n{(proc.stdout + proc.stderr)[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


@pytest.mark.parametrize("row", ROWS)
def test_plain_pytest_run(benchmark: Any, request: pytest.FixtureRequest, trivial_project: Path, row: str) -> None:
    benchmark.group = SECTION
    extra = rows()[row]
    for _ in range(2):  # warm the file system cache, the byte code and pytest's cache of both rows alike
        plain_run(trivial_project, extra)
    cpu: list[float] = []
    benchmark.pedantic(lambda: cpu.append(plain_run(trivial_project, extra)),
                       rounds=heavy_rounds(request.config, 10), warmup_rounds=0)
    if cpu:
        benchmark.extra_info["cpu s (median)"] = statistics.median(cpu)
        note(request.config, SECTION, row, "cpu s", statistics.median(cpu))
    times = round_times(benchmark)
    if times:
        note(request.config, SECTION, row, "s", min(times))
        note(request.config, SECTION, row, "median s", sorted(times)[len(times) // 2])
