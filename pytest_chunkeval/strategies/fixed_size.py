"""The seed's chunkText: 1,000-character windows with 100 characters of overlap."""
from __future__ import annotations

from typing import Any


def fixed_size() -> Any:
    from pytest_chunkeval.chunking.fixed import FixedSizeChunker

    return FixedSizeChunker(max_chunk_size=1000, overlap=100)
