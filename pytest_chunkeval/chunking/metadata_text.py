"""The one place where structural metadata becomes text for the embedder and the full-text index.

``ebnf_metadata`` prepends :func:`render_header` to each file; the grammar-definition chunker writes its signature
chunks' tag line with :func:`render_tags`. Keeping the wording here means a change to how metadata reads is one
diff, visible in every strategy's snapshots.

The embedder reads only 256 word pieces, and every header token is a body token lost, so the header is capped
(:data:`MAX_HEADER_CHARS`, lists shortened with "+N more") and uses words a query would use ("endpoints",
"functions", command names) rather than JSON punctuation.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

MAX_HEADER_CHARS = 480
MAX_LINE_CHARS = 160


def _cap_list(items: list[str], limit: int = MAX_LINE_CHARS) -> str:
    """Join ``items`` with ", " and stop before ``limit`` characters, saying how many were left out."""
    out: list[str] = []
    used = 0
    for i, item in enumerate(items):
        rest = len(items) - i
        if out and used + len(item) + 2 > limit - len(f", +{rest} more"):
            out.append(f"+{rest} more")
            break
        out.append(item)
        used += len(item) + 2
    return ", ".join(out)


def render_tags(tags: Iterable[str], label: str = "tags") -> str:
    """``tags: uses_orm, returns_result`` (sorted, so the line is stable); empty when there are no tags."""
    names = sorted(set(tags))
    return f"{label}: {', '.join(names)}" if names else ""


def render_header(summary: dict[str, Any]) -> str:
    """A few ``key: value`` lines from an AST summary (see ``lark.ast_summary.summarize``), at most MAX_HEADER_CHARS.

    Order is by retrieval value for API questions: endpoints, then functions, then commands, then block shape.
    Lines with nothing to say are left out, so a script without functions gets no "functions:" line.
    """
    lines: list[str] = []
    endpoints = [f"{e['method']} {e['path']} -> {e['handler']}" for e in summary.get("endpoints", [])]
    if endpoints:
        lines.append("endpoints: " + _cap_list(endpoints))
    functions = [f"{f['name']}({', '.join(f['params'])})" for f in summary.get("functions", [])]
    if functions:
        lines.append("functions: " + _cap_list(functions))
    commands = summary.get("commands", {})
    if commands:
        lines.append("commands: " + _cap_list([f"{cat} {' '.join(names)}" for cat, names in commands.items()], 200))
    kinds = summary.get("block_kinds", {})
    if kinds:
        shape = ", ".join(f"{k} x{n}" for k, n in kinds.items())
        nesting = summary.get("nesting", {})
        if nesting:
            shape += "; nested " + ", ".join(nesting)
        lines.append("blocks: " + shape[:MAX_LINE_CHARS])
    if summary.get("imports"):
        lines.append("imports: " + _cap_list(summary["imports"]))
    header = ""
    for line in lines:
        if len(header) + len(line) + 1 > MAX_HEADER_CHARS:
            break
        header += line + "\n"
    return header
