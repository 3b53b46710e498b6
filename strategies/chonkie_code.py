"""Peer: chonkie's CodeChunker. Needs tree-sitter-language-pack (downloads grammars): reports `unavailable` offline."""
from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.peers import ChonkieCode


@strategy
def chonkie_code() -> ChonkieCode:
    return ChonkieCode(max_chunk_size=1000)
