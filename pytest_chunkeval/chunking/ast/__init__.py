"""Language-independent AST API over tree-sitter (``from pytest_chunkeval.chunking.ast import parse``).

Build your own strategy on it::

    tree = parse(code, "x.py")
    for fn in tree.semantic_boundaries(["function", "method"]):
        print(fn.name, fn.start_line, fn.end_line, tree.source_text(fn))
"""
from __future__ import annotations

from pytest_chunkeval.chunking.ast.languages import (
    CONTAINER_KINDS,
    CONTEXT_KINDS,
    LANGUAGES,
    UNIT_KINDS,
    LanguageSpec,
    language_for,
    supported_extensions,
)
from pytest_chunkeval.chunking.ast.parsing import ParseTimeout, parse, parse_bytes, parser_for, resolve_language
from pytest_chunkeval.chunking.ast.tree import Context, Node, SyntaxTree, kind_of, name_of

detect_language = language_for  # the seed's name

__all__ = [
    "CONTAINER_KINDS", "CONTEXT_KINDS", "LANGUAGES", "UNIT_KINDS", "Context", "LanguageSpec", "Node",
    "ParseTimeout", "SyntaxTree", "detect_language", "parse_bytes", "kind_of", "language_for", "name_of", "parse",
    "parser_for",
    "resolve_language", "supported_extensions",
]
