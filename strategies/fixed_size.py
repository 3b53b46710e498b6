"""The seed's chunkText: 1,000-character windows with 100 characters of overlap."""
from pytest_chunkeval import FixedSizeChunker, strategy


@strategy
def fixed_size() -> FixedSizeChunker:
    return FixedSizeChunker(max_chunk_size=1000, overlap=100)
