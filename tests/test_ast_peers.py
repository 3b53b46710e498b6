"""Peer adapters: positions mapped back, losses counted, absence reported as `unavailable` (never an error)."""
from __future__ import annotations

import pytest

from pytest_chunkeval import ast_chunks
from pytest_chunkeval.chunking.peers import AstChunkPeer, ChonkieCode, LangchainRecursive, map_back

CODE = 'def f():\n    """' + "Long docstring line words here.\n    " * 60 + '"""\n    return 1\n\n\ndef g():\n    return 2\n'


def test_map_back_fills_positions_and_counts_losses() -> None:
    text = "alpha\nbeta\ngamma\ndelta\n"
    stats: dict[str, int] = {}
    chunks = map_back(text, ["alpha\nbeta", "delta"], path="t", strategy="p", stats=stats)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 2), (4, 4)]
    assert chunks[1].start_byte == text.index("delta")
    assert stats["dropped_chars"] == len("gamma") and stats.get("unmapped_chunks", 0) == 0
    map_back(text, ["not there"], path="t", strategy="p", stats=stats)
    assert stats["unmapped_chunks"] == 1


def test_astchunk_drops_a_long_docstring_where_ast_does_not() -> None:
    peer = AstChunkPeer()
    if peer.unavailable:
        pytest.skip(peer.unavailable)
    peer.chunk("d.py", CODE)
    assert peer.stats()["dropped_chars"] > 1000  # the peer's known loss, measured
    assert "".join(c.source for c in ast_chunks(CODE, "d.py", preserve_context=False)) == CODE
    assert not peer.lossless and peer.handles("x.py") and peer.handles("x.go")  # .go: ast's fallback (counted)


def test_langchain_recursive_keeps_every_line() -> None:
    peer = LangchainRecursive(max_chunk_size=200)
    if peer.unavailable:
        pytest.skip(peer.unavailable)
    chunks = peer.chunk("d.py", CODE)
    assert peer.stats()["dropped_chars"] == 0 and peer.stats()["unmapped_chunks"] == 0
    assert chunks[0].start_line == 1 and chunks[-1].end_line == CODE.count("\n")
    assert all(c.start_line <= c.end_line for c in chunks)


def test_missing_peer_is_unavailable_with_a_reason_not_an_error() -> None:
    class Missing(LangchainRecursive):
        name = "missing_peer"
        requires = ("no_such_module_xyz",)
        install_hint = "pip install nothing"

    peer = Missing()  # building it never fails
    assert "no_such_module_xyz not installed" in peer.unavailable
    with pytest.raises(RuntimeError, match="not installed"):
        peer.chunk("a.py", "x = 1\n")


def test_chonkie_reports_the_missing_piece_instead_of_failing() -> None:
    reason = ChonkieCode().unavailable
    assert reason is None or any(p in reason for p in ("not installed", "C compiler", "grammar wheel", "offline"))
