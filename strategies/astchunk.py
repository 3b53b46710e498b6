"""Peer: astchunk (the cAST paper's chunker) for Python/Java/C#/TypeScript; skipped if not installed."""
from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.peers import AstChunkPeer


@strategy
def astchunk() -> AstChunkPeer:
    return AstChunkPeer(max_chunk_size=1000)
