"""Keeps syrupy's record of test outcomes with this session while tests run pytest sessions of their own.

syrupy (7.0.2) records each item's outcome through a module global that every session start overwrites. A test that
runs pytest in-process (``pytester.runpytest``, as the plugin's end-to-end tests do) leaves that global pointing at
its finished inner session, and syrupy then records no outcome of any later item of this session. Passing snapshot
tests do not notice (a used snapshot counts by itself), but a skipped one does: syrupy no longer knows it was
skipped and reports its snapshots as unused, which fails the run. That is what a run without the ``peers`` extra
hit (the peers' chunk snapshots skip), once tests with in-process runs sorted before tests/test_chunk_snapshots.py.
"""
from __future__ import annotations

import pytest


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
