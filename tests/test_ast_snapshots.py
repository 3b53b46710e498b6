"""Chunk snapshots of the tree-sitter strategies over golden/polyglot: the AST engine's real output under review.

tests/test_chunk_snapshots.py snapshots every strategy over golden/avap, which no tree-sitter grammar parses, so
there ``ast``, ``ast_context`` and ``function_level`` show only their plain-line fallback. Here the same strategies
cut the 79 polyglot files (19 languages and formats) through their grammars, so a change to the splitter, the
merge policy, the language table or a grammar wheel's version shows as a readable diff of chunk boundaries, kinds
and text, one amber file per strategy in ``tests/__snapshots__/test_ast_snapshots/``. Accept an intended change with
``pytest --snapshot-update tests/test_ast_snapshots.py``.

The items are named ``test_chunks[<strategy>:<file>]`` like the avap ones, so the same syrupy extension relates
each to its strategy's file (and keeps a skipped strategy's entries, not calling them unused).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from snapshot_format import ChunkSnapshotExtension, render_chunks

from pytest_chunkeval.chunking.strategy_sources import packaged

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "golden" / "polyglot" / "corpus"
CORPUS_FILES = sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*") if p.is_file()) \
    if CORPUS.is_dir() else []
#: The shipped strategies built on the tree-sitter engine (the peers parse with their own code, and the AVAP
#: strategies handle .avap only).
AST_STRATEGIES = ("ast", "ast_context", "function_level")
REGISTRY = {reg.name: reg for reg in packaged() if reg.name in AST_STRATEGIES}
CASES = [(name, rel) for name in sorted(REGISTRY) for rel in CORPUS_FILES]
#: What the engine decided, worth reviewing: the grammar used (or the fallback), the node types a chunk holds, the
#: kinds and symbols it names and the containers (class, impl) it sits in.
AST_METADATA = ("language", "fallback", "parse_error", "node_types", "kinds", "symbols", "part_of", "containers")


def test_every_ast_strategy_is_registered() -> None:
    """A renamed or removed strategy must not silently leave this module snapshotting nothing."""
    assert sorted(REGISTRY) == sorted(AST_STRATEGIES)


@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    return {}


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/polyglot/corpus not present")
@pytest.mark.parametrize(("name", "rel"), CASES, ids=[f"{n}:{r}" for n, r in CASES])
def test_chunks(name: str, rel: str, snapshot: Any, built: dict[str, Any]) -> None:
    snapshot = snapshot.use_extension(ChunkSnapshotExtension)
    strategy = built.get(name) or built.setdefault(name, REGISTRY[name].build())
    text = (CORPUS / rel).read_text(encoding="utf-8")
    chunks = strategy.chunk(rel, text)
    assert snapshot == render_chunks(chunks, AST_METADATA)
