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
