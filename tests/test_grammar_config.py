"""The config-driven chunker: schema validation with JSON paths, the blanking lexer, block structure and
recovery, statement grouping, tags, signatures, semantic overlap, losslessness on the corpus.

The engine is tested against a frozen, test-owned config (tests/data/avap_fixture/avap_config.json), not the shipped
strategies/avap_config.json: a pull request that changes the shipped config on purpose must fail only the chunk
snapshots (tests/test_chunk_snapshots.py), where the reviewer reads its effect, not a dozen unit tests that pinned the
old contents. Only :func:`test_shipped_config_is_valid` reads the shipped file, and it checks validity, not contents."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pytest_chunkeval.chunking.regex_config.chunker import GrammarChunker
from pytest_chunkeval.chunking.regex_config.config import GrammarConfigError, load_config, load_schema, parse_config
from pytest_chunkeval.chunking.regex_config.scanner import blank, scan
from pytest_chunkeval.core.chunk import Chunk

ROOT = Path(__file__).resolve().parents[1]
# Frozen copy of the shipped config as of the engine's tests; never sync it with strategies/ (see its README).
CONFIG = ROOT / "tests" / "data" / "avap_fixture" / "avap_config.json"
SHIPPED_CONFIG = ROOT / "strategies" / "avap_config.json"
CORPUS = ROOT / "golden" / "avap" / "corpus"
BAD = ROOT / "tests" / "data" / "avap_bad"


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads(CONFIG.read_text())


@pytest.fixture()
def chunker() -> GrammarChunker:
    return GrammarChunker(CONFIG)


def chunks_of(ch: GrammarChunker, src: str, path: str = "t.avap") -> list[Chunk]:
    return ch.chunk(path, src)


# ---- config validation --------------------------------------------------------------------------------------


def test_schema_ships_with_the_package() -> None:
    schema = load_schema()
    assert schema["required"][:4] == ["language", "version", "file_extensions", "lexer"]


def test_shipped_config_is_valid() -> None:
    """The one test of the shipped file: whatever a grammar PR changes, schema and cross-references must hold, or
    every grammar strategy fails to build. Its contents (block names, counts) are the snapshots' business."""
    cfg = load_config(SHIPPED_CONFIG)
    assert cfg.blocks, "the shipped config declares no block kinds"


def test_config_is_valid_and_has_the_known_lexer_keys(raw: dict) -> None:
    cfg = load_config(CONFIG)
    assert set(raw["lexer"]) == {"string_delimiters", "escape_char", "comment_line", "comment_block", "line_oriented"}
    assert [b.name for b in cfg.blocks] == ["function", "if", "startLoop", "try", "go_async"]
    assert cfg.comment_line == ("///", "//")  # longest prefix first


def test_wrong_field_type_reports_json_path(raw: dict) -> None:
    bad = copy.deepcopy(raw)
    bad["blocks"][2]["open"] = 42
    with pytest.raises(GrammarConfigError) as info:
        parse_config(bad, source="avap_config.json")
    assert str(info.value) == "avap_config.json: $.blocks[2].open: 42 is not of type 'string'"


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda c: c["lexer"].pop("escape_char"), "avap_config.json: $.lexer: 'escape_char' is a required property"),
        (lambda c: c["lexer"].update(newline="\n"), "$.lexer: Additional properties are not allowed ('newline' was unexpected)"),
        (lambda c: c["statements"][0].update(pattern="("), "$.statements[0].pattern: invalid regular expression"),
        (lambda c: c["statements"][0].update(refers_to="handler"), "$.statements[0].refers_to: unknown block 'handler'"),
        (lambda c: c["semantic_tags"][4].update(categories=["orm"]), "$.semantic_tags[4].categories[0]: unknown category 'orm'"),
        (lambda c: c["semantic_tags"].append({"tag": "x"}), "$.semantic_tags[17]: {'tag': 'x'} is not valid under any of the given schemas"),
        (lambda c: c["lexer"].update(line_oriented=False), "$.lexer.line_oriented: only line-oriented languages are supported"),
    ],
    ids=["missing-key", "extra-lexer-key", "bad-regex", "unknown-ref", "unknown-category", "tag-without-rule", "not-line-oriented"],
)
def test_config_errors_name_path_and_reason(raw: dict, mutate, expected: str) -> None:
    bad = copy.deepcopy(raw)
    mutate(bad)
    with pytest.raises(GrammarConfigError, match=None) as info:
        parse_config(bad, source="avap_config.json")
    assert expected in str(info.value)


def test_invalid_json_names_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "broken.json"
    p.write_text('{\n  "language": "avap",\n  "version": 1.0,,\n}\n')
    with pytest.raises(GrammarConfigError, match=r"^broken.json:3:\d+: invalid JSON"):
        load_config(p)


# ---- lexer --------------------------------------------------------------------------------------------------


def test_blank_keeps_length_lines_and_delimiters() -> None:
    cfg = load_config(CONFIG)
    src = 'x = "if(a) \\" end()" // try()\n/* go_async(t)\n end() */ y = \'}\'\n'
    out = blank(src, cfg)
    assert len(out) == len(src) and out.count("\n") == src.count("\n")
    assert out.splitlines()[0].rstrip() == 'x = "' + " " * 14 + '"'
    assert out.splitlines()[1].strip() == ""
    assert out.splitlines()[2].strip() == "y = ' '"


# ---- structure ------------------------------------------------------------------------------------------------


def test_each_block_kind_becomes_a_top_level_chunk(chunker: GrammarChunker) -> None:
    src = ("function f(a){\n  x = 1\n}\n"
           "if(a, 1, \"=\")\n  y = 1\nelse()\n  y = 2\nend()\n"
           "startLoop(i, 0, 3)\n  z = i\nendLoop()\n"
           "try()\n  ormDirect(\"SELECT 1\", r)\nexcept()\n  r = None\nend()\n"
           "go_async(t)\n  RequestGet(u, {}, {}, r, 5)\nend()\n")
    kinds = [(c.kind, c.start_line, c.end_line) for c in chunks_of(chunker, src) if c.kind != "signature"]
    assert kinds == [("function", 1, 3), ("if", 4, 8), ("startLoop", 9, 11), ("try", 12, 16), ("go_async", 17, 19)]


def test_nested_blocks_stay_inside_their_parent(chunker: GrammarChunker) -> None:
    src = "function f(a){\n  if(a, 1, \"=\")\n    startLoop(i, 0, a)\n      x = i\n    endLoop()\n  end()\n}\n"
    chunks = chunks_of(chunker, src)
    assert [(c.kind, c.start_line, c.end_line) for c in chunks] == [("signature", 1, 1), ("function", 1, 7)]
    assert chunks[1].metadata["blocks"] == ["function", "if", "startLoop"]
    assert "loops" in chunks[1].metadata["tags"] and "branches" in chunks[1].metadata["tags"]


def test_keywords_in_strings_and_comments_open_no_block(chunker: GrammarChunker) -> None:
    src = ('// function g(){ if( try()\naddVar(msg, "startLoop(i, 0, 1) end() }")\n'
           "/* go_async(t)\n   end() */\nx = 'try()'\n")
    chunks = chunks_of(chunker, src)
    assert [(c.kind, c.start_line, c.end_line) for c in chunks] == [("statements", 1, 5)]
    assert chunker.stats()["blocks"] == 0 and chunker.stats()["warnings"] == []


def test_statements_are_classified_and_grouped(chunker: GrammarChunker) -> None:
    src = ('import "lib.avap"\nconn = avapConnector("T")\naddParam("id", id)\nRequestGet(u, {}, {}, r, 5)\n'
           "if(id, None, \"=\")\n  _status = 400\nend()\naddResult(r)\n")
    chunks = chunks_of(chunker, src)
    assert [(c.kind, c.start_line, c.end_line) for c in chunks] == [("statements", 1, 4), ("if", 5, 7), ("statements", 8, 8)]
    assert chunks[0].metadata["categories"] == ["http_command", "import", "io_command", "orm_command"]
    assert chunks[0].metadata["tags"] == ["imports_module", "reads_params", "uses_http", "uses_orm"]
    assert chunks[2].metadata["tags"] == ["returns_result"]


def test_multiline_statement_is_one_statement(chunker: GrammarChunker) -> None:
    cfg = load_config(CONFIG)
    result = scan('registerEndpoint("/a", "GET",\n  [auth],\n  "d", handler, out)\nx = 1\n', cfg)
    assert [(n.kind, n.start, n.end, n.name, n.ref) for n in result.nodes] == [
        ("stmt", 1, 3, "registerEndpoint", "handler"), ("stmt", 4, 4, "assignment", None)]


def test_signature_chunks_and_semantic_overlap(chunker: GrammarChunker) -> None:
    src = ('/// Looks a user up.\nfunction get_user(id, verbose){\n  ormAccessSelect("*", "users", rows, "id = 1")\n'
           "  addResult(rows)\n}\n\n"
           'registerEndpoint("/users", "GET", [auth, rl], "Get, a user", get_user, out)\n')
    fn, sig, ep = chunks_of(chunker, src)  # in file order: the function (with its doc) starts first
    assert sig.kind == "signature" and sig.start_line == sig.end_line == 2
    assert sig.text.splitlines()[:2] == ["function get_user(id, verbose)", "// tags: returns_result, uses_orm"]
    assert "registerEndpoint(\"/users\"" in sig.text
    assert fn.start_line == 1 and fn.header.startswith('// context: registerEndpoint("/users"')
    assert fn.body.startswith("/// Looks a user up.") and fn.text == fn.header + fn.body
    assert ep.header == "// context: function get_user(id, verbose)\n"


def test_ablation_has_no_signatures_and_no_headers() -> None:
    plain = GrammarChunker(CONFIG, name="grammar_blocks", signatures=False, overlap=False)
    src = 'function h(){\n  addResult(x)\n}\nregisterEndpoint("/h", "GET", [], "d", h, out)\n'
    chunks = plain.chunk("t.avap", src)
    assert [c.kind for c in chunks] == ["function", "statements"]
    assert all(c.header == "" and c.body is None for c in chunks)


def test_oversized_function_is_split_with_signature_context() -> None:
    ch = GrammarChunker(CONFIG, max_chunk_size=160)
    body = "".join(f'  addVar(v{i}, "value number {i}")\n' for i in range(12))
    src = f"function big(a){{\n{body}  if(a, 1, \"=\")\n    x = 1\n  end()\n}}\n"
    chunks = [c for c in ch.chunk("t.avap", src) if c.kind == "function"]
    assert len(chunks) > 2 and ch.stats()["split_blocks"] == 1
    assert [c.metadata["part"] for c in chunks] == list(range(1, len(chunks) + 1))
    assert chunks[0].header == "" and all(c.header == "// context: function big(a)\n" for c in chunks[1:])
    covered = sorted({ln for c in chunks for ln in range(c.start_line, c.end_line + 1)})
    assert covered == list(range(1, src.count("\n") + 1))
    assert all(c.source.strip() not in ("}", "end()") for c in chunks), "a closer line became a chunk of its own"


def test_nested_oversized_block_keeps_opener_and_closer_with_content() -> None:
    ch = GrammarChunker(CONFIG, max_chunk_size=200)
    body = "".join(f'    addVar(v{i}, "value number {i}")\n' for i in range(12))
    src = f"function big(a){{\n  x = 1\n  startLoop(i, 0, a)\n{body}  endLoop()\n}}\n"
    chunks = [c for c in ch.chunk("t.avap", src) if c.kind != "signature"]
    assert all(c.source.count("\n") >= 1 for c in chunks), [c.source for c in chunks]
    assert all(ch.measure(c.text) <= 200 for c in chunks)
    assert chunks[0].source.startswith("function big(a){\n  x = 1\n  startLoop(i, 0, a)")
    assert chunks[-1].source.endswith("  endLoop()\n}")
    assert [c.start_line for c in chunks[1:]] == [c.end_line + 1 for c in chunks[:-1]]


# ---- recovery -------------------------------------------------------------------------------------------------


def test_unclosed_if_inside_function_is_recovered(chunker: GrammarChunker) -> None:
    path = BAD / "unclosed_if.avap"
    chunks = chunker.chunk("unclosed_if.avap", path.read_text())
    stats = chunker.stats()
    assert stats["recovered_blocks"] == 1
    assert stats["warnings"] == ["unclosed_if.avap:3: unclosed 'if' block, closed at line 6 ('if' cannot be closed by line 7)"]
    assert [(c.kind, c.start_line, c.end_line) for c in chunks if c.kind != "signature"] == [("function", 1, 7), ("statements", 9, 9)]


def test_unclosed_blocks_at_eof_are_closed_there_and_counted(chunker: GrammarChunker) -> None:
    chunks = chunker.chunk("unclosed_at_eof.avap", (BAD / "unclosed_at_eof.avap").read_text())
    warnings = chunker.stats()["warnings"]
    assert chunker.stats()["recovered_blocks"] == 2
    assert warnings == ["unclosed_at_eof.avap:4: unclosed 'try' block, closed at line 5 (end of file)",
                        "unclosed_at_eof.avap:2: unclosed 'startLoop' block, closed at line 5 (end of file)"]
    assert chunks[-1].metadata.get("recovered") is True and chunks[-1].end_line == 5


def test_function_opening_inside_unclosed_function_closes_it(chunker: GrammarChunker) -> None:
    chunks = chunker.chunk("missing_brace.avap", (BAD / "missing_brace.avap").read_text())
    assert [(c.kind, c.start_line, c.end_line) for c in chunks if c.kind == "function"] == [("function", 1, 3), ("function", 4, 6)]
    assert chunker.stats()["warnings"] == ["missing_brace.avap:1: unclosed 'function' block, closed at line 3 ('function' opens at line 4)"]


def test_stray_closer_is_a_warning_not_a_crash(chunker: GrammarChunker) -> None:
    chunks = chunker.chunk("t.avap", "x = 1\nend()\n")
    assert [(c.kind, c.start_line, c.end_line) for c in chunks] == [("statements", 1, 2)]
    assert chunker.stats()["warnings"] == ["t.avap:2: closing line without an open block (kept as a statement)"]


def test_reset_stats_clears_counters(chunker: GrammarChunker) -> None:
    chunker.chunk("unclosed_if.avap", (BAD / "unclosed_if.avap").read_text())
    chunker.reset_stats()
    assert chunker.stats()["recovered_blocks"] == 0 and chunker.stats()["warnings"] == []


# ---- the corpus -----------------------------------------------------------------------------------------------

CORPUS_FILES = sorted(CORPUS.glob("*.avap")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
@pytest.mark.parametrize("signatures", [True, False], ids=["grammar_definition", "grammar_blocks"])
def test_corpus_is_chunked_losslessly_without_recovery(signatures: bool) -> None:
    ch = GrammarChunker(CONFIG, signatures=signatures, overlap=signatures)
    for path in CORPUS_FILES:
        text = path.read_text(encoding="utf-8")
        chunks = ch.chunk(path.name, text)
        data = text.encode("utf-8")
        covered: set[int] = set()
        for c in chunks:
            assert c.text == c.header + c.source
            assert data[c.start_byte:c.end_byte].decode("utf-8") == (c.source if c.kind != "signature" else text.split("\n")[c.start_line - 1])
            if c.kind != "signature":
                covered.update(range(c.start_line, c.end_line + 1))
        missing = [i for i, line in enumerate(text.split("\n"), 1) if line.strip() and i not in covered]
        assert not missing, f"{path.name}: lines {missing[:10]} in no chunk"
    stats = ch.stats()
    assert stats["files"] == len(CORPUS_FILES)
    assert stats["recovered_blocks"] == 0 and stats["warnings"] == [] and stats["unclassified_statements"] == 0


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
def test_token_budget_keeps_every_chunk_inside_the_window() -> None:
    from pytest_chunkeval.chunking.sizing import count_tokens

    try:
        count_tokens("probe")
    except Exception as exc:  # pragma: no cover - only without the bundled model files
        pytest.skip(f"tokenizer unavailable: {exc}")
    ch = GrammarChunker(CONFIG, max_chunk_size=256, size_unit="tokens")
    assert ch.fits_window is True
    sizes = [count_tokens(c.text) for p in CORPUS_FILES for c in ch.chunk(p.name, p.read_text(encoding="utf-8"))]
    assert max(sizes) <= 256 and ch.stats()["split_blocks"] > 0


def test_chunk_kind_tags_cover_documentation_only_chunks(raw: dict, tmp_path: Path) -> None:
    src = "// orders.avap\n// What the order endpoints do.\n\nfunction f(a){\n  return(a)\n}\n"
    without = copy.deepcopy(raw)
    without["semantic_tags"] = [t for t in without["semantic_tags"] if "chunk_kinds" not in t]
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(without))
    assert [c.metadata["tags"] for c in chunks_of(GrammarChunker(path), src) if c.kind == "comment"] == [[]]
    tagged = chunks_of(GrammarChunker(CONFIG), src)
    assert [c.metadata["tags"] for c in tagged if c.kind == "comment"] == [["documents_module"]]


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
@pytest.mark.parametrize("signatures", [True, False])
def test_every_corpus_chunk_has_tags(signatures: bool) -> None:
    chunker = GrammarChunker(CONFIG, signatures=signatures, overlap=signatures)
    untagged = [
        f"{c.path}:{c.start_line} ({c.kind})"
        for rel in CORPUS_FILES
        for c in chunker.chunk(rel, (CORPUS / rel).read_text(encoding="utf-8"))
        if not c.metadata.get("tags")
    ]
    assert untagged == []
