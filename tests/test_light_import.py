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

from pytest_chunkeval.fixtures import CACHE_KEY

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


def test_the_fixtures_read_the_strategies_entry_point_group() -> None:
    """fixtures.py names the group itself, so as not to import sources (and every strategy) on every run."""
    from pytest_chunkeval.fixtures import ENTRY_POINT_GROUP
    from pytest_chunkeval.sources import ENTRY_POINT_GROUP as GROUP

    assert GROUP == ENTRY_POINT_GROUP


def test_a_plain_pytest_run_reads_no_option_beyond_its_own_and_loads_no_strategy(pytester: pytest.Pytester) -> None:
    """The plugin's part of a run without ``--chunkeval``: the flags (flags.py), not the typed ``Options`` of an
    evaluation (options.py), and the strategies' names, not their modules (sources.py imports every one)."""
    pytester.makepyfile(test_plain=f"""
        import sys

        def test_plain():
            assert "pytest_chunkeval.plugin" in sys.modules and "pytest_chunkeval.flags" in sys.modules
            unwanted = ("pytest_chunkeval.options", "pytest_chunkeval.run_hooks", "pytest_chunkeval.sources", *{HEAVY!r})
            assert [m for m in unwanted if m in sys.modules] == []
        """)
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)


def test_a_plain_run_keeps_the_strategy_names_in_pytests_cache_until_packages_change(tmp_path: Path) -> None:
    """Reading every installed package's entry points costs each run milliseconds: the names are kept in pytest's
    cache with the installed state they were read in, and read again when that state is another.

    A plain subprocess, not pytester's: pytester makes a folder in the project for each run, and the project's
    folder is on sys.path (the first run there reads the names again, as it should)."""
    (tmp_path / "test_one.py").write_text("def test_one(ast):\n    assert ast.chunk('a.py', 'x = 1\\n')\n")
    (tmp_path / "later").mkdir()  # a test written in it later leaves the project folder's time as it is

    def pytest_run(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", *args], cwd=tmp_path,
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    # Two runs: the first creates .pytest_cache in the project folder, which is on sys.path (its time changes).
    for _ in range(2):
        assert "1 passed" in pytest_run()
    kept_file = tmp_path / ".pytest_cache" / "v" / CACHE_KEY
    kept = json.loads(kept_file.read_text(encoding="utf-8"))
    assert {"ast", "fixed_size", "file_level"} <= set(kept["strategies"])
    # While the state is the one kept, the kept names are the fixtures: one only the cache holds is listed.
    kept["strategies"]["only_in_the_cache"] = "nowhere:factory"
    kept_file.write_text(json.dumps(kept), encoding="utf-8")
    assert "only_in_the_cache [session scope]" in pytest_run("--fixtures")
    # A kept name no package provides (a package removed without a folder's time changing): its test says so.
    (tmp_path / "later" / "test_gone.py").write_text("def test_gone(only_in_the_cache):\n    pass\n")
    gone = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "later"], cwd=tmp_path,
                          capture_output=True, text=True, check=False).stdout
    assert "no installed package provides the strategy only_in_the_cache any more" in gone and "1 error" in gone
    # A package installed or removed changes a sys.path folder's time: the names are read again.
    kept["state"][-1][1] += 1
    kept_file.write_text(json.dumps(kept), encoding="utf-8")
    listed = pytest_run("--fixtures")
    assert "only_in_the_cache" not in listed and "ast [session scope]" in listed
