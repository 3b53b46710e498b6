"""Peer: LangChain's RecursiveCharacterTextSplitter.from_language (1,000 chars, no overlap); reported unavailable,
with its install line, when langchain-text-splitters is not installed (the ``peers`` extra)."""
from __future__ import annotations

from typing import Any


def langchain_recursive() -> Any:
    from pytest_chunkeval.chunking.peers import LangchainRecursive

    return LangchainRecursive(max_chunk_size=1000)
