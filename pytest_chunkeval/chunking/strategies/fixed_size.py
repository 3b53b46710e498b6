"""The seed's chunkText: 1,000-character windows with 100 characters of overlap.

``size``, ``overlap`` and ``size_unit`` are keyword parameters, so a grid can vary them (``--chunkeval-grid
"fixed_size.size=500,1000,2000"``); called without them it is the seed's chunker. ``size_unit=tokens`` cuts in the
model's tokens instead, and ``size=window`` with it makes every chunk fit the window of the model in use
(``fixed_size.size_unit=tokens`` and ``fixed_size.size=window``: docs/strategies.md).
"""
from __future__ import annotations

from typing import Any


def fixed_size(size: int | str = 1000, overlap: int = 100, size_unit: str = "chars") -> Any:
    from pytest_chunkeval.chunking.fixed import FixedSizeChunker

    return FixedSizeChunker(max_chunk_size=size, overlap=overlap, size_unit=size_unit)
