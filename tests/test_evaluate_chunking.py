"""evaluate_chunking.chunk_corpus: one strategy over a corpus, chunked here or by a remote chunker (the Ray engine's
path), gives the same chunks, ids, fallbacks and counters. tests/test_ray_engine.py runs the real engine and is skipped
without Ray; this runs the remote path with an in-process stand-in built as the engine's tasks are (counters per
file)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.ast.chunker import AstChunker
from pytest_chunkeval.chunking.boundary import chunk_file
from pytest_chunkeval.chunking.contract import Contract, resolve
from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.evaluation.chunk_corpus import chunk_corpus
from pytest_chunkeval.evaluation.ray_engine import FileChunks

CORPUS = Path(__file__).resolve().parents[1] / "golden" / "polyglot" / "corpus"


class Broken:
    """Fails on one file, so the fallback and its record are exercised too."""

    name = "broken_on_go"

    def chunk(self, path: str, text: str) -> list[Chunk]:
        if path.endswith(".go"):
            raise RuntimeError("no Go today")
        return AstChunker(max_chunk_size=600).chunk(path, text)


def _corpus() -> dict[str, str]:
    files = {p.relative_to(CORPUS).as_posix(): p.read_text(encoding="utf-8") for p in sorted(CORPUS.rglob("*"))
             if p.is_file()}
    files["notes.unknown-ext"] = "not code\n"  # a file the strategy may not handle
    return files


def _remote(contract: Contract, name: str) -> Any:
    def run(files: list[tuple[str, str]]) -> list[FileChunks]:
        parts = []
        for path, text in files:  # per file, as ray_engine.chunk_rows does: counters reset before each file
            contract.reset_stats()
            fallbacks: list[str] = []
            chunks = chunk_file(contract, name, path, text, fallbacks)
            parts.append(FileChunks(path, chunks, fallbacks, contract.stats()))
        return parts

    return run


def test_the_remote_path_gives_what_the_local_path_gives() -> None:
    corpus = _corpus()
    for strategy in (AstChunker(max_chunk_size=600), Broken()):
        local = chunk_corpus(resolve(strategy, name="s"), "s", corpus)
        contract = resolve(strategy, name="s")
        remote = chunk_corpus(contract, "s", corpus, _remote(contract, "s"))
        assert local.files_handled == remote.files_handled > 0
        assert [(cid, c.text, c.start_line) for cid, c in local.chunks] == \
            [(cid, c.text, c.start_line) for cid, c in remote.chunks]
        assert local.fallbacks == remote.fallbacks
        assert local.strategy_stats == remote.strategy_stats


def test_chunk_ids_follow_file_order_and_fallbacks_are_recorded() -> None:
    corpus = _corpus()
    done = chunk_corpus(resolve(Broken(), name="b"), "b", corpus)
    paths = [cid.rsplit("#", 1)[0] for cid, _ in done.chunks]
    assert paths == sorted(paths)
    for path in set(paths):
        ids = [int(cid.rsplit("#", 1)[1]) for cid, _ in done.chunks if cid.startswith(f"{path}#")]
        assert ids == list(range(len(ids)))
    assert done.fallbacks and all(".go" in f for f in done.fallbacks)
    assert set(done.by_file) == {p for p in corpus if resolve(Broken(), name="b").handles(p)}
