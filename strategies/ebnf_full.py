"""ADR alternative 3, "Full EBNF chunking": one chunk per .avap file, the AST indexed instead of the code.

The chunk still spans the whole file (line 1 to the last line) so relevance is judged like file_level's; the text
is a readable AST serialisation (pytest_chunkeval.chunking.lark.summary.serialize). Not lossless, and says so.
"""
from pathlib import Path

from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.lark.strategies import EbnfFullChunker

GRAMMAR = Path(__file__).with_name("avap.lark")


@strategy
def ebnf_full() -> EbnfFullChunker:
    return EbnfFullChunker(GRAMMAR, extensions=(".avap",))
