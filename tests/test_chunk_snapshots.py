"""Reviewable chunk snapshots: one amber file per strategy, one entry per golden/avap corpus file.

A change to a strategy, its grammar or its config (strategies/avap_config.json, strategies/avap.lark) shows up as a
readable diff of chunk boundaries, kinds, tags, headers and text; ``pytest --snapshot-update`` accepts it. Files are
``tests/__snapshots__/test_chunk_snapshots/<strategy>.ambr`` so a reviewer reads one strategy at a time. This is where
an intended grammar or config change is meant to fail: the engine's unit tests read frozen, test-owned copies
(tests/data/avap_fixture), and the shipped files are otherwise only checked to be valid (the config loads, the grammar
builds and parses every corpus file), so the reviewer reads this diff and nothing else.

Deterministic by construction: corpus paths are relative and sorted, metadata is rendered from sorted keys, and
nothing machine- or time-dependent (absolute paths, timings, object ids) is written.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from snapshot_format import ChunkSnapshotExtension, render_chunks

from pytest_chunkeval.chunking.strategy_sources import load

ROOT = Path(__file__).resolve().parents[1]
STRATEGIES = ROOT / "strategies"
CORPUS = ROOT / "golden" / "avap" / "corpus"
CORPUS_FILES = sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.avap")) if CORPUS.is_dir() else []
REGISTRY = load(STRATEGIES, [STRATEGIES / "avap.lark"], [STRATEGIES / "avap_config.json"]).available
@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    return {}


CASES = [(name, rel) for name in sorted(REGISTRY) for rel in CORPUS_FILES]


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
@pytest.mark.parametrize(("name", "rel"), CASES, ids=[f"{n}:{r}" for n, r in CASES])
def test_chunks(name: str, rel: str, snapshot: Any, built: dict[str, Any]) -> None:
    """One item per (strategy, file), so a config change lists every file whose chunks moved, each with its diff."""
    # Before any skip: this registers the strategy files with syrupy under ChunkSnapshotExtension, whose matching
    # knows that a skipped item still owns its entry (syrupy's default extension would call it unused).
    snapshot = snapshot.use_extension(ChunkSnapshotExtension)
    strategy = built.get(name) or built.setdefault(name, REGISTRY[name].build())
    if getattr(strategy, "unavailable", None):
        pytest.skip(f"{name} unavailable: {strategy.unavailable}")
    handles = getattr(strategy, "handles", None)
    if handles is not None and not handles(rel):
        pytest.skip(f"{name} does not handle {Path(rel).suffix} files")
    text = (CORPUS / rel).read_text(encoding="utf-8")
    assert snapshot == render_chunks(strategy.chunk(rel, text))


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
def test_no_snapshot_file_for_a_strategy_that_is_gone(request: pytest.FixtureRequest) -> None:
    """A ``<strategy>.ambr`` whose strategy is gone relates to no item, so syrupy flags it only when the whole
    suite runs and says nothing on a run given a path; check it here. ``--snapshot-update`` deletes such files, as
    syrupy does with its own unused snapshots."""
    folder = Path(__file__).parent / "__snapshots__" / Path(__file__).stem
    stale = sorted(p for p in folder.glob("*.ambr") if p.stem not in REGISTRY) if folder.is_dir() else []
    if stale and request.config.getoption("update_snapshots", default=False):
        for p in stale:
            p.unlink()
        return
    assert not stale, f"snapshot files without a registered strategy (run with --snapshot-update to delete): {[p.name for p in stale]}"



# A stand-in for test_chunks in a project of its own: strategy "absent" plays a peer that is not installed.
PEER_PROJECT_TEST = """
import os

import pytest

from {module} import ChunkSnapshotExtension

CASES = [("absent", "a.avap"), ("present", "a.avap")]


@pytest.mark.parametrize(("name", "rel"), CASES, ids=[f"{{n}}:{{r}}" for n, r in CASES])
def test_chunks(name, rel, snapshot):
    snapshot = snapshot.use_extension(ChunkSnapshotExtension)
    if name == "absent" and os.environ.get("CHUNKEVAL_TEST_ABSENT_PEER"):
        pytest.skip("absent unavailable: not installed")
    assert snapshot == f"chunks of {{rel}} by {{name}}"
"""
# Sorts before test_peers.py, like the plugin's end-to-end tests before this module: it runs pytest in-process.
NESTED_RUN_TEST = """
def test_runs_pytest_in_process(pytester):
    pytester.makepyfile(test_inner="def test_inner():\\n    pass\\n")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
"""
UNUSED = re.compile(r"snapshots? unused|^Deleted ", re.MULTILINE)


def test_snapshots_of_an_unavailable_strategy_are_kept_not_unused(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the ``peers`` extra the peers' items skip; their snapshot files must then count as skipped, neither
    failing the run as unused nor deleted by ``--snapshot-update``, also after a test that ran pytest in-process.
    The project's own run has every peer installed and never takes this path, so it is checked here, with the real
    extension and the real tests/conftest.py in a project of their own."""
    for var in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        # Under pytest-xdist the inner runs would take themselves for workers and leave unused detection to a
        # controller they do not have; they must be plain sessions, as `pytest` is.
        monkeypatch.delenv(var, raising=False)
    pytester.makepyfile(test_peers=PEER_PROJECT_TEST.format(module=ChunkSnapshotExtension.__module__),
                        test_nested=NESTED_RUN_TEST)
    # In file order (pytest-randomly off): test_nested.py must run before test_peers.py for syrupy to lose track.
    base = ("-p", "pytester", "-p", "no:cacheprovider", "-p", "no:randomly")
    pytester.runpytest(*base, "--snapshot-update").assert_outcomes(passed=3)
    folder = pytester.path / "__snapshots__" / "test_peers"
    assert sorted(p.name for p in folder.glob("*.ambr")) == ["absent.ambr", "present.ambr"]
    absent = (folder / "absent.ambr").read_text()
    assert "test_chunks[absent:a.avap]" in absent

    monkeypatch.setenv("CHUNKEVAL_TEST_ABSENT_PEER", "1")
    unguarded = pytester.runpytest(*base)
    assert unguarded.ret == 1 and UNUSED.search(unguarded.stdout.str()), (
        "syrupy no longer loses outcomes after an in-process pytest run; tests/conftest.py's guard can go")

    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text(encoding="utf-8"))
    for args in ((), ("test_peers.py",), ("-k", "absent"), ("--snapshot-update",)):
        result = pytester.runpytest(*base, *args)
        assert result.ret == 0, (args, result.stdout.str())
        assert not UNUSED.search(result.stdout.str()), args
        assert (folder / "absent.ambr").read_text() == absent, args
    result.assert_outcomes(passed=2, skipped=1)  # the --snapshot-update run: the peer's item skipped, nothing else
