"""The ADR's two EBNF strategies, for any grammar that follows the conventions of :mod:`.ast_summary`.

Both keep one chunk per file (so they compare with ``file_level`` on equal footing) and differ in what is indexed:

* :class:`EbnfMetadataChunker` — the code, preceded by a short header rendered from the AST summary (endpoints,
  functions, commands, block shape); the full summary also goes into ``metadata["ast"]``.
* :class:`EbnfFullChunker` — the serialised AST *instead of* the code (the ADR's "AST is indexed instead of the
  code"); the chunk still spans the file's lines so relevance is judged the same way.

A file that does not parse never stops a run: it falls back to its plain text, is counted in ``parse_errors``
and named in ``warnings`` as ``path:line: reason``.

Language facts the error messages need (which keyword opens a block, what closes it, which ``{`` opens a body)
are read from the grammar itself (rules ending in ``_block``), so the strategy needs nothing but a grammar path.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any, cast

from pytest_chunkeval.chunking.lark.ast_summary import BLOCK_SUFFIX, serialize, summarize
from pytest_chunkeval.chunking.lark.engine import BracketNewlines, LarkGrammar, SourceSyntaxError
from pytest_chunkeval.chunking.metadata_text import render_header
from pytest_chunkeval.chunking.strategy_base import Strategy
from pytest_chunkeval.core.chunk import Chunk, line_starts, span_chunk


def _block_facts(grammar: LarkGrammar) -> tuple[dict[str, str], tuple[str, ...], set[str]]:
    """From the ``*_block`` rules: opener keyword -> closing text, the keywords whose block opens with '{', and
    every block keyword (including those of clauses the block rules use, like ``else`` and ``exception``)."""
    openers: dict[str, str] = {}
    brace: set[str] = set()
    keywords: set[str] = set()
    lark = grammar.lark

    def literal(sym: Any) -> str | None:
        if not getattr(sym, "is_term", False):
            return None
        try:
            pattern = lark.get_terminal(sym.name).pattern
        except KeyError:
            return None
        return str(pattern.value) if pattern.type == "str" else None

    block_rules = [r for r in lark.rules if r.origin.name.endswith(BLOCK_SUFFIX) and r.expansion]
    used = {s.name for r in block_rules for s in r.expansion if not s.is_term}
    for rule in block_rules + [r for r in lark.rules if r.origin.name in used]:
        keywords.update(t for s in rule.expansion if (t := literal(s)) and t.isidentifier())
    for rule in block_rules:
        opener = literal(rule.expansion[0])
        if opener is None:
            continue
        tail: list[str] = []
        for sym in reversed(rule.expansion):
            text = literal(sym)
            if text is None:
                if tail:
                    break
                continue  # the trailing newline
            tail.insert(0, text)
        openers[opener] = "".join(tail)
        if any(literal(s) == "{" for s in rule.expansion):
            brace.add(rule.expansion[0].name)
    return openers, tuple(sorted(brace)), keywords


def load_grammar(
    grammar: Path, comment_terminals: tuple[str, ...] = ("DOC_COMMENT", "LINE_COMMENT", "BLOCK_COMMENT")
) -> LarkGrammar:
    """A :class:`LarkGrammar` with its block facts (openers, closers, brace-opened blocks) read from the grammar.

    Building the LALR tables is slow, and both EBNF strategies read the same grammar: one parser per
    (file, content, comment terminals) serves them all in a process (parsing is sequential, and each parse starts
    by clearing the parser's comment list). A changed file is a new key, so an edited grammar is never stale.
    """
    path = Path(grammar)
    try:
        content = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        content = ""  # LarkGrammar raises GrammarLoadError naming the file
    return _load_grammar(path, content, tuple(comment_terminals))


@functools.lru_cache(maxsize=8)
def _load_grammar(grammar: Path, content: str, comment_terminals: tuple[str, ...]) -> LarkGrammar:
    g = LarkGrammar(Path(grammar), comment_terminals=comment_terminals)
    openers, brace, keywords = _block_facts(g)
    g.openers = openers
    g.reserved_callees = keywords
    cast(BracketNewlines, g.lark.options.postlex).block_brace_after = set(brace)
    return g


class _LarkFileChunker(Strategy):
    """Shared parse / fallback / stats logic; subclasses decide what text a parsed file is indexed as."""

    lossless = True
    stat_keys = ("files", "parsed", "parse_errors", "fallbacks", "warnings")
    comment_terminals = ("DOC_COMMENT", "LINE_COMMENT", "BLOCK_COMMENT")
    doc_terminals = ("DOC_COMMENT",)

    def __init__(self, grammar: Path, *, extensions: tuple[str, ...], name: str | None = None) -> None:
        self.grammar_path = Path(grammar)
        self.extensions = extensions
        if name:
            self.name = name
        self.grammar = load_grammar(self.grammar_path, self.comment_terminals)

    def source_files(self) -> list[Path]:
        return [self.grammar_path]

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        out["parsed_pct"] = round(100.0 * out["parsed"] / out["files"], 1) if out["files"] else None
        return out

    def parse(self, path: str, text: str) -> tuple[Any, list[Any]] | None:
        """Parse and count; on a syntax error record ``path:line: reason`` and return None (caller falls back)."""
        self.count("files")
        try:
            result = self.grammar.parse(text, path)
        except SourceSyntaxError as exc:
            self.count("parse_errors")
            self.count("fallbacks")
            line = max(1, int(exc.line or 1))
            self.parse_failed(path, [(line, line)])  # where the parser stopped: the rest of the file went unread
            self.warn(f"{exc.path}:{exc.line}: {exc.reason} (indexed as plain text)")
            return None
        self.count("parsed")
        return result.tree, result.comments

    def chunk(self, path: str, text: str) -> list[Chunk]:
        if not text.strip():
            return []
        parsed = self.parse(path, text)
        starts = line_starts(text)
        end = len(text.rstrip("\n")) or len(text)
        if parsed is None:
            return [span_chunk(text, starts, 0, end, path=path, strategy=self.name, kind="file",
                               metadata={"parse_error": True})]
        return [self.render(path, text, starts, end, *parsed)]

    def render(self, path: str, text: str, starts: list[int], end: int, tree: Any, comments: list[Any]) -> Chunk:
        raise NotImplementedError


class EbnfMetadataChunker(_LarkFileChunker):
    """One chunk per file: AST summary as metadata and as a short header in front of the code."""

    name = "ebnf_metadata"
    version = "1"
    description = "one chunk per file, AST summary (endpoints, functions, commands, blocks) as header + metadata"

    def render(self, path: str, text: str, starts: list[int], end: int, tree: Any, comments: list[Any]) -> Chunk:
        summary = summarize(tree, comments, self.doc_terminals)
        for note in summary["notes"]:
            self.warn(f"{path}:{note.removeprefix('line ')}")
        return span_chunk(text, starts, 0, end, path=path, strategy=self.name, kind="file",
                          header=render_header(summary), metadata={"ast": summary})


class EbnfFullChunker(_LarkFileChunker):
    """One chunk per file whose indexed text is the serialised AST, not the code (ordinary comments dropped)."""

    name = "ebnf_full"
    version = "1"
    description = "one chunk per file, the readable AST serialisation indexed instead of the code"
    lossless = False  # the indexed text is not the source: formatting and ordinary comments are gone

    def render(self, path: str, text: str, starts: list[int], end: int, tree: Any, comments: list[Any]) -> Chunk:
        base = span_chunk(text, starts, 0, end, path=path, strategy=self.name, kind="ast")
        summary = summarize(tree, comments, self.doc_terminals)
        return Chunk(
            text=serialize(tree, comments, self.doc_terminals),
            path=path,
            start_line=base.start_line,
            end_line=base.end_line,
            start_byte=base.start_byte,
            end_byte=base.end_byte,
            strategy=self.name,
            kind="ast",
            metadata={"ast": summary},
        )
