"""How big is a chunk? Characters, non-whitespace characters, or the embedder's tokens.

The AST chunker asks "how big is ``source[a:b]``?" thousands of times per file, so each unit offers a *span
sizer*: a function of two byte offsets that answers in O(1) or O(log n) after one O(n) pass over the file,
instead of re-measuring text. :func:`text_size` measures a finished string exactly; the chunker uses it to
check headers and, for tokens, every final chunk (token counts of a span are exact only up to tokenisation at
the span's edges, so the final check is what makes ``fits_window`` a promise).

Units: ``chars`` (Unicode code points), ``nonws_chars`` (code points other than ASCII whitespace - astchunk's
measure, insensitive to indentation style) and ``tokens`` (all-MiniLM-L6-v2's WordPiece tokens including
[CLS]/[SEP], i.e. what the model's 256-token window counts).
"""
from __future__ import annotations

from bisect import bisect_left
from pathlib import Path
from typing import Callable

SIZE_UNITS = ("chars", "nonws_chars", "tokens")
SpanSizer = Callable[[int, int], int]
_WS = b" \t\n\r\x0b\x0c"
_WS_STR = tuple(" \t\n\r\x0b\x0c")


def check_unit(unit: str) -> str:
    if unit not in SIZE_UNITS:
        raise ValueError(f"size unit must be one of {SIZE_UNITS}, got {unit!r}")
    return unit


def text_size(text: str, unit: str = "chars", model_dir: Path | None = None) -> int:
    """Exact size of ``text`` in ``unit``."""
    if unit == "chars":
        return len(text)
    if unit == "nonws_chars":
        return len(text) - sum(text.count(c) for c in _WS_STR)
    if unit == "tokens":
        from .model_files import count_tokens

        return count_tokens(text, model_dir) if text else 0
    raise ValueError(check_unit(unit))


def span_sizer(unit: str, data: bytes, text: str | None = None, model_dir: Path | None = None) -> SpanSizer:
    """A function ``size(a, b)`` giving the size of ``data[a:b]`` (byte offsets at character boundaries)."""
    check_unit(unit)
    if unit == "chars" and data.isascii():
        return _byte_span
    import numpy as np

    arr = np.frombuffer(data, dtype=np.uint8)
    if unit == "chars":
        return _prefix_sizer(np, (arr & 0xC0) != 0x80)
    if unit == "nonws_chars":
        counted = ((arr & 0xC0) != 0x80) & ~np.isin(arr, np.frombuffer(_WS, dtype=np.uint8))
        return _prefix_sizer(np, counted)
    return _token_sizer(np, data, text, model_dir)


def _byte_span(a: int, b: int) -> int:
    return b - a


def _prefix_sizer(np, counted) -> SpanSizer:  # type: ignore[no-untyped-def]
    prefix = np.zeros(len(counted) + 1, dtype=np.int64)
    np.cumsum(counted, out=prefix[1:])
    pre = prefix.tolist() if len(prefix) < 4_000_000 else prefix

    def size(a: int, b: int) -> int:
        return int(pre[b] - pre[a])

    return size


def _token_sizer(np, data: bytes, text: str | None, model_dir: Path | None) -> SpanSizer:  # type: ignore[no-untyped-def]
    """Tokens of a span = tokens of the whole file starting inside it, plus [CLS]/[SEP].

    One encode of the file, then a bisect per question. WordPiece splits at whitespace and punctuation, where
    syntax-node boundaries almost always fall, so this equals the exact count in practice; the chunker still
    re-checks finished chunks exactly.
    """
    from .model_files import default_model_dir, tokenizer_for

    if text is None:
        text = data.decode("utf-8", "surrogatepass")
    tok = tokenizer_for(model_dir or default_model_dir())
    enc = tok.encode(text, add_special_tokens=False)
    char_starts = [s for s, _ in enc.offsets]
    if not data.isascii():
        widths = np.fromiter((len(c.encode("utf-8", "surrogatepass")) for c in text), dtype=np.int64, count=len(text))
        byte_at = np.zeros(len(text) + 1, dtype=np.int64)
        np.cumsum(widths, out=byte_at[1:])
        starts = byte_at[np.asarray(char_starts, dtype=np.int64)].tolist() if char_starts else []
    else:
        starts = char_starts

    def size(a: int, b: int) -> int:
        return bisect_left(starts, b) - bisect_left(starts, a) + 2

    return size
