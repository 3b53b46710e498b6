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

# The largest chunk, in characters. The default model (all-MiniLM-L6-v2) reads 256 tokens, ~900 characters of
# code, and truncates the rest: the table's `>256 tok` column shows how many chunks that costs.
MAX_CHARS = 1200


class BlankLineChunker(Strategy):
    """Cut a file at blank lines: paragraphs packed together while they fit in MAX_CHARS."""

    # The name shown in the summary table, the report and test ids (`...::blank_lines::<query>`).
    name = "blank_lines"
    # Part of the index fingerprint, as this file's code is: bump it when the chunks change for a reason the
    # code does not show (a library or a data file it reads), so the index is rebuilt.
    version = "1"
    # The files this strategy handles, e.g. (".py", ".go"); None = every text file of the corpus.
    extensions = None
    # The largest chunk this strategy makes, in characters (size_unit = "chars", the default): the item
    # `quality[size-limit]` fails if any chunk is larger.
    max_chunk_size = MAX_CHARS
    # A promise that every non-blank line of a file is in some chunk: `quality[lossless]` checks it.
    lossless = True

    def chunk(self, path: str, text: str) -> list[Chunk]:
        starts = line_starts(text)  # character offset where each line begins
        spans: list[tuple[int, int]] = []  # (begin, end) character offsets of the chunks, in file order
        for begin, end in pieces(text, starts):
            if spans and end - spans[-1][0] <= MAX_CHARS:
                spans[-1] = (spans[-1][0], end)  # the piece still fits: it joins the chunk before it
            else:
                spans.append((begin, end))
        # span_chunk fills in line numbers and byte offsets; the chunk's text is the file's own text.
        return [span_chunk(text, starts, b, e, path=path, strategy=self.name) for b, e in spans]


def pieces(text: str, starts: list[int]) -> list[tuple[int, int]]:
    """Paragraphs (runs of non-blank lines) as (begin, end) offsets; one longer than MAX_CHARS as its lines, and
    a single line longer than that in MAX_CHARS slices, so that no chunk is over the declared limit."""
    lines = [(b, (starts[i + 1] - 1) if i + 1 < len(starts) else len(text)) for i, b in enumerate(starts)]
    paragraphs: list[list[tuple[int, int]]] = [[]]
    for b, e in lines:
        if text[b:e].strip():
            paragraphs[-1].append((b, e))
        elif paragraphs[-1]:
            paragraphs.append([])  # a blank line ends the paragraph
    out: list[tuple[int, int]] = []
    for para in paragraphs:
        if para and para[-1][1] - para[0][0] <= MAX_CHARS:
            out.append((para[0][0], para[-1][1]))
        else:
            out.extend((cut, min(cut + MAX_CHARS, e)) for b, e in para for cut in range(b, e, MAX_CHARS))
    return out


@strategy
def blank_lines() -> BlankLineChunker:
    """Registers the strategy (and a pytest fixture of the same name: `def test_x(blank_lines): ...`)."""
    return BlankLineChunker()
