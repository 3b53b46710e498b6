"""Function-level chunking: one chunk per function/method (with its comments and decorators), class headers and
module-level remainder grouped, anything over 1,000 characters cut by the AST splitter - the structural baseline
practitioners reach for first, sized like `ast` so the two compare on structure alone.

``size`` and ``min_size`` (in ``size_unit``: chars or nonws_chars) are keyword parameters a grid can vary
(``--chunkeval-grid "function_level.size=500,1000"``)."""
from __future__ import annotations

from typing import Any


def function_level(size: int = 1000, min_size: int = 100, size_unit: str = "chars") -> Any:
    from pytest_chunkeval.chunking.function_level import FunctionLevelChunker

    return FunctionLevelChunker("function_level", max_chunk_size=size, min_chunk_size=min_size, size_unit=size_unit)
