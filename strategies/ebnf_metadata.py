"""ADR alternative 2, "EBNF chunking as metadata": one chunk per .avap file, AST summary as header + metadata.

The summary (endpoints, functions and parameters, commands by category, block kinds and nesting) comes from the
Lark grammar next to this file; it is rendered by pytest_chunkeval.chunking.render_summary, so the header is the
same wording wherever metadata is shown.
"""
from pathlib import Path

from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.lark.strategies import EbnfMetadataChunker

GRAMMAR = Path(__file__).with_name("avap.lark")


@strategy
def ebnf_metadata() -> EbnfMetadataChunker:
    return EbnfMetadataChunker(GRAMMAR, extensions=(".avap",))
