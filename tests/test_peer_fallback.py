"""Fair peers: a file a peer cannot chunk gets ``ast``'s own line fallback and is counted; chonkie runs offline.

Real files from the bundled corpora, real peer libraries (each test skips with the peer's reason when it is not
installed). The chonkie test runs the chunker in a child process with the network cut (a network namespace where
``unshare`` allows one, and in any case every proxy variable pointing at a closed port), so it proves the grammars
come from the installed wheels, not from a download.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_chunkeval.chunking.ast.chunker import AstChunker
from pytest_chunkeval.chunking.peers import AstChunkPeer, ChonkieCode, LangchainRecursive, PeerChunker
from pytest_chunkeval.chunking.sizing import nonws_len

ROOT = Path(__file__).resolve().parents[1]
POLYGLOT = ROOT / "golden" / "polyglot" / "corpus"
GO_FILE = POLYGLOT / "shipping" / "internal" / "server" / "handlers.go"
PY_FILE = POLYGLOT / "worker" / "fulfilment" / "tasks.py"
AVAP_FILE = ROOT / "golden" / "avap" / "corpus" / "orders_service.avap"


def _read(path: Path) -> tuple[str, str]:
    return str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


def _spans(chunks: list) -> list[tuple[int, int, str]]:
    return [(c.start_line, c.end_line, c.text) for c in chunks]


def _available(peer: PeerChunker) -> PeerChunker:
    if peer.unavailable:
        pytest.skip(peer.unavailable)
    return peer


def test_astchunk_cuts_a_go_file_exactly_as_ast_cuts_a_file_it_has_no_grammar_for() -> None:
    peer = _available(AstChunkPeer(max_chunk_size=1000))
    path, text = _read(GO_FILE)
    chunks = peer.chunk(path, text)
    # ast's fallback for an unknown language, at the peer's size and unit: the same lines and texts
    ast = AstChunker(max_chunk_size=1000, size_unit="nonws_chars", languages={".go": ""})
    assert _spans(chunks) == _spans(ast.chunk(path, text))
    assert len(chunks) > 1 and all(nonws_len(c.text) <= 1000 for c in chunks)
    assert "".join(c.text for c in chunks) == text  # lossless: every line is indexed, none lost
    assert all(c.metadata["fallback"] and c.strategy == "astchunk" for c in chunks)
    assert peer.handles(path) and peer.stats()["fallback_files"] == 1 and peer.stats()["native_files"] == 0
    assert peer.stats()["chunks"] == len(chunks)


def test_astchunk_counts_native_and_fallback_files_separately() -> None:
    peer = _available(AstChunkPeer(max_chunk_size=1000))
    for file in (PY_FILE, GO_FILE, AVAP_FILE):
        peer.chunk(*_read(file))
    stats = peer.stats()
    assert (stats["files"], stats["native_files"], stats["fallback_files"]) == (3, 1, 2)
    py_path, py_text = _read(PY_FILE)
    native = peer.chunk(py_path, py_text)
    assert not any(c.metadata.get("fallback") for c in native)  # astchunk's own chunks, not the fallback's


def test_langchain_has_its_own_generic_splitter_so_nothing_falls_back() -> None:
    peer = _available(LangchainRecursive(max_chunk_size=1000))
    peer.chunk(*_read(AVAP_FILE))
    assert peer.stats()["native_files"] == 1 and peer.stats()["fallback_files"] == 0


def test_chonkie_falls_back_on_a_language_no_grammar_wheel_provides() -> None:
    peer = _available(ChonkieCode(max_chunk_size=1000))
    path, text = _read(AVAP_FILE)
    chunks = peer.chunk(path, text)
    assert _spans(chunks) == _spans(AstChunker(max_chunk_size=1000, languages={".avap": ""}).chunk(path, text))
    assert peer.stats()["fallback_files"] == 1 and len(chunks) > 1


_OFFLINE_SCRIPT = """
import json, sys
from pytest_chunkeval.chunking.peers import ChonkieCode
peer = ChonkieCode(max_chunk_size=1000)
out = {"unavailable": peer.unavailable}
if not peer.unavailable:  # else the pack may not be installed at all (no peers extra)
    import tree_sitter_language_pack as pack
    for path in sys.argv[1:]:
        text = open(path, encoding="utf-8").read()
        out[path] = [[c.start_line, c.end_line, c.text] for c in peer.chunk(path, text)]
    out["stats"] = peer.stats()
    out["pack_cache"] = pack.cache_dir()
    out["downloaded"] = pack.downloaded_languages()
print(json.dumps(out))
"""
_DEAD = "http://127.0.0.1:9"  # discard port: nothing listens, a connection is refused at once


def _offline(argv: list[str]) -> list[str]:
    """``argv`` in a network namespace of its own when this machine allows one (then there is no network at all)."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return [unshare, "-rn", *argv]
    return argv


def test_chonkie_chunks_python_and_go_offline_with_the_grammar_wheels(tmp_path: Path) -> None:
    files = [str(PY_FILE), str(GO_FILE)]
    env = {"PATH": __import__("os").environ.get("PATH", ""), "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path),
           "HTTPS_PROXY": _DEAD, "HTTP_PROXY": _DEAD, "ALL_PROXY": _DEAD, "https_proxy": _DEAD,
           "http_proxy": _DEAD, "all_proxy": _DEAD, "NO_PROXY": "", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(_offline([sys.executable, "-c", _OFFLINE_SCRIPT, *files]), capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    if out["unavailable"]:  # then the reason must name the missing piece, not a network error
        assert any(piece in out["unavailable"] for piece in ("not installed", "C compiler", "grammar wheel"))
        pytest.skip(out["unavailable"])
    assert out["stats"]["native_files"] == 2 and out["stats"]["fallback_files"] == 0
    assert out["stats"]["unmapped_chunks"] == 0 and out["stats"]["dropped_chars"] == 0
    assert set(out["downloaded"]) == {"python", "go"}  # only the shims the two files needed; nothing fetched
    assert "chunkeval-grammars-" in out["pack_cache"]  # a private cache, never the user's pack cache
    for path, starts in ((str(PY_FILE), ("def ", "class ", "async def ", "@")), (str(GO_FILE), ("func ", "type "))):
        chunks = out[path]
        text = Path(path).read_text(encoding="utf-8")
        assert len(chunks) > 1 and all(len(c[2]) <= 1000 for c in chunks)
        assert "".join(c[2] for c in chunks) == text  # chonkie's pieces tile the file
        # cut along the syntax tree: most chunks after the first start at a declaration, not mid-body
        at_decl = [c for c in chunks[1:] if c[2].lstrip().startswith(starts)]
        assert len(at_decl) >= len(chunks[1:]) // 2, [c[2][:40] for c in chunks]
