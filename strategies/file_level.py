"""Baseline: one chunk per file, as in the ADR."""
from pytest_chunkeval import FileLevelChunker, strategy


@strategy(baseline=True)
def file_level() -> FileLevelChunker:
    return FileLevelChunker()
