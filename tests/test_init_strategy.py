"""The example strategy ``chunkeval init`` writes (``blank_lines``) is a working one: it is what users copy, so it
is held to the harness's own checks (valid spans, every non-blank line kept, no chunk over its declared size) on
this repository's real files, on edge cases and on generated text, and it is found the way ``pytest --chunkeval``
finds strategies."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_chunkeval.chunking.boundary import chunk_problem
from pytest_chunkeval.contract import resolve, unregister
from pytest_chunkeval.discovery import exec_source
from pytest_chunkeval.init.files import strategy_module
from pytest_chunkeval.scoring.quality import check
from pytest_chunkeval.sources import load

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


def checked(module: Any, path: str, text: str) -> list[tuple[int, int, str]]:
    """Chunk ``text`` and fail on anything the harness would reject; returns (start line, end line, text)."""
    strategy = module.BlankLineChunker()
    chunks = strategy.chunk(path, text)
    assert chunk_problem(chunks, path, text) is None
    assert chunks == strategy.chunk(path, text), "deterministic"
    report = check(resolve(strategy), {path: text}, {path: chunks}, token_counts=[0] * len(chunks))
    assert report.uncovered == [] and report.over_limit == [], (report.uncovered[:3], report.over_limit[:3])
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
        assert not lines[start - 2].strip() or _paragraph_len(lines, start) > template.MAX_CHARS


def _paragraph_len(lines: list[str], line: int) -> int:
    """Characters of the paragraph holding 1-based ``line``, newlines between its lines included."""
    first = last = line - 1
    while first > 0 and lines[first - 1].strip():
        first -= 1
    while last + 1 < len(lines) and lines[last + 1].strip():
        last += 1
    return len("\n".join(lines[first:last + 1]))


def test_edge_cases(template: ModuleType) -> None:
    limit = template.MAX_CHARS
    assert limit == 1200
    assert checked(template, "a.txt", "") == [] and checked(template, "a.txt", "\n \n\t\n") == []
    # paragraphs are packed while they fit, blank lines between them included
    assert checked(template, "a.py", "a = 1\nb = 2\n\n\nc = 3\n") == [(1, 5, "a = 1\nb = 2\n\n\nc = 3")]
    para = "x" * 700
    assert [c[:2] for c in checked(template, "a.py", f"{para}\n\n{para}\n")] == [(1, 1), (3, 3)]
    # one paragraph over the limit: cut at line ends only
    long_para = "\n".join(f"line {i:03d} " + "y" * 90 for i in range(30))
    chunks = checked(template, "a.py", long_para)
    assert len(chunks) == 3 and [c[2].split("\n")[0][:8] for c in chunks] == ["line 000", "line 012", "line 024"]
    # one line over the limit: the only cut inside a line, so that no chunk is over the declared size
    chunks = checked(template, "a.min.js", "z" * 3000 + "\n\nshort\n")
    assert [(c[0], c[1], len(c[2])) for c in chunks] == [(1, 1, 1200), (1, 1, 1200), (1, 3, 607)]
    assert checked(template, "a.py", "a = 1\r\nb = 2\r\n\r\nc = 3") == [(1, 4, "a = 1\r\nb = 2\r\n\r\nc = 3")]
    assert checked(template, "é.py", "é" * 1300) == [(1, 1, "é" * 1200), (1, 1, "é" * 100)]


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
    assert contract.lossless and contract.max_chunk_size == 1200 and contract.size_unit == "chars"
    assert contract.chunk("a.py", "a = 1\n\nb = 2\n")[0].strategy == "blank_lines"
