"""Index size is a function of the table's content: identical across builds, blind to leftovers in the folder.

Real LanceDB tables, fake (seeded) vectors: the embedder is not the point here. Lance writes data files that differ
in size between identical builds, so a measure read from disk would make these tests fail.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from pytest_chunkeval.core.vocabulary import SIZE_MEASURE
from pytest_chunkeval.retrieval.index import IndexStore
from pytest_chunkeval.retrieval.table_rows import Row

ROWS = [
    Row(f"f{i}.py#0", f"f{i}.py", 1, 3 + i, f"def handler_{i}(request):\n    return respond(request, code={i})\n" * (i + 1))
    for i in range(12)
]


def _vectors(n: int, dim: int = 16) -> np.ndarray:
    return np.random.default_rng(7).standard_normal((n, dim)).astype(np.float32)


def _build(tmp: Path, rows: list[Row]) -> tuple[IndexStore, Path]:
    db = tmp / "lancedb"
    store = IndexStore(str(db), tmp / "locks")
    store.build("t", rows, _vectors(len(rows)))
    return store, db / "t.lance"


def test_same_content_same_size_across_builds(tmp_path: Path) -> None:
    """golden/avap's 46 files as one chunk each: big enough that Lance's data files differ between builds."""
    from pytest_chunkeval.core.corpus import read_corpus

    corpus = read_corpus(Path(__file__).resolve().parents[2] / "golden" / "avap" / "corpus")
    rows = [Row(f"{p}#0", p, 1, corpus.line_counts[p], t) for p, t in sorted(corpus.files.items())]
    sizes = [_build(tmp_path / f"run{i}", rows)[0].size_bytes("t") for i in range(3)]
    assert len(set(sizes)) == 1, sizes
    assert SIZE_MEASURE == "arrow_bytes"


def test_size_is_the_payload_of_the_rows(tmp_path: Path) -> None:
    """One more row adds exactly that row's payload: 4 strings (bytes + 4-byte offset), 2 int32, one float32 vector."""
    store, _ = _build(tmp_path / "a", ROWS[:-1])
    bigger, _ = _build(tmp_path / "b", ROWS)
    from pytest_chunkeval.retrieval.identifiers import split_words

    last = ROWS[-1]
    strings = [last.chunk_id, last.path, last.text, split_words(last.text)]
    expected = sum(len(s.encode("utf-8")) + 4 for s in strings) + 2 * 4 + 16 * 4
    assert bigger.size_bytes("t") - store.size_bytes("t") == expected


def test_leftovers_and_old_versions_are_not_counted(tmp_path: Path) -> None:
    """A killed create_table leaves data/.tmpXXXX; a copied-back _versions/ leaves old manifests: neither counts."""
    store, folder = _build(tmp_path, ROWS)
    before = store.size_bytes("t")
    (folder / "data" / ".tmpk1ll3d").write_bytes(b"\xff" * 65536)
    data_file = next(p for p in (folder / "data").iterdir() if p.suffix == ".lance")
    shutil.copy(data_file, folder / "data" / "orphan-from-an-old-version.lance")
    manifest = next(p for p in (folder / "_versions").iterdir() if p.suffix == ".manifest")
    shutil.copy(manifest, folder / "_versions" / "99999999999999999999.manifest.old")
    fresh = IndexStore(str(folder.parent), tmp_path / "locks")
    assert fresh.size_bytes("t") == before
