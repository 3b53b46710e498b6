"""The Chunk type strategies return, a chunk of a source file: the one data type every stage agrees on. Not the
chunking engines (``chunking/``), nor the evaluation's chunking step (:mod:`~pytest_chunkeval.evaluation.chunk_corpus`).

Kept free of heavy imports so strategies, the AST engine and the harness can all use it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Chunk:
    """A piece of one source file, as a strategy hands it to the index.

    ``text`` is what gets embedded and full-text indexed. When a strategy adds context (a header of imports,
    a rendered AST summary, an enclosing signature) it keeps the source slice apart in ``body`` and the added
    part in ``header`` so losslessness can be checked on ``body`` alone. ``start_line``/``end_line`` are
    1-based and inclusive; ``start_byte``/``end_byte`` are offsets into the file's UTF-8 bytes, end exclusive.
    Relevance is judged on ``path`` and the line span, never on the text.
    """

    text: str
    path: str
    start_line: int
    end_line: int
    start_byte: int = 0
    end_byte: int = 0
    strategy: str = ""
    kind: str = "code"
    header: str = ""
    body: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def source(self) -> str:
        """The part of the file this chunk covers (without any added header)."""
        return self.text if self.body is None else self.body

    def overlaps(self, start: int, end: int) -> bool:
        return self.start_line <= end and start <= self.end_line


def line_starts(text: str) -> list[int]:
    """Character offset at which each line begins (index 0 is line 1)."""
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def line_of(starts: list[int], offset: int) -> int:
    """1-based line holding character ``offset`` (bisect over :func:`line_starts`)."""
    from bisect import bisect_right

    return max(1, bisect_right(starts, offset))


def span_chunk(
    text: str,
    starts: list[int],
    begin: int,
    end: int,
    *,
    path: str,
    strategy: str,
    kind: str = "code",
    header: str = "",
    metadata: dict[str, Any] | None = None,
) -> Chunk:
    """Build a chunk for ``text[begin:end]`` (character offsets), filling lines and byte offsets.

    Byte offsets are computed from the character offsets so chunkers can work on ``str`` and still hand out
    positions a byte-oriented tool (tree-sitter, an editor) can use.
    """
    body = text[begin:end]
    start_byte = len(text[:begin].encode("utf-8"))
    end_byte = start_byte + len(body.encode("utf-8"))
    last = end - 1 if end > begin else begin
    # A span that ends right after a newline ends on the line of that newline.
    return Chunk(
        text=(header + body) if header else body,
        path=path,
        start_line=line_of(starts, begin),
        end_line=line_of(starts, last),
        start_byte=start_byte,
        end_byte=end_byte,
        strategy=strategy,
        kind=kind,
        header=header,
        body=body if header else None,
        metadata=dict(metadata or {}),
    )
