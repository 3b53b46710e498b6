"""The context header of an ``ast`` chunk: the file path, the file's imports and the signatures of what the chunk
was cut from, trimmed to the header's budget.

With ``preserve_context`` each chunk's embedded text starts with this header, so a piece cut from the middle of a
class still says which file, which imports and which class it belongs to. The header gets at most its budget
(:func:`header_budget`) of the chunk's size, counted in the chunk's unit; what does not fit is dropped in the order
that loses least: the last imports first, then the outermost signatures, then the path from its start.
"""
from __future__ import annotations

from typing import Any

from pytest_chunkeval.chunking.ast.spans import Span
from pytest_chunkeval.chunking.ast.tree import Node, SyntaxTree
from pytest_chunkeval.chunking.sizing import TokenModel, default_tokens, nonws_len, text_size

_SIG_MAX = 300


def header_budget(max_chunk_size: int, preserve_context: bool, max_header_size: int | None) -> int:
    """The header's share of ``max_chunk_size`` (0 without context): a quarter unless ``max_header_size`` says."""
    if not preserve_context:
        return 0
    budget = max_chunk_size // 4 if max_header_size is None else max_header_size
    if not 0 <= budget < max_chunk_size:
        raise ValueError(f"max_header_size must be in [0, max_chunk_size), got {budget}")
    return budget


class Headers:
    """Builds bounded headers: path, then imports, then enclosing signatures - trimmed to the budget."""

    def __init__(self, path: str, tree: SyntaxTree | None, unit: str, budget: int, stats: dict[str, int] | None,
                 model: TokenModel | None) -> None:
        self.path, self.unit, self.budget, self.stats, self.model = path, unit, budget, stats, model
        self.specials = (model or default_tokens()).count("") if unit == "tokens" else 0
        self.imports: list[tuple[int, int, str]] = []
        if tree is not None and budget > 0:
            for node in tree.extract_context().imports:
                self.imports.append((node.start_byte, node.end_byte, node.text.strip()))
        self.tree = tree
        self._sigs: dict[int, tuple[Any, str]] = {}  # id(node) -> (node, signature): ctx nodes recur in many chunks
        # chars and nonws_chars add up line by line, so the trimming loop can drop imports/signatures by arithmetic
        self._line_cost = _LINE_COST.get(unit)

    def _cost(self, text: str) -> int:
        n = text_size(text, self.unit, self.model)
        return max(0, n - self.specials)  # [CLS]/[SEP] (tokens only) are paid once, by the body

    def _signature(self, raw: Any) -> str:
        hit = self._sigs.get(id(raw))
        if hit is None or hit[0] is not raw:
            hit = self._sigs[id(raw)] = (raw, _signature(self.tree, raw))
        return hit[1]

    def build(self, span: Span, count: bool = False) -> str:
        """Header for ``span`` (imports already inside the body and signatures it starts with are left out)."""
        if self.budget <= 0:
            return ""
        start, end = span.start, span.end
        sigs = [self._signature(n) for n in span.ctx if n.start_byte < start]
        imps = [t for a, b, t in self.imports if not (start <= a and b <= end)]
        path_line = self.path
        truncated = False
        cost = self._line_cost
        if cost is not None:
            # same drops as the loop below, without re-joining the header for each: while over budget (then the
            # header has a non-empty line and its size is the sum of its lines' sizes) drop the last import,
            # then the outermost signature; the loop then checks the exact header and trims the path if needed
            total = cost(path_line) + sum(map(cost, imps)) + sum(map(cost, sigs))
            budget = self.budget
            while total > budget and imps:
                total -= cost(imps.pop())
                truncated = True
            while total > budget and sigs:
                total -= cost(sigs.pop(0))
                truncated = True
        while True:
            lines = [path_line, *imps, *sigs]
            header = "\n".join(x for x in lines if x) + "\n"
            if self._cost(header) <= self.budget:
                break
            truncated = True
            if imps:
                imps.pop()
            elif sigs:
                sigs.pop(0)  # outermost first: the innermost signature says most about the piece
            elif path_line:
                path_line = path_line[1:] if len(path_line) > 1 else ""
            else:
                header = ""
                break
        if truncated and count and self.stats is not None:
            self.stats["header_truncated"] = self.stats.get("header_truncated", 0) + 1
        return header


def _chars_line(line: str) -> int:
    return len(line) + 1 if line else 0  # the line and its newline


def _nonws_line(line: str) -> int:
    return nonws_len(line)  # the newline is whitespace


_LINE_COST = {"chars": _chars_line, "nonws_chars": _nonws_line}


def _signature(tree: SyntaxTree | None, raw: Any) -> str:
    if tree is None:
        return ""
    return Node(raw, tree).signature[:_SIG_MAX]
