"""Fixed-size windows with overlap: the seed's ``chunkText`` and every code-RAG tool's first baseline.

In characters by default, as the seed cuts. In the model's tokens (``size_unit="tokens"``, ``max_chunk_size`` a
number or ``WINDOW``) the windows are cut at token starts so that each chunk, with the model's special tokens, fits
the window of the model in use: all-MiniLM-L6-v2 reads 256 tokens, and 1,000 characters of code are more than that
for most chunks, so the vector side would never see the rest of them.
"""
from __future__ import annotations

from pytest_chunkeval.chunking.sizing import check_unit
from pytest_chunkeval.chunking.strategy_base import WINDOW, Strategy
from pytest_chunkeval.core.chunk import Chunk, line_starts, span_chunk


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
    """Cuts wherever the count says, regardless of syntax; the ADR's and the seed's baseline."""

    name = "fixed_size"
    version = "1"
    description = "1,000-character windows, 100 overlap (the seed's chunkText)"
    max_chunk_size: int | str  # characters, or tokens of the model in use (a number or WINDOW); never None

    def __init__(self, max_chunk_size: int | str = 1000, overlap: int = 100, name: str | None = None,
                 size_unit: str = "chars") -> None:
        self.size_unit = check_unit(size_unit)
        if size_unit == "nonws_chars":
            raise ValueError("fixed_size cuts in chars or tokens, not nonws_chars")
        if max_chunk_size == WINDOW and size_unit != "tokens":
            raise ValueError(f"max_chunk_size={WINDOW!r} needs size_unit='tokens', not {size_unit!r}")
        if max_chunk_size != WINDOW:
            window_spans(1, int(max_chunk_size), overlap)  # validate early, with the same messages
        self.max_chunk_size = max_chunk_size
        self.overlap = overlap
        self.version = f"1:{max_chunk_size}:{overlap}" + ("" if size_unit == "chars" else f":{size_unit}")
        if size_unit == "tokens":
            self.description = f"windows of {max_chunk_size} model tokens, {overlap} overlap"
        if name:
            self.name = name

    def chunk(self, path: str, text: str) -> list[Chunk]:
        starts = line_starts(text)
        spans = (self._token_spans(text) if self.size_unit == "tokens"
                 else window_spans(len(text), int(self.max_chunk_size), self.overlap))
        return [span_chunk(text, starts, a, b, path=path, strategy=self.name) for a, b in spans]

    def _token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of windows of the model's tokens: each holds at most the limit with the model's special
        tokens, checked on the exact text (a token cut at a window's edge may tokenise differently alone), and
        shares ``overlap`` tokens with the one before."""
        model, limit = self.model, self.limit
        assert limit is not None
        token_starts, specials = model.token_starts(text)
        body = limit - specials
        if body <= self.overlap:
            raise ValueError(f"{self.name}: a window of {limit} tokens holds {body} after the model's {specials} "
                             f"special tokens, not more than the overlap of {self.overlap}")
        bounds = [*token_starts, len(text)]
        spans: list[tuple[int, int]] = []
        first = 0
        while first < len(token_starts):
            last = min(first + body, len(token_starts))
            while last > first + 1 and model.count(text[bounds[first]:bounds[last]]) > limit:
                last -= 1
            spans.append((0 if not spans else bounds[first], len(text) if last == len(token_starts) else bounds[last]))
            if last == len(token_starts):
                break
            first = max(last - self.overlap, first + 1)
        return spans


class FileLevelChunker(Strategy):
    """One chunk per file: the ADR's baseline. The embedder truncates long files, which is exactly its weakness."""

    name = "file_level"
    version = "1"
    description = "one chunk per file (baseline)"

    def chunk(self, path: str, text: str) -> list[Chunk]:
        if not text:
            return []
        return [span_chunk(text, line_starts(text), 0, len(text), path=path, strategy=self.name)]
