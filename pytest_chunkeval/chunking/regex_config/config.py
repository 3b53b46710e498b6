"""Config-driven structure of line-oriented source: load + validate a language config, blank, find blocks.

This is the generic half of the ADR's "grammar definition chunking": everything about the language lives in a JSON
config (``strategies/avap_config.json`` for AVAP), validated against ``pytest_chunkeval/schemas/
grammar_config.schema.json``. :func:`scan` turns a file into a tree of :class:`Node` (blocks, classified statements,
comments); ``grammar_chunker`` turns that tree into chunks.

Why blank first: a keyword inside a string (``"if you want"``) or a comment (``// try() this``) must never open a
block. The lexer replaces comment text and string contents with spaces (delimiters kept, columns and line numbers
unchanged), and every pattern of the config is matched against the blanked line.

Recovery instead of crashes: a block that is never closed is closed where the evidence says (an outer closer, a
``top_level_only`` block opening, or the end of file); each such block is marked ``recovered`` and reported as a
``path:line: reason`` warning.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

SCHEMA_PACKAGE = "pytest_chunkeval"
SCHEMA_PATH = ("schemas", "grammar_config.schema.json")


class GrammarConfigError(ValueError):
    """A config that is not valid; the message is ``<file>: <json path>: <reason>`` (one line per problem)."""


def load_schema() -> dict[str, Any]:
    """The shipped JSON Schema, read with importlib.resources so it works from a wheel as well as a checkout."""
    res = resources.files(SCHEMA_PACKAGE).joinpath(*SCHEMA_PATH)
    return json.loads(res.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class BlockRule:
    name: str
    open: re.Pattern[str]
    close: re.Pattern[str]
    middle: tuple[re.Pattern[str], ...] = ()
    signature: str | None = None
    top_level_only: bool = False


@dataclass(frozen=True)
class StatementRule:
    category: str
    pattern: re.Pattern[str]
    refers_to: str | None = None


@dataclass(frozen=True)
class TagRule:
    tag: str
    pattern: re.Pattern[str] | None = None
    categories: frozenset[str] = frozenset()
    blocks: frozenset[str] = frozenset()
    chunk_kinds: frozenset[str] = frozenset()


@dataclass(frozen=True)
class GrammarConfig:
    """A validated, compiled config. Build it with :func:`load_config` or :func:`parse_config`."""

    language: str
    version: str
    file_extensions: tuple[str, ...]
    string_delimiters: tuple[str, ...]
    escape_char: str
    comment_line: tuple[str, ...]
    comment_block: tuple[str, str] | None
    blocks: tuple[BlockRule, ...]
    statements: tuple[StatementRule, ...]
    tags: tuple[TagRule, ...]
    source: str = "<config>"

    @property
    def comment_prefix(self) -> str:
        """Marker used to write context headers as comments of the language (the shortest line comment)."""
        return min(self.comment_line, key=len) if self.comment_line else "#"


def load_config(path: Path) -> GrammarConfig:
    """Read, validate and compile ``path``; every problem is reported as ``name:line: $.json.path: reason``."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GrammarConfigError(f"{path.name}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    try:
        return parse_config(data, source=path.name)
    except GrammarConfigError as exc:
        raise GrammarConfigError(_with_lines(str(exc), path.name, text)) from None


def _with_lines(message: str, source: str, text: str) -> str:
    """``name: $.a[1].b: reason`` -> ``name:LINE: $.a[1].b: reason``, LINE where that value starts in the file.

    JSON is YAML, whose composer keeps every node's position (the json module keeps none); a file YAML cannot read
    (a tab where YAML wants none) keeps the path alone, which still names the value exactly.
    """
    import yaml

    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return message
    prefix = f"{source}: $"
    out = []
    for line in message.splitlines():
        if line.startswith(prefix):
            where = line[len(source) + 2 :].split(": ", 1)[0]
            found = _node_line(root, where)
            if found is not None:
                line = f"{source}:{found}: {line[len(source) + 2 :]}"
        out.append(line)
    return "\n".join(out)


def _node_line(root: Any, json_path: str) -> int | None:
    """1-based line of the node at ``$.a[1].b`` (jsonschema's ``json_path``), or of its nearest existing parent."""
    node, line = root, None
    for key, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", json_path.removeprefix("$")):
        line = node.start_mark.line + 1 if node is not None else line
        if node is None:
            break
        if key and hasattr(node, "value") and isinstance(node.value, list) and node.tag.endswith(":map"):
            node = next((v for k, v in node.value if getattr(k, "value", None) == key), None)
        elif index and node.tag.endswith(":seq") and int(index) < len(node.value):
            node = node.value[int(index)]
        else:
            node = None
    return node.start_mark.line + 1 if node is not None else line


def parse_config(data: Any, source: str = "<config>") -> GrammarConfig:
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        raise GrammarConfigError("\n".join(f"{source}: {e.json_path}: {e.message}" for e in errors))

    problems: list[str] = []

    def rx(value: str, where: str) -> re.Pattern[str]:
        try:
            return re.compile(value)
        except re.error as exc:
            problems.append(f"{source}: {where}: invalid regular expression: {exc}")
            return re.compile(r"(?!)")

    lexer = data["lexer"]
    if not lexer["line_oriented"]:
        problems.append(f"{source}: $.lexer.line_oriented: only line-oriented languages are supported (got false)")
    blocks = tuple(
        BlockRule(
            name=b["name"],
            open=rx(b["open"], f"$.blocks[{i}].open"),
            close=rx(b["close"], f"$.blocks[{i}].close"),
            middle=tuple(rx(m, f"$.blocks[{i}].middle[{j}]") for j, m in enumerate(b.get("middle", []))),
            signature=b.get("signature"),
            top_level_only=bool(b.get("top_level_only", False)),
        )
        for i, b in enumerate(data["blocks"])
    )
    block_names = {b.name for b in blocks}
    statements: list[StatementRule] = []
    for i, s in enumerate(data["statements"]):
        pattern = rx(s["pattern"], f"$.statements[{i}].pattern")
        ref = s.get("refers_to")
        if ref is not None and ref not in block_names:
            problems.append(
                f"{source}: $.statements[{i}].refers_to: unknown block {ref!r} (blocks: {sorted(block_names)})"
            )
        if ref is not None and "ref" not in pattern.groupindex:
            problems.append(f"{source}: $.statements[{i}].pattern: refers_to needs a named group (?P<ref>...)")
        statements.append(StatementRule(s["category"], pattern, ref))
    categories = {s.category for s in statements}
    tags: list[TagRule] = []
    for i, t in enumerate(data["semantic_tags"]):
        for key, what, known in (("categories", "category", categories), ("blocks", "block", block_names)):
            for j, name in enumerate(t.get(key, [])):
                if name not in known:
                    problems.append(f"{source}: $.semantic_tags[{i}].{key}[{j}]: unknown {what} {name!r}")
        tags.append(TagRule(
            tag=t["tag"],
            pattern=rx(t["pattern"], f"$.semantic_tags[{i}].pattern") if "pattern" in t else None,
            categories=frozenset(t.get("categories", [])),
            blocks=frozenset(t.get("blocks", [])),
            chunk_kinds=frozenset(t.get("chunk_kinds", [])),
        ))
    if problems:
        raise GrammarConfigError("\n".join(problems))
    cb = lexer["comment_block"]
    return GrammarConfig(
        language=data["language"],
        version=data["version"],
        file_extensions=tuple(data["file_extensions"]),
        string_delimiters=tuple(lexer["string_delimiters"]),
        escape_char=lexer["escape_char"],
        comment_line=tuple(sorted(lexer["comment_line"], key=len, reverse=True)),
        comment_block=(cb["open"], cb["close"]),
        blocks=blocks,
        statements=tuple(statements),
        tags=tuple(tags),
        source=source,
    )


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
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    blanked = blank(text, cfg).split("\n")[: len(lines)]
    warnings: list[str] = []
    top: list[Node] = []
    stack: list[Node] = []
    recovered = 0

    def add(node: Node) -> None:
        (stack[-1].children if stack else top).append(node)

    def close_recovered(upto: int, at_line: int, why: str) -> None:
        nonlocal recovered
        while len(stack) > upto:
            b = stack.pop()
            b.end, b.recovered = max(b.start, at_line), True
            recovered += 1
            warnings.append(f"{path}:{b.start}: unclosed '{b.name}' block, closed at line {b.end} ({why})")

    i = 0
    while i < len(lines):
        no, code = i + 1, blanked[i]
        if not code.strip():
            if lines[i].strip():  # comment only
                sib = stack[-1].children if stack else top
                if sib and sib[-1].kind == "comment" and sib[-1].end == no - 1:
                    sib[-1].end = no
                else:
                    add(Node("comment", no, no))
            i += 1
            continue
        closer = next(
            (k for k in range(len(stack) - 1, -1, -1) if (open_rule := stack[k].rule) and open_rule.close.search(code)),
            None,
        )
        if closer is not None:
            close_recovered(closer + 1, no - 1, f"'{stack[-1].name}' cannot be closed by line {no}")
            b = stack.pop()
            b.end = no
            b.children.append(Node("close", no, no))
            i += 1
            continue
        if any(r.close.search(code) for r in cfg.blocks) and not any(r.open.search(code) for r in cfg.blocks):
            warnings.append(f"{path}:{no}: closing line without an open block (kept as a statement)")
        elif stack and stack[-1].rule and any(m.search(code) for m in stack[-1].rule.middle):
            add(Node("middle", no, no))
            i += 1
            continue
        opened = next(((r, m) for r in cfg.blocks if (m := r.open.search(code))), None)
        if opened is not None:
            rule, match = opened
            if rule.top_level_only and stack:
                close_recovered(0, no - 1, f"'{rule.name}' opens at line {no}")
            caps = {
                k: lines[i][match.start(k):match.end(k)].strip() for k, v in match.groupdict().items() if v is not None
            }
            node = Node("block", no, no, rule.name, captures=caps, rule=rule)
            add(node)
            stack.append(node)
            i += 1
            continue
        # a statement, continued over the next lines while brackets are open (multi-line calls, literals)
        end, depth = i, _depth(code)
        while depth > 0 and end + 1 < len(lines) and not _structural(blanked[end + 1], cfg):
            end += 1
            depth += _depth(blanked[end])
        joined = " ".join(blanked[i:end + 1])
        stmt = Node("stmt", no, end + 1, "unclassified")
        for srule in cfg.statements:
            m = srule.pattern.search(joined)
            if m:
                stmt.name = srule.category
                if srule.refers_to and m.groupdict().get("ref"):
                    stmt.ref = m.group("ref")
                break
        add(stmt)
        i = end + 1
    last = len(lines)
    while last > 0 and not lines[last - 1].strip():
        last -= 1
    close_recovered(0, last, "end of file")
    return Scan(top, lines, blanked, warnings, recovered)
