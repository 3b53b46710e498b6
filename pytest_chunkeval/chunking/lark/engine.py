"""Load a Lark grammar file and parse source with errors a person can act on.

Generic over languages: nothing here knows AVAP. What it adds to Lark:

* grammar errors name the grammar file and line (Lark reports ``<string>`` or nothing);
* source errors are :class:`SourceSyntaxError` with ``path:line:column`` and, at end of file, the blocks that are
  still open (found on the parser's value stack, so the message says *which* ``if`` was never closed);
* a bracket-aware post-lexer (:class:`BracketNewlines`) so a line-oriented grammar can still let calls and
  literals span lines;
* collected comments (doc comments become part of the AST summary, like docstrings).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from lark import Lark, Token, Tree
from lark.exceptions import (
    GrammarError,
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)


class GrammarLoadError(ValueError):
    """The grammar file itself is broken; the message starts with ``grammar_file:line``."""


class SourceSyntaxError(ValueError):
    """A source file does not match the grammar. ``line``/``column`` are 1-based."""

    def __init__(self, path: str, line: int, column: int, reason: str) -> None:
        super().__init__(f"{path}:{line}:{column}: {reason}")
        self.path = path
        self.line = line
        self.column = column
        self.reason = reason


class BracketNewlines:
    """Post-lexer: drop newline tokens inside ``( [ {`` so one statement may span lines.

    A ``{`` that follows ``block_brace_after`` keyword (``function``) before any other ``{`` opens a block, not a
    literal, so it is not counted and its closing ``}`` is left alone. ``always_accept`` tells Lark's contextual
    lexer to produce newline tokens in every state, because this post-lexer decides whether they reach the parser.
    """

    OPEN = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}

    def __init__(self, newline: str = "_NL", block_brace_after: tuple[str, ...] = ()) -> None:
        self.newline = newline
        self.block_brace_after = set(block_brace_after)
        self.always_accept = (newline,)

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        stack: list[str] = []
        brace_is_block = False
        for tok in stream:
            kind = tok.type
            if kind == self.newline:
                if stack:
                    continue
            elif kind in self.block_brace_after or tok.value in self.block_brace_after:
                brace_is_block = True
            elif kind == "LBRACE" and brace_is_block and not stack:
                brace_is_block = False
                yield tok
                continue
            elif kind in self.OPEN:
                stack.append(self.OPEN[kind])
            elif stack and kind == stack[-1]:
                stack.pop()
            yield tok


@dataclass
class ParseResult:
    """A parse tree plus the comments the parser skipped (kept for docs: they are not in the tree)."""

    tree: Tree
    comments: list[Token] = field(default_factory=list)


_LARK_LINE = re.compile(r"(?:at )?line (\d+)(?:,? col(?:umn)? (\d+))?", re.IGNORECASE)


class LarkGrammar:
    """A compiled grammar file; build once, parse many files.

    ``openers`` maps keyword values that open a block (``"if"``) to the text that closes it (``"end()"``); it is
    only used to say which block is unclosed when a file ends early.
    """

    def __init__(
        self,
        grammar_path: Path,
        *,
        start: str = "start",
        comment_terminals: tuple[str, ...] = (),
        openers: dict[str, str] | None = None,
        block_brace_after: tuple[str, ...] = (),
    ) -> None:
        self.path = Path(grammar_path)
        self.openers = dict(openers or {})
        self.reserved_callees: set[str] = set()
        self.comment_terminals = comment_terminals
        self._comments: list[Token] = []
        try:
            source = self.path.read_text(encoding="utf-8")
        except OSError as exc:
            raise GrammarLoadError(f"{self.path}: cannot read grammar: {exc}") from exc
        callbacks = {name: self._comments.append for name in comment_terminals}
        try:
            self.lark = Lark(
                source,
                start=start,
                parser="lalr",
                lexer="contextual",
                postlex=BracketNewlines(block_brace_after=block_brace_after),
                propagate_positions=True,
                maybe_placeholders=False,
                lexer_callbacks=callbacks,
            )
        except UnexpectedInput as exc:  # the grammar text does not parse as Lark EBNF
            raise GrammarLoadError(
                f"{self.path}:{exc.line}:{exc.column}: grammar syntax error: {_first_line(exc)}"
            ) from exc
        except (GrammarError, LarkError) as exc:  # undefined rule, LALR conflict, bad regex, ...
            raise GrammarLoadError(f"{self.path}:{_grammar_line(exc, source)}: grammar error: {exc}") from exc

    def parse(self, text: str, path: str = "<text>") -> ParseResult:
        """Parse ``text``; raise :class:`SourceSyntaxError` naming ``path``, line, column and the reason."""
        self._comments.clear()
        if not text.endswith("\n"):
            text += "\n"  # the grammar terminates statements with a newline
        try:
            tree = self.lark.parse(text)
        except UnexpectedCharacters as exc:
            pos = cast(int, exc.pos_in_stream)  # always set for UnexpectedCharacters (lark types it Optional)
            found = text[pos] if pos < len(text) else "end of file"
            hint = " (unterminated string?)" if found in "\"'" else ""
            raise SourceSyntaxError(path, exc.line, exc.column, f"unexpected character {found!r}{hint}") from None
        except UnexpectedEOF as exc:
            raise SourceSyntaxError(path, text.count("\n"), 1, self._eof_reason(exc)) from None
        except UnexpectedToken as exc:
            if exc.token.type == "$END":
                raise SourceSyntaxError(path, text.count("\n"), 1, self._eof_reason(exc)) from None
            newline = cast(BracketNewlines, self.lark.options.postlex).newline
            names = sorted({self._pretty(t) for t in exc.expected if t != newline})
            expected = ", ".join(names) if len(names) <= 8 else ", ".join(names[:6]) + f", ... ({len(names)} in all)"
            shown = "end of line" if exc.token.type == newline else repr(exc.token.value)
            reason = f"unexpected {shown}; expected {expected or 'end of line'}"
            inner = self._innermost_open(exc)
            if inner is not None:
                reason += f" (inside '{inner.value}' block opened at line {inner.line})"
            raise SourceSyntaxError(path, exc.line, exc.column, reason) from None
        self._check_reserved(tree, path)
        return ParseResult(tree=tree, comments=list(self._comments))

    def _check_reserved(self, tree: Tree, path: str) -> None:
        """Reject ``end()``/``else()``/... used as plain calls: the contextual lexer reads a block keyword as a
        name where the keyword is not expected (so ``startLoop(i, 0, end)`` works), which would otherwise let a
        stray ``end()`` pass as a call of a function named ``end``."""
        if not self.reserved_callees:
            return
        for call in tree.find_data("call"):
            callee = call.children[0]
            if isinstance(callee, Tree) and callee.data == "var" and str(callee.children[0]) in self.reserved_callees:
                tok: Any = callee.children[0]  # the NAME token (lexed, so it has a line and column)
                raise SourceSyntaxError(path, tok.line, tok.column,
                                        f"unexpected '{tok}(...)': no open block here that it could close or continue")

    def _innermost_open(self, exc: UnexpectedInput) -> Token | None:
        """The innermost block keyword still on the parser's value stack (reduced blocks no longer show there)."""
        state = getattr(getattr(exc, "interactive_parser", None), "parser_state", None)
        stack = getattr(state, "value_stack", []) if state is not None else []
        open_blocks = [t for t in _tokens(stack) if t.value in self.openers]
        return open_blocks[-1] if open_blocks else None

    def _eof_reason(self, exc: UnexpectedInput) -> str:
        tok = self._innermost_open(exc)
        if tok is not None:
            return (f"unexpected end of file: '{tok.value}' block opened at line {tok.line} is not closed"
                    f" (expected {self.openers[tok.value]})")
        return "unexpected end of file"

    def _pretty(self, terminal: str) -> str:
        """A terminal as the user would type it: keywords and punctuation quoted, NAME/STRING/NUMBER by name."""
        try:
            pattern = self.lark.get_terminal(terminal).pattern
        except KeyError:
            return terminal
        return repr(pattern.value) if pattern.type == "str" else terminal


def _tokens(stack: list[object]) -> Iterator[Token]:
    """Tokens on a value stack (a Tree's tokens were filtered, so only still-open constructs show keywords)."""
    for item in stack:
        if isinstance(item, Token):
            yield item


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _grammar_line(exc: Exception, source: str) -> str:
    """Best line for a Lark grammar error: Lark's own 'line N' if given, else the first line naming the culprit."""
    msg = str(exc)
    m = _LARK_LINE.search(msg)
    if m:
        return f"{m.group(1)}:{m.group(2) or 1}"
    for name in re.findall(r"'([A-Za-z_][A-Za-z0-9_]*)'", msg) + re.findall(r"\b([a-z_][a-z0-9_]*)\b", msg):
        for no, line in enumerate(source.splitlines(), 1):
            if re.search(rf"(?<![\w\"]){re.escape(name)}(?![\w\"])", line) and not line.lstrip().startswith("//"):
                return f"{no}:1"
    return "1:1"
