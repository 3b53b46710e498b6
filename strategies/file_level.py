"""One chunk per file, as in the ADR: the baseline (the default of --chunkeval-baseline / ini chunkeval_baseline)."""
from pytest_chunkeval import FileLevelChunker, strategy


@strategy
def file_level() -> FileLevelChunker:
    return FileLevelChunker()
