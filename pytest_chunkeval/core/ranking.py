"""The values a ranking is made of: a golden relevant item, a retrieved chunk, a chunk of an index's universe.

Every stage from the golden file to the metrics passes these around, so they sit at the bottom of the import graph
with ``vocabulary.py`` (they import nothing from the package). Apart from the vocabulary because the settings table
reads the vocabulary in every pytest run, and these frozen dataclasses would cost it their definition.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Relevant:
    """One golden relevant item: a file, or a line range of a file (1-based, inclusive), with a grade >= 1."""

    path: str
    lines: tuple[int, int] | None = None
    grade: int = 1


@dataclass(frozen=True)
class Ranked:
    """One retrieved chunk.  A sequence of these is taken to be in rank order (``scoring.metrics.sort_ranking``)."""

    chunk_id: str
    path: str
    start_line: int
    end_line: int
    score: float


@dataclass(frozen=True)
class ChunkRef:
    """One chunk of a strategy's whole index; the universe from which chunk-mode relevant sets are drawn."""

    chunk_id: str
    path: str
    start_line: int
    end_line: int
