"""Properties of AST chunking that must hold for every language, on generated and on real source.

For any input: bodies tile the file exactly (lossless), every chunk's embedded text (header included) is within
``max_chunk_size`` in the chosen unit, output is deterministic, and lines agree with byte offsets. Generated
inputs mix realistic fragments of each language with random noise (unbalanced brackets, unicode, long lines) so
parse errors, oversized leaves and the fallback paths are all exercised.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_chunkeval import ast_chunks
from pytest_chunkeval.chunking.ast import LANGUAGES
from pytest_chunkeval.chunking.sizing import text_size

FRAGMENTS: dict[str, list[str]] = {
    "python": ["import os\nfrom a.b import c as d\n", "X = 1\n", "@dec\ndef f(a, b=2):\n    '''doc'''\n    return a + b\n",
               "class A(B):\n    # note\n    def m(self):\n        if x:\n            return [i for i in y]\n        return None\n",
               "s = '''" + "long string line\n" * 30 + "'''\n", "def broken(:\n  pass\n"],
    "javascript": ["import x from 'y';\n", "const a = 1;\n", "function foo(a) {\n  // c\n  return a * 2;\n}\n",
                   "class K extends P {\n  m() { return this.x; }\n  get y() { return 1 }\n}\n",
                   "export const h = () => { if (a) { b(); } };\n", "let s = `" + "tpl ${x} " * 40 + "`;\n"],
    "jsx": ["import React from 'react';\n", "export function App() {\n  return <div className=\"a\">{x}</div>;\n}\n",
            "const L = () => <ul>{items.map(i => <li key={i}>{i}</li>)}</ul>;\n"],
    "typescript": ["import { foo } from 'bar';\n", "export interface I { a: number; b?: string }\n",
                   "type T = string | number;\n", "export class C<T> implements I {\n  private x: T;\n  m(): void {}\n}\n",
                   "enum E { A, B }\n", "export default function f(a: number): number { return a; }\n"],
    "tsx": ["import * as R from 'react';\n", "export const C: R.FC<{a: string}> = ({a}) => <span>{a}</span>;\n",
            "function g<T,>(x: T) { return x; }\n"],
    "go": ["package main\n", "import (\n\t\"fmt\"\n\t\"os\"\n)\n", "const N = 10\n", "type S struct {\n\tA int\n\tB string\n}\n",
           "func (s *S) M() int {\n\tfor i := 0; i < N; i++ {\n\t\tfmt.Println(i)\n\t}\n\treturn s.A\n}\n",
           "func main() { os.Exit(0) }\n"],
    "rust": ["use std::io::{self, Read};\n", "const N: usize = 3;\n", "struct P { a: i32, b: String }\n",
             "impl P {\n    pub fn new() -> Self { P { a: 0, b: String::new() } }\n    fn get(&self) -> i32 { self.a }\n}\n",
             "trait T { fn t(&self); }\n", "fn main() {\n    let v: Vec<i32> = (0..10).collect();\n    println!(\"{:?}\", v);\n}\n",
             "mod m {\n    pub fn h() {}\n}\n"],
    "java": ["package a.b;\n", "import java.util.List;\n",
             "public class Foo extends Bar {\n  static final int N = 1;\n  /** doc */\n  public int f(int x) { return x + N; }\n  Foo() {}\n}\n",
             "interface I { void g(); }\n", "enum E { A, B; }\n"],
    "c": ["#include <stdio.h>\n", "#define MAX 10\n", "struct S { int a; char *b; };\n", "typedef unsigned long ul;\n",
          "static int add(int a, int b) {\n  /* sum */\n  return a + b;\n}\n", "int main(void) { printf(\"%d\\n\", add(1, 2)); return 0; }\n"],
    "cpp": ["#include <vector>\n", "namespace n {\nclass A : public B {\n public:\n  int f() const { return 1; }\n};\n}\n",
            "template <typename T> T mx(T a, T b) { return a > b ? a : b; }\n", "using V = std::vector<int>;\n",
            "int main() { n::A a; return a.f(); }\n"],
    "ruby": ["require 'json'\n", "module M\n  class K < Base\n    def f(x)\n      x * 2\n    end\n\n    def self.g; end\n  end\nend\n",
             "N = 3\n", "def top(a, b = 1)\n  [a, b].map { |i| i + 1 }\nend\n"],
    "php": ["<?php\n", "namespace App\\Models;\n", "use Foo\\Bar;\n",
            "class User extends Model {\n    public function name(): string { return $this->name; }\n}\n",
            "function helper($x) { return $x * 2; }\n", "interface I { public function f(); }\n"],
    "swift": ["import Foundation\n", "let n = 1\n", "class A: B {\n  func f() -> Int { return 1 }\n  var x: Int { 2 }\n}\n",
              "struct S { let a: Int }\n", "protocol P { func g() }\n", "func top(_ a: Int) -> Int { a + 1 }\n"],
    "kotlin": ["package a.b\n", "import x.y.Z\n", "const val N = 1\n",
               "class Foo(val a: Int) : Bar() {\n    fun f(): Int { return a }\n}\n", "fun top(x: Int) = x * 2\n",
               "object O { val z = 3 }\n"],
    "markdown": ["# Title\n\nSome text.\n", "## Section\n\n- item\n- item 2\n", "```python\nprint('x')\n```\n",
                 "### Deep\n\n" + "A long paragraph line. " * 30 + "\n", "> quote\n"],
    "json": ['{"a": 1, "b": [1, 2, 3], "c": {"d": "e"}}\n', '{"k": "' + "v" * 300 + '"}\n', "[1, 2, {\"x\": null}]\n"],
    "yaml": ["a: 1\n", "b:\n  c: 2\n  d: [1, 2]\n", "---\nlist:\n  - x\n  - y\n", "long: " + "w " * 150 + "\n"],
    "toml": ["a = 1\n", "[table]\nb = \"x\"\nc = [1, 2]\n", "[[arr]]\nd = true\n", "s = \"" + "t" * 200 + "\"\n"],
    "sql": ["CREATE TABLE t (a int, b text);\n", "SELECT a, b FROM t WHERE a > 1 ORDER BY b;\n", "-- comment\n",
            "INSERT INTO t VALUES (1, 'x');\n"],
}
EXT = {name: spec.extensions[0] for name, spec in LANGUAGES.items()}
NOISE = st.text(alphabet=st.sampled_from(list("ab{}()[];:=<>\"'#/*\n\t  é中🙂\\`$@")), max_size=80)


def check_invariants(code: str, path: str, chunks: list, max_size: int, unit: str) -> None:
    data = code.encode("utf-8", "surrogatepass")
    assert "".join(c.source for c in chunks) == code, "bodies must tile the file"
    if not code:
        assert chunks == []
        return
    assert chunks[0].start_byte == 0 and chunks[-1].end_byte == len(data)
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        assert prev.end_byte == nxt.start_byte
    for c in chunks:
        assert c.start_byte < c.end_byte, "no empty chunks"
        assert data[c.start_byte:c.end_byte].decode("utf-8", "surrogatepass") == c.source
        assert c.text == c.header + c.source
        assert text_size(c.text, unit) <= max_size, (c.text, text_size(c.text, unit))
        assert c.start_line == data.count(b"\n", 0, c.start_byte) + 1
        assert c.end_line == data.count(b"\n", 0, c.end_byte - 1) + 1


def run_twice(code: str, path: str, **opts) -> list:
    first = ast_chunks(code, path, **opts)
    second = ast_chunks(code, path, **opts)
    assert [(c, c.metadata) for c in first] == [(c, c.metadata) for c in second], "output must be deterministic"
    return first


@st.composite
def programs(draw, language: str) -> str:
    parts = draw(st.lists(st.one_of(st.sampled_from(FRAGMENTS[language]), NOISE), min_size=0, max_size=8))
    return "".join(parts)


@pytest.mark.parametrize("language", sorted(FRAGMENTS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_invariants_on_generated_source(language: str, data) -> None:
    code = data.draw(programs(language))
    max_size = data.draw(st.integers(min_value=8, max_value=600))
    unit = data.draw(st.sampled_from(["chars", "nonws_chars"]))
    context = data.draw(st.booleans())
    opts = dict(max_chunk_size=max_size, min_chunk_size=data.draw(st.integers(0, 120)), size_unit=unit,
                chunk_by_node_type=data.draw(st.booleans()), preserve_context=context,
                max_header_size=max_size // 2 if context else None)
    chunks = run_twice(code, f"src/m{EXT[language]}", **opts)
    check_invariants(code, f"src/m{EXT[language]}", chunks, max_size, unit)


@settings(max_examples=15, deadline=None)
@given(code=st.text(max_size=400), ext=st.sampled_from([".py", ".js", ".json", ".unknown", ""]))
def test_invariants_on_arbitrary_text(code: str, ext: str) -> None:
    chunks = run_twice(code, "f" + ext, max_chunk_size=50, min_chunk_size=10)
    check_invariants(code, "f" + ext, chunks, 50, "chars")


@pytest.mark.parametrize("language", ["python", "typescript", "go", "markdown"])
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_token_unit_fits_the_window(language: str, data) -> None:
    code = data.draw(programs(language))
    max_size = data.draw(st.integers(min_value=24, max_value=128))
    chunks = run_twice(code, "m" + EXT[language], max_chunk_size=max_size, size_unit="tokens", preserve_context=True)
    check_invariants(code, "m" + EXT[language], chunks, max_size, "tokens")


def _real_files() -> list[Path]:
    """Real source: the polyglot golden corpus (every language), a deterministic sample of CPython's standard
    library and of the system C headers."""
    files: list[Path] = sorted(p for p in (Path(__file__).parent.parent / "golden").glob("*/corpus/**/*")
                               if p.is_file())
    stdlib = Path(random.__file__).parent
    py = sorted(p for p in stdlib.glob("*.py"))
    files += random.Random(4).sample(py, min(12, len(py)))
    headers = sorted(Path("/usr/include").glob("*.h"))
    files += random.Random(4).sample(headers, min(6, len(headers)))
    return files


@pytest.mark.parametrize("path", _real_files(), ids=lambda p: p.name)
@pytest.mark.parametrize("max_size,context", [(1000, False), (300, True)])
def test_invariants_on_real_source(path: Path, max_size: int, context: bool) -> None:
    code = path.read_text(encoding="utf-8", errors="surrogateescape")
    stats: dict[str, int] = {}
    chunks = run_twice(code, str(path), max_chunk_size=max_size, preserve_context=context)
    check_invariants(code, str(path), chunks, max_size, "chars")
    chunks = ast_chunks(code, str(path), max_chunk_size=max_size, preserve_context=context, stats=stats)
    assert stats["files"] == 1 and stats["chunks"] == len(chunks)
