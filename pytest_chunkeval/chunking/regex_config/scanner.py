"""Config-driven structure of line-oriented source, the reading half: blank a file, then find its blocks.

Why blank first: a keyword inside a string (``"if you want"``) or a comment (``// try() this``) must never open a
block. The lexer replaces comment text and string contents with spaces (delimiters kept, columns and line numbers
unchanged), and every pattern of the config (:mod:`.config`) is matched against the blanked line. :func:`scan` then
turns the file into a tree of :class:`Node` (blocks, classified statements, comments); :mod:`.chunker` turns that
tree into chunks.

Recovery instead of crashes: a block that is never closed is closed where the evidence says (an outer closer, a
``top_level_only`` block opening, or the end of file); each such block is marked ``recovered`` and reported as a
``path:line: reason`` warning.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_chunkeval.chunking.regex_config.config import BlockRule, GrammarConfig

# ---- lexer ----------------------------------------------------------------------------------------------------


def blank(text: str, cfg: GrammarConfig) -> str:
    """Same-length copy of ``text`` with comments and string contents replaced by spaces (newlines kept).

    String delimiters stay, so a pattern can still see that an argument is a string; an unterminated string ends
    at the end of its line (the language is line oriented), so one bad quote cannot blank the rest of the file.
    """
    out: list[str] = []
    i, n = 0, len(text)
    block_open, block_close = cfg.comment_block or ("", "")
    while i < n:
        ch = text[i]
        if block_open and text.startswith(block_open, i):
            end = text.find(block_close, i + len(block_open))
            end = n if end == -1 else end + len(block_close)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        prefix = next((p for p in cfg.comment_line if text.startswith(p, i)), None)
        if prefix is not None:
            end = text.find("\n", i)
            end = n if end == -1 else end
            out.append(" " * (end - i))
            i = end
            continue
        if ch in cfg.string_delimiters:
            out.append(ch)
            i += 1
            while i < n and text[i] != "\n":
                if cfg.escape_char and text[i] == cfg.escape_char and i + 1 < n and text[i + 1] != "\n":
                    out.append("  ")
                    i += 2
                    continue
                if text[i] == ch:
                    out.append(ch)
                    i += 1
                    break
                out.append(" ")
                i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# ---- structure -----------------------------------------------------------------------------------------------


@dataclass
class Node:
    """A block, a (possibly multi-line) statement, a comment-only run, or a block's middle/closing line."""

    kind: str  # "block" | "stmt" | "comment" | "middle" | "close"
    start: int  # 1-based, inclusive
    end: int
    name: str = ""  # block kind or statement category
    children: list[Node] = field(default_factory=list)
    captures: dict[str, str] = field(default_factory=dict)
    ref: str | None = None  # statements: the block name the statement refers to
    rule: BlockRule | None = None
    recovered: bool = False


@dataclass
class Scan:
    nodes: list[Node]
    lines: list[str]  # original lines, no newline
    blanked: list[str]
    warnings: list[str]
    recovered: int


def _depth(line: str) -> int:
    return sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")


def _structural(line: str, cfg: GrammarConfig) -> bool:
    """Whether ``line`` opens or closes a block: an unbalanced bracket must not swallow structure."""
    return any(r.open.search(line) or r.close.search(line) for r in cfg.blocks)


def scan(text: str, cfg: GrammarConfig, path: str = "<text>") -> Scan:
    """Parse ``text`` into top-level nodes; never raises on bad input (see module docstring for recovery)."""
    return _Scanner(text, cfg, path).run()


class _Scanner:
    """One :func:`scan`: the lines read one at a time against a stack of the blocks still open."""

    def __init__(self, text: str, cfg: GrammarConfig, path: str) -> None:
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        self.cfg, self.path, self.lines = cfg, path, lines
        self.blanked = blank(text, cfg).split("\n")[: len(lines)]
        self.warnings: list[str] = []
        self.top: list[Node] = []
        self.stack: list[Node] = []
        self.recovered = 0

    def run(self) -> Scan:
        i = 0
        while i < len(self.lines):
            i = self._line(i)
        last = len(self.lines)
        while last > 0 and not self.lines[last - 1].strip():
            last -= 1
        self._close_recovered(0, last, "end of file")
        return Scan(self.top, self.lines, self.blanked, self.warnings, self.recovered)

    def _add(self, node: Node) -> None:
        (self.stack[-1].children if self.stack else self.top).append(node)

    def _close_recovered(self, upto: int, at_line: int, why: str) -> None:
        while len(self.stack) > upto:
            b = self.stack.pop()
            b.end, b.recovered = max(b.start, at_line), True
            self.recovered += 1
            self.warnings.append(f"{self.path}:{b.start}: unclosed '{b.name}' block, closed at line {b.end} ({why})")

    def _line(self, i: int) -> int:
        """Read the line at index ``i`` (a statement: and the lines it continues over); the next index to read."""
        no, code = i + 1, self.blanked[i]
        if not code.strip():
            if self.lines[i].strip():
                self._comment(no)
            return i + 1
        if self._close(code, no):
            return i + 1
        blocks = self.cfg.blocks
        if any(r.close.search(code) for r in blocks) and not any(r.open.search(code) for r in blocks):
            self.warnings.append(f"{self.path}:{no}: closing line without an open block (kept as a statement)")
        elif self.stack and self.stack[-1].rule and any(m.search(code) for m in self.stack[-1].rule.middle):
            self._add(Node("middle", no, no))
            return i + 1
        if self._open(code, i):
            return i + 1
        return self._statement(code, i)

    def _comment(self, no: int) -> None:
        """A comment-only line: it extends the comment run just above it, or starts one."""
        sib = self.stack[-1].children if self.stack else self.top
        if sib and sib[-1].kind == "comment" and sib[-1].end == no - 1:
            sib[-1].end = no
        else:
            self._add(Node("comment", no, no))

    def _close(self, code: str, no: int) -> bool:
        """Close the innermost open block whose closer matches ``code`` (the ones inside it were left open:
        closed here, recovered); False when none matches."""
        stack = self.stack
        closer = next(
            (k for k in range(len(stack) - 1, -1, -1) if (open_rule := stack[k].rule) and open_rule.close.search(code)),
            None,
        )
        if closer is None:
            return False
        self._close_recovered(closer + 1, no - 1, f"'{stack[-1].name}' cannot be closed by line {no}")
        b = stack.pop()
        b.end = no
        b.children.append(Node("close", no, no))
        return True

    def _open(self, code: str, i: int) -> bool:
        """Open a block when a rule's opener matches ``code``; False when none does."""
        opened = next(((r, m) for r in self.cfg.blocks if (m := r.open.search(code))), None)
        if opened is None:
            return False
        rule, match = opened
        no = i + 1
        if rule.top_level_only and self.stack:
            self._close_recovered(0, no - 1, f"'{rule.name}' opens at line {no}")
        caps = {
            k: self.lines[i][match.start(k):match.end(k)].strip() for k, v in match.groupdict().items() if v is not None
        }
        node = Node("block", no, no, rule.name, captures=caps, rule=rule)
        self._add(node)
        self.stack.append(node)
        return True

    def _statement(self, code: str, i: int) -> int:
        """A statement, continued over the next lines while brackets are open (multi-line calls, literals), and
        classified by the first statement rule that matches; the index after its last line."""
        blanked, end, depth = self.blanked, i, _depth(code)
        while depth > 0 and end + 1 < len(self.lines) and not _structural(blanked[end + 1], self.cfg):
            end += 1
            depth += _depth(blanked[end])
        joined = " ".join(blanked[i:end + 1])
        stmt = Node("stmt", i + 1, end + 1, "unclassified")
        for srule in self.cfg.statements:
            m = srule.pattern.search(joined)
            if m:
                stmt.name = srule.category
                if srule.refers_to and m.groupdict().get("ref"):
                    stmt.ref = m.group("ref")
                break
        self._add(stmt)
        return end + 1
