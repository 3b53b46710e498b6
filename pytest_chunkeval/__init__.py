"""pytest-chunkeval: evaluate code-chunking strategies for retrieval as pytest tests.

The names here are the public API. Heavy libraries (sentence-transformers, lancedb, tree-sitter) are imported
lazily by the modules that need them, so importing this package is cheap.
"""
from __future__ import annotations

from pytest_chunkeval.chunk import Chunk
from pytest_chunkeval.chunking.fixed import FileLevelChunker, FixedSizeChunker, chunk_text
from pytest_chunkeval.strategy import ChunkingStrategy, Strategy, registry, strategy

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

# --- AST chunking (issue 4). Lazy: nothing touches tree-sitter until one of these names is used. ---
_AST_EXPORTS = {
    "AstChunker": "pytest_chunkeval.chunking.ast.chunker",
    "ast_chunks": "pytest_chunkeval.chunking.ast.chunker",
    "ast_chunk_files": "pytest_chunkeval.chunking.ast.chunker",
    "chunk_code_by_ast": "pytest_chunkeval.chunking.ast.chunker",
}
__all__ += list(_AST_EXPORTS)


def __getattr__(name: str):  # PEP 562: resolve the AST names on first use
    module = _AST_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_chunkeval' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
