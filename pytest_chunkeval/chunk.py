"""The names a strategy file imports to build its chunks (``from pytest_chunkeval.chunk import Chunk, span_chunk``):
a public path, kept at the package's top so a strategy written against it goes on working wherever the type lives."""
from pytest_chunkeval.core.chunk import Chunk, line_starts, span_chunk

__all__ = ["Chunk", "line_starts", "span_chunk"]
