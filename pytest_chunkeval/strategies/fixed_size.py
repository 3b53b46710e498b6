"""The seed's chunkText: 1,000-character windows with 100 characters of overlap.

``size`` and ``overlap`` are keyword parameters, so a grid can vary them (``--chunkeval-grid
"fixed_size.size=500,1000,2000"``); called without them it is the seed's chunker.
"""
from __future__ import annotations

from typing import Any


def fixed_size(size: int = 1000, overlap: int = 100) -> Any:
    from pytest_chunkeval.chunking.fixed import FixedSizeChunker

    return FixedSizeChunker(max_chunk_size=size, overlap=overlap)
