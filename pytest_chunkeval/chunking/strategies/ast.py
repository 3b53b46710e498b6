"""AST-aware chunking (tree-sitter split-then-merge): one chunk per function/class, max 1,000 chars, min 100, no header.

``merge="isolate"``: a function or class shares its chunk with nothing - the code around it (imports, constants,
statements) is merged only with other such code, and pieces under 100 characters are folded into a neighbour.
Chosen by the ablations in docs/strategies.md ("Why `ast` is cut this way"): letting module-level code join a function
(the ``units`` policy) or merging any siblings (``greedy``) mixes several topics into one vector and scores lower
on every bundled code suite and the generated ones; a 256-token limit and a context header do not win across
suites.

Its knobs are keyword parameters a grid can vary (``--chunkeval-grid "ast.size=500,1000"``): ``size`` (the largest
chunk, in ``size_unit``), ``min_size`` (smaller pieces are folded into a neighbour), ``merge`` (isolate, units or
greedy), ``preserve_context`` (a header of imports and enclosing scopes) and ``size_unit``.
"""
from __future__ import annotations

from typing import Any


def ast(size: int | str = 1000, min_size: int = 100, merge: str = "isolate", preserve_context: bool = False,
        size_unit: str = "chars") -> Any:
    from pytest_chunkeval.chunking.ast.chunker import AstChunker

    return AstChunker("ast", max_chunk_size=size, min_chunk_size=min_size, preserve_context=preserve_context,
                      merge=merge, size_unit=size_unit)
