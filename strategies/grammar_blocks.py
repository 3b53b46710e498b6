"""Ablation of grammar_definition: the same blocks and statement groups, without signature chunks and without
semantic overlap headers. The difference between the two rows of the report is what those two extras add.

Chunks are sized to the window of the model in use, in its own tokens (all-MiniLM-L6-v2 reads 256), header
included, so no chunk is truncated (without overlap, the parts of a split block carry no signature header).
"""
from pathlib import Path

from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.regex_config.chunker import GrammarChunker
from pytest_chunkeval.strategy import WINDOW

CONFIG = Path(__file__).with_name("avap_config.json")


@strategy
def grammar_blocks() -> GrammarChunker:
    return GrammarChunker(CONFIG, name="grammar_blocks", signatures=False, overlap=False, max_chunk_size=WINDOW,
                          size_unit="tokens")
