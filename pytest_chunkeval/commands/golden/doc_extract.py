"""Finding documented declarations in one file with tree-sitter: the doc text, the comment's lines, the span.

Only comments that can be blanked line by line qualify: a comment sharing a line with code cannot be removed
without moving that code, and keeping line numbers unchanged is what keeps every relevant span exact after the
corpus copy is rewritten.
"""
from __future__ import annotations

import ast as pyast
import inspect
import re
from dataclasses import dataclass, field
from typing import Any

from pytest_chunkeval.chunking.ast.parsing import parse_bytes, parser_for
from pytest_chunkeval.commands.golden.doc_langs import DocLanguage
from pytest_chunkeval.commands.golden.text import first_sentence, strip_doc_markup

_FUNCTION_LIKE = re.compile(r"function|method|constructor|closure|lambda|arrow")


@dataclass
class DocCandidate:
    """A declaration with a documentation comment: ``doc_rows`` are 0-based inclusive rows to blank."""

    path: str
    language: str
    name: str
    kind: str
    sentence: str | None
    doc_rows: tuple[int, int]
    span: tuple[int, int]  # 1-based inclusive lines of the declaration
    owners: tuple[str, ...] = ()  # names of enclosing declarations (a method's class)
    drop: str | None = None  # why it cannot be a query (set by extraction or later filters)
    query: str = ""


@dataclass
class FileDocs:
    candidates: list[DocCandidate] = field(default_factory=list)
    has_error: bool = False


def _text(source: bytes, node: Any) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _end_row(node: Any) -> int:
    """Last row a node occupies; a Rust ``///`` node owns its newline and so 'ends' at column 0 of the next row."""
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


def _alone_on_lines(lines: list[str], node: Any) -> bool:
    """True when nothing but white space shares the node's first and last line."""
    (srow, scol), (erow, ecol) = node.start_point, node.end_point
    if lines[srow].encode("utf-8")[:scol].strip():
        return False
    if ecol == 0 and erow > srow:
        return True
    return not lines[erow].encode("utf-8")[ecol:].strip()


def _name(node: Any, source: bytes) -> str:
    """The declared name: a ``name`` field, a C-style declarator, or the first identifier below (Go type specs,
    JavaScript ``const`` declarators)."""
    for candidate in (node, *node.named_children[:3]):
        for fname in ("name", "declarator", "type"):
            sub = candidate.child_by_field_name(fname)
            depth = 0
            while sub is not None and depth < 5:
                if "identifier" in sub.type or sub.type in ("name", "simple_identifier", "constant"):
                    return _text(source, sub)
                nxt = sub.child_by_field_name("declarator") or sub.child_by_field_name("name")
                sub, depth = nxt, depth + 1
    for child in node.named_children:
        if "identifier" in child.type:
            return _text(source, child)
    return ""


def _comment_text(raw: str) -> str:
    """Comment markers removed: ``///``, ``//``, ``/** ... */`` with leading ``*`` on each line."""
    if raw.lstrip().startswith("/*"):
        body = re.sub(r"^\s*/\*+!?", "", raw)
        body = re.sub(r"\*+/\s*$", "", body)
        return "\n".join(re.sub(r"^\s*\*(?!\*)\s?", "", line) for line in body.split("\n"))
    return "\n".join(re.sub(r"^\s*//[/!]?\s?", "", line) for line in raw.split("\n"))


def doc_sentence(raw_doc: str) -> str | None:
    """The first sentence of a cleaned documentation text (block tags and XML sections other than summary cut)."""
    summary = re.search(r"<summary>(.*?)</summary>", raw_doc, re.DOTALL | re.IGNORECASE)
    text = summary.group(1) if summary else raw_doc
    kept: list[str] = []
    for line in text.split("\n"):
        if re.match(r"^\s*@\w", line) or re.match(r"^\s*(#\s+(Examples?|Panics|Errors|Safety)|```)", line):
            break  # JSDoc/Javadoc block tags, Rust doc sections and code fences end the summary
        kept.append(line)
    return first_sentence(strip_doc_markup("\n".join(kept)))


def _python_docstring(node: Any, source: bytes, lines: list[str]) -> tuple[Any, str | None, str] | None:
    """The docstring node of a Python def/class, why it cannot be used (None: usable) and its cleaned text."""
    body = node.child_by_field_name("body")
    if body is None or not body.named_children:
        return None
    first = body.named_children[0]
    if first.type != "expression_statement" or first.named_child_count != 1 or first.named_children[0].type != "string":
        return None
    try:
        value = pyast.literal_eval(_text(source, first))
    except (SyntaxError, ValueError):
        return first, "unreadable_doc", ""
    if not isinstance(value, str):
        return first, "unreadable_doc", ""
    doc = inspect.cleandoc(value)
    rest = [s for s in body.named_children[1:] if s.type != "comment"]
    if first.start_point[0] == node.start_point[0] or not _alone_on_lines(lines, first):
        return first, "doc_shares_line", doc
    if rest and rest[0].start_point[0] <= _end_row(first):
        return first, "doc_shares_line", doc
    if not rest or all(_trivial_python(s, source) for s in rest):
        return first, "trivial_body", doc  # blanking would leave an empty block, and there is no code to find
    return first, None, doc


def _trivial_python(stmt: Any, source: bytes) -> bool:
    text = _text(source, stmt).strip()
    return stmt.type == "pass_statement" or text in ("...",) or text.startswith("raise NotImplementedError") \
        or (stmt.type == "expression_statement" and stmt.named_child_count == 1
            and stmt.named_children[0].type == "string")


def _preceding_doc(
    anchor: Any, source: bytes, lang: DocLanguage, comment_types: frozenset[str]
) -> tuple[list[Any], int] | None:
    """The doc comment nodes right above ``anchor`` (skipping allowed in-between nodes) and the span's first row."""
    start_row = anchor.start_point[0]
    node = anchor.prev_named_sibling
    next_row = start_row
    while node is not None and node.type in lang.between and next_row - _end_row(node) <= 1:
        start_row = next_row = node.start_point[0]
        node = node.prev_named_sibling
    docs: list[Any] = []
    # A block doc comment (``/** ... */``) may stand one blank line above its declaration: the jshttp/Express
    # style (``*/``, a blank line, ``function morgan (format, options) {``) of every JSDoc of expressjs/express and
    # expressjs/morgan, which a one-line gap would leave unseen. Line comments (``//``, ``///``) stay adjacent: a
    # blank line ends a run of them.
    gap = 1 if lang.line_style else 2
    while node is not None and node.type in comment_types and next_row - _end_row(node) <= gap:
        if not lang.doc_comment.match(_text(source, node).lstrip()):
            break
        docs.insert(0, node)
        if not lang.line_style:
            break
        next_row = node.start_point[0]
        node = node.prev_named_sibling
    return (docs, start_row) if docs else None


def extract_docs(path: str, text: str, lang: DocLanguage) -> FileDocs:
    """Every documented declaration of one file (parse errors flag the file; its candidates are dropped)."""
    source = text.encode("utf-8")
    tree = parse_bytes(parser_for(lang.spec), source, None, lang.spec)
    lines = text.split("\n")
    out = FileDocs(has_error=tree.root_node.has_error)
    wrappers = dict(lang.wrappers)
    comment_types = frozenset(lang.spec.comments)
    stack: list[tuple[Any, tuple[str, ...], bool]] = [(tree.root_node, (), False)]
    while stack:
        node, owners, in_function = stack.pop()
        name = ""
        if node.type in lang.declarations:
            name = _name(node, source)
            parent = node.parent
            anchor = parent if parent is not None and parent.type in wrappers else node
            cand = _candidate(path, node, anchor, name, owners, in_function, source, lines, lang, comment_types)
            if cand is not None:
                out.candidates.append(cand)
        child_owners = owners + (name,) if name else owners
        child_in_function = in_function or bool(_FUNCTION_LIKE.search(node.type) and node.type in lang.declarations)
        for child in reversed(node.named_children):
            stack.append((child, child_owners, child_in_function))
    out.candidates.sort(key=lambda c: c.span)
    return out


def _candidate(path: str, node: Any, anchor: Any, name: str, owners: tuple[str, ...], in_function: bool,
               source: bytes, lines: list[str], lang: DocLanguage,
               comment_types: frozenset[str]) -> DocCandidate | None:
    span = (anchor.start_point[0] + 1, _end_row(anchor) + 1)
    if lang.style == "docstring":
        found = _python_docstring(node, source, lines)
        if found is None:
            return None
        doc_node, drop, raw = found
        rows = (doc_node.start_point[0], _end_row(doc_node))
        sentence = first_sentence(raw) if raw else None
    else:
        found_docs = _preceding_doc(anchor, source, lang, comment_types)
        if found_docs is None:
            return None
        docs, start_row = found_docs
        span = (start_row + 1, span[1])
        rows = (docs[0].start_point[0], _end_row(docs[-1]))
        drop = None if all(_alone_on_lines(lines, d) for d in docs) else "doc_shares_line"
        raw = "\n".join(_comment_text(_text(source, d).rstrip("\r\n")) for d in docs)
        sentence = doc_sentence(raw)
    if in_function and drop is None:
        drop = "nested_in_function"
    if sentence is None and drop is None:
        drop = "no_sentence"
    return DocCandidate(path=path, language=lang.name, name=name, kind=node.type, sentence=sentence,
                        doc_rows=rows, span=span, owners=owners, drop=drop)


def blank_rows(text: str, rows: list[tuple[int, int]]) -> str:
    """``text`` with every line in ``rows`` (0-based inclusive ranges) emptied; the line count never changes."""
    lines = text.split("\n")
    for start, end in rows:
        for i in range(start, end + 1):
            lines[i] = "\r" if lines[i].endswith("\r") else ""
    return "\n".join(lines)
