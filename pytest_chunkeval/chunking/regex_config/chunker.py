"""Chunks from a config-driven scan: the ADR's "grammar definition chunking", generic over languages.

What becomes a chunk (decisions, with the reason):

* **Top-level blocks** (a function, a top-level if/startLoop/try/go_async) are one chunk each, with the comment
  lines directly above them (their docs). A nested block is *not* a second chunk: it is already inside its
  parent's chunk, and duplicating it would let one function occupy several of the top-k slots and inflate the
  index (the ADR counted 33 files -> 89 chunks, i.e. roughly signature + block + statements per file).
* **Oversized blocks** (header + source over ``max_chunk_size`` in ``size_unit``) are split, cAST-style: runs of
  their statements are packed up to the budget, a nested block too big on its own is split recursively, and every
  part carries the enclosing openers (the function signature) as its header. So no chunk is truncated by the
  embedder for nothing, and every part still says where it lives. No part is a lone opener or closer line: a small run
  before an oversized nested block travels with it, and a small tail joins the previous part (or takes its
  last statement along).
* **Consecutive top-level statements** (imports, globals, registerEndpoint lines) group into one chunk, packed up
  to the same budget.
* **Signature chunks** (``kind="signature"``): ``function name(a, b)`` plus one line of tags, for every block whose
  rule has a ``signature`` template; they answer API-level questions with almost no text.
* **Semantic overlap**: a chunk's header (``body`` stays the exact source slice) names its context: the enclosing
  signature for parts, the statements that refer to the block (``refers_to``: the registerEndpoint line naming a
  handler) for the block and its signature, and the referenced block's signature for the referring statements.

Size contract (as for the AST chunker): ``max_chunk_size`` bounds the whole embedded text, header included; in
``tokens`` it counts with the model in use and may be ``WINDOW`` (that model's window). Context
headers are best effort: lines are dropped until the chunk fits. Only a single statement line longer than the
budget can exceed it (lines are never cut), and the quality checks report that.

Every non-blank line is in the body of exactly one non-signature chunk, so the strategy is lossless.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.metadata_text import render_tags
from pytest_chunkeval.chunking.regex_config.config import GrammarConfig, load_config
from pytest_chunkeval.chunking.regex_config.scanner import Node, Scan, scan
from pytest_chunkeval.chunking.sizing import check_unit
from pytest_chunkeval.chunking.strategy_base import WINDOW, Strategy
from pytest_chunkeval.core.chunk import Chunk, line_starts

MAX_CONTEXT_CHARS = 200


def _walk(nodes: Iterable[Node]) -> Iterable[Node]:
    for n in nodes:
        yield n
        yield from _walk(n.children)


class _FileChunks:
    """Chunk building for one file (holds the per-file state so the strategy object stays reusable)."""

    def __init__(self, owner: GrammarChunker, path: str, text: str, result: Scan) -> None:
        self.o, self.cfg, self.path, self.text, self.scan = owner, owner.config, path, text, result
        limit = owner.limit
        assert limit is not None
        self.limit: int = limit  # max_chunk_size, WINDOW resolved against the model in use
        self.starts = line_starts(text)
        self.chunks: list[Chunk] = []
        # the last emit(): (start, end, kind, nodes, context, meta, index in chunks), for merging a small tail
        self._last: tuple[int, int, str, list[Node], list[str], dict[str, Any], int] | None = None
        everything = list(_walk(result.nodes))
        self.refs: dict[str, list[Node]] = {}
        for n in everything:
            if n.kind == "stmt" and n.ref:
                self.refs.setdefault(n.ref, []).append(n)
        self.named = {n.captures["name"]: n for n in everything if n.kind == "block" and "name" in n.captures}

    # -- text helpers --------------------------------------------------------------------------------------------
    def span(self, a: int, b: int) -> tuple[int, int]:
        begin = self.starts[a - 1]
        end = self.starts[b] - 1 if b < len(self.starts) else len(self.text)
        return begin, max(begin, end)

    def size(self, a: int, b: int, header: str = "") -> int:
        begin, end = self.span(a, b)
        return self.o.measure(header + self.text[begin:end])

    def fits(self, a: int, b: int, context: list[str]) -> bool:
        return self.size(a, b, self.header(context)) <= self.limit

    def signature(self, block: Node) -> str:
        """The rendered signature (template over captures, params normalised) or the stripped opener line."""
        rule = block.rule
        if rule is not None and rule.signature:
            caps = dict(block.captures)
            if "params" in caps:
                caps["params"] = ", ".join(p.strip() for p in caps["params"].split(",") if p.strip())
            try:
                return rule.signature.format(**caps)
            except (KeyError, IndexError):
                pass
        return self.scan.lines[block.start - 1].strip()

    def tags(self, a: int, b: int, nodes: list[Node], chunk_kind: str | None = None) -> list[str]:
        inside = [n for n in _walk(nodes)]
        cats = {n.name for n in inside if n.kind == "stmt"}
        kinds = {n.name for n in inside if n.kind == "block"}
        lines = self.scan.blanked[a - 1:b]
        found = []
        for t in self.cfg.tags:
            if (
                (t.categories & cats)
                or (t.blocks & kinds)
                or (chunk_kind is not None and chunk_kind in t.chunk_kinds)
                or (t.pattern is not None and any(t.pattern.search(x) for x in lines))
            ):
                found.append(t.tag)
        return sorted(set(found))

    def header(self, context: list[str]) -> str:
        if not context or not self.o.overlap:
            return ""
        seen: list[str] = []
        for c in context:
            c = c if len(c) <= MAX_CONTEXT_CHARS else c[: MAX_CONTEXT_CHARS - 3] + "..."
            if c not in seen:
                seen.append(c)
        return "".join(f"{self.cfg.comment_prefix} context: {c}\n" for c in seen[:3])

    def referrers(self, block: Node) -> list[str]:
        name = block.captures.get("name")
        return [self.scan.lines[n.start - 1].strip() for n in self.refs.get(name, [])] if name else []

    # -- emission ------------------------------------------------------------------------------------------------
    def emit(self, a: int, b: int, kind: str, nodes: list[Node], context: list[str], **meta: Any) -> None:
        begin, end = self.span(a, b)
        body = self.text[begin:end]
        original, context = list(context), list(context)
        header = self.header(context)
        while context and self.o.measure(header + body) > self.limit:
            context.pop()  # the innermost / last-added context goes first
            header = self.header(context)
        inside = list(_walk(nodes))
        metadata = {
            "tags": self.tags(a, b, nodes, kind),
            "categories": sorted({n.name for n in inside if n.kind == "stmt"}),
            "blocks": sorted({n.name for n in inside if n.kind == "block"}),
            **meta,
        }
        if header:
            metadata["context"] = header.splitlines()
        start_byte = len(self.text[:begin].encode("utf-8"))
        self._last = (a, b, kind, list(nodes), list(original), dict(meta), len(self.chunks))
        self.chunks.append(Chunk(
            text=header + body, path=self.path, start_line=a, end_line=b, start_byte=start_byte,
            end_byte=start_byte + len(body.encode("utf-8")), strategy=self.o.name, kind=kind,
            header=header, body=body if header else None, metadata=metadata,
        ))

    def emit_signature(self, block: Node) -> None:
        sig = self.signature(block)
        tag_line = render_tags(self.tags(block.start, block.end, [block]))
        lines = [sig] + ([f"{self.cfg.comment_prefix} {tag_line}"] if tag_line else [])
        lines += (
            [f"{self.cfg.comment_prefix} context: {r}" for r in self.referrers(block)[:2]] if self.o.overlap else []
        )
        text = "\n".join(lines)
        begin, end = self.span(block.start, block.start)
        start_byte = len(self.text[:begin].encode("utf-8"))
        self.chunks.append(Chunk(
            text=text, path=self.path, start_line=block.start, end_line=block.start, start_byte=start_byte,
            end_byte=start_byte + len(self.text[begin:end].encode("utf-8")), strategy=self.o.name,
            kind="signature", header=text, body="",
            metadata={"signature": sig, "block": block.name, "tags": self.tags(block.start, block.end, [block])},
        ))
        self.o.count("signatures")

    def pack(self, items: list[Node], kind: str, context: list[str], first_context: list[str] | None = None,
             **meta: Any) -> None:
        """Greedy runs of ``items`` (in order) up to the size budget.

        An oversized block among them is split on its own, taking a small preceding run along as its lead (so an
        opener line never stands alone). For the parts of a split block (``first_context`` given: the context of
        the part holding the opener), a small last run (a closer, a final ``addResult``) is merged into the chunk
        just emitted when that still fits, instead of becoming a tiny chunk of its own.
        """
        run: list[Node] = []
        part = [int(meta.get("part", 0))]

        def ctx(nodes: list[Node]) -> list[str]:
            return first_context if first_context is not None and any(n.kind == "open" for n in nodes) else context

        def flush() -> None:
            if run:
                if "part" in meta:  # parts of one split block are numbered in order
                    meta["part"] = part[0]
                    part[0] += 1
                refs = [
                    self.signature(self.named[n.ref]) for n in _walk(run) if n.kind == "stmt" and n.ref in self.named
                ]
                only_comments = all(n.kind == "comment" for n in run)
                self.emit(run[0].start, run[-1].end, "comment" if only_comments and kind == "statements" else kind,
                          run, ctx(run) + refs, **meta)
                run.clear()

        for i, item in enumerate(items):
            if item.kind == "block" and not self.fits(item.start, item.end, context + self.referrers(item)):
                lead: list[Node] = []
                if run and self.size(run[0].start, run[-1].end) <= self.limit // 4:
                    lead, run = run, []
                else:
                    flush()
                self.block(item, lead, context)
                continue
            if run and not self.fits(run[0].start, item.end, ctx(run + [item])):
                # no orphan tail: when only a few small lines are left (a closer, a last addResult), the run's
                # last node moves over to keep them company
                rest_small = all(n.kind != "block" for n in items[i:]) and \
                    self.size(item.start, items[-1].end) <= self.limit // 8
                carried = [run.pop()] if rest_small and len(run) > 1 else []
                flush()
                run.extend(carried)
            run.append(item)
        if run and first_context is not None and self._last is not None and self._last[6] == len(self.chunks) - 1:
            a, b, last_kind, nodes, last_ctx, last_meta, _ = self._last
            between = self.scan.lines[b:run[0].start - 1]
            if not any(line.strip() for line in between) and self.fits(a, run[-1].end, last_ctx):
                self.chunks.pop()
                self.emit(a, run[-1].end, last_kind, nodes + run, last_ctx, **last_meta)
                run.clear()
        flush()

    def block(self, block: Node, lead: list[Node], context: list[str]) -> None:
        start = lead[0].start if lead else block.start
        own = context + self.referrers(block)
        meta: dict[str, Any] = {"block": block.name}
        if "name" in block.captures:
            meta["name"] = block.captures["name"]
        if block.recovered:
            meta["recovered"] = True
        if block.rule is not None and block.rule.signature and self.o.signatures:
            self.emit_signature(block)
        if self.fits(start, block.end, own) or not block.children:
            self.emit(start, block.end, block.name, lead + [block], own, **meta)
            return
        self.o.count("split_blocks")
        # the part holding the opener needs no context for this block; later parts get its signature
        opener = Node("open", block.start, block.start)
        self.pack(lead + [opener] + block.children, block.name, own + [self.signature(block)], first_context=own,
                  part=1, **meta)

    def build(self) -> list[Chunk]:
        pending: list[Node] = []
        for node in self.scan.nodes:
            if node.kind == "block":
                lead: list[Node] = []
                if pending and pending[-1].kind == "comment" and pending[-1].end == node.start - 1:
                    lead = [pending.pop()]
                self.pack(pending, "statements", [])
                pending = []
                self.block(node, lead, [])
            else:
                pending.append(node)
        self.pack(pending, "statements", [])
        self.chunks.sort(key=lambda c: (c.start_line, c.kind != "signature", c.end_line))
        return self.chunks


class GrammarChunker(Strategy):
    """Chunker driven by a grammar config (JSON); ``signatures``/``overlap`` switch off the ADR's two extras."""

    name = "grammar_definition"
    description = "config-driven blocks + grouped statements, semantic tags, signature chunks, semantic overlap"
    stat_keys = ("files", "blocks", "recovered_blocks", "parse_errors", "split_blocks", "signatures",
                 "unclassified_statements", "warnings")

    def __init__(self, config_path: Path, *, name: str | None = None, signatures: bool = True, overlap: bool = True,
                 max_chunk_size: int | str = 1000, size_unit: str = "chars") -> None:
        self.config_path = Path(config_path)
        self.config: GrammarConfig = load_config(self.config_path)
        self.extensions = self.config.file_extensions
        self.signatures, self.overlap = signatures, overlap
        if max_chunk_size == WINDOW and size_unit != "tokens":
            raise ValueError(f"max_chunk_size={WINDOW!r} needs size_unit='tokens', not {size_unit!r}")
        self.max_chunk_size, self.size_unit = max_chunk_size, check_unit(size_unit)
        self.version = f"2:sig={int(signatures)}:overlap={int(overlap)}:max={max_chunk_size}{size_unit}"
        if name:
            self.name = name

    def source_files(self) -> list[Path]:
        return [self.config_path]

    def chunk(self, path: str, text: str) -> list[Chunk]:
        if not text.strip():
            return []
        result = scan(text, self.config, path)
        nodes = list(_walk(result.nodes))
        self.count("files")
        self.count("blocks", sum(n.kind == "block" for n in nodes))
        self.count("unclassified_statements", sum(n.kind == "stmt" and n.name == "unclassified" for n in nodes))
        self.count("recovered_blocks", result.recovered)
        if result.recovered:  # a block never closed: the config could not read the file's structure from there
            self.count("parse_errors")
            self.parse_failed(path, [(n.start, n.end) for n in nodes if n.recovered])
        for warning in result.warnings:
            self.warn(warning)
        return _FileChunks(self, path, text, result).build()
