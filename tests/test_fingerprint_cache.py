"""Fingerprints and the embedding cache: an index or a vector is reused exactly when nothing feeding it changed.

Uses ``FakeSentenceModel``, a tiny stand-in that counts calls; it proves caching behaviour, never a retrieval result.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from fake_model import fake_embedder

from pytest_chunkeval.chunking.contract import registry
from pytest_chunkeval.chunking.strategy_files import load_strategy_modules
from pytest_chunkeval.core.corpus import read_corpus
from pytest_chunkeval.evaluation.fingerprint import index_fingerprint, strategy_fingerprint
from pytest_chunkeval.retrieval.cache_store import EmbeddingCache
from pytest_chunkeval.retrieval.identifiers import split_identifier, split_words


def test_each_text_is_embedded_once_across_calls_and_processes(tmp_path: Path) -> None:
    emb, fake = fake_embedder(tmp_path)
    vectors, counts = emb.encode(["a", "bb", "a"])
    assert (counts.embedded, counts.cached) == (3, 0)  # three texts asked for, none cached yet
    assert sorted(fake.seen) == ["a", "bb"]  # but the duplicate is embedded once
    assert vectors[0].tolist() == vectors[2].tolist()
    again, counts = emb.encode(["bb", "ccc"])
    assert (counts.embedded, counts.cached) == (1, 1)
    assert fake.seen[-1] == "ccc" and len(fake.seen) == 3
    # A new embedder over the same cache file (a later run) embeds nothing it has seen.
    emb2, fake2 = fake_embedder(tmp_path)
    _, counts = emb2.encode(["a", "bb", "ccc"])
    assert (counts.embedded, counts.cached) == (0, 3) and fake2.seen == []


def test_cache_is_keyed_by_model_weights(tmp_path: Path) -> None:
    emb, _ = fake_embedder(tmp_path)
    emb.encode(["a"])
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other, fake = fake_embedder(other_dir, weights=b"other weights")
    other.cache = EmbeddingCache(tmp_path / "cache.sqlite")
    _, counts = other.encode(["a"])
    assert counts.embedded == 1 and fake.seen == ["a"]
    assert other.cache_id != emb.cache_id


def test_cache_roundtrip_preserves_vectors(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    vec = np.arange(384, dtype=np.float32) / 7
    cache.put_many("m", [("k", vec)])
    assert np.array_equal(cache.get_many("m", ["k", "missing"])["k"], vec)
    assert cache.get_many("other-model", ["k"]) == {}


@pytest.fixture
def strategy_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "strats"
    folder.mkdir()
    (folder / "grammar.txt").write_text("rule: a\n")
    (folder / "windows.py").write_text(
        textwrap.dedent(
            """
            from pathlib import Path
            from pytest_chunkeval import FixedSizeChunker, strategy

            class Windows(FixedSizeChunker):
                def source_files(self):
                    return [Path(__file__).with_name("grammar.txt")]

            @strategy
            def windows_fp():
                return Windows(max_chunk_size=50, overlap=5)
            """
        )
    )
    return folder


def _fp(folder: Path) -> str:
    load_strategy_modules(folder)
    reg = registry([folder])["windows_fp"]
    return strategy_fingerprint(reg, reg.build())


def test_strategy_fingerprint_follows_code_and_files_it_reads(strategy_folder: Path) -> None:
    first = _fp(strategy_folder)
    assert _fp(strategy_folder) == first  # stable
    (strategy_folder / "grammar.txt").write_text("rule: b\n")
    second = _fp(strategy_folder)
    assert second != first  # a file the strategy reads changed
    module = strategy_folder / "windows.py"
    module.write_text(module.read_text().replace("max_chunk_size=50", "max_chunk_size=60"))
    assert _fp(strategy_folder) != second  # its code changed


def test_index_fingerprint_follows_corpus_and_embedder(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    before = read_corpus(tmp_path).content_hash
    base = index_fingerprint(before, "s", "model@1")
    assert index_fingerprint(before, "s", "model@2") != base
    assert index_fingerprint(before, "t", "model@1") != base
    (tmp_path / "a.py").write_text("x = 2\n")
    after = read_corpus(tmp_path).content_hash
    assert after != before and index_fingerprint(after, "s", "model@1") != base
    (tmp_path / "a.py").write_text("x = 1\n")
    assert read_corpus(tmp_path).content_hash == before


@pytest.mark.parametrize(
    "token, parts",
    [
        ("getUserById", ["get", "user", "by", "id"]),
        ("HTTPServerError", ["http", "server", "error"]),
        ("parseJSON2XML", ["parse", "json", "2", "xml"]),
        ("sha256sum", ["sha", "256", "sum"]),
        ("plain", ["plain"]),
    ],
)
def test_identifier_split(token: str, parts: list[str]) -> None:
    assert split_identifier(token) == parts


def test_split_words_keeps_joined_identifier_and_splits_snake_case() -> None:
    assert split_words("load_config(fileName)") == "load config file name filename"


def test_ranking_cache_roundtrip_and_key(tmp_path: Path) -> None:
    from pytest_chunkeval.retrieval.index import RankingCache
    from pytest_chunkeval.retrieval.table_rows import Hit

    cache = RankingCache(tmp_path / "c.sqlite")
    key = RankingCache.key("suite__fixed__abc", "hybrid", 50, "retry with backoff")
    assert cache.get(key) is None
    cache.put_many([(key, [Hit("a.py#0", 0.5), Hit("b.py#3", 0.25)])])
    assert RankingCache(tmp_path / "c.sqlite").get(key) == [Hit("a.py#0", 0.5), Hit("b.py#3", 0.25)]
    others = {RankingCache.key("suite__fixed__abd", "hybrid", 50, "retry with backoff"),
              RankingCache.key("suite__fixed__abc", "vector", 50, "retry with backoff"),
              RankingCache.key("suite__fixed__abc", "hybrid", 10, "retry with backoff"),
              RankingCache.key("suite__fixed__abc", "hybrid", 50, "retry with back-off")}
    assert key not in others and len(others) == 4
