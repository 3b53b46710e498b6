"""AST chunking with a context header per chunk: file path, imports, enclosing class/module signature.

The 1,000-character limit covers header + body (the header gets at most 250), so chunks stay comparable to `ast`.
"""
from __future__ import annotations

from typing import Any


def ast_context() -> Any:
    from pytest_chunkeval.chunking.ast.chunker import AstChunker

    return AstChunker("ast_context", max_chunk_size=1000, min_chunk_size=100, preserve_context=True)
