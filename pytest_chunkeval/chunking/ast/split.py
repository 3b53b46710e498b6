"""Split-then-merge over a syntax tree (the cAST recipe), producing byte spans that tile the file.

Why spans: the chunker decides *where to cut* on byte offsets only; text, lines and headers are produced once at
the end. Every span boundary lies on a node boundary or a line/character boundary, and consecutive spans share
their boundary, so the bodies concatenate back to the file exactly (lossless by construction). The spans and the
line cut are :mod:`.spans`; what each node is, read from a per-language symbol table, is :mod:`.kind_table`.

The recipe, per node list (the root's children first):

1. tile the parent's byte range by its children: the gap between two siblings is cut after its first newline
   (the tail of a line stays with the code on it, indentation goes with the next node); comments on their own
   lines travel with the node below them (a doc comment belongs to its function);
2. a child that fits is kept whole; one that does not is split recursively into its own children; a childless
   node that does not fit (a long string) is split by lines, then characters - never dropped; a tree-sitter
   ERROR node falls back to the same line splitting and is counted;
3. adjacent pieces are merged greedily while the merged span fits; with ``by_type`` two different semantic
   units (function, method, class, module, section) never share a chunk, and a unit too big for one chunk
   starts a fresh one (its signature opens a chunk instead of trailing the previous one); with ``isolate`` a
   unit does not take in the glue around it either (one vector per function, as the model reads best);
4. a last pass folds any piece under ``min_size`` into a neighbour where allowed: pieces of one split unit may
   fold together (tiny getters inside a big class), different top-level units still never mix.
"""
from __future__ import annotations

from itertools import chain, islice
from typing import Any

from pytest_chunkeval.chunking.ast.kind_table import ERROR_ENTRY, NEEDS_KIND_OF, symbol_table
from pytest_chunkeval.chunking.ast.languages import UNIT_KINDS
from pytest_chunkeval.chunking.ast.spans import Span, line_spans
from pytest_chunkeval.chunking.ast.tree import SyntaxTree, kind_of
from pytest_chunkeval.chunking.sizing import SpanSizer, _byte_span

_END = (None,)  # after the last child: :meth:`Splitter.children` places the open segment


def _common(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x is not y:
            break
        n += 1
    return a[:n]


def _gap_cut(data: bytes, end: int, start: int) -> int:
    """Where the gap between a child ending at ``end`` and the next starting at ``start`` is cut: after the gap's
    first newline, else at the next child (a comment on the code's line stays with it)."""
    nl = data.find(b"\n", end, start) if end < start else -1
    return start if nl < 0 else nl + 1


class Splitter:
    """One file's split-then-merge run; ``stats`` collects what happened (errors, fallbacks, leaf splits)."""

    def __init__(self, tree: SyntaxTree, size: SpanSizer, max_size: int, *, by_type: bool = True,
                 isolate: bool = False, stats: dict[str, int] | None = None) -> None:
        self.tree, self.spec, self.data = tree, tree.spec, tree.source
        self.size, self.max, self.by_type = size, max_size, by_type
        # isolate (needs by_type): a unit shares its chunk with nothing - glue merges only with glue, and only
        # the pieces under the minimum are folded into a unit afterwards (:func:`fold_small`)
        self.isolate = isolate and by_type
        self.ident = size is _byte_span  # ASCII text measured in chars: sizes are byte differences (no calls)
        self.stats = stats if stats is not None else {}
        self._ids = 0
        self.kinds = tree.spec.kinds
        self.has_error = tree.has_error
        self.comments = tree.spec.comments
        self.symbols = symbol_table(tree)[1]

    def _count(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n

    def run(self) -> list[Span]:
        n = len(self.data)
        if n == 0:
            return []
        root = self.tree.raw_tree.root_node
        if not root.is_error:
            try:
                return self.children(root, 0, n, ())
            except RecursionError:  # pathologically deep tree (e.g. 5,000 nested brackets): lines instead
                pass
        self._count("fallback_regions")
        return line_spans(self.data, 0, n, self.size, self.max)

    def _segments(self, children: list[Any], s: int, e: int, grouped: bool = True
                  ) -> list[tuple[int, int, list[Any], Any, str]]:
        """``(a, b, group, main, main_type)`` tiling ``[s, e)``: one per child, comments grouped with code.

        An own-line comment joins the node below it (a doc comment belongs to its function); a comment on the
        same line as the code before it stays with that code. Gaps are cut after their first newline.
        One pass, each node property read once: this loop runs for every child of every split node.
        """
        data, comments = self.data, self.spec.comments
        segs: list[tuple[int, int, list[Any], Any, str]] = []
        a = s
        group: list[Any] | None = None
        main: Any = None
        mtype = ""
        gend = 0
        pending = False  # the open group holds only own-line comments waiting for their node
        for c in children:
            t = c.type
            cs = c.start_byte
            if t in comments:
                if grouped and group is not None and (pending or data.find(b"\n", gend, cs) < 0):
                    group.append(c)  # trailing comment on the code's line, or one more own-line comment
                    gend = c.end_byte
                    continue
                new_main, new_type, new_pending = None, "", grouped
            elif pending:
                group.append(c)  # type: ignore[union-attr]
                main, mtype, gend, pending = c, t, c.end_byte, False
                continue
            else:
                new_main, new_type, new_pending = c, t, False
            if group is not None:
                nl = data.find(b"\n", gend, cs)
                b = cs if nl < 0 else nl + 1
                segs.append((a, b, group, main, mtype))
                a = b
            group, main, mtype, gend, pending = [c], new_main, new_type, c.end_byte, new_pending
        if group is not None:
            segs.append((a, e, group, main, mtype))
        return segs

    def children(self, raw: Any, s: int, e: int, ctx: tuple[Any, ...]) -> list[Span]:
        """Spans tiling ``[s, e)`` built from ``raw``'s children (merged greedily).

        The hot path of the chunker: it runs over every child of every node that does not fit. Children are
        grouped into segments on the fly (as :meth:`_segments` does: a child with the comments that travel with
        it, read from the symbol table instead of ``Node.type``), and no list is built per segment: a segment
        that fits goes straight to :meth:`_fit`; anything else (too big, or a subtree with parse errors) goes
        through :meth:`_place`, which splits, regroups and counts errors, and places what fits with :meth:`_fit`.
        """
        kids = raw.children
        if not kids:
            return line_spans(self.data, s, e, self.size, self.max, ctx, fallback=False)
        if self.has_error and raw.has_error:  # per-node error checks only where the subtree has errors
            out: list[Span] = []
            segs = self._segments(kids, s, e)
            segs.reverse()
            last = self._place(segs, None, out, ctx, True)
            if last is not None:
                out.append(last)
            return out
        return self._clean_children(kids, s, e, ctx)

    def _clean_children(self, kids: list[Any], s: int, e: int, ctx: tuple[Any, ...]) -> list[Span]:
        """:meth:`children` of a subtree without parse errors: segments formed and placed in one pass."""
        out: list[Span] = []
        data, size, max_size, ident = self.data, self.size, self.max, self.ident
        find = data.find
        symbols = self.symbols  # a subtree without errors holds no ERROR node: every symbol id is in the table
        fit, place = self._fit, self._place
        cur: Span | None = None
        c = kids[0]
        t, is_comment, tkind = symbols[c.kind_id]
        a = s  # start of the open segment
        pending = is_comment  # it holds only own-line comments waiting for their node
        if is_comment:
            main, mtype, mkind = None, "", None  # its code node (None: only comments so far), type, table kind
        else:
            main, mtype, mkind = c, t, tkind
        gend = c.end_byte  # end of its last member
        first = 0  # index of its first member
        i = 1  # children read so far
        for c in chain(islice(kids, 1, None), _END):
            if c is None:  # past the last child: the open segment ends where the parent does
                b = e
            else:
                t, is_comment, tkind = symbols[c.kind_id]
                cs = c.start_byte
                if is_comment:
                    if pending or find(b"\n", gend, cs) < 0:
                        gend = c.end_byte  # trailing comment on the code's line, or one more own-line comment
                        i += 1
                        continue
                elif pending:
                    main, mtype, mkind, gend, pending = c, t, tkind, c.end_byte, False
                    i += 1
                    continue
                # the gap is cut after its first newline; usually the gap starts with one, or there is no gap
                b = gend + 1 if gend < cs and data[gend] == 10 else _gap_cut(data, gend, cs)
            # place segment [a, b): kids[first:i], ``main`` its code node
            if (b - a if ident else size(a, b)) <= max_size:
                cur = fit(a, b, main, mtype, mkind, cur, out, ctx)
            else:
                cur = place([(a, b, kids[first:i], main, mtype)], cur, out, ctx, False)
            if c is None:
                break
            a = b  # open a segment with this child
            if is_comment:
                main, mtype, mkind, pending = None, "", None, True
            else:
                main, mtype, mkind = c, t, tkind
            gend = c.end_byte
            first = i
            i += 1
        if cur is not None:
            out.append(cur)
        return out

    def _kind(self, node: Any, kind: Any) -> str | None:
        """Kind of ``node`` from its table entry ``kind`` (see :func:`symbol_table`).

        The one place the table's three forms are resolved, so every path gives a node the same kind: a string
        or None is final; :data:`NEEDS_KIND_OF` asks :func:`kind_of`; ``(kind, ids)`` is a ``when "@first"``
        rule checked on symbol ids (what :func:`kind_of` checks on type names, without building them).
        """
        if kind is None or kind.__class__ is str:
            return kind
        if kind is NEEDS_KIND_OF:
            return kind_of(self.spec, node, self.data)
        return kind[0] if node.is_named and node.named_child_count and \
            node.named_child(0).kind_id in kind[1] else None

    def _fit(self, a: int, b: int, main: Any, mtype: str, mkind: Any, cur: Span | None, out: list[Span],
             ctx: tuple[Any, ...], err: bool = False) -> Span:
        """Place a segment ``[a, b)`` that fits after ``cur``; returns the open span (closed ones go to ``out``).

        The one segment-placement routine (both :meth:`children` and :meth:`_place` call it), so the merge rule
        cannot drift between paths: the segment joins ``cur`` when the result fits and they are not two units,
        else opens a span. ``mkind`` is ``main``'s table kind (None when ``main`` is None: only comments).
        ``cur`` may be a piece from :meth:`_place` (partial, a deeper ``ctx``): once merged into it ends a node,
        and its context is what both share. ``err``: the segment holds a parse error (counted by the caller).
        """
        kind = mkind if mkind is None or mkind.__class__ is str else self._kind(main, mkind)
        uid = -1
        if kind is not None and self.by_type and kind in UNIT_KINDS:
            self._ids += 1
            uid = self._ids
        if cur is not None and (uid < 0 or cur.unit < 0) and not (self.isolate and (uid >= 0 or cur.unit >= 0)) \
                and (b - cur.start if self.ident else self.size(cur.start, b)) <= self.max:
            cur.end = b
            if main is not None:
                cur.types.append(mtype)
                if kind is not None:
                    cur.nodes.append((main, mtype, kind))
            if uid >= 0:
                cur.unit = uid
                cur.opens = True
            cur.partial = False
            if err:
                cur.error = True
            if cur.ctx is not ctx:
                cur.ctx = _common(cur.ctx, ctx)
            return cur
        if cur is not None:
            out.append(cur)
        cur = Span(a, b, uid, [(main, mtype, kind)] if kind is not None else [], ctx, False, err,
                   [mtype] if main is not None else [])
        cur.opens = uid >= 0
        return cur

    def _place(self, work: list[tuple[int, int, list[Any], Any, str]], cur: Span | None, out: list[Span],
               ctx: tuple[Any, ...], errors: bool) -> Span | None:
        """Place segments (a stack: ``pop()`` yields document order) after ``cur``; returns the open span.

        Closed spans go to ``out``. A segment that fits goes to :meth:`_fit`; one that does not fit is
        regrouped (comments + code), split along its children, or cut by lines (leaves and ERROR nodes).
        ``errors``: the subtree has parse errors, so nodes are checked for them.
        """
        size, max_size = self.size, self.max
        symbols = self.symbols
        while work:
            a, b, group, main, t = work.pop()
            fits = size(a, b) <= max_size
            if not fits and len(group) > 1:
                # comments + code too big together: let each member find its own place
                work.extend(reversed(self._segments(group, a, b, grouped=False)))
                continue
            # the table kind; an ERROR node's symbol is not in the table: kind_of decides
            mkind = None if main is None else symbols.get(main.kind_id, ERROR_ENTRY)[2]
            is_error = errors and main is not None and main.is_error  # ERROR; zero-width MISSING just fits
            if fits and not is_error:
                err = errors and main is not None and main.has_error
                if err:
                    self._count("error_regions")
                cur = self._fit(a, b, main, t, mkind, cur, out, ctx, err)
            else:
                cur = self._oversized(a, b, main, mkind, is_error, cur, out, ctx)
        return cur

    def _oversized(self, a: int, b: int, main: Any, mkind: Any, is_error: bool, cur: Span | None, out: list[Span],
                   ctx: tuple[Any, ...]) -> Span | None:
        """Place a segment that does not fit (or an ERROR node) after ``cur``, in pieces; returns the open span."""
        kind = self._kind(main, mkind)
        uid = -1
        if self.by_type and kind in UNIT_KINDS:
            self._ids += 1
            uid = self._ids
        if is_error:
            self._count("fallback_regions")
            return self._join(line_spans(self.data, a, b, self.size, self.max, ctx), cur, False, out)
        pieces, cur = self._split_node(a, b, main, kind, uid, cur, ctx)
        return self._join(pieces, cur, uid >= 0, out)

    def _split_node(self, a: int, b: int, main: Any, kind: str | None, uid: int, cur: Span | None,
                    ctx: tuple[Any, ...]) -> tuple[list[Span], Span | None]:
        """The pieces of an oversized node (along its children, or by lines for a leaf), and what is left of
        ``cur`` (None when it was carried into the first piece)."""
        # text before an oversized node (``x = ``, a heading, imports) flows into its first piece,
        # when it is glue (a piece of another unit never joins: it could mix two units)
        carry = cur is not None and cur.unit < 0 and cur.ctx is ctx and not cur.partial \
            and not (self.isolate and uid >= 0)
        start = cur.start if carry else a  # type: ignore[union-attr]
        if main is not None and main.child_count > 0:
            inner_ctx = ctx + (main,) if kind in UNIT_KINDS else ctx
            pieces = self.children(main, start, b, inner_ctx)
        else:
            self._count("oversized_leaves")
            pieces = line_spans(self.data, start, b, self.size, self.max, ctx, fallback=False)
        if carry:
            pieces[0].nodes = cur.nodes + pieces[0].nodes  # type: ignore[union-attr]
            pieces[0].types = cur.types + pieces[0].types  # type: ignore[union-attr]
            cur = None
        if uid >= 0:  # pieces of one unit: a unit starts its own chunk, its pieces share its id
            pieces[0].opens = True
            for p in pieces:
                p.unit = uid
        return pieces, cur

    def _join(self, pieces: list[Span], cur: Span | None, fresh: bool, out: list[Span]) -> Span | None:
        """Put ``pieces`` after ``cur`` (closed spans to ``out``); returns the open span. ``fresh``: the pieces
        start a unit, so the first never joins ``cur``."""
        if len(pieces) > 1:
            for p in pieces:
                p.partial = True
        for k, p in enumerate(pieces):
            # only the first piece may join what came before: the pieces were already merged one level down
            if k == 0 and cur is not None and not fresh and self.can_merge(cur, p) \
                    and not (self.isolate and (cur.unit >= 0 or p.unit >= 0)):
                cur = self.merge(cur, p)
            else:
                if cur is not None:
                    out.append(cur)
                cur = p
        return cur

    def can_merge(self, x: Span, y: Span) -> bool:
        if x.unit >= 0 and y.unit >= 0 and x.unit != y.unit:
            return False
        return self.size(x.start, y.end) <= self.max

    def merge(self, x: Span, y: Span) -> Span:
        sp = Span(x.start, y.end, x.unit if x.unit >= 0 else y.unit, x.nodes + y.nodes, _common(x.ctx, y.ctx),
                  x.fallback or y.fallback, x.error or y.error, x.types + y.types)
        sp.opens = x.opens or (y.opens and x.unit < 0)
        sp.partial = y.partial
        return sp


def fold_small(spans: list[Span], splitter: Splitter, min_size: int) -> list[Span]:
    """Fold pieces under ``min_size`` into the previous (else next) piece where merging is allowed."""
    if min_size <= 0 or len(spans) < 2:
        return spans
    size = splitter.size
    if size is _byte_span:  # ASCII text in chars: the same test with sizes as byte differences (no calls)
        max_size = splitter.max
        out = [spans[0]]
        last = spans[0]
        for sp in spans[1:]:
            if (sp.end - sp.start < min_size or last.end - last.start < min_size) \
                    and not (sp.opens and last.unit >= 0) \
                    and not (last.unit >= 0 and sp.unit >= 0 and last.unit != sp.unit) \
                    and sp.end - last.start <= max_size:  # splitter.can_merge(last, sp)
                last = out[-1] = splitter.merge(last, sp)
            else:
                out.append(sp)
                last = sp
        return out
    out = []
    for sp in spans:
        if out and (size(sp.start, sp.end) < min_size or size(out[-1].start, out[-1].end) < min_size) \
                and not (sp.opens and out[-1].unit >= 0) and splitter.can_merge(out[-1], sp):
            out[-1] = splitter.merge(out[-1], sp)
        else:
            out.append(sp)
    return out
