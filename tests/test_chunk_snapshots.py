"""Reviewable chunk snapshots: one amber file per strategy, one entry per golden/avap corpus file.

A change to a strategy, its grammar or its config (strategies/avap_config.json, strategies/avap.lark) shows up as a
readable diff of chunk boundaries, kinds, tags, headers and text; ``pytest --snapshot-update`` accepts it. Files are
``tests/__snapshots__/test_chunk_snapshots/<strategy>.ambr`` so a reviewer reads one strategy at a time.

Deterministic by construction: corpus paths are relative and sorted, metadata is rendered from sorted keys, and
nothing machine- or time-dependent (absolute paths, timings, object ids) is written.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from syrupy.extensions.amber import AmberSnapshotExtension
from syrupy.location import PyTestLocation

from pytest_chunkeval.discovery import strategies_in

ROOT = Path(__file__).resolve().parents[1]
STRATEGIES = ROOT / "strategies"
CORPUS = ROOT / "golden" / "avap" / "corpus"
CORPUS_FILES = sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.avap")) if CORPUS.is_dir() else []
REGISTRY = strategies_in(STRATEGIES)
# metadata keys worth reviewing (the rest, e.g. the full AST summary, is already visible in the text)
SHOWN_METADATA = ("block", "name", "part", "tags", "categories", "recovered", "parse_error")


class ChunkSnapshotExtension(AmberSnapshotExtension):
    """Amber file named after the strategy (set per test by :func:`_extension_for`), in a folder named after
    this test module so syrupy still knows which test module owns the files."""

    strategy_name = "unknown"

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(Path(test_location.filepath).parent / "__snapshots__" / Path(test_location.filepath).stem)

    @classmethod
    def get_file_basename(cls, *, test_location: PyTestLocation, index: Any) -> str:
        return cls.strategy_name

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        loc = Path(snapshot_location)
        return loc.parent == Path(cls.dirname(test_location=test_location)) and loc.stem == cls.strategy_name


_EXTENSIONS: dict[str, type[ChunkSnapshotExtension]] = {}


def _extension_for(name: str) -> type[ChunkSnapshotExtension]:
    if name not in _EXTENSIONS:
        _EXTENSIONS[name] = type(f"ChunkSnapshots_{name}", (ChunkSnapshotExtension,), {"strategy_name": name})
    return _EXTENSIONS[name]


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line else prefix.rstrip() for line in text.split("\n"))


def render_chunks(chunks: list[Any]) -> str:
    """One readable block per chunk: position, size, kind, reviewed metadata, header, then the text/body."""
    out = [f"{len(chunks)} chunks"]
    for i, c in enumerate(chunks, 1):
        out.append(f"--- chunk {i}: lines {c.start_line}-{c.end_line}, bytes {c.start_byte}-{c.end_byte}, "
                   f"{len(c.text)} chars, kind={c.kind}")
        meta = getattr(c, "metadata", {}) or {}
        for key in SHOWN_METADATA:
            if key in meta and meta[key] not in (None, [], ""):
                value = meta[key]
                out.append(f"  {key}: {', '.join(map(str, value)) if isinstance(value, (list, tuple)) else value}")
        header = getattr(c, "header", "") or ""
        if header and c.text != header:  # a header in front of a source slice (a signature chunk is all header)
            out.append("  header:")
            out.append(_indent(header.rstrip("\n")))
            out.append("  body:")
            out.append(_indent(c.text[len(header):]))
        else:
            out.append("  text:")
            out.append(_indent(c.text))
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    return {}


CASES = [(name, rel) for name in sorted(REGISTRY) for rel in CORPUS_FILES]


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
@pytest.mark.parametrize(("name", "rel"), CASES, ids=[f"{n}:{r}" for n, r in CASES])
def test_chunks(name: str, rel: str, snapshot: Any, built: dict[str, Any]) -> None:
    """One item per (strategy, file), so a config change lists every file whose chunks moved, each with its diff."""
    strategy = built.get(name) or built.setdefault(name, REGISTRY[name].build())
    if getattr(strategy, "unavailable", None):
        pytest.skip(f"{name} unavailable: {strategy.unavailable}")
    handles = getattr(strategy, "handles", None)
    if handles is not None and not handles(rel):
        pytest.skip(f"{name} does not handle {Path(rel).suffix} files")
    text = (CORPUS / rel).read_text(encoding="utf-8")
    assert snapshot.use_extension(_extension_for(name)) == render_chunks(strategy.chunk(rel, text))


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
def test_no_snapshot_file_for_a_strategy_that_is_gone(request: pytest.FixtureRequest) -> None:
    """syrupy cannot tell that ``<strategy>.ambr`` lost its strategy (the file name is ours), so check it here;
    ``--snapshot-update`` deletes such files, as syrupy does with its own unused snapshots."""
    folder = Path(__file__).parent / "__snapshots__" / Path(__file__).stem
    stale = sorted(p for p in folder.glob("*.ambr") if p.stem not in REGISTRY) if folder.is_dir() else []
    if stale and request.config.getoption("update_snapshots", default=False):
        for p in stale:
            p.unlink()
        return
    assert not stale, f"snapshot files without a registered strategy (run with --snapshot-update to delete): {[p.name for p in stale]}"
