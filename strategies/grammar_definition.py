"""ADR alternative 4, "Grammar definition chunking": blocks, grouped statements, tags, signatures, overlap.

All AVAP knowledge is in avap_config.json next to this file (validated against
pytest_chunkeval/schemas/grammar_config.schema.json); the engine is pytest_chunkeval.chunking.regex_config.chunker.

Chunks are sized to the window of the model in use, in its own tokens (all-MiniLM-L6-v2 reads 256), header
included, so no chunk is truncated: blocks larger than that are split with their signature as context.
"""
from pathlib import Path

from pytest_chunkeval import strategy
from pytest_chunkeval.chunking.regex_config.chunker import GrammarChunker
from pytest_chunkeval.strategy import WINDOW

CONFIG = Path(__file__).with_name("avap_config.json")


@strategy
def grammar_definition() -> GrammarChunker:
    return GrammarChunker(CONFIG, max_chunk_size=WINDOW, size_unit="tokens")
