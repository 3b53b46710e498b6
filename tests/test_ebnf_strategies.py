"""ebnf_metadata and ebnf_full: one chunk per file, AST summary as header/metadata or the AST as text, honest
lossless flags, parse failures counted and recovered (plain-text fallback), never a crash.

Both chunkers run on a frozen, test-owned grammar (tests/data/avap_fixture/avap.lark), not the shipped
strategies/avap.lark, so a pull request that changes the shipped grammar on purpose fails only the chunk snapshots
(tests/test_chunk_snapshots.py); whether the shipped grammar still parses the corpus is tests/test_avap_grammar.py's."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_chunkeval.chunking.lark.strategies import EbnfFullChunker, EbnfMetadataChunker
from pytest_chunkeval.chunking.metadata_text import MAX_HEADER_CHARS, render_header, render_tags

ROOT = Path(__file__).resolve().parents[1]
# Frozen copy of the shipped grammar as of these tests; never sync it with strategies/ (see its README).
GRAMMAR = ROOT / "tests" / "data" / "avap_fixture" / "avap.lark"
CORPUS = ROOT / "golden" / "avap" / "corpus"
BAD = ROOT / "tests" / "data" / "avap_bad"

SRC = '''/* Users API */
import "middleware_auth.avap"

/// Reads one user.
function get_user(id, verbose){
    addParam("id", id)
    // not in the AST
    rows = conn.query("SELECT * FROM users WHERE id = %s" % id)
    if(rows, None, "=")
        _status = 404
    end()
    try()
        encodeSHA256(id, h)
    exception(err)
        addResult(err)
    end()
    addResult(rows)
}

registerEndpoint("/users", "get", [require_session], "Get a user", get_user, out)
'''


@pytest.fixture(scope="module")
def meta() -> EbnfMetadataChunker:
    return EbnfMetadataChunker(GRAMMAR, extensions=(".avap",))


@pytest.fixture(scope="module")
def full() -> EbnfFullChunker:
    return EbnfFullChunker(GRAMMAR, extensions=(".avap",))


def test_metadata_summary(meta: EbnfMetadataChunker) -> None:
    (chunk,) = meta.chunk("users.avap", SRC)
    ast = chunk.metadata["ast"]
    assert ast["functions"] == [{"name": "get_user", "params": ["id", "verbose"], "line": 5, "doc": "Reads one user."}]
    assert ast["endpoints"] == [{"method": "GET", "path": "/users", "handler": "get_user", "line": 20}]
    assert ast["commands"] == {"crypto": ["encodeSHA256"], "database": ["query"], "endpoint": ["addParam", "addResult", "registerEndpoint"]}
    assert ast["block_kinds"] == {"function": 1, "if": 1, "try": 1}
    assert ast["nesting"] == {"function>if": 1, "function>try": 1} and ast["max_depth"] == 2
    assert ast["imports"] == ["middleware_auth.avap"]
    assert [(b["kind"], b["line"], b["end_line"], b["parent"]) for b in ast["blocks"]] == [
        ("function", 5, 18, None), ("if", 9, 11, "function"), ("try", 12, 16, "function")]


def test_metadata_header_is_rendered_in_front_of_the_code(meta: EbnfMetadataChunker) -> None:
    (chunk,) = meta.chunk("users.avap", SRC)
    assert chunk.header == render_header(chunk.metadata["ast"])
    assert chunk.header.splitlines()[:2] == ["endpoints: GET /users -> get_user", "functions: get_user(id, verbose)"]
    assert chunk.text == chunk.header + SRC.rstrip("\n") and chunk.body == SRC.rstrip("\n")
    assert (chunk.start_line, chunk.end_line, chunk.start_byte, chunk.end_byte) == (1, 20, 0, len(SRC.rstrip("\n").encode()))
    assert meta.lossless is True


def test_header_is_capped() -> None:
    many = {"endpoints": [{"method": "GET", "path": f"/p{i}/long/segment", "handler": f"handler_{i}"} for i in range(40)],
            "functions": [{"name": f"fn_{i}", "params": ["a", "b"]} for i in range(40)],
            "commands": {"database": ["ormDirect"] * 30}, "block_kinds": {"if": 3}, "nesting": {}}
    header = render_header(many)
    assert len(header) <= MAX_HEADER_CHARS and "more" in header
    assert render_tags(["uses_orm", "branches", "uses_orm"]) == "tags: branches, uses_orm" and render_tags([]) == ""


def test_full_indexes_the_ast_not_the_code(full: EbnfFullChunker) -> None:
    (chunk,) = full.chunk("users.avap", SRC)
    text = chunk.text
    assert "function get_user(id, verbose)  doc: Reads one user." in text
    assert '  endpoint command addParam("id", id)' in text
    assert "  if rows, None, \"=\"" in text and "  on error err" in text and "end try" in text
    assert "not in the AST" not in text and "{" not in text.split("\n")[2]
    assert text.startswith("doc: Users API\nimport \"middleware_auth.avap\"\n")
    assert chunk.body is None and chunk.kind == "ast"
    assert (chunk.start_line, chunk.end_line) == (1, 20)
    assert full.lossless is False


@pytest.mark.parametrize("cls", [EbnfMetadataChunker, EbnfFullChunker])
def test_parse_error_falls_back_to_text_and_is_counted(cls: type) -> None:
    s = cls(GRAMMAR, extensions=(".avap",))
    text = (BAD / "unclosed_if.avap").read_text()
    (chunk,) = s.chunk("unclosed_if.avap", text)
    assert chunk.text == text.rstrip("\n") and chunk.metadata == {"parse_error": True}
    stats = s.stats()
    assert (stats["files"], stats["parsed"], stats["parse_errors"], stats["fallbacks"]) == (1, 0, 1, 1)
    assert stats["warnings"] == ["unclosed_if.avap:7: unexpected '}'; expected 'else', 'end' "
                                 "(inside 'if' block opened at line 3) (indexed as plain text)"]
    s.reset_stats()
    assert s.stats()["parse_errors"] == 0


def test_statement_without_effect_is_a_warning(meta: EbnfMetadataChunker) -> None:
    meta.reset_stats()
    meta.chunk("w.avap", "x = 1\nx\n")
    assert meta.stats()["warnings"] == ["w.avap:2: statement has no effect: x"]


def test_only_avap_files_and_grammar_fingerprinted(meta: EbnfMetadataChunker) -> None:
    assert meta.handles("a/b.avap") and not meta.handles("a/b.py")
    assert meta.source_files() == [GRAMMAR]


CORPUS_FILES = sorted(CORPUS.glob("*.avap")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
def test_corpus_one_chunk_per_file_and_all_parsed() -> None:
    for cls in (EbnfMetadataChunker, EbnfFullChunker):
        s = cls(GRAMMAR, extensions=(".avap",))
        for path in CORPUS_FILES:
            text = path.read_text(encoding="utf-8")
            (chunk,) = s.chunk(path.name, text)
            assert chunk.start_line == 1 and chunk.end_line == len(text.rstrip("\n").split("\n"))
            if cls is EbnfMetadataChunker:
                assert chunk.source == text.rstrip("\n") and len(chunk.header) <= MAX_HEADER_CHARS
        stats = s.stats()
        assert (stats["parsed"], stats["parse_errors"], stats["parsed_pct"]) == (len(CORPUS_FILES), 0, 100.0), stats["warnings"]
