"""Spans, the chunker's unit of work: a byte range of the file that is a candidate chunk, and the line cut.

Why spans: the chunker decides *where to cut* on byte offsets only; text, lines and headers are produced once at
the end (:mod:`.chunker`). :func:`line_spans` is the cut every path falls back to - a leaf too big for one chunk, a
tree-sitter ERROR region, a file with no grammar: whole lines while they fit, then characters, never splitting a
UTF-8 sequence and never dropping a byte.
"""
from __future__ import annotations

from typing import Any

from pytest_chunkeval.chunking.sizing import SpanSizer


class Span:
    """A candidate chunk: ``[start, end)`` in bytes, which semantic unit it belongs to, and why it exists.

    ``types`` lists the types of the whole (non-comment) nodes the splitter placed into it, in order (its
    ``node_types`` metadata); ``nodes`` lists ``(node, type, kind)`` of those among them that have a semantic
    kind (for ``kinds`` and ``symbols``). Nodes without a kind are kept as a type only: no tuple per child.

    ``unit`` is -1 for glue (imports, statements, comments) or the id of the one unit the span holds or is a
    piece of; pieces of a split unit carry the id of the outermost split unit, so they may fold together.
    """

    __slots__ = ("start", "end", "unit", "nodes", "ctx", "fallback", "error", "opens", "partial", "types")

    def __init__(self, start: int, end: int, unit: int = -1, nodes: list[Any] | None = None,
                 ctx: tuple[Any, ...] = (), fallback: bool = False, error: bool = False,
                 types: list[str] | None = None) -> None:
        self.start, self.end, self.unit = start, end, unit
        self.nodes = nodes if nodes is not None else []
        self.types = types if types is not None else []
        self.ctx, self.fallback, self.error = ctx, fallback, error
        self.opens = False  # starts a semantic unit: never appended to a piece of another unit
        self.partial = False  # a piece of a node that had to be split: its text does not end a node

    def __repr__(self) -> str:
        return f"Span({self.start}, {self.end}, unit={self.unit})"


def line_spans(data: bytes, a: int, b: int, size: SpanSizer, max_size: int,
               ctx: tuple[Any, ...] = (), fallback: bool = True) -> list[Span]:
    """Cut ``data[a:b]`` into spans of whole lines that fit; a line that alone is too big is cut by characters."""
    out: list[Span] = []
    cs = a  # start of the open span
    pos = a
    while pos < b:
        nl = data.find(b"\n", pos, b)
        le = b if nl < 0 else nl + 1
        if size(cs, le) <= max_size:
            pos = le
            continue
        if cs < pos:  # close the open span before this line
            out.append(Span(cs, pos, ctx=ctx, fallback=fallback))
            cs = pos
            if size(cs, le) <= max_size:
                pos = le
                continue
        while size(cs, le) > max_size:  # one line too big: cut by characters
            cut = _char_cut(data, cs, le, size, max_size)
            out.append(Span(cs, cut, ctx=ctx, fallback=fallback))
            cs = cut
        pos = le
    if cs < b or not out:
        out.append(Span(cs, b, ctx=ctx, fallback=fallback))
    return out


def _char_cut(data: bytes, a: int, b: int, size: SpanSizer, max_size: int) -> int:
    """Largest character boundary ``c`` in ``(a, b)`` with ``size(a, c) <= max_size`` (at least one character)."""
    lo, hi = a + 1, b - 1
    best = a
    while lo <= hi:
        mid = (lo + hi) // 2
        if size(a, mid) <= max_size:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    while best > a and (data[best] & 0xC0) == 0x80:  # never split inside a UTF-8 sequence
        best -= 1
    if best <= a:  # guarantee progress by one whole character
        best = a + 1
        while best < b and (data[best] & 0xC0) == 0x80:
            best += 1
    return best
