"""Peer: chonkie's CodeChunker, on the grammar wheels this package depends on (nothing downloads); reported
unavailable, with its install line, when chonkie or a piece it needs offline is missing (the ``peers`` extra)."""
from __future__ import annotations

from typing import Any


def chonkie_code() -> Any:
    from pytest_chunkeval.chunking.peers import ChonkieCode

    return ChonkieCode(max_chunk_size=1000)
