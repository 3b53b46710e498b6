"""Index fingerprints: an index is reused exactly when nothing that feeds it has changed.

What feeds a table: the corpus bytes, the strategy's name and version, the code that defines the strategy (its
class hierarchy and the module that registered it), the files it reads (a grammar, a config), the embedder's
weights, and this package's index layout. Change any of them and the fingerprint, hence the table name, changes.
A grid point's strategy fingerprint adds its parameter values (its chunking facts are its own), but its table is
keyed by :func:`chunks_fingerprint`, the digest of the rows it holds: points that chunk alike share one table.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from pytest_chunkeval.chunking.contract import Contract, Registration
from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.core.grid import format_value

INDEX_LAYOUT_VERSION = "1"


def _hash_files(h: hashlib._Hash, paths: Iterable[Path]) -> None:
    for path in sorted({Path(p).resolve() for p in paths}):
        h.update(path.name.encode("utf-8") + b"\0")
        try:
            h.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            h.update(b"<unreadable>")


def strategy_fingerprint(reg: Registration, strategy: Contract) -> str:
    """The strategy's part: registered name, declared version, defining code and the files it reads.

    The model's window, which sizes a ``WINDOW`` limit, is not here: it is in the embedder's id, which
    :func:`index_fingerprint` takes as well.
    """
    h = hashlib.sha256()
    h.update(f"{reg.name}\0{strategy.version}\0".encode())
    for param, value in reg.point:  # a grid point: the label says it already; its typed values say it exactly
        h.update(f"{param}={type(value).__name__}:{format_value(value)}\0".encode())
    origin_file = Path(reg.origin.rsplit(":", 1)[0])
    _hash_files(h, [*strategy.code_files, origin_file])
    _hash_files(h, strategy.source_files)
    return h.hexdigest()


def chunks_fingerprint(chunks: Sequence[tuple[str, Chunk]]) -> str:
    """The digest of what a table holds besides vectors: every row's id, place and text. Two grid points with the
    same digest would build identical tables (the vectors are a function of the text and the embedder), so they
    share one."""
    h = hashlib.sha256()
    for cid, c in chunks:
        h.update(f"{cid}\0{c.path}\0{c.start_line}\0{c.end_line}\0".encode() + c.text.encode("utf-8") + b"\1")
    return h.hexdigest()


def index_fingerprint(corpus_hash: str, strategy_fp: str, embedder_id: str) -> str:
    h = hashlib.sha256()
    for part in (INDEX_LAYOUT_VERSION, corpus_hash, strategy_fp, embedder_id):
        h.update(part.encode("utf-8") + b"\0")
    return h.hexdigest()
