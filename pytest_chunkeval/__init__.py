"""pytest-chunkeval: evaluate code-chunking strategies for retrieval as pytest tests.

The names here are the public API. Heavy libraries (sentence-transformers, lancedb, tree-sitter) are imported
lazily by the modules that need them, so importing this package is cheap.
"""
from __future__ import annotations

from .chunk import Chunk
from .chunking.fixed import FileLevelChunker, FixedSizeChunker, chunk_text
from .strategy import ChunkingStrategy, Strategy, registry, strategy

__all__ = [
    "Chunk",
    "ChunkingStrategy",
    "FileLevelChunker",
    "FixedSizeChunker",
    "Strategy",
    "chunk_text",
    "registry",
    "strategy",
]
