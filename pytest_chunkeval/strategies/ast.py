"""AST-aware chunking (tree-sitter split-then-merge): one chunk per function/class, max 1,000 chars, min 100, no header.

``merge="isolate"``: a function or class shares its chunk with nothing - the code around it (imports, constants,
statements) is merged only with other such code, and pieces under 100 characters are folded into a neighbour.
Chosen by the ablations in docs/strategies.md ("Why `ast` is cut this way"): letting module-level code join a function
(the older ``units`` policy) or merging any siblings (``greedy``) mixes several topics into one vector and scored
lower on every bundled code suite and the generated ones; a 256-token limit and a context header did not win across
suites.
"""
from __future__ import annotations

from typing import Any


def ast() -> Any:
    from pytest_chunkeval.chunking.ast.chunker import AstChunker

    return AstChunker("ast", max_chunk_size=1000, min_chunk_size=100, preserve_context=False, merge="isolate")
