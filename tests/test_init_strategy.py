"""The example strategy ``chunkeval init`` writes (``blank_lines``) is a working one: it is what users copy, so it
is held to the harness's own checks (valid spans, every non-blank line kept, no chunk over its declared size: the
window of the model in use, in its tokens) on this repository's real files, on edge cases and on generated text,
and it is found the way ``pytest --chunkeval`` finds strategies."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_chunkeval.chunking.boundary import chunk_problem
from pytest_chunkeval.chunking.contract import resolve, unregister
from pytest_chunkeval.chunking.sizing import default_tokens, model_tokens
from pytest_chunkeval.chunking.strategy_files import exec_source
from pytest_chunkeval.chunking.strategy_sources import load
from pytest_chunkeval.commands.init.files import strategy_module
from pytest_chunkeval.core.model_files import default_model_dir
from pytest_chunkeval.scoring.quality import check

ROOT = Path(__file__).resolve().parents[1]
REAL_FILES = sorted([*ROOT.glob("pytest_chunkeval/**/*.py"), ROOT / "README.md",
                     *sorted(ROOT.glob("golden/avap/corpus/*.avap"))[:5]])


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    path = tmp_path_factory.mktemp("strategies") / "my_strategy.py"
    path.write_text(strategy_module(), encoding="utf-8")
    module = ModuleType("chunkeval_template_under_test")
    module.__file__ = str(path)
    exec_source(module, path)
    yield module
    unregister("blank_lines")


def tokens(text: str) -> int:
    """Tokens of ``text`` for the bundled model, its special tokens included: what the limit counts."""
    return default_tokens().count(text)


def checked(module: Any, path: str, text: str) -> list[tuple[int, int, str]]:
    """Chunk ``text`` and fail on anything the harness would reject; returns (start line, end line, text)."""
    strategy = module.BlankLineChunker()
    chunks = strategy.chunk(path, text)
    assert chunk_problem(chunks, path, text) is None
    assert chunks == strategy.chunk(path, text), "deterministic"
    report = check(resolve(strategy), {path: text}, {path: chunks})  # counts every chunk's tokens itself
    assert report.uncovered == [] and report.over_limit == [], (report.uncovered[:3], report.over_limit[:3])
    assert report.over_window == 0 and report.fits_window
    data = text.encode("utf-8")
    ends = [c.end_byte for c in chunks]
    assert ends == sorted(ends) and all(a.end_byte <= b.start_byte for a, b in zip(chunks, chunks[1:], strict=False))
    assert all(data[c.start_byte:c.end_byte].decode() == c.text for c in chunks), "a chunk is the file's own text"
    return [(c.start_line, c.end_line, c.text) for c in chunks]


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_real_files(template: ModuleType, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    chunks = checked(template, path.name, text)
    assert chunks or not text.strip()
    lines = text.split("\n")
    for start, _end, _text in chunks[1:]:
        # a cut falls at a blank line, unless one paragraph alone is over the limit
        assert not lines[start - 2].strip() or tokens(_paragraph(lines, start)) > default_tokens().window


def _paragraph(lines: list[str], line: int) -> str:
    """The paragraph holding 1-based ``line``, newlines between its lines included."""
    first = last = line - 1
    while first > 0 and lines[first - 1].strip():
        first -= 1
    while last + 1 < len(lines) and lines[last + 1].strip():
        last += 1
    return "\n".join(lines[first:last + 1])


def test_edge_cases(template: ModuleType) -> None:
    limit = default_tokens().window
    assert checked(template, "a.txt", "") == [] and checked(template, "a.txt", "\n \n\t\n") == []
    # paragraphs are packed while they fit, blank lines between them included
    assert checked(template, "a.py", "a = 1\nb = 2\n\n\nc = 3\n") == [(1, 5, "a = 1\nb = 2\n\n\nc = 3")]
    para = " ".join(["alpha"] * (limit * 2 // 3))
    assert tokens(para) <= limit < tokens(f"{para}\n\n{para}")
    assert [c[:2] for c in checked(template, "a.py", f"{para}\n\n{para}\n")] == [(1, 1), (3, 3)]
    # one paragraph over the limit: cut at line ends only, each chunk as many lines as fit
    lines = [f"line {i:03d} " + " ".join(["beta"] * 20) for i in range(40)]
    chunks = checked(template, "a.py", "\n".join(lines))
    assert len(chunks) > 1 and all(c[2].split("\n")[0].startswith("line ") for c in chunks)
    for (_, end, text), _next in zip(chunks, chunks[1:], strict=False):
        assert tokens(text + "\n" + lines[end]) > limit  # the next line did not fit
    # one line over the limit: the only cut inside a line, each slice the longest that fits
    minified = "f(a,b);" * 400  # one line of many tokens (a single 3,000-letter word would be one [UNK])
    chunks = checked(template, "a.min.js", minified + "\n\nshort\n")
    assert len(chunks) > 2 and "".join(c[2] for c in chunks[:-1]) + chunks[-1][2].split("\n")[0] == minified
    ends = [len("".join(c[2] for c in chunks[:i + 1])) for i in range(len(chunks) - 2)]
    assert all(tokens(minified[end - len(c[2]):end + 1]) > limit for c, end in zip(chunks, ends, strict=False))
    assert checked(template, "a.py", "a = 1\r\nb = 2\r\n\r\nc = 3") == [(1, 4, "a = 1\r\nb = 2\r\n\r\nc = 3")]
    accents = checked(template, "é.py", "é " * 600)
    assert len(accents) > 1 and "".join(c[2] for c in accents) == "é " * 600


def test_the_limit_is_the_window_of_the_model_in_use(template: ModuleType) -> None:
    strategy = template.BlankLineChunker()
    narrow = model_tokens(default_model_dir(), 64)
    contract = resolve(strategy, model=narrow)
    assert contract.max_chunk_size == 64 and contract.fits_window
    text = "\n".join(f"value_{i} = compute({i}, scale=2)" for i in range(60))
    chunks = contract.chunk("a.py", text)
    assert len(chunks) > 1 and all(narrow.count(c.text) <= 64 for c in chunks)
    assert check(contract, {"a.py": text}, {"a.py": chunks}).over_limit == []


LINE = st.one_of(st.just(""), st.just("   "), st.text(alphabet="ab é\t{}", max_size=80),
                 st.text(alphabet="cd", min_size=1100, max_size=2600))


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(LINE, max_size=60), newline=st.sampled_from(["\n", "\r\n"]), end=st.booleans())
def test_generated_text(template: ModuleType, lines: list[str], newline: str, end: bool) -> None:
    checked(template, "gen.txt", newline.join(lines) + (newline if end and lines else ""))


def test_found_like_pytest_chunkeval_finds_it(tmp_path: Path) -> None:
    folder = tmp_path / "strategies"
    folder.mkdir()
    (folder / "my_strategy.py").write_text(strategy_module(), encoding="utf-8")
    try:
        contract = load(folder).available["blank_lines"].build()
    finally:
        unregister("blank_lines")
    assert (contract.name, contract.version, contract.extensions) == ("blank_lines", "1", None)
    assert contract.lossless and contract.size_unit == "tokens" and contract.fits_window
    assert contract.max_chunk_size == default_tokens().window
    assert contract.chunk("a.py", "a = 1\n\nb = 2\n")[0].strategy == "blank_lines"
