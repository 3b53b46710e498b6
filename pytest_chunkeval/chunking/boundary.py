"""A strategy's output for one file, checked where it enters the harness, with the fixed-window fallback.

Shared by this process's evaluation and the Ray engine's workers, which import it without the evaluator.
"""
from __future__ import annotations

from dataclasses import replace
from itertools import islice
from typing import Any

from pytest_chunkeval.chunking.contract import Contract
from pytest_chunkeval.chunking.fixed import FixedSizeChunker
from pytest_chunkeval.chunking.time_limit import ChunkingTimeout, time_limit
from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.core.vocabulary import MAX_CHUNKS_PER_FILE

#: How the limit is named in a fallback's reason, so the quality item can point at the setting.
LIMIT_SETTING = "--chunkeval-chunk-timeout / ini chunkeval_chunk_timeout"
MAX_CHUNKS_SETTING = "--chunkeval-max-chunks-per-file / ini chunkeval_max_chunks_per_file"


def chunk_file(strategy: Contract, name: str, path: str, text: str, fallbacks: list[str],
               limit: float | None = None, timed_out: list[str] | None = None,
               max_chunks: int = MAX_CHUNKS_PER_FILE) -> list[Chunk]:
    """The strategy's chunks for one file; an exception, invalid output or running past ``limit`` seconds falls back
    to fixed windows, counted.

    Chunks are checked here, at the boundary, because every later stage trusts them: a line span outside the file
    or reversed is scored silently (relevance is judged on spans), and a value that is not a ``Chunk`` fails every
    item of the strategy far from its cause. One entry per file in ``fallbacks`` names the file and the first bad
    chunk; the report prefixes the strategy's name. A file that ran out of time is also added to ``timed_out``.
    More than ``max_chunks`` chunks (0: no cap) is a fallback too (:func:`too_many_chunks`).
    """
    try:
        with time_limit(limit):
            chunks = take_chunks(strategy.chunk(path, text), max_chunks)
        problem = too_many_chunks(chunks, max_chunks) or chunk_problem(chunks, path, text)
    except ChunkingTimeout as exc:  # a chunker that never returns: this file falls back, the run goes on
        problem = f"{exc} ({LIMIT_SETTING})"
        if timed_out is not None:
            timed_out.append(path)
    except Exception as exc:  # a strategy bug on one file must not sink the whole evaluation
        problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        fallbacks.append(f"{path}: {problem}")
        chunks = FixedSizeChunker(name=name).chunk(path, text)
    return [c if c.path == path and c.strategy == name else _retag(c, path, name) for c in chunks]


def take_chunks(chunks: Any, max_chunks: int) -> list[Any]:
    """A strategy's chunks as a list, at most one past ``max_chunks`` (0: all): a strategy that yields its chunks
    is never drained past the cap, so its memory stays bounded (a list it returned is already made)."""
    return list(islice(chunks, max_chunks + 1)) if max_chunks else list(chunks)


def too_many_chunks(chunks: list[Any], max_chunks: int) -> str | None:
    """Why a file's chunk list is refused for its length (None when it is not): more than ``max_chunks`` (0: no
    cap). The file falls back to windows, as for any other bad output, rather than failing the strategy: one
    pathological file (a generated table, a data dump) should not cost the strategy every other file's numbers,
    and the fallback is still counted, named and held against ``max_fallback`` by the quality item."""
    if max_chunks and len(chunks) > max_chunks:
        return f"more than {max_chunks:,} chunks for one file ({MAX_CHUNKS_SETTING})"
    return None


def chunk_problem(chunks: list[Any], path: str, text: str) -> str | None:
    """What is wrong with the first invalid chunk a strategy returned for ``path`` (None when all are valid).

    Valid: a :class:`Chunk` of this path (or with no path: the harness fills it in), 1 <= start_line <= end_line
    <= the file's line count, and 0 <= start_byte <= end_byte <= the file's UTF-8 length.
    """
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    size = len(text.encode("utf-8"))
    for i, c in enumerate(chunks):
        where = f"invalid chunk {i} of {len(chunks)}"
        if not isinstance(c, Chunk):
            return f"{where}: a {type(c).__name__}, not a Chunk ({_preview(c)})"
        span = f"lines {c.start_line}-{c.end_line}"
        if c.path and c.path != path:
            return f"{where} ({span}): its path is {c.path!r}, not this file's"
        if not (isinstance(c.start_line, int) and isinstance(c.end_line, int)):
            return f"{where} ({span}): line numbers must be integers"
        if c.start_line < 1 or c.end_line > max(lines, 1):
            return f"{where} ({span}): outside the file's lines 1-{max(lines, 1)}"
        if c.start_line > c.end_line:
            return f"{where} ({span}): start line is after end line"
        if not (isinstance(c.start_byte, int) and isinstance(c.end_byte, int)):
            return f"{where} ({span}): byte offsets must be integers"
        if c.start_byte < 0 or c.end_byte > size or c.start_byte > c.end_byte:
            return f"{where} ({span}): bytes {c.start_byte}-{c.end_byte} outside the file's 0-{size} or reversed"
        if not isinstance(c.text, str):
            return f"{where} ({span}): text is a {type(c.text).__name__}, not a str"
    return None


def _preview(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _retag(chunk: Chunk, path: str, name: str) -> Chunk:
    return replace(chunk, path=path, strategy=name)
