"""pytest-chunkeval: evaluate code-chunking strategies for retrieval as pytest tests.

The names here are the public API, resolved on first use (PEP 562): every ``pytest`` run in a project with the
plugin installed imports this package, and a run without ``--chunkeval`` should not pay for the chunkers and the
strategy registry. Heavy libraries (sentence-transformers, lancedb, tree-sitter) are imported lazily by the modules
that need them.

No module of the package bears a public name (the ``@strategy`` decorator lives in ``contract.py``): importing a
submodule sets it as an attribute of its package, and one named ``strategy`` would then replace the decorator.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what mypy and IDEs see; at run time __getattr__ imports each on first use
    from pytest_chunkeval.chunking.ast.chunker import AstChunker, ast_chunk_files, ast_chunks, chunk_code_by_ast
    from pytest_chunkeval.chunking.contract import registry, strategy
    from pytest_chunkeval.chunking.fixed import FileLevelChunker, FixedSizeChunker, chunk_text
    from pytest_chunkeval.chunking.strategy_base import WINDOW, ChunkingStrategy, Strategy
    from pytest_chunkeval.core.chunk import Chunk
    from pytest_chunkeval.retrieval.remote import embedder

#: Public name -> the module that defines it.
_EXPORTS = {
    "Chunk": "pytest_chunkeval.core.chunk",
    "ChunkingStrategy": "pytest_chunkeval.chunking.strategy_base",
    "FileLevelChunker": "pytest_chunkeval.chunking.fixed",
    "FixedSizeChunker": "pytest_chunkeval.chunking.fixed",
    "Strategy": "pytest_chunkeval.chunking.strategy_base",
    "chunk_text": "pytest_chunkeval.chunking.fixed",
    "registry": "pytest_chunkeval.chunking.contract",
    "strategy": "pytest_chunkeval.chunking.contract",
    "WINDOW": "pytest_chunkeval.chunking.strategy_base",
    # Nothing touches tree-sitter until one of these names is used.
    "AstChunker": "pytest_chunkeval.chunking.ast.chunker",
    "ast_chunks": "pytest_chunkeval.chunking.ast.chunker",
    "ast_chunk_files": "pytest_chunkeval.chunking.ast.chunker",
    "chunk_code_by_ast": "pytest_chunkeval.chunking.ast.chunker",
    # Your own embedder as a model (--chunkeval-model ROUTE:MODEL; docs/embedders.md).
    "embedder": "pytest_chunkeval.retrieval.remote",
}

__all__ = [
    "Chunk",
    "ChunkingStrategy",
    "FileLevelChunker",
    "FixedSizeChunker",
    "Strategy",
    "chunk_text",
    "registry",
    "strategy",
    "WINDOW",
    "AstChunker",
    "ast_chunks",
    "ast_chunk_files",
    "chunk_code_by_ast",
    "embedder",
]


def __getattr__(name: str) -> Any:  # PEP 562: resolve a public name on first use
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_chunkeval' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

