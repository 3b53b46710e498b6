"""Turn a Lark parse tree of a line-oriented language into (a) an AST summary and (b) a readable AST text.

The ADR's two EBNF strategies need exactly these: ``ebnf_metadata`` puts the summary into chunk metadata and a
short header; ``ebnf_full`` indexes the AST text instead of the code. Nothing here names an AVAP command: the
language knowledge comes from the grammar's naming conventions (documented at the top of ``strategies/avap.lark``):

* rules ending in ``_block`` are blocks (kind = the prefix), ``func_name``/``params`` name a function;
* rules named ``cmd_<category>`` are commands whose first child is the command-name token;
* ``endpoint_path``/``endpoint_method``/``endpoint_handler`` mark an endpoint registration;
* ``db_query`` is a method-call command of category ``database`` (``conn.query(...)``);
* doc comments are the comment tokens the parser skipped, associated by line like Python docstrings.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, cast

from lark import Token, Tree

BLOCK_SUFFIX = "_block"
COMMAND_PREFIX = "cmd_"
# Tree nodes that are pure structure in the serialisation (their children are printed instead).
_CLAUSES = {"else_clause": "else", "handler": "on error"}


def _text(node: Any) -> str:
    return str(node) if isinstance(node, Token) else render_expr(node)


def _args(children: list[Any]) -> str:
    return ", ".join(render_expr(c) for c in children)


def _slice(ch: list[Any]) -> str:
    return ":".join(render_expr(c) for c in ch) if len(ch) == 2 else f"{render_expr(ch[0])}:" if ch else ":"


def _operands(ch: list[Any], words: bool = False) -> list[str]:
    """Operands and operator tokens in order; with ``words``, an operator token right after another joins it
    (``not in``, ``is not``)."""
    parts: list[str] = []
    for i, c in enumerate(ch):
        if words and isinstance(c, Token) and i and isinstance(ch[i - 1], Token):
            parts[-1] += f" {c}"
        else:
            parts.append(_text(c))
    return parts


#: How each expression rule prints, by rule name: a table rather than an if-chain, one line per construct.
_RENDER: dict[str, Callable[[list[Any]], str]] = {
    "var": lambda ch: str(ch[0]),
    "number": lambda ch: str(ch[0]),
    "string": lambda ch: str(ch[0]),
    "global_var": lambda ch: f"${ch[0]}",
    "true": lambda ch: "True",
    "false": lambda ch: "False",
    "none": lambda ch: "None",
    "arguments": _args,
    "list": lambda ch: f"[{_args(ch)}]",
    "tuple": lambda ch: f"({_args(ch)})",
    "dict": lambda ch: "{" + ", ".join(f"{render_expr(p.children[0])}: {render_expr(p.children[1])}" for p in ch) + "}",
    "call": lambda ch: f"{render_expr(ch[0])}({_args(ch[1:])})",
    "db_query": lambda ch: f"{render_expr(ch[0])}.query({_args(ch[1:])})",
    "index": lambda ch: f"{render_expr(ch[0])}[{render_expr(ch[1])}]",
    "slice": _slice,
    "attribute": lambda ch: f"{render_expr(ch[0])}.{ch[1]}",
    "conditional": lambda ch: f"{render_expr(ch[0])} if {render_expr(ch[1])} else {render_expr(ch[2])}",
    "or_op": lambda ch: " or ".join(render_expr(c) for c in ch),
    "and_op": lambda ch: " and ".join(render_expr(c) for c in ch),
    "not_op": lambda ch: f"not {render_expr(ch[0])}",
    "compare": lambda ch: " ".join(_operands(ch, words=True)),
    "arith": lambda ch: " ".join(_operands(ch)),
    "unary": lambda ch: "".join(_operands(ch)),
    "pow": lambda ch: f"{render_expr(ch[0])} ** {render_expr(ch[1])}",
    "endpoint_path": lambda ch: render_expr(ch[0]),
    "endpoint_method": lambda ch: render_expr(ch[0]),
    "endpoint_handler": lambda ch: render_expr(ch[0]),
}


def render_expr(node: Any) -> str:
    """Print an expression subtree back in compact, Python-like form (strings kept: they hold SQL and paths)."""
    if isinstance(node, Token):
        return str(node)
    data, ch = node.data, node.children
    render = _RENDER.get(data)
    if render is not None:
        return render(ch)
    if data.startswith(COMMAND_PREFIX):
        return f"{ch[0]}({_args(ch[1:])})"
    return " ".join(_text(c) for c in ch)


def _unquote(s: str) -> str:
    return s[1:-1] if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'" else s


def _line(node: Any) -> int:
    meta = getattr(node, "meta", None)
    return int(getattr(meta, "line", 0) or 0) if meta is not None and not getattr(meta, "empty", True) else 0


def _comment_text(tok: Token) -> str:
    """Strip comment markers so docs read as prose."""
    s = str(tok)
    if s.startswith("/*"):
        s = s[2:-2]
    lines = [ln.strip().lstrip("/").lstrip("*").strip() for ln in s.splitlines()]
    return " ".join(ln for ln in lines if ln)


def _tok_line(tok: Token) -> int:
    """A lexed token's line (lark types it ``int | None``: None only for a token built by hand, never lexed)."""
    return cast(int, tok.line)


def _tok_end_line(tok: Token) -> int:
    return cast(int, tok.end_line or tok.line)


def _docs_by_line(comments: list[Token], doc_types: tuple[str, ...]) -> dict[int, str]:
    """Map the line after each contiguous run of doc comments to the run's text (the construct it documents)."""
    docs: dict[int, str] = {}
    run: list[Token] = []
    for tok in sorted((c for c in comments if c.type in doc_types), key=_tok_line):
        if run and tok.line != _tok_end_line(run[-1]) + 1:
            docs[_tok_end_line(run[-1]) + 1] = " ".join(_comment_text(t) for t in run)
            run = []
        run.append(tok)
    if run:
        docs[_tok_end_line(run[-1]) + 1] = " ".join(_comment_text(t) for t in run)
    return docs


def file_doc(tree: Tree, comments: list[Token], doc_types: tuple[str, ...] = ("DOC_COMMENT",)) -> str:
    """Comments before the first statement (the file's header comment), like a module docstring.

    Doc comments directly above the first statement document that statement, not the file, so they are left out.
    """
    first = min((_line(c) for c in tree.children if isinstance(c, Tree) and _line(c)), default=10**9)
    attached = first in _docs_by_line(comments, doc_types)
    return " ".join(
        _comment_text(c) for c in sorted(comments, key=_tok_line)
        if _tok_line(c) < first and not (attached and c.type in doc_types)
    )


def summarize(
    tree: Tree, comments: list[Token] | None = None, doc_types: tuple[str, ...] = ("DOC_COMMENT",)
) -> dict[str, Any]:
    """Summary of one file: blocks with nesting, functions, endpoints, commands by category, calls, imports.

    Every list is in source order and every mapping sorted, so the summary (and all that is rendered from it)
    is deterministic.
    """
    docs = _docs_by_line(comments or [], doc_types)
    blocks: list[dict[str, Any]] = []
    functions: list[dict[str, Any]] = []
    endpoints: list[dict[str, Any]] = []
    commands: dict[str, set[str]] = {}
    calls: set[str] = set()
    imports: list[str] = []
    notes: list[str] = []

    def visit(node: Any, path: tuple[str, ...]) -> None:
        if not isinstance(node, Tree):
            return
        data = node.data
        if data.endswith(BLOCK_SUFFIX):
            kind = data[: -len(BLOCK_SUFFIX)]
            blocks.append({"kind": kind, "line": _line(node), "end_line": int(getattr(node.meta, "end_line", 0) or 0),
                           "depth": len(path), "parent": path[-1] if path else None})
            if kind == "function":
                name = next(
                    (str(c.children[0]) for c in node.children if isinstance(c, Tree) and c.data == "func_name"), "?"
                )
                params = next(
                    ([str(p) for p in c.children] for c in node.children if isinstance(c, Tree) and c.data == "params"),
                    [],
                )
                functions.append(
                    {"name": name, "params": params, "line": _line(node), "doc": docs.get(_line(node), "")}
                )
            path = path + (kind,)
        elif data.startswith(COMMAND_PREFIX):
            commands.setdefault(data[len(COMMAND_PREFIX):], set()).add(str(node.children[0]))
            kids = {c.data: c for c in node.children if isinstance(c, Tree)}
            if "endpoint_path" in kids:
                endpoints.append({
                    "method": _unquote(render_expr(kids["endpoint_method"])).upper(),
                    "path": _unquote(render_expr(kids["endpoint_path"])),
                    "handler": render_expr(kids["endpoint_handler"]),
                    "line": _line(node),
                })
        elif data == "db_query":
            commands.setdefault("database", set()).add("query")
        elif data == "call" and isinstance(node.children[0], Tree) and node.children[0].data == "var":
            calls.add(str(node.children[0].children[0]))
        elif data == "import_stmt":
            imports.append(_unquote(str(node.children[0])))
        elif data == "expr_stmt" and isinstance(node.children[0], Tree) and not (
            node.children[0].data in ("call", "db_query") or node.children[0].data.startswith(COMMAND_PREFIX)
        ):
            notes.append(f"line {_line(node)}: statement has no effect: {render_expr(node.children[0])}")
        for child in node.children:
            visit(child, path)

    visit(tree, ())
    nesting = Counter(f"{b['parent']}>{b['kind']}" for b in blocks if b["parent"])
    return {
        "blocks": blocks,
        "block_kinds": dict(sorted(Counter(b["kind"] for b in blocks).items())),
        "nesting": dict(sorted(nesting.items())),
        "max_depth": max((b["depth"] + 1 for b in blocks), default=0),
        "functions": functions,
        "endpoints": endpoints,
        "commands": {k: sorted(v) for k, v in sorted(commands.items())},
        "calls": sorted(calls),
        "imports": imports,
        "notes": notes,
    }


def _expr_stmt(ch: list[Any]) -> str:
    inner = ch[0]
    if isinstance(inner, Tree) and inner.data.startswith(COMMAND_PREFIX):
        return f"{inner.data[len(COMMAND_PREFIX):]} command {render_expr(inner)}"
    if isinstance(inner, Tree) and inner.data == "db_query":
        return f"database command {render_expr(inner)}"
    return f"call {render_expr(inner)}"


#: One-line statements of the AST text, by rule name (blocks and clauses hold a body: :class:`_AstText`).
_STATEMENTS: dict[str, Callable[[list[Any]], str]] = {
    "assign": lambda ch: f"set {render_expr(ch[0])} = {render_expr(ch[1])}",
    "expr_stmt": _expr_stmt,
    "return_stmt": lambda ch: "return " + (render_expr(ch[0]) if ch else "nothing"),
    "import_stmt": lambda ch: f"import {ch[0]}",
}
_NOT_STATEMENTS = ("func_name", "params", "arguments")


class _AstText:
    """The lines of :func:`serialize`, appended as the tree is walked."""

    def __init__(self, docs: dict[int, str]) -> None:
        self.docs = docs
        self.out: list[str] = []

    def emit(self, depth: int, text: str) -> None:
        self.out.append("  " * depth + text)

    def body(self, children: list[Any], depth: int) -> None:
        for c in children:
            if isinstance(c, Tree) and c.data not in _NOT_STATEMENTS:
                self.statement(c, depth)

    def statement(self, node: Tree, depth: int) -> None:
        data, ch = node.data, node.children
        if data in _STATEMENTS:
            self.emit(depth, _STATEMENTS[data](ch))
        elif data.endswith(BLOCK_SUFFIX):
            self.block(node, depth)
        elif data in _CLAUSES:
            self.emit(depth - 1, _CLAUSES[data] + ("" if not ch or isinstance(ch[0], Tree) else f" {ch[0]}"))
            self.body(ch, depth)

    def block(self, node: Tree, depth: int) -> None:
        kind = node.data[: -len(BLOCK_SUFFIX)]
        head, ch = self._head(kind, node)
        self.emit(depth, head)
        self.body(ch, depth + 1)
        self.emit(depth, f"end {kind}")

    def _head(self, kind: str, node: Tree) -> tuple[str, list[Any]]:
        """A block's first line, and the children that make its body."""
        ch = node.children
        if kind == "function":
            name = next(str(c.children[0]) for c in ch if isinstance(c, Tree) and c.data == "func_name")
            params = next(
                (", ".join(str(p) for p in c.children) for c in ch if isinstance(c, Tree) and c.data == "params"), ""
            )
            doc = self.docs.get(_line(node))
            return f"function {name}({params})" + (f"  doc: {doc}" if doc else ""), ch
        if kind == "loop":
            return f"loop {ch[0]} from {render_expr(ch[1])} to {render_expr(ch[2])}", ch[3:]
        if kind == "if":
            return f"if {render_expr(ch[0])}", ch
        if kind == "async":
            return f"async {render_expr(ch[0])}", ch[1:]
        return kind, ch


def serialize(tree: Tree, comments: list[Token] | None = None, doc_types: tuple[str, ...] = ("DOC_COMMENT",)) -> str:
    """A readable, indented rendering of the AST: one line per statement, node kinds as words, docs kept.

    This is what ``ebnf_full`` indexes instead of the code. Ordinary comments are not part of the AST and are
    dropped; doc comments and the file's header comment are kept, as a Python AST keeps docstrings.
    """
    text = _AstText(_docs_by_line(comments or [], doc_types))
    head = file_doc(tree, comments or [], doc_types)
    if head:
        text.out.append(f"doc: {head}")
    text.body(tree.children, 0)
    return "\n".join(text.out) + "\n"
