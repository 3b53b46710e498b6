"""Chunk quality checks: the properties peers get wrong, measured the same way for every strategy.

Lossless: every non-blank source line can be found in some chunk that claims its line (lines the strategy
declares dropped excepted). Within size: no chunk over the strategy's declared limit. Token window: how many
chunks the embedder truncates (its window, in its own tokens: all-MiniLM-L6-v2 reads 256, and a 1,000-character
Python chunk averages ~285), a failure only where the strategy promises to fit. Tiny chunks: a share, because
fragments without context retrieve badly. Parse errors: the share of files a strategy's grammar could not parse,
with where (:func:`parse_errors`), because a chunk cut through an ERROR region measures the grammar, not the
strategy. Sizes are measured by :mod:`~pytest_chunkeval.chunking.sizing`, with the
model the strategy's contract is bound to.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_chunkeval.chunking.contract import Contract
from pytest_chunkeval.chunking.sizing import default_tokens, nonws_len, text_size
from pytest_chunkeval.chunking.strategy_base import PARSE_ERROR_LINES
from pytest_chunkeval.core.chunk import Chunk

TINY_NONWS_CHARS = 50


@dataclass
class QualityReport:
    chunks: int = 0
    claims_lossless: bool = True
    lines_checked: int = 0
    uncovered: list[str] = field(default_factory=list)  # "path:line: text"
    max_chunk_size: int | None = None
    size_unit: str = "chars"
    over_limit: list[str] = field(default_factory=list)  # "path:start-end: size"
    largest: int = 0
    window_tokens: int = 0
    over_window: int = 0
    fits_window: bool = False
    over_window_examples: list[str] = field(default_factory=list)
    tiny: int = 0

    @property
    def coverage(self) -> float:
        return 1.0 if not self.lines_checked else 1 - len(self.uncovered) / self.lines_checked

    @property
    def window_share(self) -> float:
        return self.over_window / self.chunks if self.chunks else 0.0

    @property
    def tiny_share(self) -> float:
        return self.tiny / self.chunks if self.chunks else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "chunks": self.chunks,
            "claims_lossless": self.claims_lossless,
            "line_coverage": self.coverage,
            "uncovered_lines": len(self.uncovered),
            "max_chunk_size": self.max_chunk_size,
            "size_unit": self.size_unit,
            "over_limit": len(self.over_limit),
            "largest": self.largest,
            "window_tokens": self.window_tokens,
            "over_window": self.over_window,
            "over_window_share": self.window_share,
            "fits_window": self.fits_window,
            "tiny": self.tiny,
            "tiny_share": self.tiny_share,
        }


def _merged(intervals: list[tuple[int, int]], data: bytes) -> list[tuple[int, int]]:
    """Union of byte ranges; a gap of white space only between two ranges counts as kept (splitters strip it)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(intervals):
        if out and (a <= out[-1][1] or not data[out[-1][1] : a].strip()):
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _uncovered_lines(path: str, text: str, chunks: Sequence[Chunk], exempt: set[int]) -> tuple[int, list[str]]:
    """Non-blank lines no chunk holds.

    A chunk whose body is exactly the file's bytes at its offsets covers those bytes, so a line cut in two by
    window boundaries still counts as kept. A chunk that rewrites its text (blanked comments, a rendered AST)
    covers a line of its span only if the line's stripped text appears in its body.
    """
    data = text.encode("utf-8")
    # Lines end at "\n" only, as chunk line numbers do: str.splitlines() would also break at \f, \x1c, \u2028...
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    starts: list[int] = []
    pos = 0
    for line in lines:
        starts.append(pos)
        pos += len(line.encode("utf-8"))
    exact: list[tuple[int, int]] = []
    covered: set[int] = set()
    for ch in chunks:
        source = ch.source
        if ch.end_byte > ch.start_byte and data[ch.start_byte : ch.end_byte] == source.encode("utf-8"):
            exact.append((ch.start_byte, ch.end_byte))
            continue
        for ln in range(max(1, ch.start_line), min(len(lines), ch.end_line) + 1):
            if ln not in covered and lines[ln - 1].strip() in source:
                covered.add(ln)
    merged = _merged(exact, data)
    checked = 0
    missing: list[str] = []
    j = 0
    for ln, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or ln in exempt:
            continue
        checked += 1
        if ln in covered:
            continue
        lead = len(line) - len(line.lstrip())
        a = starts[ln - 1] + len(line[:lead].encode("utf-8"))
        b = a + len(stripped.encode("utf-8"))
        while j < len(merged) and merged[j][1] <= a:
            j += 1
        if not (j < len(merged) and merged[j][0] <= a and b <= merged[j][1]):
            missing.append(f"{path}:{ln}: {stripped[:80]}")
    return checked, missing


def check(strategy: Contract, files: dict[str, str], chunks_by_file: dict[str, list[Chunk]],
          token_counts: Sequence[int] | None = None) -> QualityReport:
    """Measure every quality property for one strategy over the files it chunked, against the window and with
    the tokenizer of the model its contract is bound to. ``token_counts``: each chunk's tokens with the model's
    special tokens, in file then chunk order, when the caller has them (tokenizing a corpus twice costs seconds)."""
    model = strategy.model or default_tokens()
    unit, applies, window = strategy.size_unit, strategy.size_applies_to, model.window
    report = QualityReport(
        claims_lossless=strategy.lossless,
        max_chunk_size=strategy.max_chunk_size,
        size_unit=unit,
        window_tokens=window,
        fits_window=strategy.fits_window,
    )
    all_chunks = [c for path in sorted(chunks_by_file) for c in chunks_by_file[path]]
    report.chunks = len(all_chunks)
    if token_counts is None:
        token_counts = model.count_many([c.text for c in all_chunks])
    elif len(token_counts) != len(all_chunks):
        raise ValueError(f"{len(token_counts)} token counts for {len(all_chunks)} chunks")
    for ch, tokens in zip(all_chunks, token_counts, strict=False):
        if tokens > window:
            report.over_window += 1
            if len(report.over_window_examples) < 10:
                report.over_window_examples.append(f"{ch.path}:{ch.start_line}-{ch.end_line}: {tokens} tokens")
        measured_text = ch.source if applies == "body" else ch.text
        size = tokens if unit == "tokens" and applies == "text" else text_size(measured_text, unit, model)
        report.largest = max(report.largest, size)
        if report.max_chunk_size is not None and size > report.max_chunk_size:
            report.over_limit.append(f"{ch.path}:{ch.start_line}-{ch.end_line}: {size} {unit}")
        if nonws_len(ch.source) < TINY_NONWS_CHARS:
            report.tiny += 1
    for path in sorted(chunks_by_file):
        text = files[path]
        checked, missing = _uncovered_lines(path, text, chunks_by_file[path], strategy.dropped_lines(path, text))
        report.lines_checked += checked
        report.uncovered.extend(missing)
    return report


#: A file's error regions: 1-based (first, last) line ranges.
Regions = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class ParseErrors:
    """Where one strategy's grammar could not parse a suite's files, read from the strategy's stats.

    ``parses``: the strategy reports parse errors at all (a ``parse_errors`` counter or the regions); a strategy
    with no grammar (fixed windows) has nothing to check. ``count`` is the files with errors: the counter, or the
    files named when a strategy names more than it counts.
    """

    parses: bool = False
    files: int = 0
    count: int = 0
    regions: dict[str, Regions] = field(default_factory=dict)

    @property
    def share(self) -> float:
        return self.count / self.files if self.files else 0.0


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def error_regions(stats: Mapping[str, Any]) -> dict[str, Regions]:
    """The :data:`~pytest_chunkeval.chunking.strategy_base.PARSE_ERROR_LINES` of a strategy's stats (from a run or a
    stored report, so any shape is read defensively: a malformed entry is left out, never an exception)."""
    raw = stats.get(PARSE_ERROR_LINES)
    out: dict[str, Regions] = {}
    if not isinstance(raw, Mapping):
        return out
    for path, ranges in raw.items():
        if not isinstance(ranges, list):
            continue
        pairs = tuple((r[0], r[1]) for r in ranges
                      if isinstance(r, list | tuple) and len(r) == 2 and all(_count(x) for x in r))
        out[str(path)] = pairs
    return out


def parse_errors(stats: Mapping[str, Any], files_handled: int) -> ParseErrors:
    """How many of the ``files_handled`` a strategy's grammar could not parse, and where."""
    regions = error_regions(stats)
    parses = "parse_errors" in stats or bool(regions)
    return ParseErrors(parses, files_handled, max(_count(stats.get("parse_errors")), len(regions)), regions)


def regions_text(regions: Regions) -> str:
    """``lines 3-7, 12`` (what a reader looks up in the file)."""
    spans = [f"{a}-{b}" if b > a else str(a) for a, b in regions]
    return ("line " if len(spans) == 1 and "-" not in spans[0] else "lines ") + ", ".join(spans) if spans else ""
