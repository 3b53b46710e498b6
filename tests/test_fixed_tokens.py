"""fixed_size in the model's tokens: windows that fit the window of the model in use, so nothing is truncated.

Measured on the bundled suites' own files with the bundled model's tokenizer (and a copy of it read as a 128-token
model): the character windows' truncation is what the token windows remove, and the quality checks say so.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_chunkeval.chunking.contract import resolve
from pytest_chunkeval.chunking.fixed import FixedSizeChunker
from pytest_chunkeval.chunking.sizing import default_tokens, model_tokens
from pytest_chunkeval.chunking.strategies.fixed_size import fixed_size
from pytest_chunkeval.chunking.strategy_base import WINDOW
from pytest_chunkeval.core.model_files import default_model_dir
from pytest_chunkeval.scoring.quality import check

CORPUS = Path(__file__).resolve().parents[1] / "golden" / "polyglot" / "corpus"


def _files() -> dict[str, str]:
    return {p.relative_to(CORPUS).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(CORPUS.rglob("*")) if p.is_file()}


def _covers(text: str, spans: list[tuple[int, int]]) -> bool:
    return bool(spans) and spans[0][0] == 0 and spans[-1][1] == len(text) and all(
        b[0] <= a[1] for a, b in zip(spans, spans[1:], strict=False))


@pytest.mark.parametrize("window", [None, 128])
def test_token_windows_fit_the_model_in_use_where_character_windows_are_truncated(window: int | None) -> None:
    model = default_tokens() if window is None else model_tokens(default_model_dir(), window)
    files = _files()
    by_chars = resolve(fixed_size(), name="fixed_size", model=model)
    by_tokens = resolve(fixed_size(size=WINDOW, size_unit="tokens"), name="fixed_size", model=model)
    assert by_tokens.max_chunk_size == model.window and by_tokens.fits_window and not by_chars.fits_window
    reports = {}
    for contract in (by_chars, by_tokens):
        chunks = {path: contract.chunk(path, text) for path, text in files.items()}
        reports[contract is by_tokens] = check(contract, files, chunks)
    chars, tokens = reports[False], reports[True]
    assert chars.over_window > 0  # the seed's 1,000 characters overrun this window
    assert tokens.over_window == 0 and tokens.over_limit == [] and tokens.largest <= model.window
    assert tokens.uncovered == []  # lossless, as the character windows are


def test_windows_share_the_overlap_in_tokens_and_cover_the_text() -> None:
    model = model_tokens(default_model_dir(), 32)
    text = _files()["README.md"]
    chunker = FixedSizeChunker(WINDOW, overlap=8, size_unit="tokens")
    chunker.use_model(model)
    spans = chunker._token_spans(text)
    assert _covers(text, spans) and len(spans) > 2
    for a, b in spans:
        assert model.count(text[a:b]) <= 32
    starts, _ = model.token_starts(text)
    for (_, end), (begin, _) in zip(spans, spans[1:], strict=False):
        assert sum(1 for s in starts if begin <= s < end) == 8  # tokens both windows hold


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab (){}\n\tx=1é_"), max_size=400), st.integers(0, 6))
def test_any_text_is_covered_within_the_limit(text: str, overlap: int) -> None:
    chunker = FixedSizeChunker(24, overlap=overlap, size_unit="tokens")
    spans = chunker._token_spans(text)
    assert not text.strip() or _covers(text, spans)
    assert all(default_tokens().count(text[a:b]) <= 24 for a, b in spans)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"size": WINDOW}, "needs size_unit='tokens'"),
    ({"size": 100, "size_unit": "nonws_chars"}, "chars or tokens"),
    ({"size": 100, "size_unit": "lines"}, "size unit must be one of"),
])
def test_a_size_that_cannot_work_is_refused_when_built(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fixed_size(**kwargs)  # type: ignore[arg-type]


def test_an_overlap_the_window_cannot_hold_is_one_message() -> None:
    chunker = FixedSizeChunker(4, overlap=3, size_unit="tokens")
    with pytest.raises(ValueError, match="holds 2 after the model's 2 special tokens, not more than the overlap"):
        chunker.chunk("a.py", "x = 1\n")
