"""The package's public names (``from pytest_chunkeval import strategy, Strategy, WINDOW``) are what users' strategy
files and the init template write, so each must resolve to the object it names, whatever was imported before."""
from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest_chunkeval

ROOT = Path(__file__).resolve().parents[1]


def test_no_module_of_the_package_bears_a_public_name() -> None:
    """Importing a submodule sets it as its package's attribute: a module named like a public name (``strategy``)
    would replace that name for everyone once anything imported it."""
    modules = {info.name for info in pkgutil.iter_modules(pytest_chunkeval.__path__)}
    assert modules & set(pytest_chunkeval.__all__) == set()
    assert "plugin" in modules and "chunking" in modules  # the check reads the real package


def test_every_public_name_resolves_after_every_module_of_the_package_is_imported() -> None:
    """In a fresh interpreter: the decorator stays the decorator after its module (and the rest) are imported."""
    code = (
        "import importlib, json, pkgutil, pytest_chunkeval\n"
        "for info in pkgutil.iter_modules(pytest_chunkeval.__path__):\n"
        "    if not info.ispkg and info.name not in ('__main__',):\n"
        "        importlib.import_module('pytest_chunkeval.' + info.name)\n"
        "from pytest_chunkeval import WINDOW, Strategy, strategy\n"
        "import pytest_chunkeval.chunking.contract as contract\n"
        "import pytest_chunkeval.chunking.strategy_base as strategy_base\n"
        "print(json.dumps([strategy is contract.strategy, Strategy is strategy_base.Strategy, WINDOW,\n"
        "                  sorted(n for n in pytest_chunkeval.__all__ if type(getattr(pytest_chunkeval, n)).__name__"
        " == 'module')]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert json.loads(out.splitlines()[-1]) == [True, True, "window", []]
