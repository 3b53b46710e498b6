"""What the test modules share: their fixtures (below), and a hook that keeps syrupy's record of test outcomes with
this session while tests run pytest sessions of their own.

syrupy (7.0.2) records each item's outcome through a module global that every session start overwrites. A test that
runs pytest in-process (``pytester.runpytest``, as the plugin's end-to-end tests do) leaves that global pointing at
its finished inner session, and syrupy then records no outcome of any later item of this session. Passing snapshot
tests do not notice (a used snapshot counts by itself), but a skipped one does: syrupy no longer knows it was
skipped and reports its snapshots as unused, which fails the run. That is what a run without the ``peers`` extra
hit (the peers' chunk snapshots skip), once tests with in-process runs sorted before tests/test_chunk_snapshots.py.

The fixtures are the small projects the end-to-end tests evaluate (what they write, and the helpers the tests call,
are in tests/project_files.py) and the GitHub stand-in, clock and job environment of the ``chunkeval comment`` tests
(tests/github_client.py, tests/github_stub.py). Test modules never import each other: what two of them share lives
here or in a plain helper module beside them.
"""
from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_model import FakeSentenceModel
from github_client import FakeClock
from github_stub import PR, REPO, TOKEN, FakeGitHub, serve
from project_files import write_grid_project, write_project

from pytest_chunkeval.commands.github import api
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
# an inner run would be imported again by the next one: LanceDB's native module panics when imported twice
# ("env_logger::init_from_env should not be called after logger initialized"), and torch is slow to. So every test
# that uses ``pytester`` gets them imported first (``pytester`` below): which test is the first to run an evaluation
# in-process depends on the selection and the order, so no single fixture of the end-to-end tests can do it. Only
# sessions with such a test pay for the import.


@pytest.fixture(scope="session")
def lancedb_loaded() -> None:
    """LanceDB, imported once for the session, before any in-process run."""
    importlib.import_module("lancedb")


@pytest.fixture(scope="session")
def model_loaded(lancedb_loaded: None) -> None:
    """LanceDB and sentence-transformers (torch), imported once for the session, before any in-process run; and
    httpcore, which httpx imports on first use: imported by an inner run (a remote embedder's first request) and then
    dropped with it, a later client's timeout escaped as httpcore's own ReadTimeout instead of httpx's."""
    importlib.import_module("sentence_transformers")
    importlib.import_module("httpcore")


@pytest.fixture
def pytester(pytester: pytest.Pytester, model_loaded: None) -> pytest.Pytester:
    """pytest's own ``pytester``, with the libraries an in-process evaluation imports already loaded (see above)."""
    return pytester


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """The shop project of tests/project_files.py (two strategies, one four-file suite), evaluated with the real
    model: what most end-to-end tests run the plugin on."""
    return write_project(pytester)


@pytest.fixture
def grid_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The grid project of tests/project_files.py, embedded by ``FakeSentenceModel`` (patched in for these
    in-process runs): the grid tests check which items, rows and tables a grid makes, never what retrieves best."""
    fake = FakeSentenceModel()
    monkeypatch.setattr(Embedder, "model", lambda self: fake)
    return write_grid_project(pytester)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The GitHub client's clock, a fake one: waits are recorded, never slept (the GitHub tests use it throughout)."""
    fake = FakeClock()
    monkeypatch.setattr(api, "SYSTEM_CLOCK", fake.as_clock())
    return fake


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    """The stand-in for GitHub's REST API (tests/github_stub.py), serving on 127.0.0.1 for one test."""
    with serve() as state:
        yield state


@pytest.fixture
def actions_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, github: FakeGitHub) -> Path:
    """The variables a pull_request job gives its steps; returns the step summary file."""
    for key in list(os.environ):
        if key.startswith("GITHUB_"):
            monkeypatch.delenv(key)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": PR}}))
    summary = tmp_path / "step_summary.md"
    summary.write_text("# the evaluation's own summary\n")
    for key, value in {"GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_PATH": str(event), "GITHUB_API_URL": github.url,
                       "GITHUB_SERVER_URL": "https://github.test", "GITHUB_RUN_ID": "4242",
                       "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_TOKEN": TOKEN}.items():
        monkeypatch.setenv(key, value)
    return summary
