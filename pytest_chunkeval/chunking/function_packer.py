"""Packing a file's atoms into chunks, for the ``function_level`` strategy: a function alone, the text around the
functions grouped greedily up to the limit, anything too big cut by the AST splitter (:mod:`.function_level` states
the rules).

The atoms come from :mod:`.function_finder` and tile the file; the pieces made here tile it too, each within
``max_size``, so the strategy stays lossless whatever was cut.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pytest_chunkeval.chunking.ast.spans import line_spans
from pytest_chunkeval.chunking.ast.split import Splitter, fold_small
from pytest_chunkeval.chunking.ast.tree import SyntaxTree
from pytest_chunkeval.chunking.function_finder import GLUE, UNIT, Atom
from pytest_chunkeval.chunking.sizing import SpanSizer


def bump(stats: dict[str, int] | None, key: str, n: int = 1) -> None:
    """Add ``n`` to a counter, when the caller counts (``stats`` not None)."""
    if stats is not None:
        stats[key] = stats.get(key, 0) + n


@dataclass
class Piece:
    """A finished chunk's byte range, its chunk kind, and what the metadata says about it."""

    start: int
    end: int
    kind: str
    key: int
    name: str | None = None
    containers: list[str] = field(default_factory=list)
    part: int = 0
    fallback: bool = False


class Packer:
    """One file's packing: the pieces of its atoms, with the AST splitter made once, when a piece first needs it."""

    def __init__(self, tree: SyntaxTree, size: SpanSizer, max_size: int, min_size: int,
                 stats: dict[str, int] | None, key_names: dict[int, list[str]]) -> None:
        self.tree, self.data = tree, tree.source
        self.size, self.max, self.min, self.stats = size, max_size, min_size, stats
        self.key_names = key_names
        self._splitter: Splitter | None = None

    def splitter(self) -> Splitter:
        if self._splitter is None:
            self._splitter = Splitter(self.tree, self.size, self.max, by_type=True, stats=self.stats)
        return self._splitter

    def split(self, atom: Atom) -> list[tuple[int, int]]:
        """Byte ranges of an atom too big for one chunk, cut by the AST splitter along the node's children."""
        node = atom.node
        if node is None or node.is_error or not node.child_count:
            if node is not None and node.is_error:
                bump(self.stats, "fallback_regions")
            return [(sp.start, sp.end) for sp in line_spans(self.data, atom.start, atom.end, self.size, self.max,
                                                              fallback=node is not None and node.is_error)]
        splitter = self.splitter()
        try:
            spans = splitter.children(node, atom.start, atom.end, ())
        except RecursionError:  # pathologically deep nesting: lines, as the splitter itself does
            bump(self.stats, "fallback_regions")
            spans = line_spans(self.data, atom.start, atom.end, self.size, self.max)
        return self._snap([(sp.start, sp.end) for sp in fold_small(spans, splitter, self.min)])

    def _snap(self, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Move a cut that falls inside a line (``export `` | ``function f() {``) to a line boundary where the
        pieces still fit, so no line is in two chunks: back to the line's start, else past its end."""
        data, size, max_size = self.data, self.size, self.max
        out = [list(r) for r in ranges]
        for i in range(1, len(out)):
            x = out[i][0]
            if data[x - 1:x] == b"\n":
                continue
            start = data.rfind(b"\n", 0, x) + 1
            nl = data.find(b"\n", x)
            end = len(data) if nl < 0 else nl + 1
            if start > out[i - 1][0] and size(start, out[i][1]) <= max_size:
                out[i - 1][1] = out[i][0] = start
            elif end < out[i][1] and size(out[i - 1][0], end) <= max_size:
                out[i - 1][1] = out[i][0] = end
        return [(a, b) for a, b in out]

    def pieces(self, atoms: list[Atom]) -> list[Piece]:
        """The pieces of ``atoms``, in file order: each function alone (cut when too big), each run of remainder
        atoms of one container grouped, a run of punctuation only joined to the piece before it."""
        out: list[Piece] = []
        size, max_size = self.size, self.max
        i = 0
        while i < len(atoms):
            atom = atoms[i]
            if atom.role == UNIT:
                bump(self.stats, "functions")
                names = self.key_names[atom.key]
                if size(atom.start, atom.end) <= max_size:
                    out.append(Piece(atom.start, atom.end, "function", atom.key, atom.name, names))
                else:
                    bump(self.stats, "split_functions")
                    for k, (a, b) in enumerate(self.split(atom), 1):
                        out.append(Piece(a, b, "function", atom.key, atom.name, names, part=k))
                i += 1
                continue
            j = i
            while j < len(atoms) and atoms[j].role == GLUE and atoms[j].key == atom.key:
                j += 1
            run = atoms[i:j]
            i = j
            if not any(x.named for x in run) and out and out[-1].end == run[0].start \
                    and size(out[-1].start, run[-1].end) <= max_size:
                out[-1].end = run[-1].end  # only punctuation (a closing brace): joins the chunk before it
                continue
            self.group(run, out)
        return out

    def group(self, run: list[Atom], out: list[Piece]) -> None:
        """Merge a run of remainder atoms into chunks greedily; an atom too big alone is split."""
        key = run[0].key
        kind = "remainder" if key == 0 else "class"
        names = self.key_names[key]
        size, max_size = self.size, self.max
        cur: Piece | None = None
        for atom in run:
            if cur is not None and size(cur.start, atom.end) <= max_size:
                cur.end = atom.end
                continue
            if cur is not None:
                out.append(cur)
                cur = None
            if size(atom.start, atom.end) <= max_size:
                cur = Piece(atom.start, atom.end, kind, key, containers=names)
                continue
            bump(self.stats, "split_remainders")
            ranges = self.split(atom)
            for a, b in ranges[:-1]:
                out.append(Piece(a, b, kind, key, containers=names))
            cur = Piece(ranges[-1][0], ranges[-1][1], kind, key, containers=names)
        if cur is not None:
            out.append(cur)
