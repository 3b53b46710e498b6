"""Ablation of grammar_definition: the same blocks and statement groups, without signature chunks and without
semantic overlap headers. The difference between the two rows of the report is what those two extras add.
"""
from pathlib import Path

from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.grammar_chunker import GrammarChunker

CONFIG = Path(__file__).with_name("avap_config.json")


@strategy
def grammar_blocks() -> GrammarChunker:
    return GrammarChunker(CONFIG, name="grammar_blocks", signatures=False, overlap=False)
