"""AST-aware chunking (tree-sitter split-then-merge): whole functions/classes, max 1,000 chars, min 100, no header."""
from pytest_chunkeval import AstChunker, strategy


@strategy
def ast() -> AstChunker:
    return AstChunker("ast", max_chunk_size=1000, min_chunk_size=100, preserve_context=False)
