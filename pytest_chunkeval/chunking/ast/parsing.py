"""From source bytes to a :class:`~pytest_chunkeval.chunking.ast.tree.SyntaxTree`: the grammar for a path, a
tree-sitter parser per thread and grammar, and the deadline that keeps a looping grammar from hanging a run.

Grammars come from installed wheels only (the language table, :mod:`.languages`, names each one's module). Parsing
is the one step here that can misbehave on odd input - some grammars loop forever - so it is where the time limit
and the watchdog process (:mod:`.guard`) live; the tree it returns is plain data (:mod:`.tree`).
"""
from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Mapping
from typing import Any

from pytest_chunkeval.chunking.ast.languages import LANGUAGES, LanguageSpec, language_for
from pytest_chunkeval.chunking.ast.tree import SyntaxTree

_LOCAL = threading.local()  # tree-sitter parsers are not thread-safe: one per thread and language


def parser_for(spec: LanguageSpec) -> Any:
    """A cached ``tree_sitter.Parser`` for ``spec`` (per thread; grammars come from installed wheels only)."""
    cache: dict[str, Any] = getattr(_LOCAL, "parsers", None) or {}
    _LOCAL.parsers = cache
    key = f"{spec.module}.{spec.function}"
    parser = cache.get(key)
    if parser is None:
        import tree_sitter

        grammar = getattr(importlib.import_module(spec.module), spec.function)()
        parser = cache[key] = tree_sitter.Parser(tree_sitter.Language(grammar))
    return parser


class ParseTimeout(RuntimeError):
    """tree-sitter gave up: some grammars loop forever on some malformed input (seen with tsx and kotlin)."""


def parse_bytes(parser: Any, data: bytes, timeout: float | None = None, spec: LanguageSpec | None = None) -> Any:
    """Parse, with a deadline where a grammar may loop on odd input, so it cannot hang a whole evaluation.

    The deadline applies to grammars flagged ``hang_prone`` in the language table (tsx, kotlin), to parses
    without a ``spec`` (unknown grammar), and whenever a ``timeout`` is given explicitly. Every other grammar
    parses the bytes directly with no callback - exactly what a bare ``Parser.parse(data)`` costs - because the
    deadline's Python progress callback runs thousands of times per MB.

    The deadline needs tree-sitter's read-callback API (a bytestring parse cannot be cancelled); reading from a
    memoryview costs nothing measurable. The default allows 1 s plus 5 us per byte, far above a normal parse.
    Kotlin (``isolate``) is additionally parsed first in a watchdog process: its scanner loops uncancellably.
    """
    if timeout is None and spec is not None and not spec.hang_prone:
        return parser.parse(data)
    limit = 1.0 + len(data) / 200_000 if timeout is None else timeout
    if spec is not None and spec.isolate:
        from pytest_chunkeval.chunking.ast.guard import finishes

        if not finishes(spec.module, spec.function, data, limit):
            raise ParseTimeout(f"{spec.name} grammar did not finish within {limit:.1f} s (watchdog)")
    view = memoryview(data)
    deadline = time.monotonic() + limit

    def read(offset: int, _point: Any) -> memoryview:
        return view[offset:]

    calls = [0]

    def progress(_offset: int, _has_error: bool) -> bool:
        calls[0] += 1  # tree-sitter calls this often; reading the clock every 16th call is plenty
        return not calls[0] & 15 and time.monotonic() > deadline

    try:
        return parser.parse(read, progress_callback=progress)
    except ValueError as exc:  # "Parsing failed": cancelled by the progress callback
        parser.reset()
        raise ParseTimeout(f"tree-sitter did not finish within {limit:.1f} s") from exc


def resolve_language(path: str | None, language: str | LanguageSpec | None = None,
                     overrides: Mapping[str, str] | None = None) -> LanguageSpec | None:
    """Language from an explicit name/spec, else from the path's extension (with ``overrides``)."""
    if isinstance(language, LanguageSpec):
        return language
    if language:
        return LANGUAGES[language]
    return language_for(path or "", overrides)


def parse(code: str | bytes, path: str | None = None, *, language: str | LanguageSpec | None = None,
          overrides: Mapping[str, str] | None = None, timeout: float | None = None) -> SyntaxTree | None:
    """Parse ``code``; ``None`` when no language is known for ``path`` (callers fall back to plain text).

    Raises :class:`ParseTimeout` when the grammar does not finish in time (see :func:`parse_bytes`).
    """
    spec = resolve_language(path, language, overrides)
    if spec is None:
        return None
    data = code.encode("utf-8", "surrogatepass") if isinstance(code, str) else code
    return SyntaxTree(data, parse_bytes(parser_for(spec), data, timeout, spec), spec)
