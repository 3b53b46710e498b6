"""Keeps syrupy's record of test outcomes with this session while tests run pytest sessions of their own.

syrupy (7.0.2) records each item's outcome through a module global that every session start overwrites. A test that
runs pytest in-process (``pytester.runpytest``, as the plugin's end-to-end tests do) leaves that global pointing at
its finished inner session, and syrupy then records no outcome of any later item of this session. Passing snapshot
tests do not notice (a used snapshot counts by itself), but a skipped one does: syrupy no longer knows it was
skipped and reports its snapshots as unused, which fails the run. That is what a run without the ``peers`` extra
hit (the peers' chunk snapshots skip), once tests with in-process runs sorted before tests/test_chunk_snapshots.py.

It also holds the fixtures several test modules share (the small projects the end-to-end tests evaluate); what
they write, and the helpers the tests call, are in tests/project_files.py.
"""
from __future__ import annotations

import importlib

import pytest
from fake_model import FakeSentenceModel
from project_files import write_grid_project, write_project

from pytest_chunkeval.retrieval.embed import Embedder


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    """Point syrupy back at this session before each phase's report is logged (and recorded by syrupy)."""
    try:
        import syrupy
    except ImportError:  # pragma: no cover - syrupy is a dependency; nothing to guard without it
        return
    ours = getattr(item.config, "_syrupy", None)
    if ours is not None and hasattr(syrupy, "_syrupy") and syrupy._syrupy is not ours:
        syrupy._syrupy = ours


# In-process pytester runs put ``sys.modules`` back as it was when the test started, so a module first imported by
# an inner run would be imported again by the next one: LanceDB's native module panics when imported twice, and torch
# is slow to. A session-scoped fixture is set up before any function-scoped one (``pytester`` included), so what it
# imports stays loaded; only sessions with a test that needs them pay for the import.


@pytest.fixture(scope="session")
def lancedb_loaded() -> None:
    """LanceDB, imported once for the session, before any in-process run."""
    importlib.import_module("lancedb")


@pytest.fixture(scope="session")
def model_loaded(lancedb_loaded: None) -> None:
    """LanceDB and sentence-transformers (torch), imported once for the session, before any in-process run."""
    importlib.import_module("sentence_transformers")


@pytest.fixture
def project(pytester: pytest.Pytester, model_loaded: None) -> pytest.Pytester:
    """The shop project of tests/project_files.py (two strategies, one four-file suite), evaluated with the real
    model: what most end-to-end tests run the plugin on."""
    return write_project(pytester)


@pytest.fixture
def grid_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, lancedb_loaded: None) -> pytest.Pytester:
    """The grid project of tests/project_files.py, embedded by ``FakeSentenceModel`` (patched in for these
    in-process runs): the grid tests check which items, rows and tables a grid makes, never what retrieves best."""
    fake = FakeSentenceModel()
    monkeypatch.setattr(Embedder, "model", lambda self: fake)
    return write_grid_project(pytester)
