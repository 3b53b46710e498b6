"""Strategy output is checked at the boundary: an invalid chunk makes that file fall back to fixed windows, once,
with the file and the first bad chunk named, instead of being scored silently or failing every item.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_chunkeval.chunking.boundary import chunk_file
from pytest_chunkeval.chunking.fixed import FixedSizeChunker
from pytest_chunkeval.core.chunk import Chunk

TEXT = "def a():\n    return 1\n\n\ndef b():\n    return 'é'\n"  # 6 lines; more bytes than characters
SIZE = len(TEXT.encode("utf-8"))
GOOD = Chunk(TEXT, "m.py", 1, 6, 0, SIZE, "s")


class Returns:
    """A strategy returning a fixed list, whatever the file: enough to put any value across the boundary."""

    name = "returns"

    def __init__(self, *chunks: object) -> None:
        self.chunks = list(chunks)

    def chunk(self, path: str, text: str) -> list[object]:
        return self.chunks


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("def a():", "invalid chunk 1 of 2: a str, not a Chunk ('def a():')"),
        (replace(GOOD, start_line=0, end_line=0), "invalid chunk 1 of 2 (lines 0-0): outside the file's lines 1-6"),
        (replace(GOOD, start_line=5, end_line=3), "invalid chunk 1 of 2 (lines 5-3): start line is after end line"),
        (replace(GOOD, end_line=99999), "invalid chunk 1 of 2 (lines 1-99999): outside the file's lines 1-6"),
        (replace(GOOD, start_line=-2), "invalid chunk 1 of 2 (lines -2-6): outside the file's lines 1-6"),
        (replace(GOOD, path="other.py"), "invalid chunk 1 of 2 (lines 1-6): its path is 'other.py', not this file's"),
        (replace(GOOD, end_byte=500), f"invalid chunk 1 of 2 (lines 1-6): bytes 0-500 outside the file's 0-{SIZE} or reversed"),
        (replace(GOOD, start_byte=9, end_byte=3), f"bytes 9-3 outside the file's 0-{SIZE} or reversed"),
    ],
    ids=["str", "lines-0-0", "reversed", "past-end", "negative", "other-path", "bytes-past-end", "bytes-reversed"],
)
def test_invalid_chunk_falls_back_to_fixed_windows_once(bad: object, reason: str) -> None:
    fallbacks: list[str] = []
    chunks = chunk_file(Returns(GOOD, bad), "returns", "m.py", TEXT, fallbacks)
    assert len(fallbacks) == 1 and fallbacks[0].startswith("m.py: ") and reason in fallbacks[0], fallbacks
    assert chunks == FixedSizeChunker(name="returns").chunk("m.py", TEXT)


def test_list_of_strings_is_the_documented_fallback_not_an_attribute_error() -> None:
    fallbacks: list[str] = []
    chunk_file(Returns("def a():", "def b():"), "returns", "m.py", TEXT, fallbacks)
    assert fallbacks == ["m.py: invalid chunk 0 of 2: a str, not a Chunk ('def a():')"]


def test_valid_chunks_pass_unchanged_and_get_the_harness_path_and_name() -> None:
    fallbacks: list[str] = []
    first = replace(GOOD, path="", strategy="", end_line=2, end_byte=21, text=TEXT[:21])
    chunks = chunk_file(Returns(first, GOOD), "returns", "m.py", TEXT, fallbacks)
    assert fallbacks == []
    assert [(c.path, c.strategy, c.start_line, c.end_line) for c in chunks] == [("m.py", "returns", 1, 2), ("m.py", "returns", 1, 6)]
