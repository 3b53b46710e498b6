"""The AST API (pytest_chunkeval.chunking.ast) and the chunker's documented behaviours, language by language."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pytest_chunkeval import AstChunker, ast_chunk_files, ast_chunks, chunk_code_by_ast
from pytest_chunkeval.chunking.ast import LANGUAGES, language_for, parse, supported_extensions

# (language, source, expected (kind, name) of semantic boundaries, in order)
BOUNDARIES = [
    ("python", "import os\n@d\ndef f():\n    pass\nclass A:\n    def m(self):\n        pass\n",
     [("function", "f"), ("class", "A"), ("method", "m")]),
    ("javascript", "import x from 'y';\nfunction foo() {}\nclass K { m() {} }\nexport function g() {}\n",
     [("function", "foo"), ("class", "K"), ("method", "m"), ("function", "g")]),
    ("typescript", "interface I { a: number }\nexport class C { m(): void {} }\n",
     [("class", "I"), ("class", "C"), ("method", "m")]),
    ("tsx", "export function App() { return <div/>; }\n", [("function", "App")]),
    ("go", "package main\nfunc (s S) M() {}\nfunc main() {}\n", [("method", "M"), ("function", "main")]),
    ("rust", "impl P { fn f(&self) {} }\nfn main() {}\nmod m { fn h() {} }\n",
     [("class", None), ("method", "f"), ("function", "main"), ("module", "m"), ("function", "h")]),
    ("java", "class Foo { int f() { return 1; } Foo() {} }\n", [("class", "Foo"), ("method", "f"), ("method", "Foo")]),
    ("c", "#include <x.h>\nint add(int a) { return a; }\n", [("function", "add")]),
    ("cpp", "namespace n { class A { int f() { return 1; } }; }\n",
     [("module", "n"), ("class", "A"), ("method", "f")]),
    ("ruby", "module M\n  class K\n    def f; end\n  end\nend\n", [("module", "M"), ("class", "K"), ("method", "f")]),
    ("php", "<?php\nclass U { public function n() {} }\nfunction h() {}\n",
     [("class", "U"), ("method", "n"), ("function", "h")]),
    ("swift", "class A { func f() -> Int { return 1 } }\nfunc top() {}\n",
     [("class", "A"), ("method", "f"), ("function", "top")]),
    ("kotlin", "class Foo { fun f(): Int { return 1 } }\nfun top() = 2\n",
     [("class", "Foo"), ("method", "f"), ("function", "top")]),
    ("markdown", "# T\ntext\n## S\nmore\n", [("section", "T"), ("section", "S")]),
]


@pytest.mark.parametrize("language,code,expected", BOUNDARIES, ids=[b[0] for b in BOUNDARIES])
def test_semantic_boundaries_are_the_same_api_in_every_language(language, code, expected) -> None:
    tree = parse(code, language=language)
    found = tree.semantic_boundaries(["function", "method", "class", "module", "section"])
    assert [(n.kind, n.name) for n in found] == expected
    for n in found:
        assert tree.source_text(n) == code.encode()[n.start_byte:n.end_byte].decode()
        assert 1 <= n.start_line <= n.end_line


def test_extensions_select_languages_and_can_be_overridden() -> None:
    assert language_for("a/b.TSX").name == "tsx"
    assert language_for("x.h").name == "c"
    assert language_for("x.h", {".h": "cpp"}).name == "cpp"
    assert language_for("notes.txt") is None
    assert language_for("setup.py", {".py": ""}) is None  # override to plain-text fallback
    assert {".py", ".go", ".rs", ".md", ".json", ".yaml", ".toml", ".sql", ".kt", ".swift"} <= set(supported_extensions())
    stats: dict[str, int] = {}
    ast_chunks("def f():\n    pass\n", "script.txt", languages={".txt": "python"}, stats=stats)
    assert "fallback_files" not in stats


def test_walk_visitor_by_kind_and_type() -> None:
    tree = parse("def a():\n    pass\nclass B:\n    def c(self):\n        pass\n", "m.py")
    seen: list[str] = []
    visitor = {"function": lambda n: seen.append(n.name), "method": lambda n: seen.append("m:" + n.name),
               "class_definition": lambda n: seen.append("C")}
    for _ in tree.walk(visitor):
        pass
    assert seen == ["a", "C", "m:c"]
    depths = [d for _, d in tree.walk()]
    assert depths[0] == 0 and max(depths) > 2


def test_extract_context_and_signatures() -> None:
    tree = parse("import os\nfrom a import b\nN = 3\nclass A(B):\n    x = 1\n", "m.py")
    ctx = tree.extract_context()
    assert [n.text for n in ctx.imports] == ["import os", "from a import b"]
    assert [n.text for n in ctx.constants] == ["N = 3"]
    cls = tree.semantic_boundaries(["class"])[0]
    assert cls.signature == "class A(B):"
    assert cls.children[0].parent == cls


def test_merge_small_groups_adjacent_nodes() -> None:
    tree = parse("a = 1\nb = 2\nc = 3\ndef long_function_name():\n    return 12345\n", "m.py")
    groups = tree.merge_small(tree.root.named_children, 15)
    assert [len(g) for g in groups] == [3, 1]
    assert tree.merge_small(tree.root.named_children, 0) == [[n] for n in tree.root.named_children]


def test_big_class_is_split_at_methods_with_the_class_signature_in_headers() -> None:
    methods = "".join(f"    def method_{i}(self):\n        return {i} + {i} * 2 + self.value_{i}\n\n" for i in range(20))
    code = "import os\n\nclass Big(Base):\n" + methods
    chunks = ast_chunks(code, "big.py", max_chunk_size=300)
    assert len(chunks) > 3
    assert all(c.text.startswith("big.py\n") for c in chunks)
    assert all("import os" in c.text for c in chunks)
    for c in chunks[1:]:
        assert "class Big(Base):" in c.header and "Big" in c.metadata["part_of"]
        assert c.source.lstrip().startswith("def method_")  # cuts fall on method boundaries
    syms = [s for c in chunks for s in c.metadata["symbols"]]
    assert syms == [f"method_{i}" for i in range(20)]


def test_oversized_leaf_is_split_never_dropped() -> None:
    code = "X = '" + "y" * 5000 + "'\n"
    stats: dict[str, int] = {}
    chunks = ast_chunks(code, "s.py", max_chunk_size=400, preserve_context=False, stats=stats)
    assert "".join(c.source for c in chunks) == code
    assert max(len(c.text) for c in chunks) <= 400 and stats["oversized_leaves"] == 1


def test_parse_errors_fall_back_by_lines_and_are_counted() -> None:
    code = "def ok():\n    return 1\n\n" + "".join(f"x{i} = ((( {i}\n" for i in range(60)) + "\ndef fine():\n    return 2\n"
    stats: dict[str, int] = {}
    chunks = ast_chunks(code, "bad.py", max_chunk_size=200, preserve_context=False, stats=stats)
    assert "".join(c.source for c in chunks) == code
    assert stats["parse_errors"] == 1 and stats["fallback_regions"] >= 1
    assert any(c.metadata["fallback"] for c in chunks)


def test_unknown_language_falls_back_to_lines() -> None:
    stats: dict[str, int] = {}
    code = "".join(f"line {i}\n" for i in range(300))
    chunks = ast_chunks(code, "notes.unknown", max_chunk_size=100, stats=stats)
    assert stats["fallback_files"] == 1 and all(c.kind == "text" for c in chunks)
    assert all(c.source.endswith("\n") for c in chunks)  # cut at line ends, not mid-line


def test_structured_formats_split_by_their_structure() -> None:
    md = "# A\n\n" + "alpha text\n" * 20 + "\n# B\n\n" + "beta text\n" * 20
    heads = [c.source.lstrip().splitlines()[0] for c in ast_chunks(md, "r.md", max_chunk_size=300, preserve_context=False)]
    assert heads[0] == "# A" and "# B" in heads
    sql = "CREATE TABLE t (a int);\nSELECT a FROM t;\nINSERT INTO t VALUES (1);\n"
    assert [c.source for c in ast_chunks(sql, "q.sql", max_chunk_size=30, min_chunk_size=0, preserve_context=False)] == \
        sql.splitlines(keepends=True)
    js = '{"a": ' + '"x", '.join([""] * 2) + '"' + "v" * 50 + '", "b": "' + "w" * 50 + '"}\n'
    parts = ast_chunks(js, "p.json", max_chunk_size=70, min_chunk_size=0, preserve_context=False)
    assert any(c.source.lstrip().startswith('"b"') for c in parts)


def test_header_is_bounded_and_counted() -> None:
    imports = "".join(f"import module_number_{i}\n" for i in range(40))
    code = imports + "".join(f"def f{i}():\n    return {i}\n\n" for i in range(10))
    stats: dict[str, int] = {}
    chunks = ast_chunks(code, "m.py", max_chunk_size=400, max_header_size=100, stats=stats)
    assert all(len(c.header) <= 100 for c in chunks)
    assert stats["header_truncated"] >= 1 and stats["header_chars"] == sum(len(c.header) for c in chunks)


def test_token_unit_promises_the_window() -> None:
    code = "".join(f"def function_{i}(argument):\n    return argument * {i} + helper_{i}(argument)\n\n" for i in range(30))
    s = AstChunker("ast_tokens", max_chunk_size=64, size_unit="tokens", preserve_context=True)
    assert s.fits_window
    from pytest_chunkeval.chunking.sizing import text_size

    assert all(text_size(c.text, "tokens") <= 64 for c in s.chunk("m.py", code))


def test_strategy_stats_and_version() -> None:
    s = AstChunker()
    s.chunk("a.py", "def f():\n    return 1\n")
    s.chunk("b.unknown", "hello\n")
    st = s.stats()
    assert st["files"] == 2 and st["fallback_files"] == 1 and st["chunks"] == 2
    s.reset_stats()
    assert s.stats()["files"] == 0
    assert AstChunker(max_chunk_size=500).version != s.version
    assert s.unavailable is None and s.extensions is None and s.lossless
    assert any(p.name == "languages.py" for p in s.source_files())


def test_parallel_files_match_sequential(tmp_path) -> None:
    paths = []
    for i in range(6):
        p = tmp_path / f"m{i}.py"
        p.write_text("".join(f"def f{j}():\n    return {i * j}\n\n" for j in range(30)))
        paths.append(p)
    seq = ast_chunk_files(paths, workers=1, max_chunk_size=200)
    par = ast_chunk_files(paths, workers=2, min_files_for_pool=1, max_chunk_size=200)
    assert list(par) == [str(p) for p in paths] and seq == par


def test_chunk_code_by_ast_without_context_returns_bodies() -> None:
    code = "import a\n\ndef f():\n    return 1\n"
    assert "".join(chunk_code_by_ast(code, "m.py", preserve_context=False)) == code


def test_kotlin_hang_is_cancelled_not_fatal() -> None:
    """tree-sitter-kotlin loops forever on this input; the watchdog turns it into a counted fallback."""
    stats: dict[str, int] = {}
    code = "const val N = 1\n@*@"
    chunks = ast_chunks(code, "a.kt", stats=stats)
    assert stats.get("parse_timeouts") == 1 and "".join(c.source for c in chunks) == code


def test_the_watchdog_ends_with_the_process_that_started_it() -> None:
    """A Kotlin file starts the watchdog child; when the process exits, the child ends too, and Python (in dev mode,
    where an unfinished subprocess or an open pipe is a ResourceWarning) has nothing to warn about."""
    script = ("import os; from pytest_chunkeval import ast_chunks; "
              "from pytest_chunkeval.chunking.ast import guard; "
              "ast_chunks('fun top() = 2\\n', 'a.kt'); "
              "print(*[g.proc.pid for g in guard._GUARDS.values() if g.proc is not None])")
    out = subprocess.run([sys.executable, "-X", "dev", "-c", script], capture_output=True, text=True, check=True)
    pids = [int(p) for p in out.stdout.split()]
    assert pids, "the Kotlin file did not start a watchdog"
    assert "ResourceWarning" not in out.stderr, out.stderr
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_importing_the_package_does_not_import_tree_sitter() -> None:
    out = subprocess.run([sys.executable, "-c", "import sys, pytest_chunkeval; print('tree_sitter' in sys.modules)"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_language_in_the_table_has_an_installed_grammar() -> None:
    for name in LANGUAGES:
        assert parse("x", language=name) is not None, name


@pytest.mark.parametrize("lang,code", [(lang, code) for lang, code, _ in BOUNDARIES])
def test_name_getter_matches_name_of(lang: str, code: str) -> None:
    """The chunker's ``name_getter`` (field ids resolved once) names every node exactly as ``name_of`` does."""
    from pytest_chunkeval.chunking.ast.tree import name_getter, name_of

    tree = parse(code, language=lang)
    assert tree is not None
    get = name_getter(tree.raw_tree.language)
    for node, _ in tree.walk():
        assert get(node.raw, tree.source) == name_of(node.raw, tree.source), node
