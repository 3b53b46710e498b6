"""Writing a small chunkeval project into a folder: the ini naming its suites, its strategies, its golden suites.

The end-to-end tests each bring their own strategies, corpus and questions; one writer keeps the layout the plugin
expects (``strategies/<module>.py``, ``golden/<suite>/queries.yaml`` beside ``corpus/``) in one place.
"""
from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest


def name_suites(pytester: pytest.Pytester, pattern: str = "golden/*/queries.yaml") -> None:
    """A ``pyproject.toml`` whose ``chunkeval_golden`` is ``pattern``."""
    pytester.makefile(".toml", pyproject=f'[tool.pytest.ini_options]\nchunkeval_golden = ["{pattern}"]\n')


def write_strategies(root: Path, modules: Mapping[str, str]) -> None:
    """``root/strategies/<name>`` for each module's source (dedented)."""
    folder = root / "strategies"
    folder.mkdir(exist_ok=True)
    for name, body in modules.items():
        (folder / name).write_text(textwrap.dedent(body))


def write_suite(folder: Path, corpus: Mapping[str, str], golden: str) -> Path:
    """``folder/corpus/<file>`` for each corpus text and ``folder/queries.yaml`` (all dedented); the corpus folder."""
    files = folder / "corpus"
    files.mkdir(parents=True)
    for name, body in corpus.items():
        (files / name).write_text(textwrap.dedent(body).lstrip("\n"))
    (folder / "queries.yaml").write_text(textwrap.dedent(golden))
    return files
