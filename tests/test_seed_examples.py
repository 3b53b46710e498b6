"""The seed plan's four example tests (synth-ast-chunking-plan.txt, "AST-based chunking"), translated to pytest.

They are kept as written in the seed - same inputs, same assertions - so the plan's acceptance examples hold.
"""
from pytest_chunkeval import chunk_code_by_ast, chunk_text


def test_should_split_javascript_by_functions() -> None:
    code = """
function foo() { return 1; }
function bar() { return 2; }
function baz() { return 3; }
"""
    chunks = chunk_code_by_ast(code, "test.js")
    assert len(chunks) == 3
    assert "function foo" in chunks[0]
    assert "function bar" in chunks[1]
    assert "function baz" in chunks[2]


def test_should_preserve_context_imports() -> None:
    code = """
import { foo } from 'bar';
function usesFoo() { return foo(); }
function alsoUsesFoo() { return foo(); }
"""
    chunks = chunk_code_by_ast(code, "test.ts", preserve_context=True)
    # Both chunks should include the import
    assert "import { foo }" in chunks[0]
    assert "import { foo }" in chunks[1]


def test_should_merge_small_chunks() -> None:
    code = """
const a = 1;
const b = 2;
const c = 3;
"""
    chunks = chunk_code_by_ast(code, "test.js", min_chunk_size=50)
    # Should merge into 1 chunk instead of 3 tiny ones
    assert len(chunks) == 1


def test_should_fallback_to_character_chunking_for_unknown_languages() -> None:
    code = "a" * 2000
    chunks = chunk_code_by_ast(code, "test.unknown")
    assert len(chunks) > 1


def test_chunk_text_is_still_exported_for_backward_compatibility() -> None:
    """The seed keeps ``chunkText`` as the fallback and for existing callers."""
    chunks = chunk_text("x" * 2500, max_chunk_size=1000)
    assert [len(c) for c in chunks] == [1000, 1000, 700]
