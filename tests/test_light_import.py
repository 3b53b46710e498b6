"""Every ``pytest`` run in a project with the plugin installed imports ``pytest_chunkeval.plugin``, with or without
``--chunkeval``: it must not load the evaluation's libraries (seconds, and memory, for a run that evaluates
nothing). The cost of a plain run is measured in benchmarks/test_bench_plugin_import.py."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "yaml", "pyarrow", "lancedb", "torch")


def loaded_after(statement: str) -> list[str]:
    """The heavy modules in ``sys.modules`` after ``statement``, in a fresh interpreter (this one has them all)."""
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    return json.loads(out.splitlines()[-1])


def test_importing_the_plugin_loads_none_of_the_evaluation_libraries() -> None:
    assert loaded_after("import pytest_chunkeval.plugin") == []


def test_the_check_sees_a_heavy_import() -> None:
    """The same check on a module that does import them: it would notice the plugin doing so."""
    assert "numpy" in loaded_after("import pytest_chunkeval.retrieval.embed")


def test_a_plain_pytest_run_reads_no_option_beyond_its_own_and_loads_no_strategy(pytester: pytest.Pytester) -> None:
    """The plugin's part of a run without ``--chunkeval``: the flags (flags.py), not the typed ``Options`` of an
    evaluation (options.py), and the strategies' names, not their modules (sources.py imports every one)."""
    pytester.makepyfile(test_plain=f"""
        import sys

        def test_plain():
            assert "pytest_chunkeval.plugin" in sys.modules and "pytest_chunkeval.settings.flags" in sys.modules
            unwanted = ("pytest_chunkeval.settings.options", "pytest_chunkeval.run.hooks", "pytest_chunkeval.chunking.strategy_sources", *{HEAVY!r})
            assert [m for m in unwanted if m in sys.modules] == []
        """)
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)


def test_a_packages_strategy_names_never_outlive_the_package(tmp_path: Path) -> None:
    """A plain run names the packages' strategy fixtures from the entry points installed now: a package removed
    takes its names with it, even when no folder's modification time says so (nothing is kept between runs)."""
    site = tmp_path / "site"
    dist = site / "probe_pkg-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: probe-pkg\nVersion: 1.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[pytest_chunkeval.strategies]\nonly_in_probe = probe_mod:factory\n",
                                           encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}

    def fixtures() -> str:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "--fixtures"], cwd=project,
                              env=env, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    for _ in range(2):  # the second run is the one a kept answer would serve
        listed = fixtures()
        assert "only_in_probe [session scope]" in listed and "ast [session scope]" in listed
    times = site.stat()
    for file in dist.iterdir():
        file.unlink()
    dist.rmdir()
    os.utime(site, ns=(times.st_atime_ns, times.st_mtime_ns))  # the removal leaves no trace in the folder's time
    listed = fixtures()
    assert "only_in_probe" not in listed and "ast [session scope]" in listed
