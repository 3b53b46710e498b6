"""Function-level chunking: one chunk per function/method (with its comments and decorators), class headers and
module-level remainder grouped, anything over 1,000 characters cut by the AST splitter - the structural baseline
practitioners reach for first, sized like `ast` so the two compare on structure alone."""
from __future__ import annotations

from typing import Any


def function_level() -> Any:
    from pytest_chunkeval.chunking.function_level import FunctionLevelChunker

    return FunctionLevelChunker("function_level", max_chunk_size=1000, min_chunk_size=100)
