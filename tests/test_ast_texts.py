"""chunk_code_by_ast skips per-chunk metadata for speed; its texts must be exactly those of the full chunks."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_chunkeval import ast_chunks, chunk_code_by_ast

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(p for p in (ROOT / "golden" / "polyglot" / "corpus").rglob("*") if p.is_file())


@pytest.mark.parametrize("path", FILES[::3], ids=lambda p: p.name)
@pytest.mark.parametrize("context", [False, True])
def test_texts_match_the_full_chunks(path: Path, context: bool) -> None:
    code = path.read_text(encoding="utf-8")
    full = ast_chunks(code, path.name, preserve_context=context)
    bare = ast_chunks(code, path.name, preserve_context=context, with_metadata=False)
    assert [(c.start_byte, c.end_byte, c.text) for c in bare] == [(c.start_byte, c.end_byte, c.text) for c in full]
    assert all(c.metadata == {} for c in bare) and any(c.metadata for c in full)
    assert chunk_code_by_ast(code, path.name, preserve_context=context) == [c.text for c in full]
