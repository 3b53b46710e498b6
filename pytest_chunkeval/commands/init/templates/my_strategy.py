# An example chunking strategy, written by `chunkeval init`. It is evaluated like the built-in ones:
#
#     chunkeval run                   # every strategy (built-in and this folder's), every suite
#     chunkeval run -k blank_lines    # only this one (-k: a strategy, a query id or a suite)
#
# Every `*.py` file in this folder (ini `chunkeval_strategies_dir`) is imported by the evaluation; one
# whose name starts with `_` is not, which is how to turn this example off (or delete it). To run only some
# strategies, list their names in the ini setting `chunkeval_strategies`. A strategy here that takes the name of
# a built-in one (`fixed_size`, `ast`, ...) replaces it in this project's runs.
#
# Use only the public API (below): the rest of the package may change between versions.
from __future__ import annotations

from pytest_chunkeval import Chunk, Strategy, strategy
from pytest_chunkeval.chunk import line_starts, span_chunk


class BlankLineChunker(Strategy):
    """Cut a file at blank lines: paragraphs packed together while they fit the model's window."""

    # The name shown in the summary table, the report and test ids (`...::blank_lines::<query>`).
    name = "blank_lines"
    # Part of the index fingerprint, as this file's code is: bump it when the chunks change for a reason the
    # code does not show (a library or a data file it reads), so the index is rebuilt.
    version = "1"
    # The files this strategy handles, e.g. (".py", ".go"); None = every text file of the corpus.
    extensions = None
    # The largest chunk, in tokens of the model the evaluation embeds with ("window": as many as it reads, 256
    # for the default all-MiniLM-L6-v2; a number such as 200 sizes below it). The model truncates what is over
    # its window, so a chunk sized in characters (1,200 characters of code are ~340 tokens) is embedded only in
    # part: the table's `>256 tok` column counts those. `quality[size-limit]` fails if any chunk is larger.
    size_unit = "tokens"
    max_chunk_size = "window"
    # A promise that every non-blank line of a file is in some chunk: `quality[lossless]` checks it.
    lossless = True

    def chunk(self, path: str, text: str) -> list[Chunk]:
        limit = self.limit  # max_chunk_size as a number: the window of the model in use
        assert limit is not None
        starts = line_starts(text)  # character offset where each line begins
        spans: list[tuple[int, int]] = []  # (begin, end) character offsets of the chunks, in file order
        for begin, end in self.pieces(text, starts, limit):
            if spans and self.measure(text[spans[-1][0]:end]) <= limit:
                spans[-1] = (spans[-1][0], end)  # the piece still fits: it joins the chunk before it
            else:
                spans.append((begin, end))
        # span_chunk fills in line numbers and byte offsets; the chunk's text is the file's own text.
        return [span_chunk(text, starts, b, e, path=path, strategy=self.name) for b, e in spans]

    def pieces(self, text: str, starts: list[int], limit: int) -> list[tuple[int, int]]:
        """Paragraphs (runs of non-blank lines) as (begin, end) offsets; one over the limit as its lines, and a
        single line over it in the longest slices that fit, so that no chunk is over the declared limit.
        ``self.measure`` sizes a text in the declared unit, with the model in use."""
        lines = [(b, (starts[i + 1] - 1) if i + 1 < len(starts) else len(text)) for i, b in enumerate(starts)]
        paragraphs: list[list[tuple[int, int]]] = [[]]
        for b, e in lines:
            if text[b:e].strip():
                paragraphs[-1].append((b, e))
            elif paragraphs[-1]:
                paragraphs.append([])  # a blank line ends the paragraph
        out: list[tuple[int, int]] = []
        for para in paragraphs:
            if para and self.measure(text[para[0][0]:para[-1][1]]) <= limit:
                out.append((para[0][0], para[-1][1]))
                continue
            for b, e in para:
                out.extend([(b, e)] if self.measure(text[b:e]) <= limit else self.slices(text, b, e, limit))
        return out

    def slices(self, text: str, begin: int, end: int, limit: int) -> list[tuple[int, int]]:
        """One line over the limit (minified code, a data line) cut into the longest slices that fit."""
        out: list[tuple[int, int]] = []
        while begin < end:
            low, high = begin + 1, end  # the longest end that fits, found by bisection
            while low < high:
                middle = (low + high + 1) // 2
                if self.measure(text[begin:middle]) <= limit:
                    low = middle
                else:
                    high = middle - 1
            out.append((begin, low))
            begin = low
        return out


@strategy
def blank_lines() -> BlankLineChunker:
    """Registers the strategy (and a pytest fixture of the same name: `def test_x(blank_lines): ...`)."""
    return BlankLineChunker()
