"""Chunk quality checks on hand-made chunks: what counts as kept, over the limit, truncated, tiny."""
from __future__ import annotations

from collections.abc import Sequence

from pytest_chunkeval.chunking.contract import resolve
from pytest_chunkeval.chunking.fixed import FixedSizeChunker
from pytest_chunkeval.chunking.sizing import nonws_len, span_sizer, text_size
from pytest_chunkeval.chunking.strategy_base import Strategy
from pytest_chunkeval.core.chunk import line_starts, span_chunk
from pytest_chunkeval.scoring.quality import check

TEXT = "def alpha():\n    return 'a long line that windows will cut in two places'\n\n\x0cdef beta():\n    return 2\n"


class Words:
    """A stand-in model (words as tokens, an 8-word window), enough to test the window logic without a tokenizer."""

    window = 8

    def count(self, text: str) -> int:
        return len(text.split())

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]

    def token_starts(self, text: str) -> tuple[list[int], int]:  # pragma: no cover - not chunked in tokens here
        raise NotImplementedError


def run(strategy: Strategy, chunks: list, text: str = TEXT):
    return check(resolve(strategy, name="s", model=Words()), {"m.py": text}, {"m.py": chunks})


def test_lines_cut_by_windows_still_count_as_kept() -> None:
    s = FixedSizeChunker(20, 0)
    report = run(s, s.chunk("m.py", TEXT))
    assert report.uncovered == [] and report.lines_checked == 4


def test_white_space_between_chunks_may_go_but_text_may_not() -> None:
    s, starts = Strategy(), line_starts(TEXT)
    cut = TEXT.index("return 'a")
    stripped = [span_chunk(TEXT, starts, 0, cut - 4, path="m.py", strategy="s"), span_chunk(TEXT, starts, cut, len(TEXT), path="m.py", strategy="s")]
    assert run(s, stripped).uncovered == []  # only the indentation before `return` is missing
    lossy = [span_chunk(TEXT, starts, 0, cut, path="m.py", strategy="s"), span_chunk(TEXT, starts, cut + 7, len(TEXT), path="m.py", strategy="s")]
    assert run(s, lossy).uncovered == ["m.py:2: return 'a long line that windows will cut in two places'"]


def test_declared_drops_are_exempt() -> None:
    class NoBeta(Strategy):
        def dropped_lines(self, path: str, text: str) -> set[int]:
            return {4, 5}

    starts = line_starts(TEXT)
    only_alpha = [span_chunk(TEXT, starts, 0, TEXT.index("\x0c"), path="m.py", strategy="s")]
    assert run(Strategy(), only_alpha).uncovered[0].startswith("m.py:4:")
    assert run(NoBeta(), only_alpha).uncovered == []


def test_size_limit_window_and_tiny_shares() -> None:
    chunks = FixedSizeChunker(30, 0).chunk("m.py", TEXT)
    declared = Strategy()
    declared.max_chunk_size = 25  # declared tighter than the 30-character windows it is held to
    report = run(declared, chunks)
    assert len(report.over_limit) == len(chunks) - 1  # only the short last window fits 25 chars
    assert report.over_window == 0 and report.tiny == report.chunks  # every window has < 50 non-space characters
    assert report.window_tokens == 8  # the window of the model the contract is bound to
    declared.size_unit, declared.max_chunk_size = "tokens", 3
    assert len(run(declared, chunks).over_limit) >= 1
    wide = run(Strategy(), [*chunks[:1], *FixedSizeChunker(60, 0).chunk("m.py", TEXT)])
    assert wide.over_window >= 1 and wide.window_share > 0


def test_one_whitespace_rule_for_non_whitespace_size() -> None:
    """Unicode spaces count as text everywhere (ASCII whitespace only is dropped, as astchunk counts)."""
    text = "a\u00a0b\u2003c\t d\n"
    assert nonws_len(text) == text_size(text, "nonws_chars") == 6
    data = text.encode("utf-8")
    assert span_sizer("nonws_chars", data, text)(0, len(data)) == 6
    starts = line_starts(text)
    chunk = span_chunk(text, starts, 0, len(text), path="m.py", strategy="s")
    declared = Strategy()
    declared.size_unit, declared.max_chunk_size = "nonws_chars", 5
    assert run(declared, [chunk], text).over_limit == ["m.py:1-1: 6 nonws_chars"]
