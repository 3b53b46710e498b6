"""Fixed-size character windows with overlap: the seed's ``chunkText`` and every code-RAG tool's first baseline."""
from __future__ import annotations

from pytest_chunkeval.chunk import Chunk, line_starts, span_chunk
from pytest_chunkeval.strategy import Strategy


def window_spans(length: int, max_chunk_size: int = 1000, overlap: int = 100) -> list[tuple[int, int]]:
    """Character spans of consecutive windows; the last window ends at ``length``.

    Windows advance by ``max_chunk_size - overlap`` so each shares ``overlap`` characters with the previous one,
    which is what the seed's ``chunkText`` does.
    """
    if max_chunk_size <= 0:
        raise ValueError(f"max_chunk_size must be positive, got {max_chunk_size}")
    if not 0 <= overlap < max_chunk_size:
        raise ValueError(f"overlap must be in [0, max_chunk_size), got {overlap}")
    if length == 0:
        return []
    step = max_chunk_size - overlap
    spans: list[tuple[int, int]] = []
    start = 0
    while True:
        end = min(start + max_chunk_size, length)
        spans.append((start, end))
        if end >= length:
            return spans
        start += step


def chunk_text(text: str, *, max_chunk_size: int = 1000, overlap: int = 100) -> list[str]:
    """The seed's ``chunkText``: fixed windows of ``max_chunk_size`` characters, ``overlap`` shared."""
    return [text[a:b] for a, b in window_spans(len(text), max_chunk_size, overlap)]


class FixedSizeChunker(Strategy):
    """Cuts wherever the character count says, regardless of syntax; the ADR's and the seed's baseline."""

    name = "fixed_size"
    version = "1"
    description = "1,000-character windows, 100 overlap (the seed's chunkText)"
    max_chunk_size: int  # always a number of characters here (set in __init__), never WINDOW or None

    def __init__(self, max_chunk_size: int = 1000, overlap: int = 100, name: str | None = None) -> None:
        window_spans(1, max_chunk_size, overlap)  # validate early, with the same messages
        self.max_chunk_size = max_chunk_size
        self.overlap = overlap
        self.version = f"1:{max_chunk_size}:{overlap}"
        if name:
            self.name = name

    def chunk(self, path: str, text: str) -> list[Chunk]:
        starts = line_starts(text)
        return [
            span_chunk(text, starts, a, b, path=path, strategy=self.name)
            for a, b in window_spans(len(text), self.max_chunk_size, self.overlap)
        ]


class FileLevelChunker(Strategy):
    """One chunk per file: the ADR's baseline. The embedder truncates long files, which is exactly its weakness."""

    name = "file_level"
    version = "1"
    description = "one chunk per file (baseline)"

    def chunk(self, path: str, text: str) -> list[Chunk]:
        if not text:
            return []
        return [span_chunk(text, line_starts(text), 0, len(text), path=path, strategy=self.name)]
