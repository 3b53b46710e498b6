"""Peer: astchunk (the cAST paper's chunker) for Python/Java/C#/TypeScript; reported unavailable, with its install
line, when astchunk is not installed (the ``peers`` extra)."""
from __future__ import annotations

from typing import Any


def astchunk() -> Any:
    from pytest_chunkeval.chunking.peers import AstChunkPeer

    return AstChunkPeer(max_chunk_size=1000)
