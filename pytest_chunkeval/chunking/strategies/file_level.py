"""One chunk per file, as in the ADR: the baseline (the default of --chunkeval-baseline / ini chunkeval_baseline)."""
from __future__ import annotations

from typing import Any


def file_level() -> Any:
    from pytest_chunkeval.chunking.fixed import FileLevelChunker

    return FileLevelChunker()
