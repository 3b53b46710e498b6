"""Every ``pytest`` run in a project with the plugin installed imports ``pytest_chunkeval.plugin``, with or without
``--chunkeval``: it must not load the evaluation's libraries (seconds, and memory, for a run that evaluates
nothing). The cost of a plain run is measured in benchmarks/test_bench_plugin_import.py."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


def test_the_plugin_recognises_xdist_reports_by_the_report_class_name() -> None:
    """plugin.py compares xdist's ``$report_type`` with a string, so as not to import items on every report."""
    from pytest_chunkeval.items import NamedReport
    from pytest_chunkeval.plugin import REPORT_TYPE

    assert NamedReport.__name__ == REPORT_TYPE


def test_the_fixtures_read_the_strategies_entry_point_group() -> None:
    """fixtures.py names the group itself, so as not to import sources (and every strategy) on every run."""
    from pytest_chunkeval.fixtures import ENTRY_POINT_GROUP
    from pytest_chunkeval.sources import ENTRY_POINT_GROUP as GROUP

    assert GROUP == ENTRY_POINT_GROUP
