"""The ``merge`` policies of the AST chunker (``greedy``, ``units``, ``isolate``): what may share a chunk.

These are the merge-policy ablations recorded in docs/strategies.md; each policy is pinned here on code small enough to
work out by hand, so a change to the splitter that silently turns one policy into another fails.
"""
from __future__ import annotations

import pytest

from pytest_chunkeval import AstChunker, ast_chunks

CODE = "import os\n\nX = 1\n\ndef f():\n    return 1\n\nY = 2\n\ndef g():\n    return 2\n"


def _bodies(merge: str, min_size: int = 0, max_size: int = 1000) -> list[str]:
    chunks = ast_chunks(CODE, "m.py", max_chunk_size=max_size, min_chunk_size=min_size, preserve_context=False,
                        merge=merge)
    assert "".join(c.source for c in chunks) == CODE  # every policy stays lossless
    return [c.source for c in chunks]


def test_greedy_merges_every_sibling_that_fits() -> None:
    assert _bodies("greedy") == [CODE]


def test_units_keep_functions_apart_but_take_in_the_code_around_them() -> None:
    # glue joins the open chunk while it fits, so ``Y = 2`` trails ``f``; ``g`` never joins ``f``
    assert _bodies("units") == ["import os\n\nX = 1\n\ndef f():\n    return 1\n\nY = 2\n", "\ndef g():\n    return 2\n"]
    assert [c.source for c in ast_chunks(CODE, "m.py", preserve_context=False, min_chunk_size=0)] == _bodies("units")


def test_isolate_gives_each_function_its_own_chunk_and_merges_glue_only_with_glue() -> None:
    assert _bodies("isolate") == ["import os\n\nX = 1\n", "\ndef f():\n    return 1\n", "\nY = 2\n",
                                  "\ndef g():\n    return 2\n"]


def test_isolate_folds_only_pieces_under_the_minimum() -> None:
    # "\nY = 2\n" (7 chars) is under 10 and folds into the function before it; the functions stay apart
    assert _bodies("isolate", min_size=10) == ["import os\n\nX = 1\n", "\ndef f():\n    return 1\n\nY = 2\n",
                                               "\ndef g():\n    return 2\n"]


def test_isolate_keeps_pieces_of_a_split_function_together() -> None:
    body = "".join(f"    v{i} = {i} * {i}\n" for i in range(30))
    code = "A = 1\n\ndef big():\n" + body + "\nB = 2\n"
    chunks = ast_chunks(code, "b.py", max_chunk_size=200, min_chunk_size=0, preserve_context=False, merge="isolate")
    sources = [c.source for c in chunks]
    assert sources[0] == "A = 1\n" and sources[-1] == "\nB = 2\n"
    assert sources[1].startswith("\ndef big():") and len(sources) > 3  # the function's statements merged by size
    assert all(len(s) <= 200 for s in sources)


def test_unknown_policy_is_refused_when_the_strategy_is_built() -> None:
    with pytest.raises(ValueError, match="merge must be one of"):
        AstChunker("x", merge="sometimes")
    assert "merge=isolate" in AstChunker("x", merge="isolate").version
    assert "merge" not in AstChunker("x").version  # an unset policy keeps older fingerprints
